"""The chat's settings, its digest and the shared answers in the chat's language (issue 31): the
pure renderers of /subscriptions' settings block, /quiet, /digest, /import's question, the
refusals of non-administrators and the small text helpers, in Simplified Chinese and under the
pseudo-locale (no English sentence left; zone names, commands and examples kept as they are).
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest

from bot.handlers.budget import minutes
from bot.handlers.common import Place, and_more, fit_reply, papers, refusal, when
from bot.handlers.digest import describe, schedule_text
from bot.handlers.permissions import DIGEST, could_not_check, only_admins
from bot.handlers.speaking import quiet_text, settings_lines
from bot.handlers.takeout import ask, done
from bot.i18n import speaking
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import DigestSchedule
from watcher.core.takeout import ImportPlan
from watcher.core.views import DigestSettings, SpeakingSettings
from watcher.kinds import MessageFormat

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
SHANGHAI = ZoneInfo("Asia/Shanghai")
SPEAKING = SpeakingSettings(
    paused=True,
    paused_since=datetime(2026, 12, 4, 1, 0, tzinfo=UTC),
    quiet=QuietHours(22 * 60, 7 * 60),
    quiet_from=datetime(2026, 12, 4, 14, 0, tzinfo=UTC),
    quiet_until=datetime(2026, 12, 4, 23, 0, tzinfo=UTC),
    silent=True,
    format=MessageFormat.COMPACT,
    preview=False,
    waiting=3,
)
DIGEST_ON = DigestSettings(
    zone_name="Asia/Shanghai",
    zone=SHANGHAI,
    schedule=DigestSchedule.weekly(time(8, 0), 0),
    next_at=datetime(2026, 12, 7, 0, 0, tzinfo=UTC),
    held=2,
)
DIGEST_OFF = DigestSettings("Asia/Shanghai", SHANGHAI, None, None, 0)
PLAN = ImportPlan(
    adds=(),
    skipped=(),
    settings={"silent": "on", "paused": "yes"},
    settings_skipped=(),
    new_follows=0,
)


def _said() -> list[str]:
    """Every text rendered here, in the language speaking now."""
    here = Place(1, 7).here
    return [
        *settings_lines(SPEAKING, DIGEST_ON, revisions=True, now=NOW),
        *settings_lines(SPEAKING, DIGEST_OFF, revisions=False, now=NOW),
        quiet_text(SPEAKING, DIGEST_ON, now=datetime(2026, 12, 4, 15, 0, tzinfo=UTC)),
        describe(DIGEST_ON),
        describe(DIGEST_OFF),
        schedule_text(DigestSchedule(time(8, 0))),
        only_admins("group"),
        only_admins("channel", DIGEST),
        could_not_check("supergroup"),
        refusal(only_admins("group"), "/digest"),
        ask(PLAN, here).html,
        done(PLAN, here),
        when(None),
        when(NOW, SHANGHAI),
        papers(1),
        minutes(90),
        and_more(4),
        fit_reply("\n".join(["<b>a line</b>"] * 30), limit=100),
    ]


def test_the_settings_are_said_in_chinese() -> None:
    with speaking("zh-Hans"):
        lines = settings_lines(SPEAKING, DIGEST_ON, revisions=True, now=NOW)
        assert lines[0] == "<b>设置</b>"
        assert lines[1] == "日报：每周 周一 08:00，下一期 2026年12月7日 08:00 CST。"
        assert lines[2] == "时区：Asia/Shanghai（/timezone）。"
        assert lines[3] == "语言：简体中文（/language）。"
        assert lines[4] == (
            "静音时段：22:00-07:00（Asia/Shanghai）；下次从 2026年12月4日 22:00 CST 开始。"
        )
        assert lines[5] == "暂停：是，自 2026年12月4日 09:00 CST 起，3 篇论文等待中（/resume）。"
        assert lines[6:] == [
            "格式：简洁（/format）。",
            "提示音：关闭（/silent）。",
            "链接预览：关闭。",
            "论文新版本：开启（用 /revisions off 更改）。",
        ]
        assert describe(DIGEST_OFF).startswith("日报：关闭；每篇新论文单独推送一条消息。")
        assert "<code>/digest daily 8am</code>" in describe(DIGEST_OFF)


def test_refusals_and_helpers_are_said_in_chinese() -> None:
    with speaking("zh-Hans"):
        assert only_admins("group") == "只有本群组的管理员才能更改订阅内容。"
        assert only_admins("channel", DIGEST) == "只有本频道的管理员才能更改日报设置。"
        assert Place(1, 7).here == "本话题" and Place(1).here == "本聊天"
        assert papers(3) == "3 篇论文" and minutes(90) == "2 分钟" and when(None) == "从未"
        assert when(NOW, SHANGHAI) == "2026年12月4日 20:00 CST"
        assert and_more(4) == "……还有 4 项。"
        assert refusal("无。", "/subscribe Dezun Dong") == (
            "无。\n例如：<code>/subscribe Dezun Dong</code>"
        )
        assert (
            done(PLAN, Place(1).here)
            == "✅ 已导入：本聊天已设置 <b>silent</b> on, <b>paused</b> yes。"
        )


@pytest.mark.parametrize("index", range(len(_said())))
def test_no_english_sentence_is_left(index: int) -> None:
    with speaking(install_pseudo()):
        text = _said()[index]
    assert english_left(text, exempt=["Asia/Shanghai", "silent", "paused", "a line"]) == []


def test_english_stays_as_it_was() -> None:
    lines = settings_lines(SPEAKING, DIGEST_ON, revisions=False, now=NOW)
    assert lines[1] == "Digest: weekly on Monday at 08:00, next 7 Dec 2026, 08:00 CST."
    assert lines[3] == "Language: English (/language)."
    assert lines[5] == "Paused: yes, since 4 Dec 2026, 09:00 CST, 3 papers waiting (/resume)."
    assert lines[-1] == "New versions of papers: off (/revisions on to change)."
    assert only_admins("group") == "Only this group's administrators can change what it follows."
    assert done(PLAN, "This chat") == (
        "✅ Imported: this chat has <b>silent</b> on, <b>paused</b> yes."
    )
