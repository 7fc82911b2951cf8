"""Ways of finding papers: each one a module behind the one small interface the poll step uses.

    api      (`watcher.sources.api`)      arXiv API queries, about 30 names OR-ed a request
    harvest  (`watcher.sources.harvest`)  arXiv's OAI-PMH feed read once a cycle, matched locally
    (later)                               per-person author feeds (arxiv.org/a/<id>.atom)

A source is given the follows it serves, a `save` callback (the poll step's store-in-parts) and
the cycle's report; it fetches, matches with `watcher.match`, saves, and records its own
successes and failures in the store. Which follows go to which source is the poll step's
choice (`WATCH_SOURCE`); a follow is a rule, and all rules are matched in `watcher.match`.
"""
