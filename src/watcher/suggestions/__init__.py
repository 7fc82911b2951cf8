"""Suggestions: papers of a batch a chat may want, ranked by what the chat already reads (pure).

- `terms`: a paper's terms, the stems of its title and abstract, counted and weighted.
- `frequencies`: in how many papers each term occurs, kept globally; a term's idf.
- `profile`: a chat's profile, a sparse vector of term weights updated paper by paper.
- `scoring`: a batch ranked against a profile, with a threshold, and why each was suggested;
- `shown`: a suggestion as a chat is shown it (the stored paper, why, its score).

The method is TF-IDF with a centroid: a profile is the recency-weighted sum of its papers' term
weights, compared by cosine. It is plain Python (and PyStemmer, which topics already use): no
scikit-learn (over 100 MB resident alone), no model to download. bench/suggestions.py measures
it on the real sample (its figures are in bench/README.md).

How the store holds it (migration 0034, `watcher.store.paper_terms`, `profiles`, `suggesting`,
`suggestion_outbox`; the batch hook is `watcher.polling.suggested_batch`):
- each paper's term counts (`terms.paper_terms`, title and abstract only) are computed once and
  kept by arXiv id (`paper_terms`, a table beside `paper`, so that no read of papers carries
  them), when a batch first reads the paper or a profile or an explanation first needs it (the
  save keeps none); a revision that changes the title or abstract of a paper kept replaces them;
- the document frequencies are one row a term (term, papers) plus the number of papers counted,
  incremented by whoever keeps a paper's terms first, in that transaction: every paper of every
  batch read whole is counted, stored or not (`frequencies.DocumentFrequencies.add`);
- a chat's profile is one row (chat, weights as JSON, example ids as JSON, updated at), kept
  from the first time the chat needs one (suggestions on, its top papers asked, 👍/👎), built
  then from what it was told in the last 365 days. Announcing a paper to a chat with a profile
  adds its weights at the announcement's instant (`profile.Profile.add`, then `Profile.prune`
  once grown a quarter past its size) in the transaction that queues the delivery; 👍 and 👎
  add with their `profile.Reading`; a daily step takes out (`Profile.remove`) what went in 365
  days before. Nothing is rebuilt per batch, and the weights never need rescaling
  (`profile.growth`);
- after a batch is read whole, `scoring.Batch` is prepared once from its papers' weights, then
  the destinations with suggestions on are read a page at a time, each with its chat's profile,
  and ranked (`scoring.scored`); papers already told to the destination, and those its chat's
  excluded words hold, are dropped, and only the shown suggestions are explained
  (`scoring.explain`, with the example papers' stored weights).
Everything is text, integers and floats, the same on SQLite and PostgreSQL.
"""
