"""Every repository path a docs page or the README names exists, so that a page cannot point at a moved test.

The threat model (docs/threat_model.rst), for instance, names the tests that
show each protection; a renamed test folder must fail here, not leave the
page citing nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("benchmarks/out", "benchmarks/models", "docs/_build")
"""Folders that commands write (gitignored): a page may name them before they exist."""
PAGES = [*sorted((ROOT / "docs").glob("*.rst")), ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
_PATH = r"((?:tests|src|proofs|tools|benchmarks|examples|spec)/[A-Za-z0-9_./-]+)"
CITED = re.compile(f"``{_PATH}``|`{_PATH}`")


def cited_paths(text: str) -> list[str]:
    """Repository paths written as literals (``tests/x.py`` in reST, `tests/x.py` in Markdown); globs skipped."""
    found = [a or b for a, b in CITED.findall(text)]
    paths = [p.rstrip("/.") for p in found if "*" not in p and "<" not in p]
    return [p for p in paths if not p.startswith(GENERATED)]


def test_the_extractor_sees_paths_and_skips_globs() -> None:
    text = (
        "see ``tests/badinput``, `src/sonnx/checking/batch/`, ``tests/**/*.py``, ``benchmarks/out/x`` and "
        "``tests/a.py``."
    )
    assert cited_paths(text) == ["tests/badinput", "src/sonnx/checking/batch", "tests/a.py"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_cited_path_exists(page: Path) -> None:
    missing = [p for p in cited_paths(page.read_text(encoding="utf-8")) if not (ROOT / p).exists()]
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"
