"""Suggestions: papers of a batch a chat may want, ranked by what the chat already reads (pure).

- `terms`: a paper's terms, the stems of its title and abstract, counted and weighted.
- `frequencies`: in how many papers each term occurs, kept globally; a term's idf.
- `profile`: a chat's profile, a sparse vector of term weights updated paper by paper.
- `scoring`: a batch ranked against a profile, with a threshold, and why each was suggested.

The method is TF-IDF with a centroid: a profile is the recency-weighted sum of its papers' term
weights, compared by cosine. It is plain Python (and PyStemmer, which topics already use): no
scikit-learn (over 100 MB resident alone), no model to download. bench/suggestions.py measures
it on the real sample (its figures are in bench/README.md).

How the store is to hold it (no table exists yet; this is the design for the wiring):
- each paper's term weights (`terms.term_frequencies`, title and abstract only) are computed
  once, when the paper is first saved, and kept with it (a JSON column on the paper); a revision
  that changes the abstract replaces them;
- the document frequencies are one row a term (term, papers) plus the number of papers counted,
  incremented in the transaction that saves a new paper (`frequencies.DocumentFrequencies.add`);
- a chat's profile is one row (chat, weights as JSON, example ids as JSON, updated at). Announcing
  a paper to the chat adds its weights at the announcement's instant (`profile.Profile.add`, then
  `Profile.prune`) in the transaction that queues the delivery; 👍 and 👎 add with their
  `profile.Reading`; a daily step takes out (`Profile.remove`) what was announced 365 days
  before. Nothing is rebuilt per batch, and the weights never need rescaling (`profile.growth`);
- after a batch is read whole, `scoring.Batch` is prepared once from its papers' stored weights,
  then the profiles of the chats with suggestions on are read a few at a time and ranked
  (`scoring.rank`); papers already told to the chat are dropped, and only the shown suggestions
  are explained (`scoring.explain`, with the example papers' stored weights).
Everything is text, integers and floats, the same on SQLite and PostgreSQL.
"""
