"""Tests of src/watcher without Telegram: parsing, matching, polling, the store, the CLI."""
