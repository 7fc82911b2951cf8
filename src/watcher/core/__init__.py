"""The core's one face: what the bot, the CLI and the console front end may use.

`Core` is built once at start (`watcher.runtime.service`) and handed to the front end. Chat actions
that change state are one call each on it, with a typed outcome; read-only questions go through it
too. The front ends keep parsing, rendering and their own protocol.
"""

from watcher.core.face import Core

__all__ = ["Core"]
