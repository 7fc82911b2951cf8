"""The Telegram front end of arxiv-watcher: commands, notifications and delivery.

Nothing in `watcher` imports this package; the service finds it through the
`arxiv_watcher.frontends` entry point.
"""

import os

# PTB 22 warns on every `RetryAfter` (building one, reading `retry_after`) unless the process opts
# into timedelta periods, the behaviour PTB 23 makes the default. Opt in before PTB is imported.
os.environ.setdefault("PTB_TIMEDELTA", "true")
