"""A seeded corpus of files for /import, plain text and OPML, mostly wrong in some way: follow
lines of every kind with damage (stray quotes, brackets, `|`, ` in `, unknown categories, author
ids and ORCID iDs one character off, commands in the wrong place), settings headers with values
no setting takes, OPML with feed addresses that do not parse as URLs (`http://[::1`,
`http://[arxiv.org]/`), outlines nested, attributes missing, and the bytes around it all broken
(a byte-order mark, a truncated document, invalid UTF-8, NUL).

`import_files(count, seed)` yields `count` files (bytes), the same ones for the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from xml.sax.saxutils import quoteattr

__all__ = ["import_files"]

_NAMES = [
    "Dezun Dong", "De-Zun Dong", "D. Dong", "Dong", "José Núñez-García", "Kurt G{\\\"o}del",
    "O'Neil", "Teresa Maria Montaruli for the IceCube Collaboration", "ATLAS Collaboration",
    "Wei Wang", "李明", "X", "a" * 300, "",
]  # fmt: skip
_CATEGORIES = ["cs.DC", "cs.NI", "math.GT", "hep-th", "cs", "xx.YY", "cs.dc", "", "cs.DC,cs.NI"]
_IDS = [
    "arxiv:dong_d_1", "arxiv:dong_d", "arxiv:", "orcid:0000-0002-1825-0097",
    "orcid:0000-0002-1825-0098", "0000-0002-1825-0097", "https://arxiv.org/a/dong_d_1",
    "https://arxiv.org/a/dong_d_1.atom2", "https://orcid.org/0000-0002-1825-0097",
    "arxiv.org/a/", "https://arxiv.org/a/[x", "http://[::1", "arxiv:../../etc",
]  # fmt: skip
_TOPICS = ['"remote direct memory access" rdma', "rdma", '"unclosed', "a AND b", "(x OR", "ti:x"]
_URLS = [
    "https://arxiv.org/a/dong_d_1.atom", "https://arxiv.org/a/0000-0002-1825-0097.atom",
    "https://arxiv.org/a/", "https://rss.arxiv.org/rss/cs.DC", "https://rss.arxiv.org/atom/cs.DC+cs.NI",
    "http://export.arxiv.org/rss/xx.YY", "https://rss.arxiv.org/rss/cs.DC+cs.NI+math.GT+hep-th",
    'https://export.arxiv.org/api/query?search_query=au:"Dezun Dong"',
    "https://export.arxiv.org/api/query?search_query=au:%22Dezun%20Dong%22&sortBy=x",
    "https://export.arxiv.org/api/query?search_query=ti:rdma", "https://export.arxiv.org/api/query",
    "http://[::1", "http://[arxiv.org]/", "http://[::1]/api/query", "https://[arxiv.org]/api/query",
    "http://arxiv.org:99999/api/query", "http://arxiv.org:x/a/b", "https://example.com/feed",
    "arxiv.org/a/dong_d_1", "", " ", "javascript:alert(1)", "https://arxiv.org/a/%ZZ.atom",
    "http://[", "http://]", "https://user@[v1.x]/", "//arxiv.org/api/query",
]  # fmt: skip
_SETTING_KEYS = ["timezone", "digest", "revisions", "paused", "quiet", "silent", "format", "zz"]
_SETTING_VALUES = [
    "Europe/Berlin", "UTC", "../../etc/passwd", "Mars/Olympus", "daily 08:00", "weekly mon 25:61",
    "off", "on", "yes", "no", "maybe", "22:00-07:00", "99:99-00:00", "full", "compact", "", "-1",
    "1e999", "\u202e", "Etc/GMT+14", "/", "Europe/", "daily", "mon,tue 07:30",
]  # fmt: skip
_JUNK = ["|", "||", " in ", "#", " # note", '"', "'", "<", ">", "&", "@", "\\", "{", "}", "\t", "…"]


def import_files(count: int, seed: int) -> Iterator[bytes]:
    """`count` files for /import, text and OPML, each built from `seed` alone."""
    rng = random.Random(seed)
    for _ in range(count):
        data = _opml(rng) if rng.random() < 0.5 else _text(rng).encode("utf-8")
        yield _damage(rng, data)


def _rule(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        names = "|".join(rng.choice(_NAMES) for _ in range(rng.randint(1, 3)))
        rule = f"{rng.choice(['subscribe', 'follow', '/subscribe', '/subscribe@bot', ''])} {names}"
    elif kind == 1:
        rule = f"{rng.choice(['subscribe', ''])} {rng.choice(_IDS)}"
    elif kind == 2:
        rule = f"watch {rng.choice(_TOPICS)}"
    else:
        rule = "watch"
    if rng.random() < 0.4:
        rule += f" in {rng.choice(_CATEGORIES)}"
    if rng.random() < 0.3:
        rule += rng.choice(_JUNK) + rng.choice(_JUNK + _NAMES)
    return rule


def _setting(rng: random.Random) -> tuple[str, str]:
    return rng.choice(_SETTING_KEYS), rng.choice(_SETTING_VALUES)


def _text(rng: random.Random) -> str:
    header = (_setting(rng) for _ in range(rng.randint(0, 4)))
    lines = [f"# {key}: {value}" for key, value in header]
    for _ in range(rng.randint(0, 12)):
        lines.append(_rule(rng) if rng.random() < 0.9 else rng.choice(["#", "", "   ", "# x: y"]))
    return rng.choice(["\n", "\r\n", "\r"]).join(lines)


def _outline(rng: random.Random, depth: int = 0) -> str:
    attributes = []
    if rng.random() < 0.85:
        attributes.append(f"xmlUrl={quoteattr(rng.choice(_URLS))}")
    if rng.random() < 0.25:
        attributes.append(f"rule={quoteattr(_rule(rng))}")
    for name in ("text", "title", "type"):
        if rng.random() < 0.4:
            attributes.append(f"{name}={quoteattr(rng.choice(_NAMES + _JUNK))}")
    inner = ""
    if depth < 2 and rng.random() < 0.15:
        inner = "".join(_outline(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    return f"<outline {' '.join(attributes)}>{inner}</outline>"


def _opml(rng: random.Random) -> bytes:
    settings = "".join(
        f"<setting name={quoteattr(key)} value={quoteattr(value)}/>"
        for key, value in (_setting(rng) for _ in range(rng.randint(0, 3)))
    )
    outlines = "".join(_outline(rng) for _ in range(rng.randint(0, 10)))
    root = rng.choice(["opml", "opml", "opml", "rss", "OPML"])
    prolog = rng.choice(['<?xml version="1.0" encoding="UTF-8"?>\n', "", "  \n"])
    body = f"<head>{settings}</head><body>{outlines}</body>"
    document = f'{prolog}<{root} version="2.0">{body}</{root}>'
    if rng.random() < 0.05:
        document = '<!DOCTYPE opml [<!ENTITY a "aaaa">]>' + document.replace("<body>", "<body>&a;")
    return document.encode("utf-8")


def _damage(rng: random.Random, data: bytes) -> bytes:
    """Most files whole; some with a BOM, cut short, a byte that is no UTF-8, or a NUL."""
    roll = rng.random()
    if roll < 0.05:
        return b"\xef\xbb\xbf" + data
    if roll < 0.10 and data:
        return data[: rng.randrange(len(data))]
    if roll < 0.13:
        return data + b"\xff\xfe"
    if roll < 0.15:
        return data.replace(b" ", b"\x00", 1)
    return data
