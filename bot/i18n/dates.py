"""Dates and times in the language speaking now, by Babel (CLDR), never by hand-built strings:
"Fri 4 Dec" / "12月4日周五", "4 Dec 2026, 08:00" / "2026年12月4日 08:00". Time zones stay IANA
names (Asia/Shanghai); the times passed in are already on the chat's clock.
"""

from __future__ import annotations

from datetime import date, datetime

from babel import Locale
from babel.dates import format_skeleton

from bot.i18n.catalogs import current_language

# The CLDR locale whose formats each language uses; English is written the British way
# (day before month), as the bot always has.
_CLDR = {"en": "en_GB", "zh-Hans": "zh_Hans_CN"}


def _locale() -> Locale:
    return Locale.parse(_CLDR.get(current_language(), "en_GB"))


def short_day(moment: date | datetime) -> str:
    """The weekday and day of the month: "Fri 4 Dec", "12月4日周五"."""
    return format_skeleton("MMMEd", moment, locale=_locale())


def full_day(moment: date | datetime) -> str:
    """The day with its year: "4 Dec 2026", "2026年12月4日"."""
    return format_skeleton("yMMMd", moment, locale=_locale())


def time_of_day(moment: datetime) -> str:
    """Hours and minutes, on a 24-hour clock: "08:00"."""
    return format_skeleton("Hm", moment, locale=_locale())


def day_and_time(moment: datetime) -> str:
    """The day with its year and the time: "4 Dec 2026, 08:00", "2026年12月4日 08:00"."""
    locale = _locale()
    pattern = locale.datetime_formats["medium"]  # how the locale joins a date and a time
    return str(pattern).format(time_of_day(moment), full_day(moment))
