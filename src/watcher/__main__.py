"""`python -m watcher` is the `arxiv-watcher` command."""

import sys

from watcher.cli import main

sys.exit(main())
