"""The working group's tolerance policy (``--tolerance sonnx-wg``): classes, figures, the run, the bundle."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import UsageError
from sonnx.checking.options import CheckOptions
from sonnx.differential import run as run_module
from sonnx.differential.lines import text_lines
from sonnx.differential.metrics import Tolerance, compare_arrays
from sonnx.differential.oracles import OracleRun
from sonnx.differential.recorded import RecordedResultError, oracle_result
from sonnx.differential.run import cross_check
from sonnx.differential.wg_tolerance import OutputClass, output_classes, resolve
from sonnx.execution.executor import execute
from sonnx.loader import load_model
from tests.common.bundles import copy_of, edit_json, rehash_all, verify, write

WG = Tolerance(policy="sonnx-wg")
ELEMENTWISE = OutputClass("y", "element-wise", "Add:add")


def _save(tmp_path: Path, nodes: list[onnx.NodeProto], outputs: dict[str, list[int]],
          inits: list[onnx.TensorProto], name: str = "m.onnx") -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, shape) for o, shape in outputs.items()]
    g = helper.make_graph(nodes, "wg", [x], outs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = tmp_path / name
    onnx.save(m, str(path))
    return path


def _mixed(tmp_path: Path) -> Path:
    """Outputs of the three classes: a transpose, a reshaped sum, a matrix product."""
    inits = [numpy_helper.from_array(np.full((2, 3), 0.5, np.float32), "c"),
             numpy_helper.from_array(np.ones((3, 2), np.float32), "w"),
             numpy_helper.from_array(np.asarray([3, 2], np.int64), "shape")]
    nodes = [helper.make_node("Transpose", ["x"], ["t"], name="tr"),
             helper.make_node("Add", ["x", "c"], ["s"], name="add"),
             helper.make_node("Reshape", ["s", "shape"], ["r"], name="rs"),
             helper.make_node("MatMul", ["x", "w"], ["p"], name="mm")]
    return _save(tmp_path, nodes, {"t": [3, 2], "r": [3, 2], "p": [2, 2]}, inits)


def _shifted(v: np.ndarray, ulps: int) -> np.ndarray:
    out = v.copy()
    for _ in range(ulps):
        out = np.nextafter(out, np.asarray(np.inf, out.dtype))
    return out


def _planted(monkeypatch: pytest.MonkeyPatch, model: Path, change: Callable[[str, np.ndarray], np.ndarray]) -> None:
    """The oracle answers the executor's own outputs, each changed by ``change`` (a planted difference)."""
    m = load_model(str(model))

    def fake(name: str, proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> OracleRun:
        ours = execute(m, dict(feeds))
        return OracleRun(name, "ran", "planted", outputs={k: change(k, np.asarray(v)) for k, v in ours.items()})

    monkeypatch.setattr(run_module, "run_contained", fake)


def _outcome(model: Path, tol: Tolerance) -> tuple[str, dict[str, bool]]:
    rep = cross_check(str(model), ["onnxruntime"], tolerance=tol)
    (r,) = rep.results
    return r.outcome, {n: c.ok for n, c in r.comparisons.items()}


def test_each_output_takes_the_widest_class_it_depends_on(tmp_path: Path) -> None:
    got = output_classes(load_model(str(_mixed(tmp_path))))
    assert got == {"t": OutputClass("t", "structural", ""), "r": OutputClass("r", "element-wise", "Add:add"),
                   "p": OutputClass("p", "other", "MatMul:mm")}


def test_three_ulp_on_an_element_wise_output_fails_under_sonnx_wg_and_passes_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _mixed(tmp_path)
    _planted(monkeypatch, model, lambda n, v: _shifted(v, 3) if n == "r" else v)
    assert _outcome(model, Tolerance()) == ("AGREE", {"t": True, "r": True, "p": True})
    assert _outcome(model, WG) == ("DIFFER", {"t": True, "r": False, "p": True})
    _planted(monkeypatch, model, lambda n, v: _shifted(v, 2) if n == "r" else v)
    assert _outcome(model, WG) == ("AGREE", {"t": True, "r": True, "p": True})


def test_structural_outputs_are_bit_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _mixed(tmp_path)
    _planted(monkeypatch, model, lambda n, v: _shifted(v, 1) if n == "t" else v)
    assert _outcome(model, Tolerance()) == ("AGREE", {"t": True, "r": True, "p": True})
    assert _outcome(model, WG) == ("DIFFER", {"t": False, "r": True, "p": True})


def test_an_output_the_group_gives_no_figure_for_keeps_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    model = _mixed(tmp_path)
    _planted(monkeypatch, model, lambda n, v: _shifted(v, 3) if n == "p" else v)
    rep = cross_check(str(model), ["onnxruntime"], tolerance=WG)
    assert rep.outcome == "AGREE"
    tol = rep.results[0].comparisons["p"].tolerance
    assert tol.policy == "sonnx-wg other (MatMul:mm): no figure from the group, sonnx default" and not tol.all_of
    data = rep.to_json()["tolerance_policy"]
    assert data["name"] == "sonnx-wg" and data["classes"]["p"] == {"class": "other", "because": "MatMul:mm"}
    assert "softmax" in data["not_applied"][0]
    lines = text_lines(rep)
    assert any("output t: class structural" in ln for ln in lines) and any("not applied" in ln for ln in lines)


def test_the_default_policy_report_has_no_policy_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _mixed(tmp_path)
    _planted(monkeypatch, model, lambda n, v: v)
    rep = cross_check(str(model), ["onnxruntime"])
    assert "tolerance_policy" not in rep.to_json()
    assert "policy" not in rep.results[0].to_json()["outputs"][0]["tolerance"]


@pytest.mark.parametrize(("dtype", "inside", "outside"), [
    (np.float32, 2, 3),
    (np.float16, 4, 5),
])
def test_the_ulp_figures_per_dtype(dtype: type, inside: int, outside: int) -> None:
    e = np.asarray([1.0, 1.5, 0.75], dtype)
    tol = resolve(ELEMENTWISE, np.dtype(dtype))
    assert tol is not None
    assert compare_arrays(e, _shifted(e, inside), resolved=tol).ok
    assert compare_arrays(e, _shifted(e, outside), resolved=tol).outside == 3


def test_the_criteria_must_all_hold() -> None:
    tol = resolve(ELEMENTWISE, np.dtype(np.float32))
    assert tol is not None and tol.all_of == ("atol", "rtol", "ulp")
    big = np.asarray([1000.0], np.float32)  # one ulp of 1000 is 6e-5: within 2 ulp and 1e-5 relative, not 1e-6
    assert not compare_arrays(big, _shifted(big, 1), resolved=tol).ok
    tiny = np.asarray([1e-30], np.float32)  # 2e-7 absolute is within 1e-6 but is far more than 2 ulp
    assert not compare_arrays(tiny, tiny + np.float32(2e-7), resolved=tol).ok
    f64 = resolve(ELEMENTWISE, np.dtype(np.float64))
    assert f64 is not None and f64.all_of == ("atol", "rtol")
    one = np.asarray([1.0])
    assert compare_arrays(one, one + 1e-13, resolved=f64).ok and not compare_arrays(one, one + 2e-12, resolved=f64).ok


def test_integers_stay_exact_and_structural_is_exact() -> None:
    assert resolve(ELEMENTWISE, np.dtype(np.int64)) is None
    exact = resolve(OutputClass("y", "structural", ""), np.dtype(np.float32))
    assert exact is not None and exact.exact and exact.policy == "sonnx-wg structural"


@pytest.mark.parametrize("kwargs", [{"policy": "strict"}, {"policy": "sonnx-wg", "atol": 1e-3},
                                    {"policy": "sonnx-wg", "ulp": 3}])
def test_bad_policies_are_usage_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match="--tolerance"):
        Tolerance(**kwargs)


def test_a_recorded_comparison_keeps_its_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _mixed(tmp_path)
    _planted(monkeypatch, model, lambda n, v: v)
    r = cross_check(str(model), ["onnxruntime"], tolerance=WG).results[0]
    data = r.to_json()
    again = oracle_result(data, "onnxruntime")
    assert again.to_json() == data
    data["outputs"][1]["tolerance"]["policy"]["all_of"] = ["anything"]
    with pytest.raises(RecordedResultError):
        oracle_result(data, "onnxruntime")


@pytest.fixture(scope="module")
def wg_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("wg")
    model = _mixed(d)
    dest = d / "bundle"
    assert write(dest, model, "--cross-check", "onnxruntime", "--tolerance", "sonnx-wg") == 0
    return dest


def test_the_policy_is_recorded_and_replayed(wg_bundle: Path) -> None:
    m = json.loads((wg_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert m["options"]["tolerance"] == {"atol": None, "rtol": None, "ulp": None, "quant_steps": None,
                                         "policy": "sonnx-wg"}
    assert m["command_line"][-3:] == ["--tolerance", "sonnx-wg", "model/m.onnx"]
    report = json.loads((wg_bundle / "crosscheck.json").read_text(encoding="utf-8"))["report"]
    assert report["tolerance_policy"]["classes"]["t"]["class"] == "structural"
    code, out = verify(wg_bundle)
    assert code == 0 and out.startswith("verified"), out


def test_a_bundle_whose_policy_was_removed_fails_verification(wg_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(wg_bundle, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["options"]["tolerance"].pop("policy"))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "crosscheck.json" in out, out


@pytest.mark.parametrize("policy", ["default", "bogus", 3])
def test_a_recorded_policy_sonnx_does_not_write_is_refused(policy: Any) -> None:
    rec = CheckOptions(oracles=("onnxruntime",), tolerance=WG).recorded()
    assert CheckOptions.from_recorded(rec, None).tolerance == WG
    rec["tolerance"]["policy"] = policy
    with pytest.raises(UsageError):
        CheckOptions.from_recorded(rec, None)
