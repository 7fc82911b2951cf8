"""Every name of ours that a docstring or a comment writes in backticks exists, read from the code
(ast and tokenize; nothing is imported or run), so the check follows the tree wherever a regroup
moves a module.

Two kinds of names count as ours:
- a dotted name whose first part is one of the project's packages (watcher, bot, tests): the
  longest part of it that is a module must exist, and what follows must be bound in it (a
  function, class, value or import), down through classes to their attributes;
- a path: one that starts at a top-level directory holding code (src, bot, tests, bench) or at
  a package in src must exist from there; a bare file name ending in .py must sit beside the
  module that names it.

A path that starts anywhere else names another project's file (arxiv-browse's, say): not ours to
check. A path leaving the repository, an address (://) or a pattern (*, {}, <>) is not checked.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.harness.paths import REPO

BACKTICKED = re.compile(r"`([^`\s]+)`")
DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?")
NOT_A_PATH = ("://", "*", "{", "}", "<", ">", "…", "...")


@dataclass(frozen=True)
class Named:
    """One backticked name, where it is written."""

    path: Path
    line: int
    name: str


@dataclass(frozen=True)
class Project:
    """The tree under `root`: its code, its packages and modules, and where its paths start."""

    root: Path

    def code_dirs(self) -> list[Path]:
        """The top-level directories that hold Python code, hidden ones aside."""
        return [
            top
            for top in sorted(self.root.iterdir())
            if top.is_dir() and not top.name.startswith(".") and any(top.rglob("*.py"))
        ]

    def files(self) -> list[Path]:
        return [path for top in self.code_dirs() for path in sorted(top.rglob("*.py"))]

    def package_dirs(self) -> list[Path]:
        """The importable packages: in src, and at the top (bot, tests)."""
        tops = [*(self.root / "src").glob("*/__init__.py"), *self.root.glob("*/__init__.py")]
        return sorted(init.parent for init in tops)

    def modules(self) -> dict[str, Path]:
        """Every module of the packages, by its dotted name."""
        found: dict[str, Path] = {}
        for package in self.package_dirs():
            for path in package.rglob("*.py"):
                parts = list(path.relative_to(package.parent).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
        return found

    def path_starts(self) -> dict[str, Path]:
        """The first part a path of ours starts with, and the directory it is read from."""
        starts = {top.name: self.root for top in self.code_dirs()}
        starts.update({package.name: package.parent for package in self.package_dirs()})
        return starts


def written_texts(path: Path) -> Iterator[tuple[int, str]]:
    """The docstrings (of the module, its classes and functions) and the comments of `path`,
    each with the line it starts on."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def backticked(path: Path) -> Iterator[Named]:
    for line, text in written_texts(path):
        for found in BACKTICKED.finditer(text):
            yield Named(path, line + text.count("\n", 0, found.start()), found.group(1))


def bindings(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """The names a module's or a class's body binds, each with the statement binding it; the
    bodies of `if`, `try` and `with` included (TYPE_CHECKING, optional imports)."""
    bound: dict[str, ast.stmt] = {}
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[statement.name] = statement
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        bound[node.id] = statement
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                bound[(alias.asname or alias.name).split(".")[0]] = statement
        elif isinstance(statement, ast.If | ast.Try | ast.With):
            inner = [*statement.body, *getattr(statement, "orelse", [])]
            inner += getattr(statement, "finalbody", [])
            for handler in getattr(statement, "handlers", []):
                inner += handler.body
            bound.update(bindings(inner))
    return bound


def instance_attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes the class's methods set on `self`."""
    return {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def binds(module: Path, names: list[str]) -> bool:
    """Whether `module` binds names[0], and each class on the way the name after it (in its
    body, or as an attribute its methods set on `self`)."""
    body = ast.parse(module.read_text(encoding="utf-8")).body
    within: ast.ClassDef | None = None
    for name in names:
        statement = bindings(body).get(name)
        if statement is None:
            return within is not None and name in instance_attributes(within)
        if not isinstance(statement, ast.ClassDef):
            return True  # a function, a value or an import: not followed further
        within, body = statement, statement.body
    return True


def dotted_resolves(name: str, modules: dict[str, Path]) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = modules.get(".".join(parts[:cut]))
        if module is not None:
            return binds(module, parts[cut:])
    return False


def path_resolves(written: str, beside: Path, starts: dict[str, Path]) -> bool | None:
    """Whether the path exists; None when it is not ours to check."""
    path = written.split("::")[0]
    path = re.sub(r"(\.py):\d+$", r"\1", path)
    if path.startswith(("/", "..")) or any(mark in path for mark in NOT_A_PATH):
        return None
    if "/" not in path:
        return (beside.parent / path).is_file()
    base = starts.get(path.split("/")[0])
    return None if base is None else (base / path).exists()


def unresolved(project: Project) -> list[str]:
    """Every name of ours that does not resolve, as "file:line: `name`"."""
    modules = project.modules()
    packages = {package.name for package in project.package_dirs()}
    starts = project.path_starts()
    found = []
    for path in project.files():
        for named in backticked(path):
            text = named.name
            resolves: bool | None = None
            if "/" in text or text.endswith(".py") or ".py::" in text:
                resolves = path_resolves(text, path, starts)
            elif (dotted := DOTTED.fullmatch(text)) and dotted.group(1).split(".")[0] in packages:
                resolves = dotted_resolves(dotted.group(1), modules)
            if resolves is False:
                shown = path.relative_to(project.root)
                found.append(f"{shown}:{named.line}: `{text}`")
    return found


def test_every_module_named_in_a_docstring_or_a_comment_exists() -> None:
    found = unresolved(Project(REPO))
    assert found == [], f"{len(found)} name(s) of nothing in the tree:\n" + "\n".join(found)


# --- the check can fail: the same scan on a small made-up project -------------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_names_of_missing_modules_and_attributes_are_found(tmp_path: Path) -> None:
    real = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.other import Hidden\n"
        "LIMIT = 3\n"
        "class Box:\n    size: int\n    def __init__(self):\n        self.kept = 1\n"
        "    def open(self): ...\n"
    )
    names = (
        '"""Fine: `app.real`, `app.real.Box.size`, `app.real.Box.kept`, `app.real.Box.open`,\n'
        "`app.real.LIMIT`, `app.real.Hidden`, `app.sub.deep()`, `bot.face`, `app/real.py`,\n"
        "`src/app/sub/`, `bot/face.py`, `tests/test_one.py::test_it`, `real.py`, and not ours:\n"
        "`browse/list_page/paging.py`, `other.thing`, `https://x/y.py`, `../z.py`, `data/*.py`.\n\n"
        "Gone: `app.gone`, `app.real.Box.gone`, `app.real.missing`, `bot.gone.thing`.\n"
        '"""\n\n'
        "def f():\n"
        '    """Gone: `app/gone.py`, `bot/gone.py`, `src/app/gone/`, `gone.py`."""\n'
        "    # gone: `tests/test_gone.py`, `app.sub.gone`\n"
    )
    write(
        tmp_path,
        {
            "src/app/__init__.py": "",
            "src/app/real.py": real,
            "src/app/names.py": names,
            "src/app/sub/__init__.py": "def deep(): ...\n",
            "bot/__init__.py": "",
            "bot/face.py": "",
            "tests/test_one.py": "def test_it(): ...\n",
            "data/notes.txt": "",
        },
    )
    project = Project(tmp_path)

    assert set(project.path_starts()) == {"src", "bot", "tests", "app"}
    assert unresolved(project) == [
        "src/app/names.py:6: `app.gone`",
        "src/app/names.py:6: `app.real.Box.gone`",
        "src/app/names.py:6: `app.real.missing`",
        "src/app/names.py:6: `bot.gone.thing`",
        "src/app/names.py:10: `app/gone.py`",
        "src/app/names.py:10: `bot/gone.py`",
        "src/app/names.py:10: `src/app/gone/`",
        "src/app/names.py:10: `gone.py`",
        "src/app/names.py:11: `tests/test_gone.py`",
        "src/app/names.py:11: `app.sub.gone`",
    ]
