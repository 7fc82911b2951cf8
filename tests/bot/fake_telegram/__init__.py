"""Tests of the fake Bot API itself, driven by a real python-telegram-bot `Bot`: proof that
PTB and the fake agree."""
