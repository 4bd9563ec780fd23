"""Done-when cases: benchmark CNNs and the conforming examples, partitioned for two or more providers."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from benchmarks.cnn_models import MODELS

from sonnx.base.verdict import Status
from sonnx.execution.inputs import random_inputs
from sonnx.loader import load_model
from sonnx.model.graph import Model
from sonnx.partition import Provider, check_partition, exec_verdict, make_partition
from sonnx.partition.fused import FUSED, fused_verdict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def conforming_examples() -> list[str]:
    cases = json.loads((EXAMPLES / "expected.json").read_text())["cases"]
    return sorted({c["model"] for c in cases if c["profile"] == "sonnx" and c["exit_code"] == 0})


def split_providers(model: Model) -> list[Provider]:
    """Two providers sharing the model's operator kinds alternately (sorted), so both get work."""
    kinds = sorted({(op.domain, op.operator) for op in model.graph.operations})
    return [Provider("NPU", frozenset(kinds[0::2])), Provider("DSP", frozenset(kinds[1::2]))]


def verify_all(model: Model, provs: list[Provider], fused_path: Path) -> None:
    part = make_partition(model, provs)
    assert len({s.device for s in part.subgraphs}) >= min(2, len(model.graph.operations))
    report = check_partition(model, part)
    assert report.exit_code == 0, report.text()
    feeds = random_inputs(model, 0)
    v = exec_verdict(model, part, feeds, "seed 0")
    assert v.status is Status.TESTED and v.details["tested"] == "1 input set (seed 0)", v
    v = fused_verdict(model, part, str(fused_path), feeds, "seed 0")
    assert v.rule_id == FUSED and v.status is Status.TESTED, v
    written = onnx.load(str(fused_path))
    assert len(written.graph.node) == len(part.subgraphs) and len(written.functions) == len(part.subgraphs)


def test_the_conforming_examples_are_found() -> None:
    assert "cnn_block.onnx" in conforming_examples() and len(conforming_examples()) >= 3


@pytest.mark.parametrize("name", conforming_examples())
def test_conforming_example(name: str, tmp_path: Path) -> None:
    model = load_model(EXAMPLES / name)
    verify_all(model, split_providers(model), tmp_path / "fused.onnx")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_benchmark_cnn(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.onnx"
    onnx.save(MODELS[name](size=32, classes=10), str(path))  # type: ignore[operator]
    model = load_model(path)
    provs = [
        Provider("NPU", frozenset({("", "Conv"), ("", "Relu"), ("", "Add"), ("", "MaxPool")})),
        Provider("DSP", frozenset({("", "BatchNormalization"), ("", "Clip")})),
    ]
    verify_all(model, provs, tmp_path / "fused.onnx")
