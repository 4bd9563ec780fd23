"""The pre-commit hook of ``.pre-commit-hooks.yaml``, run by the real ``pre-commit`` tool.

A temporary git repository stands for a user's project; its
``.pre-commit-config.yaml`` names a hook repository made from this working
tree (the files ``pip install`` needs: ``pyproject.toml``, ``README.md``,
``src/`` and the hook file, committed at one revision), so that the test
exercises the tree as it is, committed or not. pre-commit then creates its
own virtual environment and installs sonnx into it from that revision, with
its dependencies from the package index (the network to PyPI is needed,
as for any user of the hook). A conforming model passes; a violating one
fails and only its findings are printed; a commit that changes only the
external data file of a model checks that model again, and an unrelated file
checks nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.common.external_data import divide_by_weights, write_weights

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
HOOK_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=sonnx tests", "-c", "user.email=tests@sonnx.invalid", "-c", "commit.gpgsign=false",
         *args],
        cwd=cwd, capture_output=True, text=True, timeout=120, check=True,
    )
    return done.stdout.strip()


def source_files() -> list[str]:
    """The working tree's files under src/ that git would commit (tracked or new, not ignored)."""
    listed = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "--", "src")
    return [p for p in listed.splitlines() if (ROOT / p).is_file()]


def hook_repository(where: Path) -> str:
    where.mkdir()
    for rel in [*HOOK_FILES, *source_files()]:
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, where / rel)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "sonnx at the revision under test")
    git(where, "tag", "v0.2.0")  # a project pins a release: rev is the tag, not a commit
    return "v0.2.0"


def test_the_hook_definition() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "sonnx-check" and hook["language"] == "python"
    assert hook["entry"] == "sonnx-check --findings-only --changed-files"
    # every changed file reaches the entry (a data file may have any name), in one invocation
    assert "files" not in hook and "types" not in hook and hook["require_serial"] is True


@pytest.mark.rule("GRAPH-R1", "OP-ERROR-DIV-ZERO")
def test_pre_commit_passes_a_conforming_model_and_stops_a_violating_one(tmp_path: Path) -> None:
    rev = hook_repository(tmp_path / "sonnx")
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    shutil.copy(ROOT / "examples" / "cnn_block.onnx", project / "good.onnx")
    shutil.copy(ROOT / "examples" / "seed001_example.onnx", project / "bad.onnx")
    (project / "notes.txt").write_text("not a model\n")
    divide_by_weights(project / "ext")  # ext/model.onnx reads ext/weights.bin
    strict = {"id": "sonnx-check", "alias": "strict", "files": "^ext/",
              "args": ["--profile", "sonnx-strict", "--required-metadata="]}
    config = {"repos": [{"repo": str(tmp_path / "sonnx"), "rev": rev, "hooks": [{"id": "sonnx-check"}, strict]}]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(project, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)

    def pre_commit(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PRE_COMMIT), "run", "--verbose", "--files", *files], cwd=project, env=env, capture_output=True,
            text=True, timeout=900,
        )

    good = pre_commit("good.onnx", "notes.txt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "sonnx-check" in good.stdout and "Passed" in good.stdout
    bad = pre_commit("good.onnx", "bad.onnx")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "exit code: 1" in bad.stdout
    assert "VIOLATED  GRAPH-R1" in bad.stdout
    assert "witness: 1 dead operation(s), none of whose outputs is used: Sub:sub (#3 in Test)" in bad.stdout
    assert "  PROVED " not in bad.stdout  # only the findings
    # the hook ran sonnx from its own environment, not from this test's
    envs = list((tmp_path / "cache").glob("repo*/py_env-*/bin/sonnx-check"))
    assert len(envs) == 1
    unrelated = pre_commit("notes.txt")
    assert unrelated.returncode == 0 and "model:" not in unrelated.stdout, unrelated.stdout
    # a commit that changes only the external data file checks the model that reads it
    weights = pre_commit("ext/weights.bin")
    assert weights.returncode == 0, weights.stdout + weights.stderr
    assert weights.stdout.count("model: ext/model.onnx; result: PROVED") == 2, weights.stdout  # both hooks
    write_weights(project / "ext" / "weights.bin", [1, 0, 1, 1])
    git(project, "add", "-A")
    zero = pre_commit("ext/weights.bin")
    assert zero.returncode == 1, zero.stdout + zero.stderr
    assert "VIOLATED  OP-ERROR-DIV-ZERO" in zero.stdout and "the divisor can be 0" in zero.stdout
