"""What arXiv says and how to ask it, and nothing of ours: the polite client (`fetch`),
the parsers of its API feed (`parse`), of OAI-PMH records (`oai`) and of listing pages
(`listing_page`), the paper record they all produce (`records`), its category taxonomy
(`taxonomy`), its LaTeX made readable (`latex`), its search queries (`queries`) and a paper's
BibTeX (`bibtex`).

Nothing here reads or writes the store, polls, or runs: a guard in
tests/core/test_architecture.py keeps `watcher.store`, `watcher.polling`, `watcher.runtime`,
`watcher.core` and `watcher.cli` out.
"""
