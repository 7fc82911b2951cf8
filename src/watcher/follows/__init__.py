"""Follow rules and matching, pure: what a chat may follow and which papers are its.

Rules as people write them (`rules`), identities (`identity`), topics (`topics`, written as
`topic_syntax` reads them), people's names (`names`, with `folding`), a follow as the service sees
it (`followed`), the match of a record to its follows (`match`), the homonym judgement (`homonyms`),
the words a chat never wants to see (`excluded_words`), and the follow lists an export writes and an
import reads (`follow_list`, `follow_opml`).

Nothing here reads or writes the store, polls, or runs (guarded in
tests/core/test_architecture.py).
"""
