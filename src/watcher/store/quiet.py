"""Quiet hours in the store: each destination's window in UTC, and its release when it ends.

A destination with quiet hours keeps its next (or current) window as UTC instants
(`DestinationSetting.quiet_from`, `quiet_until`), worked out in the destination's own time zone by
`watcher.calendars.quiet_hours`, so the outbox can tell with one comparison which rows wait now
(`watcher.store.destinations.held_now`). Rows are held from `quiet_from` on; they are let go only
by `release_ended`, which, in one transaction per destination, flags them for one summary when
more than the threshold waited and moves the window to its next occurrence. So a row is never
released without its summary flag, and a crash before the commit leaves the window to be ended
again. The sender calls `release_ended` each round and sleeps no longer than `next_end`.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from watcher.calendars.quiet_hours import QuietHours, quiet_window
from watcher.calendars.schedule import zone_of
from watcher.store.destinations import DestinationSetting, flag_summaries
from watcher.store.tables import utcnow

log = logging.getLogger(__name__)

RELEASES_PER_CALL = 100  # windows ended per call: the database thread is shared


def hours_of(setting: DestinationSetting) -> QuietHours | None:
    if setting.quiet_start is None or setting.quiet_end is None:
        return None
    return QuietHours(setting.quiet_start, setting.quiet_end)


def place_window(setting: DestinationSetting, zone_name: str, *, now: datetime) -> None:
    """Set the window's UTC instants: the occurrence holding `now`, or the next one."""
    hours = hours_of(setting)
    if hours is None:
        setting.quiet_from = setting.quiet_until = None
        return
    setting.quiet_from, setting.quiet_until = quiet_window(hours, zone_of(zone_name), now=now)


def release_ended(engine: Engine, *, threshold: int, now: datetime | None = None) -> int:
    """End the quiet windows that are over: their waiting rows are due again (as one summary
    when more than `threshold` waited, unless the destination is paused), and each window moves
    to its next occurrence. Returns how many destinations were released."""
    now = now or utcnow()
    released = 0
    with Session(engine) as session:
        ended = session.exec(
            select(DestinationSetting)
            .where(col(DestinationSetting.quiet_until) <= now)
            .order_by(col(DestinationSetting.quiet_until))
            .limit(RELEASES_PER_CALL)
        ).all()
        for setting in ended:
            if not setting.paused:
                flag_summaries(
                    session, setting.chat_id, threshold=threshold, thread_id=setting.thread_id
                )
                released += 1
            place_window(setting, setting.timezone, now=now)
            session.add(setting)
        session.commit()
    if released:
        log.info("quiet hours ended for %d destination(s); what waited goes out", released)
    return released


def next_end(engine: Engine) -> datetime | None:
    """The earliest end of a quiet window, if any destination has quiet hours."""
    with Session(engine) as session:
        return session.exec(
            select(DestinationSetting.quiet_until)
            .where(col(DestinationSetting.quiet_until).is_not(None))
            .order_by(col(DestinationSetting.quiet_until))
            .limit(1)
        ).first()
