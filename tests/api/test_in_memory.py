"""``sonnx.check``, ``run``, ``crosscheck`` and ``load`` on an ``onnx.ModelProto`` (or its bytes): no file written,
and the verdicts, outputs and refusals of the file it would be."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

import sonnx
from sonnx.base.errors import ExternalDataError, UsageError
from sonnx.base.verdict import Status
from sonnx.loader.memory import IN_MEMORY
from tests.common.bad_models import _external

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CNN = EXAMPLES / "cnn_block.onnx"


def _verdicts(report: sonnx.ModelReport) -> list[tuple[Any, ...]]:
    """What a verdict says, without how FORMAT-ONNX called the checker (on a path or on bytes)."""
    out = []
    for v in report.verdicts:
        data = dict(v.witness.data) if v.witness is not None else {}
        data.pop("how", None)
        out.append((v.rule_id, v.status, v.engine, v.witness.summary if v.witness else None, data, v.reason))
    return out


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-C1", "GRAPH-IF-BRANCHES", "STRICT-BROADCAST")
@pytest.mark.parametrize(
    ("name", "profile"),
    [
        ("cnn_block.onnx", "sonnx"),
        ("c1_two_producers.onnx", "sonnx"),
        ("if_branches_mismatch.onnx", "sonnx"),
        ("strict_dense.onnx", "sonnx-strict"),
        ("strict_default_attribute.onnx", "sonnx-strict"),
    ],
)
def test_a_proto_gets_the_verdicts_of_its_file(name: str, profile: str) -> None:
    path = EXAMPLES / name
    on_file = sonnx.check(path, profile=profile)
    for given in (onnx.load(str(path)), path.read_bytes()):
        in_memory = sonnx.check(given, profile=profile)
        assert in_memory.path == IN_MEMORY and in_memory.error is None
        assert _verdicts(in_memory) == _verdicts(on_file)
        assert in_memory.exit_code == on_file.exit_code


@pytest.mark.rule("FORMAT-ONNX")
def test_format_onnx_runs_onnx_full_check_on_the_bytes() -> None:
    good = sonnx.check(onnx.load(str(CNN)))
    [fmt] = [v for v in good.verdicts if v.rule_id == "FORMAT-ONNX"]
    assert fmt.status is Status.PROVED
    bad = sonnx.check(onnx.load(str(EXAMPLES / "c1_two_producers.onnx")))
    [fmt] = [v for v in bad.verdicts if v.rule_id == "FORMAT-ONNX"]
    assert fmt.status is Status.VIOLATED and fmt.witness is not None
    assert fmt.witness.data["how"] == "check_model(bytes, full_check=True)"
    assert fmt.witness.summary.startswith("onnx.checker refuses the model (structure): ")


def test_no_file_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every temporary file sonnx could write goes to this folder, which must stay empty
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    report = sonnx.check(onnx.load(str(EXAMPLES / "if_branches_mismatch.onnx")), oracles="reference", orders=2)
    assert report.error is None
    assert os.listdir(tmp_path) == []


def test_run_and_crosscheck_give_what_they_give_for_the_file() -> None:
    proto = onnx.load(str(CNN))
    on_file = sonnx.run(CNN, seed=5)
    for given in (proto, proto.SerializeToString()):
        got = sonnx.run(given, seed=5)
        assert sorted(got) == sorted(on_file)
        assert all(np.array_equal(got[k], on_file[k]) for k in got)
    report = sonnx.crosscheck(proto, seed=5)
    expected = sonnx.crosscheck(CNN, seed=5)
    assert report.path == IN_MEMORY and report.outcome == expected.outcome == "AGREE"
    assert [r.run.name for r in report.results] == [r.run.name for r in expected.results]
    assert all(r.run.ran for r in report.results)


def test_the_oracles_of_a_check_run_the_bytes() -> None:
    report = sonnx.check(onnx.load(str(CNN)), oracles="reference,onnxruntime")
    crossed = [v for v in report.verdicts if v.rule_id.startswith("EXEC-CROSSCHECK")]
    assert [v.status for v in crossed] == [Status.TESTED, Status.TESTED], crossed


def test_load_reads_a_proto_and_its_bytes() -> None:
    proto = onnx.load(str(CNN))
    for given in (proto, proto.SerializeToString()):
        model = sonnx.load(given)
        assert model.source == "" and len(model.graph.operations) == len(sonnx.load(CNN).graph.operations)
    assert not sonnx.load(proto, read_weights=False).weights_loaded


def test_what_needs_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    proto = onnx.load(str(CNN))
    with pytest.raises(UsageError, match=r"^--evidence copies the model's file into the bundle; <in-memory model>"):
        sonnx.check(proto, evidence=str(tmp_path / "bundle"))
    assert not (tmp_path / "bundle").exists()
    with pytest.raises(UsageError, match="names an already loaded Model"):
        sonnx.check(proto, path="named.onnx")
    with pytest.raises(UsageError, match=r"an onnx\.ModelProto or its bytes, not int"):
        sonnx.run(42)  # type: ignore[arg-type]


def test_external_data_in_memory_is_an_error_in_the_report(tmp_path: Path) -> None:
    proto = onnx.load_model(str(_external(tmp_path)), load_external_data=False)
    report = sonnx.check(proto)
    assert isinstance(report.error, ExternalDataError) and report.exit_code == 2
    assert "has no folder to find it in" in report.error.one_line()
    with pytest.raises(ExternalDataError):
        sonnx.run(proto)


def test_waivers_name_an_in_memory_model_by_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    model = EXAMPLES / "c2_unused_input.onnx"
    data = model.read_bytes()
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(
        'schema = "sonnx-waivers/1"\n\n[[waiver]]\nid = "W-1"\nrule = "GRAPH-C2"\n'
        f'model_sha256 = "{hashlib.sha256(data).hexdigest()}"\nscope = "unused_input"\ntensor = "spare"\n'
        'justification = "fed by the harness"\nauthor = "A. Reviewer"\ndate = 2026-01-02\nexpires = 2026-06-30\n',
        encoding="utf-8",
    )
    options: dict[str, Any] = {"engine": "direct", "waivers": str(waivers), "waivers_date": "2026-01-15"}
    on_file = sonnx.check(model, **options)
    in_memory = sonnx.check(data, **options)
    [c2] = [v for v in in_memory.verdicts if v.rule_id == "GRAPH-C2"]
    assert c2.status is Status.WAIVED
    assert _verdicts(in_memory) == _verdicts(on_file)
