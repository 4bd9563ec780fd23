"""OP-SHAPES on every real export and shipped example: its derived shapes against onnx's, and its verdicts.

Where OP-SHAPES's analysis and onnx's shape inference both give a static
shape for a tensor and the two differ, one of them is wrong; the test names
the tensor, and a run of sonnx's executor says which (the shape of the array
it computes). No difference is known today: a real one is either fixed in the
transfer functions or recorded here as a deviation of onnx (a strict xfail
with its reason).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.loader.load import load_model
from sonnx.rules.base import PROFILE_STRICT, CheckConfig, CheckContext
from sonnx.rules.op_shapes import check
from tests.common.shape_agreement import agreement, made_dynamic

pytestmark = pytest.mark.rule("OP-SHAPES")

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "real"
MODELS = sorted(DATA.glob("*.onnx")) + sorted((ROOT / "examples").glob("*.onnx"))
INPUTS = {p.name.split(".")[0]: p for p in sorted((DATA / "inputs").glob("*.npz"))}

ONNX_REFUSES = {"functions_recursion.onnx": "Cycle detected in model-local function references"}
"""Models onnx's inference refuses (so there is nothing to compare), with the words of its refusal."""

OPEN = {
    "cond_branch.dynamo.onnx": "holds a nested graph",
    "loop_tripcount.torchscript.onnx": "holds a nested graph",
    "mlp_qoperator.ort.onnx": "com.microsoft:QGemm is not covered",
    "lgbm_classifier.onnxmltools.onnx": "ai.onnx.ml:TreeEnsembleClassifier is not covered",
    "sk_columns.skl2onnx.onnx": "ai.onnx.ml:ArrayFeatureExtractor is not covered",
    "sk_dict_vectorizer.skl2onnx.onnx": "graph input 'features' declares no tensor rank",
    "sk_gradient_boosting.skl2onnx.onnx": "ai.onnx.ml:TreeEnsembleRegressor is not covered",
    "sk_isolation_forest.skl2onnx.onnx": "ai.onnx.ml:TreeEnsembleRegressor is not covered",
    "sk_knn.skl2onnx.onnx": "holds a nested graph",
    "sk_label_encoder.skl2onnx.onnx": "ai.onnx.ml:LabelEncoder is not covered",
    "sk_normalizer_svc.skl2onnx.onnx": "ai.onnx.ml:Normalizer is not covered",
    "sk_random_forest.skl2onnx.onnx": "ai.onnx.ml:TreeEnsembleClassifier is not covered",
    "sk_scaler_logreg.skl2onnx.onnx": "ai.onnx.ml:Scaler is not covered",
    "sk_scaler_logreg_zipmap.skl2onnx.onnx": "ai.onnx.ml:Scaler is not covered",
    "sk_string_columns.skl2onnx.onnx": "ai.onnx.ml:Scaler is not covered",
    "sk_svc.skl2onnx.onnx": "ai.onnx.ml:SVMClassifier is not covered",
    "sk_svr.skl2onnx.onnx": "ai.onnx.ml:SVMRegressor is not covered",
    "xgb_regressor.onnxmltools.onnx": "ai.onnx.ml:TreeEnsembleRegressor is not covered",
    "acyclic_cycle.onnx": "lies on a cycle",
    "c1_shadowing.onnx": "holds a nested graph",
    "c3_incomplete.onnx": "reads 'ghost', which nothing in the main graph defines",
    "functions_recursion.onnx": "local:Twice is not covered",
    "if_branches_mismatch.onnx": "holds a nested graph",
}
"""The models OP-SHAPES leaves open, with the reason it gives; every other model is PROVED."""


def _ids(path: Path) -> str:
    return path.name


@pytest.mark.parametrize("path", [p for p in MODELS if p.name not in ONNX_REFUSES], ids=_ids)
def test_derived_shapes_agree_with_onnx_inference(path: Path) -> None:
    got = agreement(path, INPUTS.get(path.name.split(".")[0]))
    shown = [f"{d.tensor}: OP-SHAPES {d.ours}, onnx {d.onnx}, run {d.actual}: {d.wrong} wrong" for d in got.differences]
    assert shown == []


@pytest.mark.parametrize("path", [p for p in MODELS if p.name in ONNX_REFUSES], ids=_ids)
def test_onnx_inference_refuses_what_the_list_says(path: Path) -> None:
    with pytest.raises(onnx.checker.ValidationError, match=ONNX_REFUSES[path.name]):
        agreement(path)


def test_the_comparison_covers_the_neural_exports() -> None:
    compared = {p.name: agreement(p, INPUTS.get(p.name.split(".")[0])).compared for p in MODELS
                if p.name not in ONNX_REFUSES and "sk_" not in p.name and "onnxmltools" not in p.name}
    assert sum(compared.values()) >= 2400  # 2,500 tensors of the neural exports today
    assert all(compared[n] > 0 for n in compared if ".dynamo." in n or ".torchscript." in n), compared


@pytest.mark.parametrize("path", MODELS, ids=_ids)
def test_op_shapes_proves_every_model_it_covers_and_names_why_not_the_others(path: Path) -> None:
    model = load_model(str(path))
    v = check(CheckContext(model, CheckConfig(profile=PROFILE_STRICT, trial_run=trial_run)))
    if path.name in OPEN:
        assert v.status is Status.UNKNOWN and v.reason is not None and OPEN[path.name] in v.reason
    else:
        assert v.status is Status.PROVED, v.reason or v.witness


DYNAMIC = [
    ("mobilenet_v3_small.torchscript.onnx", (), None),
    ("mobilenet_v3_small.dynamo.onnx", (), ("Reshape:node_view", {"B": 2, "H": 1, "W": 1})),
    ("convnext_tiny.torchscript.onnx", (), ("Conv:/features/features.0/features.0.0/Conv", {"B": 1, "H": 1, "W": 1})),
    ("convnext_tiny.torchscript.onnx", (("H", 32, 512), ("W", 32, 512)), None),
    ("unet_tiny.torchscript.onnx", (("H", 32, 512), ("W", 32, 512)), ("Concat:/Concat", {"B": 1, "H": 34, "W": 32})),
]
"""Real image exports with batch, height and width made symbolic: the verdict under the domains, and for a
violation the operation and the least failing shape (every one confirmed by a run of the executor)."""


@pytest.mark.parametrize(("name", "dims", "expected"), DYNAMIC, ids=[f"{n}-{len(d)}" for n, d, _ in DYNAMIC])
def test_real_exports_made_dynamic_are_proved_or_fail_for_a_confirmed_shape(
    tmp_path: Path, name: str, dims: tuple[tuple[str, int, int], ...], expected: tuple[str, dict[str, int]] | None
) -> None:
    model = made_dynamic(DATA / name, tmp_path / name)
    v = check(CheckContext(model, CheckConfig(profile=PROFILE_STRICT, trial_run=trial_run, dims=dims)))
    if expected is None:
        assert v.status is Status.PROVED, v.reason or v.witness
    else:
        assert v.status is Status.VIOLATED and v.witness is not None
        assert (v.witness.data["label"], v.witness.data["dims"]) == expected
        assert v.witness.data["run_error"]
