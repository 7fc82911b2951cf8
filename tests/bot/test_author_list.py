"""The pages of /authors (`bot.handlers.author_list`), pure: within Telegram's limits whatever
the names and ids (64-byte callback data, 100 buttons, 4096 characters), and each button's data
read back as what it was made for."""

from __future__ import annotations

from bot.handlers.author_list import (
    PER_PAGE,
    FollowPress,
    PagePress,
    author_page,
    pages,
    parse_press,
)
from bot.render import MAX_MESSAGE_LENGTH, visible_length
from tests.fakes.corpus import make_record
from watcher.core.coauthors import AuthorEntry, AuthorList, author_mark


def listing(names: list[str], arxiv_id: str = "2612.00001") -> AuthorList:
    record = make_record(arxiv_id=arxiv_id, title="T " * 400, authors=names)
    return AuthorList(
        record,
        tuple(
            AuthorEntry(n, name, followed=n % 7 == 0, mark=author_mark(name))
            for n, name in enumerate(names)
        ),
    )


def test_every_page_of_a_long_list_of_long_names_fits_telegram() -> None:
    names = [f"Given{'x' * 300} Family {chr(0x1F600)} {n:03d}" for n in range(484)]
    listed = listing(names, arxiv_id="cond-mat/0601001")
    assert pages(listed) == -(-484 // PER_PAGE)
    for page in range(pages(listed)):
        message = author_page(listed, page)
        assert visible_length(message.html) <= MAX_MESSAGE_LENGTH
        shown = [button for row in message.buttons for button in row]
        assert len(shown) <= 100
        for button in shown:
            assert button.callback_data is not None
            assert len(button.callback_data.encode()) <= 64


def test_each_button_reads_back_as_the_author_or_page_it_was_made_for() -> None:
    names = [f"Ann Author{chr(0x41 + n % 26)}" for n in range(45)]
    listed = listing(names, arxiv_id="math/0601001")
    message = author_page(listed, 2)  # the last page: authors 41 to 45
    shown = [button for row in message.buttons for button in row]
    follows = [parse_press(b.callback_data or "") for b in shown[:-1]]
    assert follows == [FollowPress("math/0601001", n, author_mark(names[n])) for n in range(40, 45)]
    assert shown[-1].text == "◀ Previous"
    assert parse_press(shown[-1].callback_data or "") == PagePress("math/0601001", 1)
    assert author_page(listed, 99).html == message.html  # past the end: the last page
    for forged in ("w:f:1:zzzzzz:2612.00001", "w:f::abcdef:x", "w:p:x:2612.00001", "w:q:1:x"):
        assert parse_press(forged) is None
