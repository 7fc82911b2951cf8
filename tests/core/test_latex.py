"""Tests for `watcher.arxiv.latex.latex_to_text`, on hand-written cases and the 15 real abstracts in
`tests/data/followed-author-records.json` (see `tests/data/SOURCES.md`)."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from typing import Any

import pytest

from tests.harness.paths import DATA
from watcher.arxiv.latex import latex_to_text

RECORDS_FILE = DATA / "followed-author-records.json"


def load_records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(RECORDS_FILE.read_text(encoding="utf-8"))
    return records


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        ("speedups of $1.5\\times$ on A100", "speedups of 1.5× on A100"),
        ("regime ($\\ge$8K), it", "regime (≥8K), it"),
        ("latency of 3 $\\mu$s", "latency of 3 μs"),
        ("an \\emph{exact} answer", "an exact answer"),
        ("a \\textbf{bold} claim", "a bold claim"),
        ("from $O(n^2)$ to $O(n)$", "from O(n²) to O(n)"),
        ("Mixtral-8$\\times$7B", "Mixtral-8×7B"),
        ("a 32~GB VRAM budget", "a 32 GB VRAM budget"),
        ("two purposes---transfer or compute", "two purposes—transfer or compute"),
        ("CPU--GPU load balance", "CPU–GPU load balance"),
        ("$1.4\\times$--$1.7\\times$ on V100", "1.4×–1.7× on V100"),
        ("by 30\\% over", "by 30% over"),
        ("Smith \\& Wesson", "Smith & Wesson"),
        ("an error of $10^{-3}$ at $90^\\circ$", "an error of 10⁻³ at 90°"),
        ("weights $w_i$ and $a_{ij}$", "weights wᵢ and aᵢⱼ"),
        ("the $\\ell_2$-norm", "the ℓ₂-norm"),
        ("$x^{\\top}$ has no superscript form", "x^⊤ has no superscript form"),
        ("$\\sqrt 12345$ is taken whole", "√(12345) is taken whole"),
        ("costs \\$5 each", "costs $5 each"),
        ("``quoted''", "“quoted”"),
    ],
)
def test_latex_becomes_unicode(latex: str, text: str) -> None:
    assert latex_to_text(latex) == text


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A bare % is a percent sign in an abstract, never the start of a LaTeX comment.
        ("improves by 30% over the baseline", "improves by 30% over the baseline"),
        ("improves by 30% over $k$ baselines", "improves by 30% over k baselines"),
        ("both 30\\% and 40% of $n$", "both 30% and 40% of n"),
        # A bare & is an ampersand, never a table's column separator.
        ("R&D on $x$", "R&D on x"),
        # A tilde that does not join two words means "about".
        ("a ~2.88x higher latency, $\\sim$3x", "a ~2.88x higher latency, ∼3x"),
        ("within ~ 5% of $x$", "within ~ 5% of x"),
        # URLs are kept as typed: their ~, %, _ and # are not LaTeX.
        (
            "code at https://github.com/a/~b_c%20d#x and $y$",
            "code at https://github.com/a/~b_c%20d#x and y",
        ),
        ("see \\url{https://x.org/~me}", "see <https://x.org/~me>"),
    ],
)
def test_characters_that_mean_something_else_in_abstracts(source: str, expected: str) -> None:
    assert latex_to_text(source) == expected


@pytest.mark.parametrize(
    "malformed",
    [
        "costs $5 per hour",  # unbalanced $
        "we use \\frac{",  # cut off
        "the set {a, b",  # unbalanced brace
        "an extra } brace and $x$",
        "$\\frac{a}$ misses an argument",
        "\\emph{unfinished",
    ],
)
def test_malformed_latex_falls_back_to_the_original(malformed: str) -> None:
    assert latex_to_text(malformed) == malformed


@pytest.mark.parametrize(
    "plain",
    [
        "latency < 200 µs for A&B, 30% better (p > 0.05).",
        "Dézun Dong's model: 1.5x faster; see Fig. 3 [12].",
        "100% of $-free text with a single dollar",
        "",
    ],
)
def test_plain_text_comes_back_unchanged(plain: str) -> None:
    assert latex_to_text(plain) == plain


def test_whitespace_is_collapsed() -> None:
    assert latex_to_text("  two\n  lines,\tand   $x$ spaces \n") == "two lines, and x spaces"
    assert latex_to_text("no\n latex  here ") == "no latex here"


def test_private_use_characters_in_the_source_are_left_alone() -> None:
    # The converter marks set-aside text with such characters; a source that has them is not
    # converted rather than risk confusing its own characters with the marks.
    source = "glyph \ue000 and $x$"
    assert latex_to_text(source) == source


def test_never_raises_and_never_leaks_its_marks() -> None:
    pieces = ["$", "\\", "{", "}", "%", "&", "~", "^", "_", "--", "#", "\\frac", "\\emph{", "x"]
    pieces += [" ", "word", "\\times", "\\begin{", "\\end{", "[", "]", "'", "`", "😀", "é"]
    rng = random.Random(20260403)
    for _ in range(2000):
        source = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        result = latex_to_text(source)
        assert not re.search("[\ue000-\uf8ff]", result), (source, result)


def test_a_real_abstract() -> None:
    abstract = load_records()[0]["abstract"]
    text = latex_to_text(abstract)
    assert "Mixtral-8×7B) with a 32 GB VRAM budget" in text
    assert "In the long-context regime (≥8K), it achieves" in text
    assert "speedups of 1.5×–2.5× on A100 and 1.4×–1.7× on V100" in text
    assert "two complementary purposes—transferring to the GPU" in text
    assert "so that the CPU–GPU load balance" in text


@pytest.mark.parametrize("index", range(15))
def test_real_records_lose_no_text(index: int) -> None:
    record = load_records()[index]
    for source in (record["title"], record["abstract"]):
        text = latex_to_text(source)
        assert "$" not in text
        assert "\\" not in text
        assert len(text.split()) >= len(source.split())
        # Every letter and digit survives, in order, apart from the names of LaTeX macros.
        # NFKC maps the superscript ² back to 2.
        kept = [c for c in unicodedata.normalize("NFKC", text) if c.isalnum()]
        expected = [c for c in re.sub(r"\\[A-Za-z]+", "", source) if c.isalnum()]
        assert kept == expected


def test_real_records_with_percent_signs_keep_them() -> None:
    abstracts = [record["abstract"] for record in load_records()]
    with_percent = [abstract for abstract in abstracts if "%" in abstract]
    assert len(with_percent) >= 5
    for abstract in with_percent:
        assert latex_to_text(abstract).count("%") == abstract.count("%")
