"""Tests of the Telegram side (bot/) through the fake Bot API: handlers, sender, rendering."""
