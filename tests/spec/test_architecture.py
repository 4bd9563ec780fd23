"""The import contracts of ARCHITECTURE.md hold, and they catch what they are meant to catch.

``lint-imports`` checks the layers contract and the no-cycles contract of
``pyproject.toml`` (``[tool.importlinter]``) on the source tree. Each planted
import, made in a copy of the package, must break a contract: an import that
runs up a layer, one between two modules of a layer marked independent, and
a cycle inside a package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("arch")
    shutil.copytree(ROOT / "src" / "sonnx", base / "src" / "sonnx", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", base / "pyproject.toml")
    return base


def test_the_source_tree_keeps_every_contract() -> None:
    result = lint(ROOT / "src", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


PLANTS = [
    # (file, import added at its end, the contract it must break)
    ("base/errors.py", "from .. import cli  # noqa", "layers of ARCHITECTURE.md"),
    ("model/graph.py", "from .. import loader  # noqa", "layers of ARCHITECTURE.md"),
    ("smt/__init__.py", "from ..execution import executor  # noqa", "layers of ARCHITECTURE.md"),
    ("rewrite/base.py", "from .. import partition  # noqa", "layers of ARCHITECTURE.md"),
    ("checking/report.py", "from . import options  # noqa", "layers inside checking"),
    ("execution/plan.py", "from . import executor  # noqa", "layers inside execution"),
    ("ops/base.py", "from . import op_abs  # noqa", "cycles"),
    ("loader/attributes.py", "from . import writer  # noqa", "cycles"),
]


@pytest.mark.parametrize(("file", "line", "contract"), PLANTS, ids=[p[0] for p in PLANTS])
def test_a_planted_import_breaks_a_contract(copy: Path, file: str, line: str, contract: str) -> None:
    target = copy / "src" / "sonnx" / file
    original = target.read_text()
    target.write_text(original + "\n" + line + "\n")
    try:
        result = lint(copy / "src", copy)
    finally:
        target.write_text(original)
    assert result.returncode == 1, result.stdout
    broken = [ln for ln in result.stdout.splitlines() if ln.rstrip().endswith("BROKEN")]
    assert broken and contract in " ".join(broken), result.stdout
