"""uv.lock: it matches pyproject.toml, and every install (the Makefile, the Dockerfile) takes
exactly what it pins, by hash, with the same uv. Asked of the real uv, offline (its cache is
filled by `make install`); nothing is installed here.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.harness.deploy_files import read_dockerfile
from tests.harness.paths import REPO

LOCK = REPO / "uv.lock"
MAKEFILE = REPO / "Makefile"


def uv() -> str:
    """The uv that `make install` bootstrapped next to this interpreter (or one on PATH)."""
    beside = Path(sys.executable).with_name("uv")
    found = str(beside) if beside.exists() else shutil.which("uv")
    assert found, "no uv: run `make install`"
    return found


def lock_check(project: Path, *, offline: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [uv(), "lock", "--check", *(["--offline"] if offline else []), "--directory", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_lock_matches_pyproject() -> None:
    result = lock_check(REPO)
    assert result.returncode == 0, f"uv.lock is stale: run `make lock`\n{result.stderr}"


def test_the_check_fails_when_pyproject_changes(tmp_path: Path) -> None:
    # A dependency dropped from pyproject.toml but still in the lock: what a forgotten
    # `make lock` looks like. The check above must say so.
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    edited = re.sub(r'\n\s*"sniffio[^"]*",', "", pyproject)
    assert edited != pyproject
    (tmp_path / "pyproject.toml").write_text(edited, encoding="utf-8")
    shutil.copy(LOCK, tmp_path / "uv.lock")
    # Re-resolving the edited file needs index data that `make install` never fetched (an empty
    # uv cache on a new machine has none), so this one asks the package index.
    result = lock_check(tmp_path, offline=False)
    assert result.returncode != 0
    assert "needs to be updated" in result.stderr


def test_every_locked_package_carries_hashes() -> None:
    lock = tomllib.loads(LOCK.read_text(encoding="utf-8"))
    unhashed = []
    for package in lock["package"]:
        if "registry" not in package["source"]:
            continue  # the project itself, installed from the source tree
        files = [*package.get("wheels", []), *([package["sdist"]] if "sdist" in package else [])]
        if not files or not all(str(item.get("hash", "")).startswith("sha256:") for item in files):
            unhashed.append(package["name"])
    assert not unhashed


def makefile_uv_version() -> str:
    match = re.search(r"^UV_VERSION := (\S+)$", MAKEFILE.read_text(encoding="utf-8"), re.M)
    assert match, "the Makefile pins no UV_VERSION"
    return match[1]


def test_make_installs_from_the_lock_with_the_pinned_uv() -> None:
    text = MAKEFILE.read_text(encoding="utf-8")
    # pip installs uv alone; everything else comes from the lock.
    (pip,) = [line for line in text.splitlines() if "pip install" in line]
    assert pip.split()[-1] == "uv==$(UV_VERSION)"
    (sync,) = re.findall(r"^\t\$\(UV\) sync .*$", text, re.M)
    assert {"--locked", "--compile-bytecode"} <= set(sync.split())
    assert re.search(r"^lock: .*\n\t\$\(UV\) lock", text, re.M), "`make lock` updates uv.lock"


def test_the_image_installs_from_the_lock_by_hash_with_the_same_uv() -> None:
    steps = [(item.keyword, item.arguments) for item in read_dockerfile()]
    (version,) = [
        args.split("=", 1)[1] for key, args in steps if key == "ARG" and "UV_VERSION=" in args
    ]
    assert version == makefile_uv_version()
    copies = [args.split()[:-1] for key, args in steps if key == "COPY"]
    assert any("uv.lock" in sources for sources in copies)
    runs = " && ".join(args for key, args in steps if key == "RUN")
    assert re.search(r"uv export --locked\b.*--no-dev", runs)
    assert re.search(r"pip install --require-hashes\b", runs)
