"""Identity parsing: the forms of an arXiv author id and an ORCID iD, and the ORCID check digit."""

from __future__ import annotations

import pytest

from watcher.follows.identity import Identity, IdentityError, orcid_check_digit, parse_identity


@pytest.mark.parametrize(
    ("base", "check"),
    [
        ("000000021825009", "7"),  # ORCID's own examples
        ("000000015109370", "0"),
        ("000000021694233", "X"),
    ],
)
def test_orcid_check_digit_is_iso_7064_mod_11_2(base: str, check: str) -> None:
    assert orcid_check_digit(base) == check


@pytest.mark.parametrize(
    "text",
    [
        "https://arxiv.org/a/dong_d_1",
        "http://arxiv.org/a/dong_d_1",
        "https://arxiv.org/a/dong_d_1.atom",
        "https://arxiv.org/a/dong_d_1.html",
        "https://arxiv.org/a/dong_d_1/",
        "arxiv.org/a/dong_d_1",
        "https://www.arxiv.org/a/Dong_D_1",
        "arxiv:dong_d_1",
        "arXiv:dong_d_1",
        "dong_d_1",
    ],
)
def test_arxiv_author_id_forms(text: str) -> None:
    identity = parse_identity(text)
    assert identity == Identity("arxiv", "dong_d_1")
    assert identity.key == "arxiv:dong_d_1"
    assert identity.feed_id == "dong_d_1"


@pytest.mark.parametrize(
    "text",
    [
        "0000-0002-1825-0097",
        "0000000218250097",
        "https://orcid.org/0000-0002-1825-0097",
        "orcid.org/0000-0002-1825-0097/",
        "orcid:0000-0002-1825-0097",
        "https://arxiv.org/a/0000-0002-1825-0097.atom",
    ],
)
def test_orcid_forms(text: str) -> None:
    identity = parse_identity(text)
    assert identity == Identity("orcid", "0000-0002-1825-0097")
    assert identity.key == "orcid:0000-0002-1825-0097"


def test_orcid_with_x_check_digit() -> None:
    assert parse_identity("0000-0002-1694-233x") == Identity("orcid", "0000-0002-1694-233X")


def test_wrong_check_digit_says_so_in_one_sentence() -> None:
    with pytest.raises(IdentityError) as error:
        parse_identity("0000-0002-1825-0098")
    message = str(error.value)
    assert "check digit" in message
    assert "copy it from your ORCID record" in message
    assert "\n" not in message and message.count(". ") == 0


@pytest.mark.parametrize(
    "text",
    ["0000-0002-1825", "https://arxiv.org/a/", "arxiv:Dong D", "https://arxiv.org/a/dong", "d0ng"],
)
def test_malformed_identities_get_an_explanation(text: str) -> None:
    with pytest.raises(IdentityError) as error:
        parse_identity(text)
    assert "arxiv.org/a/dong_d_1" in str(error.value) or "ORCID" in str(error.value)


@pytest.mark.parametrize("text", ["Dezun Dong", "Dong, Dezun", "J. R. R. Tolkien", ""])
def test_names_are_no_identity(text: str) -> None:
    assert parse_identity(text) is None


def test_key_round_trip() -> None:
    for key in ("arxiv:dong_d_1", "orcid:0000-0002-1825-0097"):
        assert Identity.from_key(key).key == key
    with pytest.raises(ValueError, match="not an identity key"):
        Identity.from_key("dong_d_1")
