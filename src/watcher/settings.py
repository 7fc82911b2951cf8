"""Typed settings, read from the environment and an optional `.env` file.

Built once, in the entry point, and passed down; nothing imports a settings singleton.
A bad value stops the program at start with a message that names the variable.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    Field,
    HttpUrl,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from watcher.arxiv.fetch import ARXIV_PAGING_CAP
from watcher.calendars.announcements import (
    DEFAULT_DAYS,
    AnnouncementCalendar,
    parse_announce_time,
    parse_days,
    parse_holidays,
)
from watcher.calendars.poll_calendar import (
    DEFAULT_API_AFTER,
    DEFAULT_HARVEST_AFTER,
    DEFAULT_HARVEST_EVERY,
    PollCalendar,
)
from watcher.errors import ConfigError, WatcherError
from watcher.follows.rules import WatchedRule, parse_watched, split_rules
from watcher.logs import LogFormat

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
WatchSource = Literal["api", "harvest", "auto"]
# An OAI-PMH set: a group ("cs", "physics"), an archive ("physics:hep-th") or a category
# ("cs:cs:DC", "physics:astro-ph:CO").
_SET_SPEC = re.compile(r"[a-z][a-z-]*(:[a-z][a-z-]*(:[A-Za-z][A-Za-z-]*)?)?")
MAX_HARVEST_SETS_LENGTH = 200
DEFAULT_WEBHOOK_LISTEN = "0.0.0.0:8443"  # all interfaces: in a container, behind a proxy
# Telegram takes 1-256 characters of A-Z, a-z, 0-9, _ and -; a short or repetitive one is
# guessable, and it is all that tells Telegram's requests from anyone else's.
_WEBHOOK_SECRET_CHARACTERS = re.compile(r"[A-Za-z0-9_-]*")
MIN_SECRET_LENGTH, MAX_SECRET_LENGTH = 32, 256
MIN_SECRET_DISTINCT = 8
HOOK_KEY_ADVICE = (
    "32 to 256 characters of A-Z, a-z, 0-9, _ and -, at random; make one with "
    "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
)

# Telegram's overall limit for a bot, and what `allow_paid_broadcast` raises it to: "up to 1000
# messages per second, ignoring broadcasting limits for a fee of 0.1 Telegram Stars per message"
# (the Bot API's sendMessage; its FAQ: about 30 messages a second otherwise).
FREE_RATE_OVERALL = 30.0
PAID_RATE_OVERALL = 1000.0


def check_webhook_secret(secret: str) -> None:
    """Refuse a webhook secret Telegram would refuse, or one easy to guess. The message never
    quotes the secret."""
    if not _WEBHOOK_SECRET_CHARACTERS.fullmatch(secret):
        problem = "has characters Telegram refuses"
    elif not MIN_SECRET_LENGTH <= len(secret) <= MAX_SECRET_LENGTH:
        problem = f"is {len(secret)} characters long"
    elif len(set(secret)) < MIN_SECRET_DISTINCT:
        problem = "repeats too few characters to be hard to guess"
    else:
        return
    raise ValueError(f"it {problem}; give {HOOK_KEY_ADVICE}")


def parse_listen(text: str, *, lowest_port: int = 1) -> tuple[str, int]:
    """`HOST:PORT` (an IPv6 host in brackets: `[::]:8443`) as (host, port). `lowest_port=0`
    admits port 0, which takes any free port (the metrics listener, in tests)."""
    host, colon, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    valid = colon and host and " " not in host and port.isdigit()
    if not valid or not lowest_port <= int(port) <= 65535:
        shown = text if len(text) <= 40 else f"{text[:40]}..."
        raise ValueError(f"{shown!r} is not HOST:PORT; e.g. 0.0.0.0:8443 or [::]:8443")
    return host, int(port)


class Settings(BaseSettings):
    """Every setting of arxiv-watcher. `.env.example` documents each with its default."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        hide_input_in_errors=True,
    )

    data_dir: Path = Field(default=Path("data"), description="Where the SQLite file lives.")
    database_url: str = Field(
        default="",
        description="SQLAlchemy URL; empty means a SQLite file in DATA_DIR.",
    )
    arxiv_api_url: HttpUrl = HttpUrl("https://export.arxiv.org/api/query")
    arxiv_min_interval: float = Field(default=3.0, ge=0)
    arxiv_page_size: int = Field(default=100, ge=1, le=2000)
    arxiv_timeout: float = Field(default=30.0, gt=0)
    arxiv_max_retries: int = Field(default=4, ge=0, le=10)
    watch_authors: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["Dezun Dong"])
    poll_interval: float = Field(default=3600, gt=0, description="Seconds between polls.")
    poll_window_days: int = Field(
        default=14,
        ge=1,
        le=365,
        description="Days before the last good poll that each poll pages back (late papers).",
    )
    backfill_limit: int = Field(
        default=2000,
        ge=1,
        le=ARXIV_PAGING_CAP,
        description="Most arXiv results a newly followed name may have.",
    )
    backfills_per_chat_hour: int = Field(
        default=5,
        ge=1,
        description="New follows (names, author ids, topics nobody polls) one chat may start "
        "an hour, after its first allowance; it may ask arXiv about twice as many names.",
    )
    poll_retry_first: float = Field(
        default=60.0,
        gt=0,
        le=86400,
        description="Seconds before retrying a failed poll; doubles per failure up to "
        "POLL_INTERVAL.",
    )
    watch_source: WatchSource = Field(
        default="auto",
        description="api: query per name; harvest: read arXiv's daily records; auto: cheaper.",
    )
    arxiv_oai_url: HttpUrl = HttpUrl("https://oaipmh.arxiv.org/oai")
    arxiv_author_feed_url: HttpUrl = Field(
        default=HttpUrl("https://arxiv.org/a/"),
        description="Where arXiv's author feeds are: the feed of id X is <this>X.atom.",
    )
    harvest_sets: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="OAI-PMH sets to harvest; empty: all of arXiv."
    )
    log_level: LogLevel = "INFO"
    log_format: LogFormat = Field(default="text", description="text, or json: an object a line.")
    metrics_listen: str = Field(
        default="",
        description="HOST:PORT serving /metrics, /healthz and /readyz; empty: off.",
    )

    arxiv_announce_time: str = Field(
        default="20:00", description="arXiv's announcement, HH:MM[:SS]."
    )
    arxiv_announce_tz: str = Field(default="America/New_York", description="Its time zone.")
    arxiv_announce_days: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(DEFAULT_DAYS), description="Weekdays arXiv announces on."
    )
    arxiv_holidays: Annotated[list[date], NoDecode] = Field(
        default_factory=list,
        description="Holidays beyond the built-in, as arXiv lists them (a Friday: no Sunday).",
    )
    early_listings: bool = Field(
        default=True, description="Read arXiv's listing pages as soon as they flip."
    )
    arxiv_listing_url: HttpUrl = Field(
        default=HttpUrl("https://arxiv.org/list/"),
        description="Where arXiv's listings are: <this><archive>/new.",
    )
    listing_probe_interval: float = Field(
        default=60.0, gt=0, le=3600, description="Seconds between probes of a listing."
    )
    listing_probe_hours: float = Field(
        default=6.0, gt=0, le=24, description="Hours after the announcement to keep probing."
    )
    listing_min_interval: float = Field(
        default=15.0, ge=0, description="Seconds between two listing requests."
    )
    poll_schedule: Literal["calendar", "interval"] = Field(
        default="calendar",
        description="calendar: poll at arXiv's announcement times; interval: every POLL_INTERVAL.",
    )
    calendar_harvest_after: float = Field(
        default=DEFAULT_HARVEST_AFTER, ge=0, le=86400,
        description="Seconds after the announcement time that the harvest polls (22:30 ET).",
    )  # fmt: skip
    calendar_api_after: float = Field(
        default=DEFAULT_API_AFTER, ge=0, le=86400,
        description="Seconds after the announcement time that the API polls (00:05 ET).",
    )  # fmt: skip
    calendar_harvest_every: float = Field(
        default=DEFAULT_HARVEST_EVERY, gt=0, le=86400,
        description="Seconds between two harvests while an announced batch has not shown.",
    )  # fmt: skip

    telegram_bot_token: SecretStr | None = None
    telegram_api_url: HttpUrl = HttpUrl("https://api.telegram.org/bot")
    telegram_webhook_url: HttpUrl | None = Field(
        default=None,
        description="Public HTTPS URL Telegram posts updates to; empty: long polling.",
    )
    telegram_webhook_listen: str = Field(
        default=DEFAULT_WEBHOOK_LISTEN,
        description="HOST:PORT the webhook listens on (the proxy forwards there).",
    )
    telegram_webhook_secret: SecretStr | None = Field(
        default=None,
        validate_default=True,
        description="Required with TELEGRAM_WEBHOOK_URL: Telegram sends it in each request.",
    )
    admin_chat_ids: Annotated[list[int], NoDecode] = Field(default_factory=list)
    telegram_rate_overall: float = Field(
        default=FREE_RATE_OVERALL,
        gt=0,
        le=PAID_RATE_OVERALL,
        description="Messages a second; above 30 needs TELEGRAM_PAID_BROADCAST.",
    )
    telegram_paid_broadcast: bool = Field(
        default=False,
        validate_default=True,
        description="Send deliveries with allow_paid_broadcast (Telegram charges Stars for them).",
    )
    telegram_rate_private: float = Field(default=1.0, gt=0, description="A second, per chat.")
    telegram_rate_group: float = Field(default=20.0, gt=0, description="A minute, per group.")
    parked_retry_first: float = Field(
        default=60.0,
        gt=0,
        le=3600,
        description="Seconds before a chat that refused for want of rights is tried again.",
    )
    summary_threshold: int = Field(
        default=5, ge=0, description="More waiting papers than this: one summary message."
    )
    outbox_retention_days: int = Field(
        default=30, ge=1, le=3650, description="Days sent and failed deliveries are kept."
    )

    @field_validator("watch_authors", mode="before")
    @classmethod
    def _split_authors(cls, value: object) -> object:
        if isinstance(value, str):
            return split_rules(value)
        return value

    @field_validator("watch_authors")
    @classmethod
    def _check_authors(cls, value: list[str]) -> list[str]:
        for spec in value:
            try:
                parse_watched(spec)
            except WatcherError as error:
                raise ValueError(str(error)) from None
        return value

    @field_validator("harvest_sets", mode="before")
    @classmethod
    def _split_sets(cls, value: object) -> object:
        if isinstance(value, str):
            return value.replace(",", " ").replace(";", " ").split()
        return value

    @field_validator("harvest_sets")
    @classmethod
    def _check_sets(cls, value: list[str]) -> list[str]:
        for spec in value:
            if not _SET_SPEC.fullmatch(spec):
                shown = spec if len(spec) <= 40 else f"{spec[:40]}..."
                raise ValueError(
                    f"{shown!r} is not an arXiv OAI-PMH set; e.g. cs, math, physics:hep-th "
                    "or cs:cs:DC, separated by commas"
                )
        if len(",".join(value)) > MAX_HARVEST_SETS_LENGTH:
            raise ValueError(f"at most {MAX_HARVEST_SETS_LENGTH} characters of sets")
        return list(dict.fromkeys(value))

    @field_validator("watch_source", "poll_schedule", mode="before")
    @classmethod
    def _lower_source(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("arxiv_announce_time")
    @classmethod
    def _check_time(cls, value: str) -> str:
        parse_announce_time(value)
        return value.strip()

    @field_validator("arxiv_announce_tz")
    @classmethod
    def _check_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"{value[:40]!r} is not a time zone; give an IANA name such as America/New_York"
            ) from None
        return value.strip()

    @field_validator("arxiv_announce_days", mode="before")
    @classmethod
    def _split_days(cls, value: object) -> object:
        return list(parse_days(value)) if isinstance(value, str) else value

    @field_validator("arxiv_holidays", mode="before")
    @classmethod
    def _split_holidays(cls, value: object) -> object:
        return sorted(parse_holidays(value)) if isinstance(value, str) else value

    @field_validator("admin_chat_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.replace(";", ",").split(",") if part.strip()]
        return value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("metrics_listen")
    @classmethod
    def _check_metrics_listen(cls, value: str) -> str:
        value = value.strip()
        if value:
            parse_listen(value, lowest_port=0)
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator(
        "telegram_bot_token", "telegram_webhook_url", "telegram_webhook_secret", mode="before"
    )
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("telegram_bot_token")
    @classmethod
    def _check_token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        token = value.get_secret_value()
        bot_id, _, secret = token.partition(":")
        if not bot_id.isdigit() or len(secret) < 10 or any(c.isspace() for c in token):
            raise ValueError("not a bot token; it looks like 123456789:AA... (from @BotFather)")
        return value

    @field_validator("telegram_webhook_url")
    @classmethod
    def _check_webhook_url(cls, value: HttpUrl | None, info: ValidationInfo) -> HttpUrl | None:
        token_given = info.data.get("telegram_bot_token", "failed") is not None
        if value is not None and not token_given:
            raise ValueError("a webhook needs TELEGRAM_BOT_TOKEN too; set both, or neither")
        if value is not None and value.scheme != "https":
            raise ValueError(
                "Telegram posts updates only to https:// URLs; give the public HTTPS address "
                "of your reverse proxy, e.g. https://bot.example.org/telegram"
            )
        return value

    @field_validator("telegram_webhook_listen")
    @classmethod
    def _check_webhook_listen(cls, value: str) -> str:
        parse_listen(value)
        return value.strip()

    @field_validator("telegram_webhook_secret")
    @classmethod
    def _check_webhook_secret(
        cls, value: SecretStr | None, info: ValidationInfo
    ) -> SecretStr | None:
        # Fields are validated in order: the URL (above) is known here, or failed already.
        if value is None:
            if info.data.get("telegram_webhook_url") is not None:
                raise ValueError(f"required with TELEGRAM_WEBHOOK_URL: {HOOK_KEY_ADVICE}")
            return None
        check_webhook_secret(value.get_secret_value())
        return value

    @field_validator("telegram_paid_broadcast")
    @classmethod
    def _paid_rate(cls, paid: bool, info: ValidationInfo) -> bool:
        # Fields are validated in order: the rate (above) is known here, or failed already.
        rate = info.data.get("telegram_rate_overall", FREE_RATE_OVERALL)
        if rate > FREE_RATE_OVERALL and not paid:
            raise ValueError(
                f"off, while TELEGRAM_RATE_OVERALL={rate:g} is above the {FREE_RATE_OVERALL:g} "
                "messages a second Telegram lets a bot send for free: lower the rate, or set "
                "TELEGRAM_PAID_BROADCAST=on to pay for more (0.1 Star a message, up to "
                f"{PAID_RATE_OVERALL:g} a second)"
            )
        return paid

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'arxiv-watcher.db'}"
        return self

    @property
    def webhook_listen(self) -> tuple[str, int]:
        """TELEGRAM_WEBHOOK_LISTEN as (host, port)."""
        return parse_listen(self.telegram_webhook_listen)

    @property
    def secrets(self) -> list[str]:
        """Every secret value set (the token, the webhook secret): masked in every log line."""
        given = (self.telegram_bot_token, self.telegram_webhook_secret)
        return [secret.get_secret_value() for secret in given if secret is not None]

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """METRICS_LISTEN as (host, port); None when it is off."""
        return parse_listen(self.metrics_listen, lowest_port=0) if self.metrics_listen else None

    @property
    def announcement_calendar(self) -> AnnouncementCalendar:
        """When arXiv announces, from the ARXIV_ANNOUNCE_* settings and ARXIV_HOLIDAYS."""
        return AnnouncementCalendar.of(
            parse_announce_time(self.arxiv_announce_time),
            self.arxiv_announce_tz,
            self.arxiv_announce_days,
            self.arxiv_holidays,
        )

    @property
    def poll_calendar(self) -> PollCalendar | None:
        """When the structured sources poll (`watcher.calendars.poll_calendar`); None with
        POLL_SCHEDULE=interval, when they poll every POLL_INTERVAL."""
        if self.poll_schedule == "interval":
            return None
        return PollCalendar(
            self.announcement_calendar,
            harvest_after=timedelta(seconds=self.calendar_harvest_after),
            api_after=timedelta(seconds=self.calendar_api_after),
            harvest_every=timedelta(seconds=self.calendar_harvest_every),
            window=timedelta(hours=self.listing_probe_hours),
        )

    @property
    def followed_specs(self) -> list[WatchedRule]:
        """The watched people: by name (display name first, then aliases, maybe categories),
        or by arXiv author id or ORCID iD."""
        return [parse_watched(spec) for spec in self.watch_authors]


def load_settings(**overrides: object) -> Settings:
    """Build the settings, turning validation errors into one readable `ConfigError`."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            variable = "_".join(str(part) for part in error["loc"][:1]).upper() or "settings"
            cause = error.get("ctx", {}).get("error") if error["type"] == "value_error" else None
            # Our own validators' messages read better without pydantic's "Value error, ".
            problems.append(f"{variable}: {cause if cause is not None else error['msg']}")
        raise ConfigError("Invalid setting " + "; ".join(problems)) from None
