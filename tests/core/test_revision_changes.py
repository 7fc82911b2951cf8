"""What a revision changed (`paper.changes`, migration 0022), as the save path records it on a
real database and the store reads it back: each field on its own, nothing for a first version,
and a same-version metadata update adding to what that version changed."""

from __future__ import annotations

from dataclasses import replace

from tests.fakes.corpus import make_record
from tests.harness.matched import matched
from watcher.arxiv.records import Author
from watcher.store import Store


def test_each_changed_field_is_recorded_and_a_first_version_has_none(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    first = make_record(
        arxiv_id="2611.00007",
        categories=("cs.DC", "cs.NI"),
        comment="10 pages",
        authors=["Dezun Dong", "Ann Other"],
    )
    store.save_records([matched(first, followed.id)], announce_for=frozenset())
    stored = store.paper("2611.00007")
    assert stored is not None and stored.changes is None

    edits = [
        ("title", {"title": "A Better Title"}),
        ("abstract", {"abstract": "We now report more."}),
        ("authors", {"authors": (Author("Dezun Dong"), Author("Ann Other"), Author("New One"))}),
        ("categories", {"categories": ("cs.DC", "cs.AR")}),
        ("comment", {"comment": "12 pages, 3 figures"}),
        ("journal_ref", {"journal_ref": "J. Par. Dist. 9 (2027)"}),
    ]
    current = first
    for name, fields in edits:
        current = replace(current, version=current.version + 1, **fields)  # type: ignore[arg-type]
        store.save_records([matched(current, followed.id)], announce_for=frozenset())
        stored = store.paper("2611.00007")
        assert stored is not None and stored.changes == frozenset({name}), name

    # White space alone is no change; a new version that changes nothing says so.
    current = replace(current, version=current.version + 1, title="  A Better\n Title ")
    store.save_records([matched(current, followed.id)], announce_for=frozenset())
    stored = store.paper("2611.00007")
    assert stored is not None and stored.changes == frozenset()


def test_a_metadata_update_adds_to_what_the_version_changed(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    first = make_record(arxiv_id="2611.00008")
    second = replace(first, version=2, title="Retitled")
    with_doi = replace(second, doi="10.1/xyz")
    for record in (first, second, with_doi):
        store.save_records([matched(record, followed.id)], announce_for=frozenset())

    stored = store.paper("2611.00008")
    assert stored is not None
    assert (stored.version, stored.doi, stored.changes) == (2, "10.1/xyz", {"title", "doi"})
