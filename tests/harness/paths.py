"""Where the repository and the recorded test data are, wherever a test module sits."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"  # fixtures recorded from arXiv; see SOURCES.md there
