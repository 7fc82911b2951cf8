"""A person's first day with the bot (issue 19), as one conversation through the fake Bot API:
/start and /help, a quoted name and a typo, two names in one message, a topic and a category,
/recent, /subject and /paper with a link, /digest, /timezone and /unsubscribe.

Nothing in it may refuse for want of budget, no reply may hold a Markdown backtick, and every
refusal stays short and names the fix.
"""

from __future__ import annotations

from tests.harness.bots import USER, Bot
from tests.harness.paths import REPO
from watcher.follows.rules import MAX_RULE_CATEGORIES
from watcher.store.budgets import FIRST_ALLOWANCE

MOST = 300  # characters of a refusal, as the person reads it


async def test_a_first_day_reads_like_a_conversation(bot: Bot) -> None:
    said: list[tuple[str, str]] = []

    async def say(text: str) -> str:
        answer = await bot.ask_whole(USER, text)
        said.append((text, answer))
        return answer

    assert (await say("/start")).startswith("👋 I watch arXiv")
    help_text = await say("/help")
    assert "Following" in help_text and "/help watch" in help_text.replace("/help COMMAND", "")
    assert (await say('/subscribe "Dezun Dong"')).startswith("✅ This chat now follows Dezun Dong")
    typo = await say("/subscribe Dezun Dnog")
    assert typo.startswith("arXiv lists no papers by Dezun Dnog")
    assert "check the spelling" in typo and "For example: /subscribe Dezun Dong" in typo
    two = (await say("/subscribe Yemao Xu\nDezun Dong")).split("\n")
    assert two[0].startswith("✅ This chat now follows Yemao Xu")
    assert two[1].startswith("This chat already follows Dezun Dong")
    assert (await say("/watch InfiniBand in cs.NI")).startswith("✅")
    assert (await say("/watch in cs.DC")).startswith("✅")  # the whole category
    await bot.service.poller.poll()  # the scheduler's next round fetches the histories

    assert "your follows" in await say("/recent")
    assert (await say("/subject cs.DC")).startswith("cs.DC")
    paper = await say("/paper https://arxiv.org/abs/2604.03117")
    assert paper.startswith("📄 Paper · arXiv:2604.03117v1")
    assert (await say("/digest daily 8am")).startswith("✅ Digest: daily at 08:00.")
    assert (await say("/timezone Berlin")).startswith("✅ Time zone: Europe/Berlin;")
    gone = await say("/unsubscribe Yemao Xu")
    assert gone.startswith("✅ This chat no longer follows Yemao Xu")

    for text, answer in said:
        assert "enough new names" not in answer, (text, answer)  # never locked out
        assert "`" not in answer, (text, answer)
    refusals = {text: answer for text, answer in said if "\nFor example: " in answer}
    # Only the typo was refused; it names its fix, briefly.
    assert list(refusals) == ["/subscribe Dezun Dnog"]
    for answer in refusals.values():
        assert len(answer) <= MOST and answer.count("\n") == 1, answer


def test_the_readme_walks_the_same_first_day_with_the_codes_numbers() -> None:
    readme = (REPO / "README.md").read_text()
    first = readme[readme.index("## Your first five minutes") :]
    first = first[: first.index("\n## ")]
    assert f"A new chat may start {FIRST_ALLOWANCE} follows at once" in first
    assert f"in up to {MAX_RULE_CATEGORIES} categories" in " ".join(first.split())
    for command in ("/start", "/help", "/subscribe", "/watch", "/recent", "/subject", "/paper",
                    "/digest", "/timezone", "/unsubscribe"):  # fmt: skip
        assert f"`{command}" in first, command
