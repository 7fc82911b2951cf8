"""Pure functions of a given instant: when arXiv announces (`announcements`), when the
structured sources poll (`poll_calendar`), when a digest is due in a chat's (forum
topic's) time zone (`schedule`), and quiet hours (`quiet_hours`). None reads a clock: the
instant is an argument.

Nothing here reads or writes the store, polls, or runs (guarded in
tests/core/test_architecture.py).
"""
