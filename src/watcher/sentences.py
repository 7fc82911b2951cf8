"""What the core says to a person, typed rather than worded: a `Sentence` is an English template
with `{named}` placeholders and the values that fill them (which may be Sentences themselves).

The core never speaks a chat's language: it raises and returns Sentences, and the front end says
each in the chat's language (the bot looks the template up in its catalog, `bot.i18n.say`).
`str()` of a Sentence is the English, for the command line and the logs.

`sentence("…", name=value)` makes one; its name is the keyword `make i18n` extracts the core's
templates by (`bot/locales/babel.cfg`), so a template must be a string literal there.

`SaysSentence` is the mixin of the core's errors a person reads (a refused rule, topic, schedule,
file or setting): the error is made from a Sentence, keeps it as `error.sentence` for the front end
to say, and its `str()` is the English, as the command line and the logs show it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Sentence:
    """A template in the source language and the values of its placeholders."""

    template: str
    values: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.template.format(**{name: str(v) for name, v in self.values.items()})


def sentence(template: str, /, **values: object) -> Sentence:
    """A `Sentence` of `template` filled with `values`."""
    return Sentence(template, values)


class SaysSentence(Exception):
    """An error whose message is a `Sentence`: `error.sentence` for the front end to say in the
    reader's language, `str(error)` the English."""

    sentence: Sentence

    def __init__(self, said: Sentence, *args: object) -> None:
        super().__init__(str(said), *args)
        self.sentence = said
