"""Guards of the project's structure, read from the code (nothing is imported or run): the core
never imports the chat side, no import circles, no module over 500 lines, and only the store
opens database sessions; arxiv/, follows/, calendars/ and suggestions/ import nothing of the
stateful side. Each failure names the offenders.

Imports count wherever they are written: at the top, inside functions, under TYPE_CHECKING. An
import of a package counts as importing its `__init__`; `from package import name` also counts
as importing the submodule `name` when there is one. As in `../shared/tools/structure.py`, a
module's import of a package it belongs to is not a circle (Python runs the package's
`__init__` first either way).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness.paths import REPO

pytestmark = pytest.mark.architecture

MAX_LINES = 500
CHAT_SIDE = ("telegram", "bot")
# What the chat side may not import: it asks the core's face (`watcher.core`), never the store
# or the runtime behind it.
BEHIND_THE_FACE = ("watcher.store", "watcher.runtime")


@dataclass(frozen=True)
class Module:
    name: str  # dotted, as imported: "watcher.store.outbox", "bot"
    path: Path

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    @property
    def shown(self) -> str:
        return str(self.path.relative_to(REPO))


def modules_under(base: Path, top: str) -> list[Module]:
    """Every module of the package `top`, which sits in `base`."""
    found = []
    for path in sorted((base / top).rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append(Module(".".join(parts), path))
    return found


def is_migration(module: Module) -> bool:
    return module.name.startswith("watcher.migrations")


CORE = modules_under(REPO / "src", "watcher")
BOT = modules_under(REPO, "bot")
PROJECT = [m for m in CORE + BOT if not is_migration(m)]


def imported_names(module: Module) -> Iterator[str]:
    """Every dotted name `module` imports, absolute, wherever the import statement is written;
    `from a import b` gives both "a" and "a.b"."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, node.module] if node.module else parts)
            else:
                base = node.module or ""
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def imports_within(module: Module, known: set[str]) -> set[str]:
    """The project's modules `module` imports: each name cut back to the nearest known module,
    less the module itself and the packages it belongs to."""
    found = set()
    for name in imported_names(module):
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module.name and not module.name.startswith(name + "."):
            found.add(name)
    return found


def import_graph(modules: Iterable[Module]) -> dict[str, set[str]]:
    listed = list(modules)
    known = {m.name for m in listed}
    return {m.name: imports_within(m, known) for m in listed}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm, iterative),
    each sorted, largest first."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in order:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], order[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups, key=lambda group: (-len(group), group))


def chat_side_imports(module: Module) -> list[str]:
    return sorted({name for name in imported_names(module) if name.split(".")[0] in CHAT_SIDE})


def behind_the_face_imports(module: Module) -> list[str]:
    """What `module` imports of the store or the runtime (`BEHIND_THE_FACE`), by any spelling."""
    return sorted(
        {
            name
            for name in imported_names(module)
            if any(name == banned or name.startswith(banned + ".") for banned in BEHIND_THE_FACE)
        }
    )


def line_count(path: Path) -> int:
    with path.open(encoding="utf-8") as lines:
        return sum(1 for _ in lines)


def opens_a_session(module: Module) -> bool:
    """Whether the module calls `Session(...)` (SQLModel's or SQLAlchemy's), by any spelling."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = node.func
            name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", None)
            if name == "Session":
                return True
    return False


def may_open_sessions(module: Module) -> bool:
    return (
        module.name == "watcher.store"
        or module.name.startswith("watcher.store.")
        or module.name == "watcher.runtime.db"
        or is_migration(module)
    )


def too_long(paths: Iterable[Path]) -> list[str]:
    counted = ((line_count(path), path) for path in paths)
    return [
        f"{path.relative_to(REPO)}: {lines} lines"
        for lines, path in sorted(counted, reverse=True)
        if lines > MAX_LINES
    ]


# --- the guards ------------------------------------------------------------------------------


def test_the_core_never_imports_the_chat_side() -> None:
    offenders = [
        f"{module.shown} imports {', '.join(names)}"
        for module in CORE
        if (names := chat_side_imports(module))
    ]
    assert offenders == [], "src/watcher must not import telegram or bot:\n" + "\n".join(offenders)


def test_the_bot_imports_neither_the_store_nor_the_service() -> None:
    offenders = [
        f"{module.shown} imports {', '.join(names)}"
        for module in BOT
        if (names := behind_the_face_imports(module))
    ]
    assert offenders == [], "bot/ asks watcher.core, not the store or the runtime:\n" + (
        "\n".join(offenders)
    )


def test_no_import_circle_among_the_projects_modules() -> None:
    found = circles(import_graph(PROJECT))
    assert found == [], f"{len(found)} import circle(s):\n" + "\n".join(
        " <-> ".join(group) for group in found
    )


def test_no_module_of_the_service_is_over_500_lines() -> None:
    offenders = too_long(module.path for module in PROJECT)
    assert offenders == [], f"over {MAX_LINES} lines:\n" + "\n".join(offenders)


def test_no_module_of_the_tests_or_the_benchmarks_is_over_500_lines() -> None:
    paths = [*(REPO / "tests").rglob("*.py"), *(REPO / "bench").rglob("*.py")]
    offenders = too_long(paths)
    assert offenders == [], f"over {MAX_LINES} lines:\n" + "\n".join(offenders)


def test_only_the_store_opens_database_sessions() -> None:
    offenders = [
        module.shown
        for module in CORE + BOT
        if not may_open_sessions(module) and opens_a_session(module)
    ]
    assert offenders == [], "Session( outside src/watcher/store/ and db.py:\n" + "\n".join(
        offenders
    )


# --- the guards can fail: the same scans on a small made-up project ----------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_scan_sees_imports_in_functions_under_type_checking_and_relative(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "core/__init__.py": "",
            "core/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import bot.x\n",
            "core/b.py": "def later():\n    from telegram import Bot\n",
            "core/c.py": "from . import a\nfrom .sub import d\n",
            "core/sub/__init__.py": "",
            "core/sub/d.py": "from .. import c\n",
        },
    )
    found = {m.name: m for m in modules_under(tmp_path, "core")}

    assert chat_side_imports(found["core.a"]) == ["bot.x"]
    assert chat_side_imports(found["core.b"]) == ["telegram", "telegram.Bot"]
    # `from .sub import d` imports the package core.sub (its __init__) and its module d
    assert imports_within(found["core.c"], set(found)) == {"core.a", "core.sub", "core.sub.d"}
    assert imports_within(found["core.sub.d"], set(found)) == {"core.c"}


def test_a_circle_through_a_package_init_and_a_function_level_import_is_found(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "app/__init__.py": "from app.store import Store\n",  # the package's __init__
            "app/store/__init__.py": "from app.store.saving import save\n",
            "app/store/saving.py": "def save():\n    from app.poll import poll\n",
            "app/poll.py": "from app.store import Store\n",  # importing a package: its __init__
            "app/alone.py": "import app.poll\n",
        },
    )
    graph = import_graph(modules_under(tmp_path, "app"))

    assert circles(graph) == [["app.poll", "app.store", "app.store.saving"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_a_long_module_and_a_session_outside_the_store_are_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "w/__init__.py": "",
            "w/long.py": "x = 1\n" * (MAX_LINES + 1),
            "w/db.py": "from sqlmodel import Session\ns = Session(None)\n",
            "w/fine.py": "# Session( in a comment is not a call\n",
            "w/query.py": "import sqlmodel\ndef q():\n    with sqlmodel.Session(None) as s: ...\n",
        },
    )
    found = {m.name: m for m in modules_under(tmp_path, "w")}

    assert [line_count(m.path) for m in (found["w.long"], found["w.fine"])] == [MAX_LINES + 1, 1]
    assert {name for name, m in found.items() if opens_a_session(m)} == {"w.db", "w.query"}


def test_a_front_end_importing_the_store_or_the_service_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "bot/__init__.py": "",
            "bot/a.py": "from watcher.store.chats import Chats\n",
            "bot/b.py": "def later():\n    import watcher.runtime.service\n",
            "bot/c.py": "from watcher import store\n",
            "bot/d.py": "from watcher.core import Core\nfrom watcher.storage import x\n",
            "bot/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from watcher.runtime.service import run\n",
        },
    )
    found = {m.name: m for m in modules_under(tmp_path, "bot")}

    assert behind_the_face_imports(found["bot.a"]) == [
        "watcher.store.chats",
        "watcher.store.chats.Chats",
    ]
    assert behind_the_face_imports(found["bot.b"]) == ["watcher.runtime.service"]
    assert behind_the_face_imports(found["bot.c"]) == ["watcher.store"]
    assert behind_the_face_imports(found["bot.d"]) == []  # the face, and a mere prefix, pass
    assert behind_the_face_imports(found["bot.e"]) == [
        "watcher.runtime.service",
        "watcher.runtime.service.run",
    ]


# --- the pure packages stay pure ----------------------------------------------------------------

PURE_PACKAGES = ("watcher.arxiv", "watcher.follows", "watcher.calendars", "watcher.suggestions")
STATEFUL_PACKAGES = (
    "watcher.store",
    "watcher.polling",
    "watcher.runtime",
    "watcher.core",
    "watcher.cli",
)


def within(name: str, packages: Iterable[str]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def stateful_imports(
    modules: Iterable[Module], pure: Iterable[str], stateful: Iterable[str]
) -> list[str]:
    """Each module of a `pure` package that imports from a `stateful` one, with what it imports."""
    pure, stateful = tuple(pure), tuple(stateful)
    return [
        f"{module.name} imports {', '.join(names)}"
        for module in modules
        if within(module.name, pure)
        and (names := sorted({n for n in imported_names(module) if within(n, stateful)}))
    ]


def test_the_pure_packages_import_nothing_of_the_stateful_side() -> None:
    offenders = stateful_imports(CORE, PURE_PACKAGES, STATEFUL_PACKAGES)
    assert offenders == [], (
        "arxiv/, follows/, calendars/ and suggestions/ must not import store/, polling/, "
        "runtime/, core/ or cli/:\n" + "\n".join(offenders)
    )


def test_a_pure_package_importing_the_store_or_the_runtime_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "w/__init__.py": "",
            "w/errors.py": "",
            "w/storehouse.py": "",
            "w/arxiv/__init__.py": "",
            "w/arxiv/fetch.py": "from w import errors, storehouse\n",  # neither is stateful
            "w/arxiv/parse.py": "def later():\n    from w.store import Store\n",
            "w/follows/__init__.py": "",
            "w/follows/match.py": "from w import store\n",  # the package itself
            "w/calendars/__init__.py": "",
            "w/calendars/days.py": "import w.runtime.db\n",
            "w/store/__init__.py": "from w.follows import match\n",  # the other way is fine
            "w/runtime/__init__.py": "",
            "w/runtime/db.py": "",
        },
    )
    found = modules_under(tmp_path, "w")
    pure = ("w.arxiv", "w.follows", "w.calendars")

    assert stateful_imports(found, pure, ("w.store", "w.runtime")) == [
        "w.arxiv.parse imports w.store, w.store.Store",
        "w.calendars.days imports w.runtime.db",
        "w.follows.match imports w.store",
    ]
