"""The theorem runs the proof tests share are made once per session and split between workers.

``tests/common/theorem_runs.py`` keeps each module's run alone in a folder
the session's workers share; a worker takes the modules no other holds, then
waits for the rest. The runs are replaced here by a recording stand-in.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

from proofs.registry import MODULES
from tests.common import theorem_runs


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    runs: list[str] = []

    def run(name: str, folder: Path) -> None:
        runs.append(name)
        (folder / f"{name}.json").write_text(json.dumps({"returncode": 0, "stdout": name, "stderr": ""}), "utf-8")

    monkeypatch.setattr(theorem_runs, "_run", run)
    return runs


def test_each_module_is_run_once_and_read_back_after(tmp_path: Path, made: list[str]) -> None:
    first = theorem_runs.alone_runs(tmp_path)
    second = theorem_runs.alone_runs(tmp_path)
    assert made == list(MODULES)
    assert first == second and list(first) == list(MODULES)
    assert all(run.stdout == name and run.record is None for name, run in first.items())


def test_a_module_another_worker_holds_is_left_to_it_until_the_others_are_done(
    tmp_path: Path, made: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = MODULES[0]
    with open(tmp_path / f"{held}.lock", "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert theorem_runs._take(held, tmp_path, wait=False) is None
        # the other worker finishes its run, then lets go of the lock
        waited: list[str] = []
        take = theorem_runs._take

        def take_and_release(name: str, folder: Path, wait: bool) -> theorem_runs.AloneRun | None:
            if wait:
                waited.append(name)
                (folder / f"{name}.json").write_text(json.dumps({"returncode": 0, "stdout": "other", "stderr": ""}))
                fcntl.flock(lock, fcntl.LOCK_UN)
            return take(name, folder, wait)

        monkeypatch.setattr(theorem_runs, "_take", take_and_release)
        runs = theorem_runs.alone_runs(tmp_path)
    assert made == list(MODULES[1:]) and waited == [held]
    assert runs[held].stdout == "other" and list(runs) == list(MODULES)
