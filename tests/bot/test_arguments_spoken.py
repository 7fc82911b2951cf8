"""The refusals of the commands' arguments in the chat's language (issue 31): each sentence the
bot's parsers word themselves is said in Simplified Chinese, and none is left in English under the
pseudo-locale; the example command under it never changes. Fed the bad inputs of
`test_arguments.py` and `test_refusals.py`.

The refusals that quote a core sentence (a name the rules refuse, a wrong ORCID iD, a bad time)
are said by `bot.i18n.say` where the core types them, and are not listed here.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pytest

from bot import arguments
from bot.handlers.common import refusal
from bot.i18n import speaking
from tests.harness.pseudo_locale import english_left, install_pseudo

CASES: list[tuple[str, Callable[[], object], str, str]] = [
    # (what, the call, its example, the zh-Hans sentence)
    (
        "unknown category in a rule",
        lambda: arguments.person_rule(["Wei", "Wang", "in", "cs.dcc"]),
        "/subscribe Dezun Dong",
        "'cs.dcc' 不是 arXiv 的分类；您是不是想输入 cs.DC, cs.CC 或 cs.SD？",
    ),
    (
        "a name too long to stop",
        lambda: arguments.person_rule(["a" * 101], command="unsubscribe"),
        "/unsubscribe Dezun Dong",
        "这个名字太长了（最多 100 个字符）。",
    ),
    (
        "eleven names",
        lambda: arguments.follow_parts("; ".join(f"Name{chr(97 + n)} Person" for n in range(11))),
        "/subscribe Dezun Dong; Yemao Xu",
        "一条消息里有 11 个名字；最多 10 个，用 ; 或换行分隔。",
    ),
    ("a word for a count", lambda: arguments.count(["abc"]), "/recent 10", "'abc' 不是数字。"),
    ("a count of 0", lambda: arguments.count(["0"]), "/recent 10", "N 必须在 1 到 20 之间。"),
    ("two counts", lambda: arguments.count(["3", "4"]), "/recent 10", "最多只能有一个数字。"),
    ("no category", lambda: arguments.subject([]), "/subject cs.DC,cs.NI 5", "没有给出分类。"),
    (
        "a number inside",
        lambda: arguments.subject(["cs.DC", "2", "3"]),
        "/subject cs.DC,cs.NI 5",
        "数字只能有一个，且放在最后。",
    ),
    (
        "no near category",
        lambda: arguments.subject(["cs.DC,cs.NX"]),
        "/subject cs.DC,cs.NI 5",
        "'cs.NX' 不是 arXiv 的分类；您是不是想输入 cs.NI, cs.NE 或 cs.NA？",
    ),
    (
        "several near categories",
        lambda: arguments.subject(["distributed"]),
        "/subject cs.DC,cs.NI 5",
        "",
    ),
    ("no paper", lambda: arguments.paper([]), "/paper 2604.01234", "没有给出论文。"),
    (
        "two papers",
        lambda: arguments.paper(["2604.01234", "2604.01235"]),
        "/paper 2604.01234",
        "一次只能查一篇论文。",
    ),
    (
        "not an id",
        lambda: arguments.paper(["hello"], command="authors"),
        "/authors 2604.01234",
        "'hello' 不是 arXiv 编号。",
    ),
    (
        "two words for on or off",
        lambda: arguments.on_off(["on", "off"], command="silent"),
        "/silent on",
        "只需一个词：on 或 off。",
    ),
    (
        "neither on nor off",
        lambda: arguments.on_off(["maybe"], command="preview"),
        "/preview on",
        "'maybe' 既不是 on 也不是 off。",
    ),
    (
        "no such format",
        lambda: arguments.message_format(["tiny"]),
        "/format compact",
        "'tiny' 不是可用的格式；请用 full（每篇论文单独一条消息）或 compact（每篇论文一行）。",
    ),
    (
        "no such digest",
        lambda: arguments.digest_schedule(["hourly"]),
        "/digest weekdays 8am",
        "日报的设置方式为 daily 时间、weekdays 时间、weekly 星期 时间，或 off。",
    ),
    (
        "unknown category in a search",
        lambda: arguments.search(["allreduce", "in", "hep-xx"]),
        "/search allreduce in cs.DC",
        "",
    ),
]
IDS = [case[0] for case in CASES]


def _refused(call: Callable[[], object]) -> arguments.Refused:
    with pytest.raises(arguments.Refused) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(("what", "call", "example", "chinese"), CASES, ids=IDS)
def test_each_refusal_is_said_in_chinese_with_its_example_unchanged(
    what: str, call: Callable[[], object], example: str, chinese: str
) -> None:
    with speaking("zh-Hans"):
        refused = _refused(call)
        shown = refusal(html.escape(refused.wrong), refused.example)
    assert refused.example == example
    if chinese:
        assert refused.wrong == chinese
    assert "不是" in refused.wrong or "。" in refused.wrong
    assert shown.endswith(f"\n例如：<code>{html.escape(example)}</code>")


@pytest.mark.parametrize(("what", "call", "example", "chinese"), CASES, ids=IDS)
def test_no_refusal_is_left_in_english(
    what: str, call: Callable[[], object], example: str, chinese: str
) -> None:
    with speaking(install_pseudo()):
        refused = _refused(call)
        shown = refusal(html.escape(refused.wrong), refused.example)
    assert english_left(shown) == []
    assert refused.example == example


def test_the_english_refusals_stay_as_they_were() -> None:
    refused = _refused(lambda: arguments.subject(["distributed"]))
    assert refused.wrong.startswith("'distributed' is not an arXiv category; did you mean cs.DC")
    assert refusal(refused.wrong, refused.example).endswith(
        "\nFor example: <code>/subject cs.DC,cs.NI 5</code>"
    )
    assert refusal("Nobody.", "/watch x", lead="Start with:") == (
        "Nobody.\nStart with: <code>/watch x</code>"
    )
