"""The Telegram front end of arxiv-watcher: commands, notifications and delivery.

Nothing in `watcher` imports this package; the service finds it through the
`arxiv_watcher.frontends` entry point.
"""

import os
import sys

# PTB 22 warns on every `RetryAfter` (building one, reading `retry_after`) unless the process opts
# into timedelta periods, the behaviour PTB 23 makes the default. Opt in before PTB is imported.
os.environ.setdefault("PTB_TIMEDELTA", "true")

# Our webhook listener is our own (`bot.webhook`, imported only in webhook mode). PTB's would
# import tornado whenever `telegram.ext` is imported (about 3 MB resident, bench/README.md): marked
# missing here, PTB takes its webhook server for not installed and never imports it.
sys.modules.setdefault("telegram.ext._utils.webhookhandler", None)  # type: ignore[arg-type]
