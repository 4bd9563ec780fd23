"""Both engines read the user's operator declarations the same way (GRAPH-R2, GRAPH-DETERMINISM, GRAPH-ARITY)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sonnx.api import load
from sonnx.base.verdict import Status, Verdict
from sonnx.rules import CheckConfig
from sonnx.rules.declarations import read_declarations
from sonnx.rules.registry import run_rules
from sonnx.smt.engine import run_smt
from tests.common.custom_ops import FUSED_MATMUL, custom_model, declare, fused_matmul_model, one

ENCODED = ("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY")


def both(model: Path, decl: Path | None) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    m = load(model)
    decls = None if decl is None else read_declarations(str(decl))
    direct = {v.rule_id: v for v in run_rules(m, CheckConfig(declarations=decls))}
    smt = {v.rule_id: v for v in run_smt(m, declarations=decls).verdicts}
    return direct, smt


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY")
def test_undeclared_unknown_in_both(tmp_path: Path) -> None:
    direct, smt = both(fused_matmul_model(tmp_path / "m.onnx"), None)
    for rid in ENCODED:
        assert direct[rid].status is smt[rid].status is Status.UNKNOWN, rid


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY")
def test_declared_deterministic_proved_in_both(tmp_path: Path) -> None:
    direct, smt = both(fused_matmul_model(tmp_path / "m.onnx"), declare(tmp_path / "d.toml", FUSED_MATMUL))
    for rid in ENCODED:
        assert direct[rid].status is smt[rid].status is Status.PROVED, (rid, direct[rid], smt[rid])


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_declared_nondeterministic_violated_in_both_with_the_same_reason(tmp_path: Path) -> None:
    model = custom_model(tmp_path / "m.onnx", "Sampler", ["X0"])
    direct, smt = both(model, declare(tmp_path / "d.toml", one("Sampler", deterministic=False)))
    for rid in ("GRAPH-R2", "GRAPH-DETERMINISM"):
        assert direct[rid].status is smt[rid].status is Status.VIOLATED, rid
    d, s = direct["GRAPH-R2"].witness, smt["GRAPH-R2"].witness
    assert d is not None and s is not None and d.summary == s.summary
    assert "declared nondeterministic in d.toml (sha256 " in s.summary


@pytest.mark.rule("GRAPH-R2")
def test_undeclared_operator_of_a_declared_domain_stays_unknown_in_both(tmp_path: Path) -> None:
    model = custom_model(tmp_path / "m.onnx", "Other", ["X0"])
    direct, smt = both(model, declare(tmp_path / "d.toml", one("Sampler", deterministic=False)))
    assert direct["GRAPH-R2"].status is smt["GRAPH-R2"].status is Status.UNKNOWN
    assert f"{direct['GRAPH-R2'].reason} [smt/search]" == smt["GRAPH-R2"].reason


@pytest.mark.rule("GRAPH-ARITY")
def test_declared_arity_left_out_violated_in_both(tmp_path: Path) -> None:
    model = custom_model(tmp_path / "m.onnx", "Blend", ["X0", ""])
    direct, smt = both(model, declare(tmp_path / "d.toml", one("Blend", inputs="{ min = 1, max = 2 }")))
    assert direct["GRAPH-ARITY"].status is smt["GRAPH-ARITY"].status is Status.VIOLATED
    d, s = direct["GRAPH-ARITY"].witness, smt["GRAPH-ARITY"].witness
    assert d is not None and s is not None and d.summary == s.summary


@pytest.mark.rule("GRAPH-R2")
def test_certificate_mode_reads_the_declaration_too(tmp_path: Path) -> None:
    m = load(custom_model(tmp_path / "m.onnx", "Sampler", ["X0"]))
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Sampler", deterministic=False))))
    v = {v.rule_id: v for v in run_smt(m, mode="certificate", declarations=decls).verdicts}["GRAPH-R2"]
    assert v.status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
def test_attribute_outside_the_declaration_blocks_r2_in_both(tmp_path: Path) -> None:
    text = FUSED_MATMUL.replace('attributes = { alpha = "float", transA = "int", transB = "int" }',
                                'attributes = { transA = "int" }')
    direct, smt = both(fused_matmul_model(tmp_path / "m.onnx"), declare(tmp_path / "d.toml", text))
    assert direct["GRAPH-R2"].status is smt["GRAPH-R2"].status is Status.UNKNOWN
    assert "attribute 'alpha'" in (smt["GRAPH-R2"].reason or "")
