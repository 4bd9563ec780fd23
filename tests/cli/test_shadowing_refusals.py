"""A model with a function that shadows a standard operator is refused by every command that runs or rewrites it.

onnxruntime and onnx's reference evaluator run the standard operator where sonnx inlines the function
(GRAPH-FUNCTION-SHADOWING, measured in the spec), so ``run``, ``crosscheck``, ``rewrite``, ``equiv`` and
``partition``, and their Python counterparts, refuse it: exit 2, one line naming the function and the
standard operator, before any work. A function of a custom domain is the control: it runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest

import sonnx
from sonnx.base.errors import FunctionShadowingError
from sonnx.checking.equiv import equivalence
from sonnx.execution.backend import SonnxBackend
from sonnx.loader import load_model
from sonnx.partition.job import partition_job
from sonnx.rewrite import rewrite_model
from tests.common import shadowing as sh
from tests.common.cli import one_line
from tests.common.cli import sonnx as cli

RELU = "function Relu shadows ai.onnx::Relu-14 (opset 17)"
RANDOM = "function RandomNormalLike shadows ai.onnx::RandomNormalLike-1 (opset 17)"


@pytest.fixture(params=["relu", "random", "nested"])
def shadowing(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """A shadowing model's path, and the function and operator its refusal must name."""
    made: dict[str, tuple[Callable[[], onnx.ModelProto], str]] = {
        "relu": (sh.relu_neg, RELU), "random": (sh.random_identity, RANDOM), "nested": (sh.nested_random, RANDOM),
    }
    build, named = made[request.param]
    return sh.save(tmp_path / f"{request.param}.onnx", build()), named


def _refused(result: tuple[int, str, str], named: str) -> None:
    one_line(*result)
    assert named in result[2] and "GRAPH-FUNCTION-SHADOWING" in result[2], result[2]


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_run_refuses(shadowing: tuple[str, str], tmp_path: Path) -> None:
    path, named = shadowing
    _refused(cli("run", path, "--output", str(tmp_path / "out.npz")), named)
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_crosscheck_refuses(shadowing: tuple[str, str]) -> None:
    path, named = shadowing
    _refused(cli("crosscheck", path), named)


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_rewrite_refuses_and_writes_nothing(shadowing: tuple[str, str], tmp_path: Path) -> None:
    path, named = shadowing
    out = tmp_path / "rewritten.onnx"
    _refused(cli("rewrite", path, str(out)), named)
    assert not out.exists()


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_equiv_refuses_either_side(shadowing: tuple[str, str], tmp_path: Path) -> None:
    path, named = shadowing
    other = sh.save(tmp_path / "control.onnx", sh.custom_relu())
    _refused(cli("equiv", path, path), named)
    _refused(cli("equiv", other, path), named)  # the second model alone shadows


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_partition_refuses_producing_and_checking(shadowing: tuple[str, str], tmp_path: Path) -> None:
    path, named = shadowing
    _refused(cli("partition", path, "--provider", "NPU=Neg,Abs", "-o", str(tmp_path / "p.json")), named)
    assert not (tmp_path / "p.json").exists()
    part = tmp_path / "given.json"
    part.write_text(json.dumps({"schema_version": 1, "model": "m", "subgraphs": []}))
    _refused(cli("partition", "--check", path, str(part)), named)


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_the_python_api_refuses(shadowing: tuple[str, str]) -> None:
    path, named = shadowing
    x = {"X": np.ones(4, np.float32)}
    model = load_model(path)
    for call in (
        lambda: sonnx.run(path, x),
        lambda: sonnx.run(model, x),
        lambda: sonnx.crosscheck(path),
        lambda: sonnx.crosscheck(model, path=path),
        lambda: rewrite_model(model),
        lambda: equivalence(path, path),
        lambda: partition_job(path, providers=()),
        lambda: SonnxBackend.prepare(onnx.load(path)),
    ):
        with pytest.raises(FunctionShadowingError, match="GRAPH-FUNCTION-SHADOWING") as caught:
            call()
        assert named in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_a_check_reports_it_as_an_error(shadowing: tuple[str, str]) -> None:
    path, named = shadowing
    report = sonnx.check(path, engine="direct")
    (v,) = [v for v in report.verdicts if v.rule_id == "GRAPH-FUNCTION-SHADOWING"]
    assert v.fails and report.exit_code == 1
    assert v.witness is not None and named in v.witness.summary


def test_the_custom_domain_control_runs(tmp_path: Path) -> None:
    path = sh.save(tmp_path / "custom.onnx", sh.custom_relu())
    code, _, err = cli("run", path, "--json")
    assert code == 0, err
    out_y = sonnx.run(path, {"X": np.array([-1, 2, -3, 4], np.float32)})["Y"]
    assert out_y.tolist() == [1, -2, 3, -4]  # the function's Neg: what onnxruntime and onnx's evaluator compute
    assert sonnx.crosscheck(path).exit_code == 0


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_a_function_of_ai_onnx_ml_is_refused_too(tmp_path: Path) -> None:
    path = sh.save(tmp_path / "ml.onnx", sh.ml_binarizer())
    _refused(cli("run", path), "function ai.onnx.ml.Binarizer shadows ai.onnx.ml::Binarizer-1 (opset 3)")
