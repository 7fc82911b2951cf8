"""The compact card inline mode offers (`bot.render.card`): the title linked, the authors (a
long list cut to three and a count), the primary category and id, the abstract's first
sentence (not cut at "e.g." or "et al."), Abstract and PDF buttons; every word of ours
translated (the pseudo-locale finds none left in English) and said in Chinese.
"""

from __future__ import annotations

from bot.i18n import speaking
from bot.render.card import first_sentence, paper_card
from tests.fakes.corpus import make_record
from tests.harness.pseudo_locale import english_left, install_pseudo

MANY = [f"Author Number{n}" for n in range(7)]


def test_the_card_shows_the_title_authors_category_and_first_sentence() -> None:
    record = make_record(
        title="Fast $\\mathrm{All}$-Reduce",
        abstract="We show, e.g. on GPUs, a fast all-reduce (Smith et al. 2020). It scales.",
        authors=MANY,
    )
    card = paper_card(record)
    assert card.message.plain == (
        "Fast All-Reduce\n"
        "Author Number0, Author Number1, Author Number2 and 4 others\n"
        "cs.DC · arXiv:2604.00001\n"
        "We show, e.g. on GPUs, a fast all-reduce (Smith et al. 2020)."
    )
    assert card.message.html.startswith(f'<a href="{record.abs_url}"><b>Fast All-Reduce</b></a>')
    assert [(b.text, b.url) for row in card.message.buttons for b in row] == [
        ("📄 Abstract", record.abs_url),
        ("📥 PDF", record.pdf_url),
    ]
    assert card.title == "Fast All-Reduce"
    assert card.description.endswith(" · cs.DC")


def test_a_first_sentence_is_the_whole_abstract_when_it_has_one() -> None:
    assert first_sentence("One finding only") == "One finding only"
    assert first_sentence("Fig. 2 shows it. Then more.") == "Fig. 2 shows it."


def test_every_word_of_ours_is_translated() -> None:
    record = make_record(authors=MANY)
    with speaking(install_pseudo()):
        card = paper_card(record)
    exempt = [record.title, record.abstract, *MANY]
    assert english_left(card.message.html, exempt) == []
    with speaking("zh-Hans"):
        card = paper_card(record)
    assert "Author Number0, Author Number1, Author Number2 及另外 4 位作者" in card.message.plain
    assert [b.text for row in card.message.buttons for b in row] == ["📄 摘要", "📥 PDF"]
