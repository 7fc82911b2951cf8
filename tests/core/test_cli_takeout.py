"""`arxiv-watcher export` and `import` (issue 21, item 5) on a real database, through the CLI's
`main(argv)` in this process: the operator's own list (WATCH_AUTHORS and what `follow` and
`watch` added) and a chat's, exported and imported back exactly."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.harness.cli_helpers import SETTING_NAMES
from watcher.cli.command_line import main
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.reading_list import ReadingLists

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    """arXiv, which knows the author ids the tests import (the CLI asks it, issue 29.3)."""
    with FakeArxiv(dezun_dong_records()) as server:
        claimed = [dezun_dong_records()[0].arxiv_id]
        server.claim("dong_d_1", claimed)
        server.claim("0000-0002-1825-0097", claimed)
        yield server


@pytest.fixture
def cli(
    fake: FakeArxiv,
    tmp_path: Path,
    database_url: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    """`main(argv)` with a clean environment of settings; its exit code, stdout and stderr."""
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    root = logging.getLogger()  # main() sets logging up on this test's captured streams
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("ARXIV_API_URL", fake.url)
    monkeypatch.setenv("ARXIV_AUTHOR_FEED_URL", fake.author_feed_url)
    monkeypatch.setenv("ARXIV_MIN_INTERVAL", "0")
    monkeypatch.setenv("ARXIV_MAX_RETRIES", "1")
    monkeypatch.setenv("WATCH_AUTHORS", "Dezun Dong|D. Dong; arxiv:dong_d_1")

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def follow_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_the_operators_list_exports_and_imports_into_a_chat_and_back(
    cli: Cli, engine: Engine, tmp_path: Path
) -> None:
    assert cli("watch", '"remote direct memory access" RDMA in cs.DC')[0] == 0
    code, listed, _ = cli("export")
    assert code == 0
    assert follow_lines(listed) == [
        'watch "remote direct memory access" rdma in cs.DC',
        "subscribe Dezun Dong|D. Dong",
        "subscribe arxiv:dong_d_1",
    ]
    assert "# timezone" not in listed  # settings are a chat's
    exported = tmp_path / "mine.txt"
    exported.write_text(listed + "# after the follows: no setting\nLi\n", encoding="utf-8")

    Chats(engine).seen(77, kind="private")
    code, out, _ = cli("import", str(exported), "--chat", "77")
    assert code == 0
    assert out.splitlines()[:3] == [
        'follow  "remote direct memory access" rdma in cs.DC',
        "follow  Dezun Dong",
        "follow  arxiv:dong_d_1",
    ]
    assert "skip    line 8: Li: 'Li': a name needs a given name and a family name" in out
    assert len(Chats(engine).subscribed_ids(77)) == 3
    code, chat_list, _ = cli("export", "--chat", "77")
    assert follow_lines(chat_list) == follow_lines(listed)
    assert "# timezone: UTC\n# digest: off\n# revisions: off\n" in chat_list

    code, again, _ = cli("import", str(exported), "--chat", "77")  # nothing new the second time
    assert code == 0
    assert again.count("followed here already") == 3
    assert again.rstrip().endswith("Nothing to import.")


def test_a_chats_reading_list_goes_out_and_comes_in_with_its_follows(
    cli: Cli, engine: Engine, tmp_path: Path
) -> None:
    """Issue 30: /saved travels in the file, one `save ID  # title` line a paper (after the
    settings, `suggest` the last since issue 32)."""
    chats = Chats(engine)
    for chat_id in (77, 78):
        chats.seen(chat_id, kind="private")
    lists = ReadingLists(engine)
    lists.save(77, "2611.04242", title="Older one", now=datetime(2026, 12, 1, tzinfo=UTC))
    lists.save(77, "hep-th/9901001", title="Newer one", now=datetime(2026, 12, 2, tzinfo=UTC))
    code, listed, _ = cli("export", "--chat", "77")
    assert code == 0
    assert follow_lines(listed) == [
        "save hep-th/9901001  # Newer one",
        "save 2611.04242  # Older one",
    ]
    exported = tmp_path / "saved.txt"
    exported.write_text(listed + "save 2611.04242\nsave 12345\n", encoding="utf-8")

    code, out, _ = cli("import", str(exported), "--chat", "78")
    assert code == 0
    assert out.splitlines() == [
        "save    hep-th/9901001  Newer one",
        "save    2611.04242  Older one",
        "skip    line 17: save 12345: '12345' is not an arXiv id",
        "skip    line 16: save 2611.04242: twice in the file",
        "Imported 0 follow(s) and saved 2 paper(s).",
    ]
    assert [e.arxiv_id for e in lists.all_saved(78)] == ["hep-th/9901001", "2611.04242"]

    code, mine, _ = cli("import", str(exported))  # the operator's list keeps no papers
    assert code == 0
    assert "skip    line 14: save hep-th/9901001: a reading list is a chat's" in mine
    assert mine.rstrip().endswith("Nothing to import.")


def test_an_opml_import_follows_as_the_operator_and_unknown_chats_are_refused(
    cli: Cli, engine: Engine, tmp_path: Path
) -> None:
    opml = tmp_path / "feeds.opml"
    opml.write_text(
        '<opml version="2.0"><head><setting name="digest" value="daily 08:00"/></head><body>'
        '<outline text="Xu" xmlUrl="https://export.arxiv.org/api/query?search_query=au:%22Yemao+Xu%22"/>'
        '<outline text="ORCID" xmlUrl="https://arxiv.org/a/0000-0002-1825-0097.atom"/>'
        "</body></opml>",
        encoding="utf-8",
    )
    code, out, _ = cli("import", str(opml))
    assert code == 0
    assert "follow  Yemao Xu\nfollow  ORCID 0000-0002-1825-0097\n" in out
    assert "skip    header: digest: daily 08:00: settings are a chat's" in out
    assert "WATCH_AUTHORS is the operator's list at each start" in out
    watched = {f.key for f in Store(engine).followed() if f.watched}
    assert {"xu yemao", "orcid:0000-0002-1825-0097"} <= watched

    code, _, err = cli("export", "--chat", "12345", "--opml")
    assert code == 2
    assert "no chat 12345 is known; a chat's id is what /id answers in it" in err
    (tmp_path / "bad.opml").write_bytes(b"<opml><body>")
    code, _, err = cli("import", str(tmp_path / "bad.opml"))
    assert code == 2
    assert "That OPML file cannot be read: it is not well-formed XML" in err


def test_an_author_id_arxiv_does_not_know_is_skipped_with_the_reason(
    cli: Cli, engine: Engine, tmp_path: Path
) -> None:
    """Issue 29.3: as `follow` and /subscribe refuse it, and nothing of it is followed."""
    listed = tmp_path / "list.txt"
    listed.write_text("subscribe arxiv:nobody_n_1\nsubscribe arxiv:dong_d_1\n", encoding="utf-8")
    code, out, _ = cli("import", str(listed))
    assert code == 0
    assert (
        "skip    line 1: arxiv:nobody_n_1: arXiv knows no author id nobody_n_1; the id is the "
        "end of an arXiv author page's address\n"
    ) in out
    assert Store(engine).find_identity("arxiv:nobody_n_1") is None
    assert Store(engine).find_identity("arxiv:dong_d_1") is not None
