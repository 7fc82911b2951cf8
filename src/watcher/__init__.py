"""arxiv-watcher's core: poll arXiv for followed authors, keep every record, answer from the store.

The pipeline, one module a step: fetch (`fetch`) → parse (`parse`) → match (`match`) →
store (`store`) → deliver (front ends, such as `bot`). `poll` runs the cycle top to bottom.
This package never imports the chat framework.
"""

__version__ = "0.1.0"
