"""Each chat's suggestion profile (`watcher.suggestions.profile.Profile`), kept in the store and
updated paper by paper, never rebuilt per batch (issue 32).

A chat gets a profile the first time it needs one (`ensure`: its suggestions turned on, its top
papers asked for, a 👍 or 👎), built from the papers it was told of in the last 365 days
(`announced_paper`, each at the instant the store first saw it); a chat told of none yet (it
has just subscribed, and a follow's history is never new) starts from its follows' papers of
those days (`paper_match`, at their v1 date). From then on:

- `announced`, called by the queue (`watcher.store.announce`) inside the save's transaction,
  records each paper newly queued as new to a chat with a profile, at the queue's instant
  (`profile_paper`, one INSERT ... SELECT for all of them, `folded` false);
- `current` reads profiles with what was recorded since folded in (`Profile.add` at each
  paper's own instant, then `Profile.prune` once the profile has grown a quarter past
  `MAX_TERMS`), the rows marked folded in the same transaction as the profile written: each
  reading goes in once. The batch, /suggest's top papers, 👍/👎 and the prune read through it;
- `react` adds a 👍 or 👎 (`Reading.LIKED`, `Reading.DISLIKED`), once per (chat, paper): the
  same press again changes nothing, the other one replaces it;
- `prune` (daily) takes out again (`Profile.remove`) what went in 365 days before.

Why the fold waits for the next read: a profile is a JSON object of some 400 weights, and
adding a paper to it in the save's transaction means reading and writing it whole. For a paper
announced to 1,000 chats with profiles that took 0.77 s a save instead of 0.02 s (SQLite,
`bench/suggestions_store.py --announce`), ten times that at 10,000: the fan-out's save would
wait seconds per paper. Recorded in the save and folded at the next read, a chat's papers of
the day are added in one read and write of its profile, before its ranking; what a profile
holds is the same (each paper at its own instant, in order).

`profile_paper` says what went in and when, so each contribution is taken out at its own
instant. Chats without a profile cost the queue one read of an empty join.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine, bindparam, delete, false, text, update
from sqlmodel import Session, col, select

from watcher.store import paper_terms
from watcher.store.dialects import upsert_into
from watcher.store.suggestion_tables import ProfilePaper, SuggestionProfile
from watcher.store.tables import AnnouncedPaper, Paper, PaperMatch, Subscription, UTCDateTime
from watcher.suggestions.profile import MAX_TERMS, Profile, Reading

WINDOW = timedelta(days=365)  # a paper stays in a profile this long
PRUNE_AT = MAX_TERMS + MAX_TERMS // 4  # a profile is pruned back to MAX_TERMS past this
BOOTSTRAP_PAPERS = 1000  # the newest papers a new profile is built from, at most
_PER_READ = 500
PRUNE_BATCH = 1000  # profile_paper rows taken out per transaction

# The (chat, paper) pairs newly queued as "new" to chats with a profile, recorded as read at
# `now` (the queue's instant: its delivery rows carry it as `created`), to be folded in.
_OWED_PAIRS = {
    "sqlite": "SELECT json_extract(value, '$[0]') AS paper_id, "
    "json_extract(value, '$[1]') AS followed_id FROM json_each(:owed)",
    "postgresql": "SELECT (e->>0)::int AS paper_id, (e->>1)::int AS followed_id "
    "FROM json_array_elements(CAST(:owed AS json)) AS e",
}
_ANNOUNCED = (
    "INSERT INTO profile_paper (chat_id, paper_id, reading, at, folded) "
    "SELECT DISTINCT d.chat_id, d.paper_id, 'announced', :now, false FROM ({owed}) AS o "
    "JOIN subscription s ON s.followed_author_id = o.followed_id "
    "JOIN suggestion_profile p ON p.chat_id = s.chat_id "
    "JOIN delivery d ON d.chat_id = s.chat_id AND d.thread_id = s.thread_id "
    "AND d.paper_id = o.paper_id "
    "WHERE d.created = :now AND d.kind = 'new' "
    "ON CONFLICT DO NOTHING"
)


def dump(profile: Profile) -> tuple[str, str]:
    """A profile as stored: its weights and its examples, JSON."""
    # Floats as Python writes them, which read back exactly: a paper taken out again
    # (`Profile.remove`) leaves nothing behind.
    return (
        json.dumps(profile.weights, separators=(",", ":")),
        json.dumps(profile.examples, separators=(",", ":")),
    )


def load(weights: str, examples: str) -> Profile:
    return Profile(weights=json.loads(weights), examples=json.loads(examples))


def read_profiles(session: Session, chat_ids: Iterable[int]) -> dict[int, Profile]:
    """The profiles of these chats (those that have one)."""
    ids = sorted(set(chat_ids))
    found: dict[int, Profile] = {}
    for start in range(0, len(ids), _PER_READ):
        part = ids[start : start + _PER_READ]
        for chat_id, weights, examples in session.exec(
            select(
                SuggestionProfile.chat_id, SuggestionProfile.weights, SuggestionProfile.examples
            ).where(col(SuggestionProfile.chat_id).in_(part))
        ):
            found[chat_id] = load(weights, examples)
    return found


def write_profiles(session: Session, profiles: Mapping[int, Profile], *, now: datetime) -> None:
    """Store these profiles (each chat's row exists)."""
    if not profiles:
        return
    table = SuggestionProfile.__table__  # type: ignore[attr-defined]
    statement = (
        update(table)
        .where(table.c.chat_id == bindparam("profile_chat"))
        .values(weights=bindparam("w"), examples=bindparam("e"), updated=now)
    )
    rows = []
    for chat_id, profile in sorted(profiles.items()):
        weights, examples = dump(profile)
        rows.append({"profile_chat": chat_id, "w": weights, "e": examples})
    session.connection().execute(statement, rows)


def _prune(session: Session, profiles: Mapping[int, Profile], *, keep: int = PRUNE_AT) -> None:
    """Prune the profiles grown past `keep` terms back to MAX_TERMS (one read of the document
    frequencies of their terms)."""
    grown = [p for p in profiles.values() if len(p.weights) > keep]
    if not grown:
        return
    frequencies = paper_terms.frequencies(session, {t for p in grown for t in p.weights})
    for profile in grown:
        profile.prune(frequencies)


def announced(
    session: Session, owed: Sequence[tuple[int, frozenset[int]]], *, now: datetime
) -> None:
    """Inside the queue's transaction, after the "new" deliveries of `owed` (paper id, followed
    ids) were queued at `now`: record each paper for each chat with a profile that was queued
    it now, to be folded into the profile at its next read (`current`)."""
    pairs = [[paper_id, f] for paper_id, ids in owed for f in sorted(ids)]
    if not pairs:
        return
    dialect = session.get_bind().dialect.name
    statement = text(_ANNOUNCED.format(owed=_OWED_PAIRS[dialect])).bindparams(
        bindparam("now", type_=UTCDateTime())
    )
    session.execute(statement, {"owed": json.dumps(pairs), "now": now})


def current(session: Session, chat_ids: Iterable[int], *, now: datetime) -> dict[int, Profile]:
    """Inside the caller's transaction: the profiles of these chats (those that have one), with
    every paper recorded since folded in, each at its own instant; written back, and those
    rows marked folded, in this transaction."""
    found = read_profiles(session, chat_ids)
    if not found:
        return found
    chats = sorted(found)
    pending: list[ProfilePaper] = []
    for start in range(0, len(chats), _PER_READ):
        pending += session.exec(
            select(ProfilePaper)
            .where(
                col(ProfilePaper.folded) == false(),  # through ix_profile_paper_unfolded
                col(ProfilePaper.chat_id).in_(chats[start : start + _PER_READ]),
            )
            .order_by(col(ProfilePaper.at), col(ProfilePaper.paper_id))
        ).all()
    if not pending:
        return found
    weights = paper_terms.weights_of(session, {row.paper_id for row in pending}, now=now)
    changed: dict[int, Profile] = {}
    for row in pending:
        profile = changed[row.chat_id] = found[row.chat_id]
        if row.paper_id in weights:
            profile.add(
                weights[row.paper_id][1],
                at=row.at,
                reading=Reading(row.reading),
                paper_id=str(row.paper_id),
            )
        row.folded = True
        session.add(row)
    _prune(session, changed)
    write_profiles(session, changed, now=now)
    session.flush()
    return found


def ensure(session: Session, chat_id: int, *, now: datetime) -> Profile:
    """Inside the caller's transaction: the chat's profile, built first if it has none, from the
    papers it was told of in the last 365 days (the newest `BOOTSTRAP_PAPERS`), each as read
    when the store first saw it; told of none yet, from its follows' papers of those days."""
    found = current(session, [chat_id], now=now).get(chat_id)
    if found is not None:
        return found
    told = session.exec(
        select(Paper.id, Paper.first_seen)
        .join(AnnouncedPaper, col(AnnouncedPaper.paper_id) == col(Paper.id))
        .where(col(AnnouncedPaper.chat_id) == chat_id, col(Paper.first_seen) >= now - WINDOW)
        .distinct()
        .order_by(col(Paper.first_seen).desc())
        .limit(BOOTSTRAP_PAPERS)
    ).all()
    seen = {paper_id: at for paper_id, at in told if paper_id is not None}
    if not seen:
        seen = _followed_papers(session, chat_id, now=now)
    weights = paper_terms.weights_of(session, seen, now=now)
    profile = Profile()
    for paper_id, at in sorted(seen.items(), key=lambda item: (item[1], item[0])):
        if paper_id in weights:
            profile.add(weights[paper_id][1], at=at, paper_id=str(paper_id))
    _prune(session, {chat_id: profile}, keep=MAX_TERMS)
    dialect = session.get_bind().dialect.name
    table = SuggestionProfile.__table__  # type: ignore[attr-defined]
    stored_weights, examples = dump(profile)
    inserted = session.execute(
        upsert_into(dialect, table)
        .values(chat_id=chat_id, weights=stored_weights, examples=examples, updated=now)
        .on_conflict_do_nothing(index_elements=["chat_id"])
        .returning(table.c.chat_id)
    ).first()
    if inserted is None:  # another writer built it first
        return current(session, [chat_id], now=now)[chat_id]
    rows = [
        {
            "chat_id": chat_id, "paper_id": p, "reading": Reading.ANNOUNCED.value, "at": at,
            "folded": True,
        }
        for p, at in seen.items()
        if p in weights
    ]  # fmt: skip
    paper_table = ProfilePaper.__table__  # type: ignore[attr-defined]
    for start in range(0, len(rows), _PER_READ):
        session.execute(
            upsert_into(dialect, paper_table)
            .values(rows[start : start + _PER_READ])
            .on_conflict_do_nothing()
        )
    return profile


def _followed_papers(session: Session, chat_id: int, *, now: datetime) -> dict[int, datetime]:
    """The papers of the chat's follows published in the last 365 days, at their v1 date (the
    newest `BOOTSTRAP_PAPERS`): a chat that has just subscribed was told nothing yet, since a
    follow's history is never new, but its follows say what it reads."""
    followed = session.exec(
        select(PaperMatch.paper_id, PaperMatch.published)
        .join(
            Subscription,
            col(Subscription.followed_author_id) == col(PaperMatch.followed_author_id),
        )
        .where(col(Subscription.chat_id) == chat_id, col(PaperMatch.published) >= now - WINDOW)
        .distinct()
        .order_by(col(PaperMatch.published).desc())
        .limit(BOOTSTRAP_PAPERS)
    ).all()
    return dict(followed)


def react(session: Session, chat_id: int, paper_id: int, *, liked: bool, now: datetime) -> bool:
    """Inside the caller's transaction: 👍 (`liked`) or 👎 on a stored paper, in the chat's
    profile. False when the chat's press on it already said the same (nothing changed)."""
    profile = ensure(session, chat_id, now=now)
    reading = Reading.LIKED if liked else Reading.DISLIKED
    other = Reading.DISLIKED if liked else Reading.LIKED
    pressed = {
        row.reading: row
        for row in session.exec(
            select(ProfilePaper).where(
                col(ProfilePaper.chat_id) == chat_id,
                col(ProfilePaper.paper_id) == paper_id,
                col(ProfilePaper.reading).in_([reading.value, other.value]),
            )
        )
    }
    if reading.value in pressed:
        return False
    weights = paper_terms.weights_of(session, [paper_id], now=now)[paper_id][1]
    before = pressed.get(other.value)
    if before is not None:
        profile.remove(weights, at=before.at, reading=other, paper_id=str(paper_id))
        session.delete(before)
    profile.add(weights, at=now, reading=reading, paper_id=str(paper_id))
    session.add(
        ProfilePaper(chat_id=chat_id, paper_id=paper_id, reading=reading.value, at=now, folded=True)
    )
    _prune(session, {chat_id: profile})
    write_profiles(session, {chat_id: profile}, now=now)
    session.flush()
    return True


def prune(engine: Engine, *, now: datetime, batch: int = PRUNE_BATCH) -> int:
    """Take out of the profiles what went in more than 365 days before `now`, `batch` rows a
    transaction (oldest first, through `ix_profile_paper_at`). Returns how many were taken out."""
    taken = 0
    while True:
        with Session(engine) as session:
            rows = session.exec(
                select(ProfilePaper)
                .where(col(ProfilePaper.at) < now - WINDOW)
                .order_by(col(ProfilePaper.at))
                .limit(batch)
            ).all()
            if not rows:
                return taken
            profiles = current(session, {row.chat_id for row in rows}, now=now)
            weights = paper_terms.weights_of(session, {row.paper_id for row in rows}, now=now)
            for row in rows:
                profile = profiles.get(row.chat_id)
                if profile is not None and row.paper_id in weights:
                    profile.remove(
                        weights[row.paper_id][1],
                        at=row.at,
                        reading=Reading(row.reading),
                        paper_id=str(row.paper_id),
                    )
            write_profiles(session, profiles, now=now)
            for row in rows:
                session.execute(
                    delete(ProfilePaper).where(
                        col(ProfilePaper.chat_id) == row.chat_id,
                        col(ProfilePaper.paper_id) == row.paper_id,
                        col(ProfilePaper.reading) == row.reading,
                    )
                )
            session.commit()
        taken += len(rows)
        if len(rows) < batch:
            return taken
