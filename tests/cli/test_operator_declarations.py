"""``--operator-declarations`` on the command line: exit codes, the assumption in every output, one-line errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from onnx import TensorProto

import sonnx as sonnx_api
from sonnx.base.verdict import Status, Verdict
from sonnx.checking.agreement import agree
from tests.common.cli import ROOT, check, one_line, sonnx
from tests.common.custom_ops import FUSED_MATMUL, custom_model, declare, fused_matmul_model, one

RESTING = ("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")
def test_custom_operator_today_unknown_exit_2_reason_once(tmp_path: Path) -> None:
    code, out, _ = check(str(fused_matmul_model(tmp_path / "m.onnx")))
    assert code == 2
    for rid in RESTING:
        assert any(line.split()[:2] == ["UNKNOWN", rid] for line in out.splitlines()), rid
    r2 = next(line for line in out.splitlines() if "determinism of 1 operation(s)" in line)
    assert r2.count("domain 'com.microsoft' is not one whose operators sonnx knows") == 1, r2
    assert "direct and smt [smt/search]: " in r2


def test_same_reason_once_different_reasons_both() -> None:
    same, _ = agree(Verdict.unknown("R", "why"), Verdict.unknown("R", "why [smt/search]", engine="smt"))
    assert same.reason == "direct and smt [smt/search]: why"
    differ, _ = agree(Verdict.unknown("R", "why"), Verdict.unknown("R", "other [smt/search]", engine="smt"))
    assert differ.reason == "direct: why; smt: other [smt/search]"


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize("engine", ["both", "direct", "smt"])
def test_declared_model_proved_assuming_declarations(tmp_path: Path, engine: str) -> None:
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    code, out, _ = check(str(fused_matmul_model(tmp_path / "m.onnx")), "--operator-declarations", str(decl),
                         "--engine", engine)
    assert code == 0, out
    lines = out.splitlines()
    for rid in RESTING:
        at = next(k for k, line in enumerate(lines) if line.split()[:2] == ["PROVED", rid])
        assert lines[at + 1].strip().startswith("assuming: operator declarations ops.toml (sha256 "), lines[at + 1]
    assert "result: PROVED (0 violated" in out and "), assuming operator declarations ops.toml" in out
    assert out.count("assuming: ") == len(RESTING)  # and no other verdict claims it


@pytest.mark.rule("GRAPH-R2")
def test_json_sarif_junit_carry_the_assumption(tmp_path: Path) -> None:
    model = str(custom_model(tmp_path / "m.onnx", "Sampler", ["X0"]))
    decl = str(declare(tmp_path / "ops.toml", one("Sampler", deterministic=False)))
    code, out, _ = check(model, "--operator-declarations", decl, "--json", "--sarif", str(tmp_path / "r.sarif"),
                         "--junit", str(tmp_path / "r.xml"))
    assert code == 1
    entry = json.loads(out)["models"][0]
    r2 = next(v for v in entry["verdicts"] if v["rule"] == "GRAPH-R2")
    assert r2["status"] == "VIOLATED" and r2["assumes"][0].startswith("operator declarations ops.toml (sha256 ")
    arity = next(v for v in entry["verdicts"] if v["rule"] == "GRAPH-ARITY")
    assert arity["status"] == "PROVED" and arity["assumes"] == r2["assumes"]
    assert entry["assumes"] == r2["assumes"]
    assert all("assumes" not in v for v in entry["verdicts"] if v["rule"] in ("GRAPH-C1", "GRAPH-ATTRIBUTES"))
    log = json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(log, SARIF_SCHEMA)
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "GRAPH-R2")
    assert result["properties"]["assumes"] == r2["assumes"]
    assert log["runs"][0]["properties"]["models"][0]["assumes"]["GRAPH-ARITY"] == r2["assumes"]
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "r.xml").getroot().iter("testcase")}
    proved = cases["GRAPH-ARITY"]
    assert proved.find("failure") is None and proved.find("error") is None
    assert "assuming: operator declarations ops.toml" in (proved.findtext("system-out") or "")
    prop = proved.find("properties/property")
    assert prop is not None and prop.get("name") == "assumes"


def test_unused_declaration_is_a_warning_line(tmp_path: Path) -> None:
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL + '\n' + one("Unused").split("\n", 2)[2])
    code, out, _ = check(str(fused_matmul_model(tmp_path / "m.onnx")), "--operator-declarations", str(decl))
    assert code == 0
    assert ("  warning: --operator-declarations: com.microsoft::Unused (opset 1+) is declared but no operation of "
            "the model uses it") in out
    code, out, _ = check(str(fused_matmul_model(tmp_path / "m.onnx")), "--operator-declarations", str(decl), "--json")
    assert json.loads(out)["models"][0]["warnings"] == [
        "--operator-declarations: com.microsoft::Unused (opset 1+) is declared but no operation of the model uses it"
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [("version = 1\n", "missing key 'operator'"), (one("X", inputs="{ min = 3, max = 1 }"), "below 'min' 3")],
)
def test_malformed_file_one_line_exit_2(tmp_path: Path, text: str, why: str) -> None:
    decl = declare(tmp_path / "ops.toml", text)
    code, out, err = check(str(fused_matmul_model(tmp_path / "m.onnx")), "--operator-declarations", str(decl))
    one_line(code, out, err)
    assert why in err


def test_contradicted_declaration_one_line_exit_2(tmp_path: Path) -> None:
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    model = fused_matmul_model(tmp_path / "m.onnx", elem=TensorProto.INT64)
    code, out, err = check(str(model), "--operator-declarations", str(decl))
    one_line(code, out, err)
    assert "the model contradicts the declarations: input 0 'A'" in err and "int64" in err


def test_missing_file_one_line_exit_2(tmp_path: Path) -> None:
    code, out, err = check(str(fused_matmul_model(tmp_path / "m.onnx")), "--operator-declarations",
                           str(tmp_path / "none.toml"))
    one_line(code, out, err)
    assert "cannot read" in err


@pytest.mark.rule("GRAPH-R2")
def test_python_api(tmp_path: Path) -> None:
    model = fused_matmul_model(tmp_path / "m.onnx")
    before = sonnx_api.check(model)
    after = sonnx_api.check(model, operator_declarations=declare(tmp_path / "ops.toml", FUSED_MATMUL))
    assert before.exit_code == 2 and after.exit_code == 0
    r2 = after.verdict("GRAPH-R2")
    assert r2 is not None and r2.status is Status.PROVED and r2.shown_status.startswith(
        "PROVED, assuming operator declarations ops.toml (sha256 ")


def test_batch_says_its_results_assume_the_declarations(tmp_path: Path) -> None:
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    models = [str(fused_matmul_model(tmp_path / f"m{k}.onnx")) for k in range(2)]
    code, out, _ = sonnx("batch", "-j", "1", *models, "--operator-declarations", str(decl))
    assert code == 0
    assert "note: 2 models checked assuming operator declarations ops.toml (sha256 " in out
