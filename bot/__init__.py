"""The Telegram front end of arxiv-watcher: commands, notifications and delivery."""
