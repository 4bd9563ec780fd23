"""The packages a user installs: what the sdist carries, and the wheel working in a fresh venv outside the repository.

The wheel is built from this checkout without build isolation (the build back end comes from the lock), installed
with ``--no-deps`` into a new virtual environment in a temporary folder, and run from another temporary folder,
so that nothing of the source tree can be imported by accident. Its dependencies come from the environment running
the tests, through a ``.pth`` line: that environment was installed from the lock, and what is tested here is the
wheel's own content (package data, entry points, licence), not pip's resolver.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True, cwd=out,
    )
    build = "from setuptools import build_meta; import sys; build_meta.build_sdist(sys.argv[1])"
    subprocess.run([sys.executable, "-c", build, str(out)], check=True, cwd=ROOT, capture_output=True)
    return out


def _one(folder: Path, pattern: str) -> Path:
    [found] = folder.glob(pattern)
    return found


def test_the_sdist_carries_the_licence_tests_spec_examples_and_proofs(dist: Path) -> None:
    with tarfile.open(_one(dist, "sonnx-*.tar.gz")) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("LICENSE", "pyproject.toml", "spec/graph.rst", "spec/operators.rst", "examples/cnn_block.onnx",
                   "proofs/coq/_CoqProject", "tests/conftest.py", "requirements/dev.lock", "Makefile"):
        assert needed in names, needed


def test_the_wheel_carries_the_licence_and_the_package_data(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "sonnx-*.whl")) as whl:
        names = set(whl.namelist())
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for data in ("report.schema.json", "rule_texts.json", "strict_operators.json", "traceability.json",
                 "wg_traceability.json"):
        assert f"sonnx/data/{data}" in names, data
    assert "sonnx/py.typed" in names and not any(n.startswith(("tests/", "tools/")) for n in names)


def test_the_wheel_checks_a_model_in_a_fresh_venv_outside_the_repository(dist: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    # installed before the dependencies are visible: the test environment's own sonnx must not satisfy it
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", str(_one(dist, "sonnx-*.whl"))],
        check=True, env=clean,
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(ROOT / "examples" / "cnn_block.onnx", work / "model.onnx")
    where = subprocess.run([str(py), "-c", "import sonnx.api; print(sonnx.api.__file__)"], cwd=work, env=clean,
                           capture_output=True, text=True)
    assert where.returncode == 0 and where.stdout.startswith(str(site)), where.stdout + where.stderr
    check = subprocess.run([str(env_dir / "bin" / "sonnx-check"), "model.onnx"], cwd=work, env=clean,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "PROVED    GRAPH-ACYCLIC" in check.stdout
    rules = subprocess.run([str(env_dir / "bin" / "sonnx"), "rules", "GRAPH-C1"], cwd=work, env=clean,
                           capture_output=True, text=True)
    assert rules.returncode == 0 and "spec/graph.rst" in rules.stdout, rules.stdout + rules.stderr
    kit = subprocess.run([str(env_dir / "bin" / "sonnx"), "qualify", "-q", "kit"], cwd=work, env=clean,
                         capture_output=True, text=True, timeout=600)
    assert kit.returncode == 0, kit.stdout + kit.stderr
    assert (work / "kit" / "accomplishment-summary.json").is_file() and "0 failed" in kit.stdout
