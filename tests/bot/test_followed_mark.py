"""The ★ in front of a followed author: one function writes it (`bot.render.paper.author_name`),
and a paper, a list entry, a digest entry and a compact line all mark the same name with it.
Pure rendering, no Telegram; the "written once" check reads the bot's code with ast.
"""

from __future__ import annotations

import ast
from pathlib import Path

from bot.render import CompactEntry, render_compact, render_digest, render_paper, render_paper_list
from bot.render.paper import MARKER, author_name
from bot.render.styled import Line, message_of
from tests.harness.paths import REPO
from tests.harness.rendering import check_message, follows, make_record
from watcher.kinds import NewsKind

BOLD_UNDERLINED = "★ <b><u>Dezun Dong</u></b>"


def test_a_followed_name_gets_the_mark_and_another_stays_plain() -> None:
    marked = message_of([Line(tuple(author_name("Dezun Dong", marked=True)))])
    bold = message_of([Line(tuple(author_name("Dezun Dong", marked=True, tags=("b",))))])
    plain = message_of([Line(tuple(author_name("Ann Other", marked=False)))])

    assert (marked.html, marked.plain) == (BOLD_UNDERLINED, "★ Dezun Dong")
    assert (bold.html, bold.plain) == ("★ <b>Dezun Dong</b>", "★ Dezun Dong")
    assert (plain.html, plain.plain) == ("Ann Other", "Ann Other")


def test_every_kind_of_message_marks_the_followed_author_alike() -> None:
    record = make_record(authors=("Ann Other", "Dezun Dong"))
    paper = render_paper(record, marked=follows)
    listed = render_paper_list(
        [record], title="cs.DC", page=0, per_page=5, total=1, callback_prefix="r", marked=follows
    )
    (digest,) = render_digest([(record, NewsKind.NEW)], since="Monday", marked=follows)
    (compact,) = render_compact([CompactEntry(record, NewsKind.NEW, follows)])

    for message in (paper, listed, digest.message):
        check_message(message)
        assert "Ann Other, " + BOLD_UNDERLINED in message.html
        assert "Ann Other, ★ Dezun Dong" in message.plain
        assert message.html.count("★") == 1
    assert "★ <b>Dezun Dong</b>" in compact.message.html
    assert compact.message.plain.count("★") == 1


def writes_the_mark(node: ast.expr) -> bool:
    return any(
        (isinstance(part, ast.Name) and part.id == "MARKER")
        or (isinstance(part, ast.Constant) and MARKER.strip() in str(part.value))
        for part in ast.walk(node)
    )


def spans_written_with_the_mark(root: Path, path: Path) -> list[str]:
    """The `Span(...)` calls in `path` that write the mark (`MARKER`, or a ★ in a string)
    anywhere but in `author_name`, as "file:line" from `root`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef) and function.name == author_name.__name__
        for node in ast.walk(function)
    }
    return [
        f"{path.relative_to(root)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "Span"
        and id(node) not in allowed
        and any(writes_the_mark(argument) for argument in node.args)
    ]


def test_the_mark_is_written_in_one_function_only() -> None:
    found = [
        hit
        for path in sorted((REPO / "bot").rglob("*.py"))
        for hit in spans_written_with_the_mark(REPO, path)
    ]
    assert found == [], "the ★ written by hand, not by author_name:\n" + "\n".join(found)


def test_the_scan_finds_a_mark_written_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "bot" / "render" / "made_up.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "def author_name(name):\n    return [Span(MARKER), Span(name)]\n\n"
        "def other(name):\n    return [Span(MARKER), Span(name)]\n\n"
        'def again(name):\n    return [Span("★ " + name)]\n',
        encoding="utf-8",
    )

    assert spans_written_with_the_mark(tmp_path, path) == [
        "bot/render/made_up.py:5",
        "bot/render/made_up.py:8",
    ]
