"""README and /help say what the bot does, command by command (issue 30): the README's table of
commands and /help's command table name the same commands, and every example either of them
gives, sent to the running bot in that order, is done and not refused. In a group, a reader who
is not an administrator is refused exactly the commands the README's "Who may do what, where"
calls changing the chat, and may send alone the ones it says only show a setting then.

A refusal is what `bot.handlers.common.refusal` writes with its default lead, a line
"For example: <code>...</code>" after the sentence saying what was wrong; the other leads
("Make one with:", "See them with:", ...) answer a state of the chat, not a wrong command.
"""

from __future__ import annotations

import re

from bot.handlers.commands import COMMAND_TABLE, command_help
from bot.i18n import speaking
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.bots import GROUP, STILL_CHECKING, USER, Bot
from tests.harness.paths import REPO

_ROW = re.compile(r"^\| `/(\w+)[^`]*` \|.*\| `(/[^`]+)` \|$", re.MULTILINE)
_CODE = re.compile(r"<code>(/[^<]+)</code>")
# Commands the README's table lists that are the operator's endpoints, not the bot's.
_NOT_IN_TELEGRAM = {"metrics", "healthz", "readyz"}
ADMIN, READER = 5, 7  # a group's administrator, and a reader who is not one


def readme_rows() -> list[tuple[str, str]]:
    """(command, example) of each row of the README's table of the bot's commands."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### In Telegram") :]
    table = section[: section.index("\n\n", section.index("| command |"))]
    return [(m.group(1), m.group(2)) for m in _ROW.finditer(table)]


def help_examples() -> list[str]:
    """Every example command /help COMMAND shows in English, in the table's order."""
    examples: list[str] = []
    with speaking("en"):
        for command in COMMAND_TABLE:
            examples += [m.group(1) for m in _CODE.finditer(command_help(command))]
    return examples


def test_the_readme_and_help_name_the_same_commands() -> None:
    in_readme = {name for name, _ in readme_rows()} - _NOT_IN_TELEGRAM
    in_help = {command.name for command in COMMAND_TABLE}
    assert in_readme, "the README's table of commands was not found"
    assert sorted(in_help - in_readme) == [], "in /help, missing from the README"
    assert sorted(in_readme - in_help) == [], "in the README, unknown to /help"


def test_every_example_is_a_command_of_the_table() -> None:
    names = {command.name for command in COMMAND_TABLE}
    examples = [example for _, example in readme_rows()] + help_examples()
    unknown = [e for e in examples if e[1:].split(" ", 1)[0].split("@", 1)[0] not in names]
    assert unknown == []


async def test_every_example_of_the_readme_and_help_is_done_not_refused(bot: Bot) -> None:
    # The examples name real arXiv: Dezun Dong's author page, a Wei Wang in cs.DC, and a paper
    # 2604.01234 (one of April 2026's some 28,000).
    bot.arxiv.claim("dong_d_1", [record.arxiv_id for record in dezun_dong_records()])
    bot.arxiv.add(make_record(arxiv_id="2605.00042", authors=["Wei Wang"]))
    bot.arxiv.add(make_record(arxiv_id="2604.01234", authors=["Ann Other", "Dezun Dong"]))
    await bot.service.poller.poll()  # the watched author's papers are stored, as after a day
    refused: dict[str, str] = {}
    examples = [example for _, example in readme_rows()] + help_examples()
    for example in dict.fromkeys(examples):  # each once, in order
        answer = await answer_to(bot, example)
        if "\nFor example: " in answer or answer.startswith("For example: "):
            refused[example] = answer
    assert refused == {}, "\n\n".join(f"{k}\n  -> {v}" for k, v in refused.items())


async def answer_to(bot: Bot, command: str, chat: int = USER, user: int | None = None) -> str:
    """The text of the bot's answer to `command` (sent in `chat` by `user`); a file it sends
    (as /export's) is an answer too, read as its caption."""
    telegram = bot.telegram
    messages, files = len(telegram.sent(chat)), len(telegram.documents(chat))
    telegram.user_sends(chat, command, user_id=user)
    await bot.until(
        lambda: len(telegram.sent(chat)) > messages or len(telegram.documents(chat)) > files
    )
    if len(telegram.sent(chat)) > messages:  # one that may grow, name by name: when whole
        await bot.until(lambda: STILL_CHECKING not in bot.current_text(chat, messages))
        return bot.current_text(chat, messages)
    return telegram.documents(chat)[files].caption or ""


def changing_commands() -> set[str]:
    """The commands the README's "Who may do what, where" calls changing the chat."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index('"Changing the chat" is ')
    sentence = readme[start : readme.index("(alone,", start)]
    return set(re.findall(r"`/(\w+)`", sentence))


def showing_alone() -> set[str]:
    """The changing commands that, the README says, only show the setting when sent alone."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("(alone, ", readme.index('"Changing the chat" is '))
    return set(re.findall(r"`/(\w+)`", readme[start : readme.index(")", start)]))


async def test_in_a_group_exactly_the_changing_commands_are_refused_to_a_reader(bot: Bot) -> None:
    """Each command's README example, sent by a group's reader who is not an administrator: the
    ones the README calls changing are refused as only administrators' (and change nothing),
    the others are answered."""
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [ADMIN])
    await answer_to(bot, "/pause", GROUP, ADMIN)  # so that a /resume would change it
    changing = changing_commands() - {"import"}  # alone, /import only says how (see below)
    examples = dict(readme_rows())  # the last example of each command
    refused, answered = set(), set()
    for name, example in examples.items():
        if name in _NOT_IN_TELEGRAM:
            continue
        text = await answer_to(bot, example, GROUP, READER)
        (refused if text.startswith("Only this group's administrators") else answered).add(name)
    assert bot.chats.subscribed_ids(GROUP) == []
    assert "import" in answered  # the question a file gets is the administrators': test_who_may.py
    assert sorted(refused) == sorted(changing & set(examples))
    alone = showing_alone()
    assert {"digest", "timezone"} <= alone <= changing
    for name in alone:
        shown = await answer_to(bot, f"/{name}", GROUP, READER)
        assert not shown.startswith("Only this group's administrators"), (name, shown)
