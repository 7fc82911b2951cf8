"""The exception tree of the project: every exception class it defines lives here, or is listed
here with where it lives and why.

    Exception
    ├── WatcherError                    anything the core raises on purpose
    │   ├── ConfigError                 a setting is missing or malformed (names the variable)
    │   ├── UsageError (also a ValueError)  wrong arguments to a chat command or to the command
    │   │   │                           line; the message is the whole answer (the CLI exits 2)
    │   │   └── Refused                 in `bot.arguments`: what was wrong, and an example that
    │   │                               would do
    │   ├── ArxivError(url, attempt)    talking to arXiv failed
    │   │   ├── ArxivHTTPError(status, retry_after)  a non-2xx answer that retries did not cure
    │   │   ├── ArxivAPIError(message)  arXiv's own error feed (HTTP 400, entry titled "Error")
    │   │   ├── ArxivUnreachable        timeouts and connection errors after all retries
    │   │   ├── ArxivBadFeed            HTML, a truncated body, anything that is not a whole feed
    │   │   ├── ArxivBadListing         a listing page that no longer parses, or whose section
    │   │   │                           counts disagree with the items parsed
    │   │   ├── ArxivEmptyPage          an empty page where records are known to exist
    │   │   ├── ArxivOAIError(code)     the OAI-PMH service's own error (badResumptionToken, ...)
    │   │   ├── ArxivTooManyResults(total, limit)  more results than a history may hold
    │   │   └── UnknownAuthorId(author_id)  an author feed arXiv does not know (HTTP 400 or 404)
    │   ├── UnknownCategory(category, suggestions)
    │   ├── BadRule                     in `watcher.follows.rules`: a follow rule that cannot be
    │   │   │                           followed; beside the parser that raises it
    │   │   └── TopicError              in `watcher.follows.topic_syntax` (and `topics`): a /watch
    │   │       │                           topic that cannot be watched
    │   │       ├── NoCategory          /unwatch words without `in` and a category
    │   │       └── ExcludedError       in `watcher.follows.excluded_words`: an /exclude entry
    │   │                               that is empty or too long
    │   ├── SubscriptionLimit           in `watcher.store.chats`: the chat follows the most
    │   │                               allowed; raised and caught inside the core
    │   │                               (`watcher.core.subscribing`)
    │   ├── ImportStale                 in `watcher.store.applied_imports`: what an import was
    │   │                               planned on changed before it was confirmed; nothing stored
    │   ├── BadOpml                     in `watcher.follows.follow_opml`: a file that is no readable
    │   │                               OPML
    │   └── BadSave                     in `watcher.follows.follow_list`: a `save` line of a file
    │                                   whose paper is no arXiv id
    ├── ValueError
    │   ├── IdentityError               in `watcher.follows.identity`: text meant as an author id or
    │   │                               ORCID iD, but wrong; a ValueError, as its parser is a
    │   │                               converter
    │   ├── BadSchedule                 in `watcher.calendars.schedule`: a digest time, day or time
    │   │                               zone that cannot be read; a ValueError, likewise
    │   ├── SettingRefused              in `watcher.store.exported_settings`: an imported setting's
    │   │                               value that cannot be set
    │   ├── SearchError                 in `watcher.follows.search_words`: /search words that cannot
    │   │                               be searched; the message is one sentence saying why
    │   └── FileRefused                 in `watcher.core.takeout`: a file that cannot be imported at
    │                                   all; the message is the answer
    ├── SaysSentence                in `watcher.sentences`: the mixin of the errors a person
    │                                   reads (UnknownCategory, BadRule and its subclasses,
    │                                   BadOpml, BadSave, IdentityError, BadSchedule,
    │                                   SettingRefused, SearchError, FileRefused): made of a
    │                                   `Sentence`, kept as `error.sentence` for the bot to say
    │                                   in the chat's language; `str()` is the English
    └── _OutOfMarks                     in `watcher.arxiv.latex`: private, stops a walk of a LaTeX
                                        tree early; it never leaves the module

Callers catch these at the boundaries (the CLI, the bot handlers, the scheduler job), nowhere else.
Where an error is told in a log line or an answer, `first_line` gives its first line.
"""

from __future__ import annotations

from watcher.sentences import SaysSentence, sentence


class WatcherError(Exception):
    """Base class for every error the watcher core raises on purpose."""


class ConfigError(WatcherError):
    """A setting is missing or malformed; the message names the variable."""


class UsageError(WatcherError, ValueError):
    """The arguments are wrong; the message is the one-line answer for the user (in a chat, or
    on the command line, which then exits 2)."""


class ArxivError(WatcherError):
    """Talking to arXiv failed. Carries the URL (never a secret) and the attempt number."""

    def __init__(self, message: str, *, url: str = "", attempt: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.url = url
        self.attempt = attempt

    def __str__(self) -> str:
        return self.message


class ArxivHTTPError(ArxivError):
    """arXiv answered with an HTTP error status that retrying did not cure."""

    def __init__(
        self, status: int, *, url: str = "", attempt: int = 0, retry_after: float | None = None
    ) -> None:
        wait = f" and asked us to wait {retry_after:.0f} s" if retry_after else ""
        super().__init__(f"arXiv answered HTTP {status}{wait}", url=url, attempt=attempt)
        self.status = status
        self.retry_after = retry_after


class ArxivAPIError(ArxivError):
    """arXiv refused the query and said why in its error feed."""


class ArxivUnreachable(ArxivError):
    """arXiv could not be reached (timeouts, refused or reset connections) after all retries."""


class ArxivBadFeed(ArxivError):
    """The answer was not a complete Atom feed (HTML, truncated, garbage)."""


class ArxivBadListing(ArxivError):
    """A listing page (`/list/<archive>/new`) that does not parse, or parses to other counts
    than its sections say: arXiv's markup changed, or the page came truncated."""


class ArxivEmptyPage(ArxivError):
    """arXiv answered with an empty page where records are known to exist: the answer is unknown."""


class ArxivOAIError(ArxivError):
    """arXiv's OAI-PMH service answered `<error code=...>` (other than noRecordsMatch)."""

    def __init__(self, code: str, message: str, *, url: str = "", attempt: int = 0) -> None:
        super().__init__(f"arXiv's OAI-PMH service refused: {code}: {message}", url=url)
        self.code = code
        self.attempt = attempt


class ArxivTooManyResults(ArxivError):
    """arXiv lists more results for a name than one history may hold (`limit`), or can page."""

    def __init__(self, total: int, limit: int, *, url: str = "", attempt: int = 0) -> None:
        super().__init__(
            f"arXiv lists {total:,} results for this name, more than {limit:,} "
            "(BACKFILL_LIMIT); follow a fuller name",
            url=url,
            attempt=attempt,
        )
        self.total = total
        self.limit = limit


# How an `UnknownAuthorId` reads (and so a follow's last error): a fault of that follow alone.
UNKNOWN_AUTHOR = "arXiv knows no author id"


class UnknownAuthorId(ArxivError):
    """arXiv has no author feed for this id (it answered 400, or 404 as it used to)."""

    def __init__(self, author_id: str, *, url: str = "", attempt: int = 0) -> None:
        super().__init__(f"{UNKNOWN_AUTHOR} {author_id}", url=url, attempt=attempt)
        self.author_id = author_id


class UnknownCategory(SaysSentence, WatcherError):
    """A category that arXiv's taxonomy does not know; carries close matches."""

    def __init__(self, category: str, suggestions: list[str]) -> None:
        # "Unknown arXiv category 'cs.XX'. Did you mean cs.SY, cs.SI, cs.SE?" (said by the bot in
        # the chat's language); without suggestions, the first sentence alone.
        super().__init__(
            sentence(
                "Unknown arXiv category {category}. Did you mean {suggestions}?",
                category=repr(category),
                suggestions=", ".join(suggestions),
            )
            if suggestions
            else sentence("Unknown arXiv category {category}.", category=repr(category))
        )
        self.category = category
        self.suggestions = suggestions


def first_line(error: BaseException) -> str:
    """The first line of an error's message, or its type's name when it has none: what a log
    line or a one-line answer tells of it (a database error goes on with the SQL, and more)."""
    lines = str(error).strip().splitlines()
    return lines[0].strip() if lines else type(error).__name__
