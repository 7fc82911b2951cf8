"""`python -m watcher` is the `arxiv-watcher` command."""

import sys

from watcher.cli.command_line import main

sys.exit(main())
