"""The shapes the core answers with, for the front ends to read and render.

They are defined beside the store code that fills them; a front end takes them from here, so it
never reaches into `watcher.store`.
"""

from watcher.store.applied_imports import ImportStale
from watcher.store.chats import MAX_SUBSCRIPTIONS
from watcher.store.digests import DigestContent, DigestSettings, RenderedPart
from watcher.store.mailings import MailingNews
from watcher.store.offers import Expired, Offer, Taken
from watcher.store.outbox import PendingDelivery, PendingDigestPart
from watcher.store.parking import ParkedInfo
from watcher.store.reading_list import MAX_SAVED, SavedEntry, SavedPage
from watcher.store.source_health import PendingNotice, SourceHealth
from watcher.store.speaking import DEFAULT_STYLE, SpeakingSettings, Style
from watcher.store.tables import NO_THREAD

__all__ = [
    "DEFAULT_STYLE",
    "MAX_SAVED",
    "MAX_SUBSCRIPTIONS",
    "NO_THREAD",
    "DigestContent",
    "DigestSettings",
    "Expired",
    "ImportStale",
    "MailingNews",
    "Offer",
    "ParkedInfo",
    "PendingDelivery",
    "PendingDigestPart",
    "PendingNotice",
    "RenderedPart",
    "SavedEntry",
    "SavedPage",
    "SourceHealth",
    "SpeakingSettings",
    "Style",
    "Taken",
]
