"""Lists in docstrings that say what is there stay whole, read from the code with ast (nothing
is imported or run):

- a package's docstring that lists its modules (two or more of them as "- `name`: ..." items or
  as rows of a table, "    name    what it is") names every module it holds;
- the exception tree in `watcher.errors` names every exception class the service defines
  (src/watcher and bot).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from pathlib import Path

from tests.harness.paths import REPO

ITEM = re.compile(r"^\s*- `(\w+)`", re.MULTILINE)
ROW = re.compile(r"^ {4,}(\w+) {2,}\S", re.MULTILINE)
BACKTICKED = re.compile(r"`(\w+)`")
SERVICE = ("src/watcher", "bot")  # the service's code; the tests' fakes have their own errors
BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def packages(root: Path) -> list[Path]:
    """The `__init__.py` of every package of the code in `root`: in src, and at the top."""
    tops = [*(root / "src").glob("*/__init__.py"), *root.glob("*/__init__.py")]
    return sorted(init for top in tops for init in top.parent.rglob("__init__.py"))


def held_modules(init: Path) -> set[str]:
    """The modules and subpackages directly in the package of `init`."""
    package = init.parent
    modules = {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    return modules | {sub.name for sub in package.iterdir() if (sub / "__init__.py").is_file()}


def unlisted_modules(root: Path) -> list[str]:
    """Each package whose docstring lists its modules but not all, with those it leaves out."""
    found = []
    for init in packages(root):
        text, held = docstring(init), held_modules(init)
        listed = {name for name in [*ITEM.findall(text), *ROW.findall(text)] if name in held}
        if len(listed) < 2:
            continue  # no list of modules here
        named = listed | set(BACKTICKED.findall(text))
        if missing := sorted(held - named):
            found.append(f"{init.parent.relative_to(root)}: {', '.join(missing)}")
    return found


def is_exception(name: str, found: dict[str, str]) -> bool:
    """Whether a base class named `name` is an exception: a builtin one, one found already, or
    a library's by its name (`TelegramError`, `HTTPError`)."""
    return name in BUILTIN_EXCEPTIONS or name in found or name.endswith(("Error", "Exception"))


def exception_classes(root: Path, code: Sequence[str]) -> dict[str, str]:
    """Every class in the `code` directories of `root` that derives from an exception (by the
    names of its bases, followed through the classes found), with the file defining it."""
    bases: dict[str, tuple[list[str], str]] = {}
    for top in code:
        for path in (root / top).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    names = [ast.unparse(base).rpartition(".")[2] for base in node.bases]
                    bases[node.name] = (names, str(path.relative_to(root)))
    found: dict[str, str] = {}
    growing = True
    while growing:
        growing = False
        for name, (parents, where) in bases.items():
            if name not in found and any(is_exception(parent, found) for parent in parents):
                found[name] = where
                growing = True
    return found


def untold_exceptions(root: Path, code: Sequence[str], errors: Path) -> list[str]:
    told = set(re.findall(r"\w+", docstring(errors)))
    return sorted(
        f"{name} ({where})"
        for name, where in exception_classes(root, code).items()
        if name not in told
    )


def test_every_package_that_lists_its_modules_lists_them_all() -> None:
    found = unlisted_modules(REPO)
    assert found == [], "modules left out of their package's list:\n" + "\n".join(found)


def test_the_exception_tree_names_every_exception_class() -> None:
    found = untold_exceptions(REPO, SERVICE, REPO / "src" / "watcher" / "errors.py")
    assert found == [], "not in watcher.errors' tree:\n" + "\n".join(found)


# --- the checks can fail: the same scans on a small made-up project -----------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_module_left_out_of_a_list_and_an_untold_exception_are_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/app/__init__.py": '"""The app: `one` and `two` in prose, not a list."""\n',
            "src/app/one.py": "class Gone(ValueError): ...\nclass Later(Gone): ...\n",
            "src/app/two.py": "class Fine(Exception): ...\nclass Plain: ...\n",
            "src/app/three.py": "class Late(TimeoutError): ...\n",
            "src/app/errors.py": '"""Exception\n└── Fine\n"""\n',
            "src/app/items/__init__.py": '"""- `a`: one;\n- `b`: two, with `c`.\n"""\n',
            "src/app/items/a.py": "",
            "src/app/items/b.py": "",
            "src/app/items/c.py": "",
            "src/app/items/d.py": "",
            "src/app/items/sub/__init__.py": "",
            "bot/__init__.py": '"""The rows:\n\n    x     the x\n    y     the y\n"""\n',
            "bot/x.py": "import errors\nclass Refused(errors.Fine): ...\n",
            "bot/y.py": "",
        },
    )

    assert unlisted_modules(tmp_path) == ["src/app/items: d, sub"]
    assert untold_exceptions(tmp_path, ["src/app", "bot"], tmp_path / "src/app/errors.py") == [
        "Gone (src/app/one.py)",
        "Late (src/app/three.py)",
        "Later (src/app/one.py)",
        "Refused (bot/x.py)",
    ]
