"""Tests that start the real service (`watcher run`) as a subprocess against the fakes."""
