"""The homonym guard: totals, fields (physics archives as one), the offered categories."""

from __future__ import annotations

import pytest

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.follows.homonyms import NameSurvey, archive_of, field_of, survey_of


@pytest.mark.parametrize(
    ("category", "archive", "field"),
    [
        ("cs.DC", "cs", "cs"),
        ("math.OC", "math", "math"),
        ("hep-th", "hep-th", "physics"),
        ("astro-ph.CO", "astro-ph", "physics"),
        ("cond-mat.mtrl-sci", "cond-mat", "physics"),
        ("physics.optics", "physics", "physics"),
        ("math-ph", "math-ph", "physics"),
        ("q-bio.NC", "q-bio", "q-bio"),
    ],
)
def test_archive_and_field_of_a_category(category: str, archive: str, field: str) -> None:
    assert archive_of(category) == archive
    assert field_of(category) == field


def papers(name: str, *categories: str) -> list[Record]:
    return [
        make_record(arxiv_id=f"2601.{i:05d}", authors=[name], primary_category=c, categories=(c,))
        for i, c in enumerate(categories)
    ]


def test_one_person_in_one_field_is_not_several() -> None:
    survey = survey_of(12, papers("Dezun Dong", "cs.DC", "cs.DC", "cs.NI", "cs.LG"), ["Dezun Dong"])
    assert not survey.several_people
    assert survey.top_categories() == ["cs.DC", "cs.LG", "cs.NI"]


def test_three_physics_archives_are_one_field() -> None:
    survey = survey_of(40, papers("A Physicist", "hep-th", "hep-ph", "gr-qc"), ["A Physicist"])
    assert survey.fields == {"physics"}
    assert not survey.several_people


def test_three_fields_look_like_several_people() -> None:
    survey = survey_of(40, papers("Wei Wang", "cs.DC", "math.OC", "hep-th", "cs.DC"), ["Wei Wang"])
    assert survey.several_people
    assert survey.top_categories() == ["cs.DC", "hep-th", "math.OC"]


def test_more_than_300_papers_look_like_several_people() -> None:
    assert NameSurvey(total=301).several_people
    assert not NameSurvey(total=300).several_people


def test_look_alikes_in_the_sample_do_not_count() -> None:
    sample = papers("Wei Wang", "cs.DC") + papers("Weiwei Wang", "math.OC", "hep-th")
    survey = survey_of(3, sample, ["Wei Wang"])
    assert survey.categories == (("cs.DC", 1),)
    assert not survey.several_people
