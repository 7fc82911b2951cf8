"""Which source showed each arXiv mailing first, and when: the `mailing_seen` rows.

The listing, the harvest and the poll step write here (`record_mailing_seen`, the listing also
its probes and, in the same transaction, how many new papers it read of the mailing);
`authors`, /stats, `health` and /why read the newest (`last_mailing`): a restart, or another
process on the database, knows what one read. The first source to show a mailing keeps it: a
later one changes nothing (a listing read redone still says what it counted). Only the newest
matter, so a mailing recorded forgets those more than `KEPT_DAYS` older: the table stays a few
dozen rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Engine, Table, delete
from sqlmodel import Session, col, select

from watcher.store.dialects import upsert_into
from watcher.store.tables import MailingSeen

SOURCES = ("listing", "OAI", "API")
KEPT_DAYS = 60


@dataclass(frozen=True, slots=True)
class MailingNews:
    """The newest mailing seen (None: none yet), how many new papers the listing read of it
    (None: not known), and the listing probes of the newest announcement probed, seen or not."""

    mailing: date | None
    source: str | None
    seen_at: datetime | None
    probed: date | None
    listing_probes: int
    listed: int | None = None


class MailingStore:
    """The `mailing_seen` rows. Each method is one transaction."""

    engine: Engine

    def record_mailing_seen(
        self, mailing: date, *, source: str, at: datetime, listed: int | None = None
    ) -> bool:
        """`source` shows `mailing` at `at`; kept only if no source showed it before. `listed`:
        the new papers the listing read of it whole (kept whoever showed it first: the last
        whole read's count). Whether it was the first."""
        assert source in SOURCES, source
        assert listed is None or source == "listing", source
        with Session(self.engine) as session:
            row = _locked_row(session, mailing)
            if listed is not None:
                row.listed = listed
                session.add(row)
            if row.source is not None:
                session.commit()
                return False
            row.source, row.seen_at = source, at
            session.add(row)
            old = mailing - timedelta(days=KEPT_DAYS)
            session.exec(delete(MailingSeen).where(col(MailingSeen.mailing) < old))
            session.commit()
            return True

    def record_listing_probes(self, mailing: date, probes: int) -> None:
        """The listing probed `probes` times for the announcement of `mailing` (a redone read
        adds its own)."""
        with Session(self.engine) as session:
            row = _locked_row(session, mailing)
            row.listing_probes += probes
            session.add(row)
            session.commit()

    def last_mailing(self) -> MailingNews:
        with Session(self.engine) as session:
            return last_mailing_in(session)


def last_mailing_in(session: Session) -> MailingNews:
    """`MailingStore.last_mailing` in the caller's session."""
    seen = session.exec(
        select(MailingSeen)
        .where(col(MailingSeen.source).is_not(None))
        .order_by(col(MailingSeen.mailing).desc())
        .limit(1)
    ).first()
    probed = session.exec(
        select(MailingSeen)
        .where(col(MailingSeen.listing_probes) > 0)
        .order_by(col(MailingSeen.mailing).desc())
        .limit(1)
    ).first()
    return MailingNews(
        mailing=seen.mailing if seen else None,
        source=seen.source if seen else None,
        seen_at=seen.seen_at if seen else None,
        probed=probed.mailing if probed else None,
        listing_probes=probed.listing_probes if probed else 0,
        listed=seen.listed if seen else None,
    )


def _locked_row(session: Session, mailing: date) -> MailingSeen:
    """The mailing's row, made if missing, locked until the transaction ends: two processes
    recording one mailing at once neither collide on the key nor both count as its first."""
    table: Table = MailingSeen.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    insert = upsert_into(dialect, table)
    session.execute(
        insert.values(mailing=mailing).on_conflict_do_nothing(index_elements=["mailing"])
    )
    query = select(MailingSeen).where(col(MailingSeen.mailing) == mailing)
    return session.exec(query.with_for_update()).one()
