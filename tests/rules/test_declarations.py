"""Operator declarations: the strict reader, and the direct rules that read a declared custom operator.

GRAPH-R2, GRAPH-DETERMINISM, GRAPH-ARITY and GRAPH-ATTRIBUTES are UNKNOWN on
an operator of a custom domain; a declaration decides them, and a model that
contradicts its declaration is refused with one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from onnx import TensorProto

from sonnx.api import load
from sonnx.base.errors import UsageError
from sonnx.base.verdict import Status, Verdict
from sonnx.rules import CheckConfig
from sonnx.rules.declarations import Declarations, parse, read_declarations
from sonnx.rules.declared_operations import check_declarations, rules_resting, unused
from sonnx.rules.registry import run_rules
from tests.common.custom_ops import FUSED_MATMUL, custom_model, declare, fused_matmul_model, one

RESTING = ("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")


def verdicts(model: Path, decls: Declarations | None) -> dict[str, Verdict]:
    return {v.rule_id: v for v in run_rules(load(model), CheckConfig(declarations=decls))}


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")
def test_undeclared_custom_operator_leaves_four_rules_unknown(tmp_path: Path) -> None:
    got = verdicts(fused_matmul_model(tmp_path / "m.onnx"), None)
    for rid in RESTING:
        assert got[rid].status is Status.UNKNOWN, rid
        assert "com.microsoft" in (got[rid].reason or "")


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")
def test_declaration_proves_the_four_rules(tmp_path: Path) -> None:
    decls = read_declarations(str(declare(tmp_path / "d.toml", FUSED_MATMUL)))
    got = verdicts(fused_matmul_model(tmp_path / "m.onnx"), decls)
    for rid in RESTING:
        assert got[rid].status is Status.PROVED, (rid, got[rid])


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_nondeterministic_declaration_violates_r2(tmp_path: Path) -> None:
    model = custom_model(tmp_path / "m.onnx", "Sampler", ["X0"])
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Sampler", deterministic=False))))
    got = verdicts(model, decls)
    assert got["GRAPH-R2"].status is Status.VIOLATED
    witness = got["GRAPH-R2"].witness
    assert witness is not None and "declared nondeterministic in d.toml" in witness.summary
    assert got["GRAPH-DETERMINISM"].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-ARITY")
def test_optional_position_left_out_violates_arity(tmp_path: Path) -> None:
    model = custom_model(tmp_path / "m.onnx", "Blend", ["X0", ""])
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Blend", inputs="{ min = 1, max = 2 }"))))
    v = verdicts(model, decls)["GRAPH-ARITY"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["operations"][0]["inputs_left_out"] == [{"position": 1, "formal": "input[1]"}]


@pytest.mark.rule("GRAPH-ARITY")
def test_variadic_declaration_binds_every_written_position(tmp_path: Path) -> None:
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Sum3", inputs="{ min = 1 }"))))
    full = verdicts(custom_model(tmp_path / "a.onnx", "Sum3", ["X0", "X1", "X2"]), decls)["GRAPH-ARITY"]
    assert full.status is Status.PROVED
    gap = verdicts(custom_model(tmp_path / "b.onnx", "Sum3", ["X0", "", "X2"]), decls)["GRAPH-ARITY"]
    assert gap.status is Status.VIOLATED


@pytest.mark.rule("GRAPH-ATTRIBUTES")
def test_undeclared_attribute_violates_attributes(tmp_path: Path) -> None:
    text = FUSED_MATMUL.replace('attributes = { alpha = "float", transA = "int", transB = "int" }',
                                'attributes = { transA = "int" }')
    decls = read_declarations(str(declare(tmp_path / "d.toml", text)))
    got = verdicts(fused_matmul_model(tmp_path / "m.onnx"), decls)
    assert got["GRAPH-ATTRIBUTES"].status is Status.VIOLATED
    assert got["GRAPH-R2"].status is Status.UNKNOWN  # an undefined attribute gives the operation no meaning


@pytest.mark.rule("GRAPH-ATTRIBUTES")
def test_missing_required_attribute_violates_attributes(tmp_path: Path) -> None:
    text = FUSED_MATMUL.replace('transB = "int" }', 'transB = "int" }\nrequired_attributes = ["transB"]')
    decls = read_declarations(str(declare(tmp_path / "d.toml", text)))
    v = verdicts(fused_matmul_model(tmp_path / "m.onnx"), decls)["GRAPH-ATTRIBUTES"]
    assert v.status is Status.VIOLATED and v.witness is not None and "transB" in v.witness.summary


@pytest.mark.rule("GRAPH-R2")
def test_declaration_outside_its_versions_does_not_apply(tmp_path: Path) -> None:
    decls = read_declarations(str(declare(tmp_path / "d.toml", FUSED_MATMUL.replace("since = 1", "since = 2"))))
    model = fused_matmul_model(tmp_path / "m.onnx", opset=1)
    assert verdicts(model, decls)["GRAPH-R2"].status is Status.UNKNOWN
    assert rules_resting(load(model), decls) == ()
    assert unused(load(model), decls) == [
        "--operator-declarations: com.microsoft::FusedMatMul (opset 2+) is declared but no operation of the model "
        "uses it"
    ]


def test_resting_rules_leave_attributes_out_when_none_are_declared(tmp_path: Path) -> None:
    model = load(custom_model(tmp_path / "m.onnx", "Sampler", ["X0"]))
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Sampler"))))
    assert rules_resting(model, decls) == ("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY")


def test_input_type_the_declaration_refuses_is_an_error(tmp_path: Path) -> None:
    model = load(fused_matmul_model(tmp_path / "m.onnx", elem=TensorProto.INT32))
    decls = read_declarations(str(declare(tmp_path / "d.toml", FUSED_MATMUL)))
    with pytest.raises(UsageError, match=r"input 0 'A' of .* is of type int32 at run time, which the declaration "
                                         r"of com.microsoft::FusedMatMul \(opset 1\+\) does not allow \(and 1 more\)"):
        check_declarations(model, decls)


def test_more_positions_than_declared_is_an_error(tmp_path: Path) -> None:
    model = load(custom_model(tmp_path / "m.onnx", "Blend", ["X0", "X1", "X2"]))
    decls = read_declarations(str(declare(tmp_path / "d.toml", one("Blend", inputs="{ min = 1, max = 2 }"))))
    with pytest.raises(UsageError, match="writes 3 input positions, more than the 2 declared"):
        check_declarations(model, decls)


def test_json_and_toml_read_alike(tmp_path: Path) -> None:
    toml = read_declarations(str(declare(tmp_path / "d.toml", one("Sampler", deterministic=False))))
    js = read_declarations(str(declare(tmp_path / "d.json", (
        '{"version": 1, "operator": [{"domain": "com.microsoft", "name": "Sampler", "deterministic": false,'
        ' "inputs": {"min": 1, "max": 1}, "outputs": {"min": 1, "max": 1}}]}'
    ))))
    assert toml.entries == js.entries and toml.sha256 != js.sha256


MALFORMED = [
    ("version = 2\noperator = []\n", "'version' must be 1"),
    ("version = 1\n", "missing key 'operator'"),
    ("version = 1\noperator = []\n", "'operator' must be a non-empty list"),
    ("version = 1\nextra = 1\n[[operator]]\n", "unknown key 'extra'"),
    (one("X", inputs="{ min = 2, max = 1 }"), "'max' 1 is below 'min' 2"),
    (one("X", inputs="{ min = -1 }"), "'min' must be an integer from 0"),
    (one("X", inputs="{ min = 1, types = [\"floaty\"] }"), "unknown element type 'floaty'"),
    (one("X", inputs="{ max = 1 }"), "missing key 'min'"),
    (one("X", extra="colour = 1\n"), "unknown key 'colour'"),
    (one("X").replace("deterministic = true", 'deterministic = "yes"'), "'deterministic' must be true or false"),
    (one("X").replace('"com.microsoft"', '"ai.onnx"'), "only custom operators are declared"),
    (one("X", extra='attributes = { a = "bignum" }\n'), "attribute a = 'bignum': unknown type"),
    (one("X", extra='required_attributes = ["a"]\n'), "'required_attributes' needs 'attributes'"),
    (one("X", extra='attributes = { a = "int" }\nrequired_attributes = ["b"]\n'), "required attribute 'b' is not"),
    (one("X") + '\n[[operator]]\ndomain = "com.microsoft"\nname = "X"\nsince = 3\ndeterministic = true\n'
     "inputs = { min = 1 }\noutputs = { min = 1 }\n", "operator 2: com.microsoft::X (opset 3+) overlaps"),
    ("version = [", "not valid TOML"),
]


@pytest.mark.parametrize(("text", "why"), MALFORMED)
def test_malformed_file_is_one_usage_error(tmp_path: Path, text: str, why: str) -> None:
    with pytest.raises(UsageError) as exc:
        parse(text.encode(), str(tmp_path / "d.toml"))
    line = exc.value.one_line()
    assert why in line and line.startswith("--operator-declarations ") and "\n" not in str(exc.value)


def test_malformed_json_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not valid JSON: the key 'version' appears twice"):
        parse(b'{"version": 1, "version": 1, "operator": []}', "d.json")
    with pytest.raises(UsageError, match="cannot read"):
        read_declarations(str(tmp_path / "absent.toml"))
