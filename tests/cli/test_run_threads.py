"""``sonnx run``'s BLAS thread count: the standard variables when set, ``--threads`` over them, the cores otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import helper

from sonnx.base.threads import THREAD_VARIABLES, default_threads, environment_threads, machine_cores
from sonnx.cli import main
from tests.common.builders import fvi, make_model
from tests.common.cli import ROOT, call, one_line

# a count the machine's cores would not give, so that a default of "the cores" cannot pass for the variable's
OTHER = 1 if machine_cores() > 1 else 2

CHILD = r"""
import json, os, sys
import numpy  # OpenBLAS starts here, sized by the environment
from sonnx.cli import main
before = len(os.listdir("/proc/self/task"))
code = main(["run", sys.argv[1], "--json"])
print(json.dumps({"code": code, "tasks_before": before, "tasks_after": len(os.listdir("/proc/self/task"))}))
"""


def product(path: Path) -> Path:
    """y = x @ x on 64x64 floats: one BLAS product."""
    onnx.save(make_model([helper.make_node("MatMul", ["x", "x"], ["y"])], [fvi("x", [64, 64])], [fvi("y", [64, 64])]),
              path)
    return path


@pytest.fixture(autouse=True)
def _no_thread_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _run_json(model: Path, *extra: str) -> dict[str, object]:
    code, out, err = call(main, "run", str(model), "--json", *extra)
    assert code == 0, err
    threads = json.loads(out)["threads"]
    assert isinstance(threads, dict)
    return threads


def test_the_cores_without_a_variable(tmp_path: Path) -> None:
    threads = _run_json(product(tmp_path / "d.onnx"))
    assert threads["requested"] == machine_cores() and threads["from"] == "cores"


@pytest.mark.parametrize("name", ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"])
def test_a_standard_variable_sets_the_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, str(OTHER))
    threads = _run_json(product(tmp_path / "d.onnx"))
    assert threads["requested"] == OTHER and threads["from"] == name
    blas = threads["blas"]
    assert isinstance(blas, dict) and blas and all(n == OTHER for n in blas.values())


def test_threads_option_overrides_the_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", str(OTHER))
    monkeypatch.setenv("OMP_NUM_THREADS", str(OTHER))
    threads = _run_json(product(tmp_path / "d.onnx"), "--threads", str(OTHER + 1))
    assert threads["requested"] == OTHER + 1 and threads["from"] == "--threads"
    blas = threads["blas"]
    assert isinstance(blas, dict) and all(n == OTHER + 1 for n in blas.values())


def test_the_library_variable_comes_before_openmp() -> None:
    env = {"OMP_NUM_THREADS": "3,2", "OPENBLAS_NUM_THREADS": "5"}
    assert environment_threads(env) == (5, "OPENBLAS_NUM_THREADS")
    assert environment_threads({"OMP_NUM_THREADS": "3,2"}) == (3, "OMP_NUM_THREADS")  # the outer level's count
    assert environment_threads({"OPENBLAS_NUM_THREADS": " ", "OMP_NUM_THREADS": "2"}) == (2, "OMP_NUM_THREADS")
    assert default_threads({}) == (machine_cores(), "cores")


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_variable_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    code, out, err = call(main, "run", str(product(tmp_path / "d.onnx")))
    one_line(code, out, err)
    assert "OMP_NUM_THREADS" in err


def test_the_variable_takes_effect_in_a_fresh_process(tmp_path: Path) -> None:
    """In a process started with the variable, the run's BLAS pool has that many threads and, at one thread,
    the run starts no thread at all (before, the pool was raised to one thread per core for the run)."""
    model = product(tmp_path / "d.onnx")
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    env["OPENBLAS_NUM_THREADS"] = str(OTHER)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", CHILD, str(model)], capture_output=True, text=True, env=env,
                          timeout=300, check=True)
    lines = done.stdout.strip().splitlines()
    report, tasks = json.loads("\n".join(lines[:-1])), json.loads(lines[-1])
    assert tasks["code"] == 0
    assert report["threads"]["requested"] == OTHER and report["threads"]["from"] == "OPENBLAS_NUM_THREADS"
    assert all(n == OTHER for n in report["threads"]["blas"].values())
    if OTHER == 1:
        assert tasks["tasks_after"] == tasks["tasks_before"]
