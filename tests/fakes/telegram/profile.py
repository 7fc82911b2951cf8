"""The bot's profile in each language, as the Bot API keeps it: the command menus
(setMyCommands, getMyCommands, deleteMyCommands, by scope and `language_code`), and the texts:
setMyDescription (at most
512 characters) and setMyShortDescription (at most 120), read back with getMyDescription and
getMyShortDescription (a `BotDescription` / `BotShortDescription` object).

Grounded in the Bot API reference (core.telegram.org/bots/api, "setMyDescription" and the three
methods beside it): an empty text removes that language's text; a language with none set reads
back as the empty string here (the reference does not say whether the server falls back to the
default; the bot sets a language's text whenever the one read differs, so either way it sets
it). Each set is counted, so tests can see that an unchanged text is not set again.
"""

from __future__ import annotations

import json
import threading
from collections import Counter

from tests.fakes.telegram.request_params import Params, json_param
from tests.fakes.telegram.state import JsonDict, TelegramState, bad_request

LIMITS = {"description": 512, "short_description": 120}


class Profile:
    """The command menus (in the shared state, by scope and language code) and the description
    and short description, by language code ("" for the default)."""

    def __init__(self, state: TelegramState) -> None:
        self.state = state
        self._lock = threading.Lock()
        self._texts: dict[tuple[str, str], str] = {}
        self.sets: Counter[tuple[str, str]] = Counter()  # (field, language code) -> sets

    def text(self, field: str, language_code: str = "") -> str:
        with self._lock:
            return self._texts.get((field, language_code), "")

    def _set(self, field: str, params: Params) -> bool:
        text = params.get(field, "")
        if len(text) > LIMITS[field]:
            raise bad_request(f"{field.replace('_', ' ')} is too long")
        key = (field, params.get("language_code", ""))
        with self._lock:
            self.sets[key] += 1
            if text:
                self._texts[key] = text
            else:
                self._texts.pop(key, None)
        return True

    def set_description(self, params: Params) -> bool:
        return self._set("description", params)

    def set_short_description(self, params: Params) -> bool:
        return self._set("short_description", params)

    def get_description(self, params: Params) -> JsonDict:
        return {"description": self.text("description", params.get("language_code", ""))}

    def get_short_description(self, params: Params) -> JsonDict:
        field = "short_description"
        return {field: self.text(field, params.get("language_code", ""))}

    @staticmethod
    def _commands_key(params: Params) -> str:
        scope = json_param(params, "scope", "bot command scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True) + "|" + params.get("language_code", "")

    def set_my_commands(self, params: Params) -> bool:
        commands = json_param(params, "commands", "bot commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH" if commands else "commands is empty")
        for command in commands:
            name = str(command.get("command", "")) if isinstance(command, dict) else ""
            valid_name = 1 <= len(name) <= 32 and all(
                c.islower() or c.isdigit() or c == "_" for c in name
            )
            if not valid_name or not name.isascii():
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise bad_request("command description is empty")
        key = self._commands_key(params)
        with self.state.lock:
            self.state.commands[key] = [dict(c) for c in commands]
            self.state.touch()
        return True

    def get_my_commands(self, params: Params) -> list[JsonDict]:
        key = self._commands_key(params)
        with self.state.lock:
            return [dict(c) for c in self.state.commands.get(key, [])]

    def delete_my_commands(self, params: Params) -> bool:
        key = self._commands_key(params)
        with self.state.lock:
            self.state.commands.pop(key, None)
            self.state.touch()
        return True
