"""OAI-PMH answers in the layout of arXiv's service, for the fake arXiv (`arxiv_api`).

Checked against the newest templates of arXiv's service (arXiv/oaipmh 27ad99e3, 2026-08-11:
`oaipmh/templates/list_records.xml`, `record_formats.xml`, `token.xml`, `macros.xml`,
`errors.xml`, `data/oai_errors.py`) and against a real answer of it
(`tests/data/arxiv-oai/real_ListRecords_arXiv_2026-01-05_plasm-ph.xml`): the same namespaces and
schema locations, element order, `setSpec`s, Jinja's escaping of quotes (`&#39;`, `&#34;`), a
token with a single-quoted `expirationDate`, an empty `<resumptionToken/>` on the last page of
a list cut into pages and no token at all on a list of one page, and the error texts. Whitespace
is tidier than the real indentation. Records come from `watcher.arxiv.records.Record`s plus a
datestamp; names are split into `keyname`/`forenames`/`suffix` by `split_name` unless the caller
gives the parts. See tests/fakes/README.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from xml.sax.saxutils import escape as _escape_xml

from watcher.arxiv.records import Record

NamePartsT = tuple[str, str | None, str | None]
# Jinja's autoescape (markupsafe) writes quotes as numeric references: "O&#39;Donnell".
_QUOTES = {"'": "&#39;", '"': "&#34;"}  # keyname, forenames, suffix

_PHYSICS_ARCHIVES = frozenset(
    {"astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph"}
    | {"nlin", "nucl-ex", "nucl-th", "physics", "quant-ph"}
)
_SUFFIXES = frozenset({"Jr", "Jr.", "Sr", "Sr.", "II", "III", "IV"})
_OPEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" \n'
    '         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
    '         xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ '
    'http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">\n'
)
_ARXIV_OPEN = (
    '    <arXiv xmlns="http://arxiv.org/OAI/arXiv/" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://arxiv.org/OAI/arXiv/ https://oaipmh.arxiv.org/OAI/arXiv.xsd">\n'
)
ERROR_TEXTS = {
    "noRecordsMatch": "The combination of the values of the from, until, set and "
    "metadataPrefix arguments results in an empty list.",
    "badResumptionToken": "The value of the resumptionToken argument is invalid or expired.",
    "badVerb": "Value of the verb argument is not a legal OAI-PMH verb, the verb argument is "
    "missing, or the verb argument is repeated.",
    "badArgument": "The request includes illegal arguments, is missing required arguments, "
    "includes a repeated argument, or values for arguments have an illegal syntax.",
    "cannotDisseminateFormat": "The metadata format identified by the value given for the "
    "metadataPrefix argument is not supported by the item or by the repository.",
}


def escape(text: str) -> str:
    """Text as arXiv's templates write it."""
    return _escape_xml(text, _QUOTES)


@dataclass(frozen=True)
class OaiItem:
    """A record as the OAI-PMH service holds it: the paper and the day of its last change."""

    record: Record
    datestamp: date


def split_name(name: str) -> NamePartsT:
    """ "Waldyr A. Rodrigues Jr" → ("Rodrigues", "Waldyr A.", "Jr"); one word is a keyname."""
    words = name.split()
    suffix = words.pop() if len(words) > 2 and words[-1] in _SUFFIXES else None
    if len(words) == 1:
        return words[0], None, suffix
    return words[-1], " ".join(words[:-1]), suffix


def set_specs(categories: Iterable[str]) -> list[str]:
    """`cs.DC` → `cs:cs:DC`, `hep-ex` → `physics:hep-ex`, `astro-ph.CO` → `physics:astro-ph:CO`."""
    specs: list[str] = []
    for category in categories:
        archive, _, subject = category.partition(".")
        group = "physics" if archive in _PHYSICS_ARCHIVES else archive
        spec = f"{group}:{archive}" + (f":{subject}" if subject else "")
        if group == archive and not subject:
            spec = group
        if spec not in specs:
            specs.append(spec)
    return specs


def in_set(item: OaiItem, wanted: str) -> bool:
    return any(s == wanted or s.startswith(wanted + ":") for s in set_specs(_cats(item.record)))


def _cats(record: Record) -> list[str]:
    return [
        record.primary_category,
        *(c for c in record.categories if c != record.primary_category),
    ]


def _optional(tag: str, value: str | None) -> str:
    return f"            <{tag}>{escape(value)}</{tag}>\n" if value else ""


def render_record(item: OaiItem, names: Mapping[str, NamePartsT]) -> str:
    record = item.record
    specs = "".join(f"                <setSpec>{s}</setSpec>\n" for s in set_specs(_cats(record)))
    authors = ""
    for author in record.authors:
        keyname, forenames, suffix = names.get(author.name) or split_name(author.name)
        authors += "                <author>\n"
        authors += f"                    <keyname>{escape(keyname)}</keyname>\n"
        if forenames:
            authors += f"                    <forenames>{escape(forenames)}</forenames>\n"
        if suffix:
            authors += f"                    <suffix>{escape(suffix)}</suffix>\n"
        authors += "                </author>\n"
    updated = (
        f"        <updated>{record.updated.date().isoformat()}</updated>\n"
        if record.version > 1
        else ""
    )
    return (
        "        <record>\n            <header>\n"
        f"                <identifier>oai:arXiv.org:{record.arxiv_id}</identifier>\n"
        f"                <datestamp>{item.datestamp.isoformat()}</datestamp>\n"
        f"{specs}            </header>\n            <metadata>\n{_ARXIV_OPEN}"
        f"        <id>{record.arxiv_id}</id>\n"
        f"        <created>{record.published.date().isoformat()}</created>\n{updated}"
        f"        <authors>\n{authors}        </authors>\n"
        f"        <title>{escape(record.title)}</title>\n"
        f"            <categories>{' '.join(_cats(record))}</categories>\n"
        + _optional("comments", record.comment)
        + _optional("msc-class", record.msc_class)
        + _optional("acm-class", record.acm_class)
        + _optional("journal-ref", record.journal_ref)
        + _optional("doi", record.doi)
        + "            <license>http://creativecommons.org/licenses/by/4.0/</license>\n"
        f"            <abstract>{escape(record.abstract)}</abstract>\n"
        "    </arXiv>\n            </metadata>\n        </record>\n"
    )


def _request_line(params: Mapping[str, str], base: str) -> str:
    if "resumptionToken" in params:  # macros.xml writes this one in single quotes
        token = escape(params["resumptionToken"])
        return (
            f"    <request verb='ListRecords' resumptionToken='{token}'>{escape(base)}</request>\n"
        )
    attributes = "".join(f' {k}="{escape(v)}"' for k, v in params.items())
    return f"    <request{attributes}>{escape(base)}</request>\n"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_page(
    items: Iterable[OaiItem],
    *,
    names: Mapping[str, NamePartsT],
    params: Mapping[str, str],
    base: str,
    token: str | None,
    continued: bool = False,
) -> bytes:
    """A `ListRecords` page. `token` None ends the list: with the empty token when the page
    `continued` a list cut into pages, with no token at all when the list was one page."""
    if token is None:
        token_line = "        <resumptionToken/>\n" if continued else ""
    else:
        expires = (datetime.now(UTC).date() + timedelta(days=1)).isoformat() + "T00:00:00Z"
        token_line = (
            f"        <resumptionToken expirationDate='{expires}'>{escape(token)}"
            "</resumptionToken>\n"
        )
    body = (
        _OPEN
        + f"    <responseDate>{_now()}</responseDate>\n"
        + _request_line(params, base)
        + "    <ListRecords>\n"
        + "".join(render_record(item, names) for item in items)
        + token_line
        + "    </ListRecords>\n</OAI-PMH>\n"
    )
    return body.encode()


def render_error(
    code: str,
    *,
    base: str,
    reason: str | None = None,
    params: Mapping[str, str] | None = None,
) -> bytes:
    """An error: the code's fixed description, then " Reason: ..." when the service gives one
    (`oaipmh/templates/errors.xml`); `params` (the request's, for the errors that keep them,
    such as noRecordsMatch) become the request element's attributes."""
    text = ERROR_TEXTS.get(code, code) + (f" Reason: {reason}" if reason else "")
    request = _request_line(params, base) if params else f"    <request>{escape(base)}</request>\n"
    return (
        _OPEN
        + f"    <responseDate>{_now()}</responseDate>\n"
        + request
        + f"    <error code='{code}'>{escape(text)}</error>\n</OAI-PMH>\n"
    ).encode()
