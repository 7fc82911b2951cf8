"""A realistic day of arXiv for the harvest: about 2,500 INVENTED records, generated from a seed.

The shape follows arXiv's daily volume (1,000 to 1,500 new submissions per announcement day plus
replacements; see the field notes): three in four records are new (version 1), the rest new
versions of older papers. Authors are drawn from common given and family names, so many share a
family name with the followed author; a few are deliberate look-alikes of "Dezun Dong" ("Daoyi
Dong", "D. Dong", "Dezun Li", "Dezhun Dong"), and some are collaborations or carry a suffix. No
record is by "Dezun Dong": a test adds his papers itself. The same seed gives the same day.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta

from watcher.arxiv.records import Author, Record


def _listed(text: str) -> list[str]:
    return text.split()


LOOKALIKE_NAMES = ("Daoyi Dong", "D. Dong", "Dezun Li", "Dezhun Dong", "Dong Li", "Dezun Wang")
_GIVEN = _listed(
    "Wei Yan Jun Li Hao Min Lei Xin Ying Tao Maria Anna John David Michael Sarah Laura Peter "
    "Thomas Julia Ahmed Fatima Kenji Yuki Hiroshi Priya Arjun Ravi Olga Ivan Elena Carlos Ana "
    "Luis Sofia Pierre Claire Hans Katrin Giulia Marco Daoyi Dezhun Xiaoming Jianwei"
)
_FAMILY = _listed(
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Dong Tang "
    "Smith Johnson Brown Garcia Miller Davis Martinez Lopez Müller Schmidt Schneider Rossi Russo "
    "Tanaka Suzuki Sato Kumar Singh Sharma Ivanov Petrov Dubois Martin Silva Santos"
)
_CATEGORIES = _listed(
    "cs.DC cs.LG cs.AI cs.CV cs.CL cs.NI cs.AR cs.PF cs.SE cs.RO cs.CR cs.DS math.CO math.PR "
    "math.AP math.NT stat.ML quant-ph hep-th hep-ph hep-ex astro-ph.CO astro-ph.GA "
    "cond-mat.mtrl-sci cond-mat.str-el physics.optics eess.SY eess.SP q-bio.NC econ.EM gr-qc"
)
_WORDS = _listed(
    "network routing model learning graph quantum energy scalable robust adaptive distributed "
    "sparse optimal stochastic efficient latency bandwidth memory topology inference training "
    "theorem bound spectrum field symmetry dark matter galaxy phase transition lattice control "
    "signal estimation privacy secure protocol cache scheduling cluster accelerator"
)


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _person(rng: random.Random) -> str:
    name = f"{rng.choice(_GIVEN)} {rng.choice(_FAMILY)}"
    roll = rng.random()
    if roll < 0.02:
        return name + " Jr"
    if roll < 0.04:
        return f"{rng.choice(_GIVEN)} {rng.choice(_GIVEN)[0]}. {rng.choice(_FAMILY)}"
    return name


def realistic_day(day: date, *, count: int = 2500, seed: int = 20261130) -> list[Record]:
    """`count` records whose last change is on `day`, ids in `day`'s month, the same each call."""
    rng = random.Random(seed)
    prefix = day.strftime("%y%m")
    records = []
    for index in range(count):
        new = rng.random() < 0.75
        authors = [_person(rng) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.01:
            authors.append(f"{rng.choice(['ATLAS', 'CMS', 'LIGO', 'IceCube'])} Collaboration")
        if index % 250 == 7:
            authors.insert(rng.randrange(len(authors) + 1), LOOKALIKE_NAMES[index // 250 % 6])
        at = datetime.combine(day, time(hour=rng.randint(0, 23), minute=rng.randint(0, 59)), UTC)
        if new:
            arxiv_id, version, published = f"{prefix}.{20000 + index:05d}", 1, at
        else:
            age = timedelta(days=rng.randint(30, 1500))
            old = day - age
            arxiv_id = f"{old.strftime('%y%m')}.{10000 + index:05d}"
            version, published = rng.randint(2, 4), at - age
        primary = rng.choice(_CATEGORIES)
        categories = tuple(dict.fromkeys([primary, *rng.sample(_CATEGORIES, rng.randint(0, 2))]))
        records.append(
            Record(
                arxiv_id=arxiv_id,
                version=version,
                title=_sentence(rng, rng.randint(6, 14)).capitalize(),
                abstract=_sentence(rng, rng.randint(120, 200)).capitalize() + ".",
                authors=tuple(Author(name) for name in authors),
                primary_category=primary,
                categories=categories,
                published=published,
                updated=at,
                abs_url=f"https://arxiv.org/abs/{arxiv_id}v{version}",
                pdf_url=f"https://arxiv.org/pdf/{arxiv_id}v{version}",
                comment=f"{rng.randint(4, 40)} pages" if rng.random() < 0.6 else None,
            )
        )
    return records
