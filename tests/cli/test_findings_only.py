"""``sonnx-check --findings-only``: the text report without its unconditional PROVED lines.

What is left out must be exactly the PROVED verdicts that assume nothing and the model's summary line:
every other line of the full report (witnesses, reasons, waivers, notes, the result line) stays, in order,
and the exit code is the full check's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.common.cli import EXAMPLES, check, one_line
from tests.common.custom_ops import FUSED_MATMUL, declare, fused_matmul_model


def _without_proofs(full: str) -> str:
    """The full text report with every PROVED verdict line (and its indented lines) and summary line removed."""
    kept: list[str] = []
    dropping = False
    for line in full.splitlines():
        if line.startswith("  IR "):
            continue
        if line.startswith("  ") and not line.startswith("    "):
            dropping = line.startswith("  PROVED ")
        elif not line.startswith("            "):
            dropping = False
        if not dropping:
            kept.append(line)
    return "\n".join(kept) + "\n"


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_a_violating_model_prints_its_findings_and_no_proof() -> None:
    model = str(EXAMPLES / "seed001_example.onnx")
    code, full, _ = check("--color", "never", model)
    fcode, out, err = check("--color", "never", "--findings-only", model)
    assert (code, fcode, err) == (1, 1, "")
    assert out == _without_proofs(full)
    assert "  PROVED " not in out and "  IR " not in out
    assert "  VIOLATED  GRAPH-R1 " in out
    assert "witness: 1 dead operation(s), none of whose outputs is used: Sub:sub (#3 in Test)" in out
    assert "  WARNING   GRAPH-R1-OUTPUTS " in out
    assert out.splitlines()[-1] == "result: VIOLATED (2 violated, 1 warning, 0 unknown, 17 proved)"


def test_a_model_where_every_rule_holds_is_one_line() -> None:
    model = str(EXAMPLES / "strict_dense.onnx")
    code, out, err = check("--findings-only", model)
    assert (code, err) == (0, "")
    assert out == f"model: {model}; result: PROVED (0 violated, 0 warnings, 0 unknown, 20 proved)\n"


@pytest.mark.rule("GRAPH-ARITY")
def test_a_warning_is_a_finding_and_the_exit_code_stays_0() -> None:
    code, out, _ = check("--findings-only", str(EXAMPLES / "cnn_block.onnx"))
    assert code == 0
    assert out.splitlines()[1].startswith("  WARNING   GRAPH-ARITY ")
    assert "witness: 1 operation(s) leave operator positions unbound: MaxPool:pool" in out
    assert "  PROVED " not in out


def test_rules_left_out_by_a_selection_are_shown_as_not_checked() -> None:
    model = str(EXAMPLES / "strict_dense.onnx")
    code, full, _ = check("--select", "GRAPH-C1", model)
    fcode, out, _ = check("--findings-only", "--select", "GRAPH-C1", model)
    assert code == fcode == 2
    assert out == _without_proofs(full)
    assert "  NOT CHECKED GRAPH-R1 " in out and "  PROVED    GRAPH-C1 " not in out
    assert "note: " in out and out.splitlines()[-2].startswith("result: PARTIAL")
    assert out.splitlines()[-1].startswith("  why: ")


@pytest.mark.rule("GRAPH-R2")
def test_a_proof_that_rests_on_a_declaration_is_shown(tmp_path: Path) -> None:
    model = fused_matmul_model(tmp_path / "fm.onnx")
    ops = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    code, out, _ = check("--findings-only", "--operator-declarations", str(ops), str(model))
    assert code == 0
    assert "  PROVED    GRAPH-R2 " in out
    assert "assuming: operator declarations ops.toml" in out
    assert "  PROVED    GRAPH-C1 " not in out  # an unconditional proof is still left out


@pytest.mark.parametrize("fmt", [("--json",), ("--format", "sarif"), ("--format", "json")])
def test_findings_only_is_refused_with_a_machine_format(fmt: tuple[str, ...]) -> None:
    code, out, err = check("--findings-only", *fmt, str(EXAMPLES / "cnn_block.onnx"))
    one_line(code, out, err)
    assert "--findings-only applies to the text report" in err


def test_a_note_keeps_the_model_on_several_lines(tmp_path: Path) -> None:
    ops = declare(tmp_path / "ops.toml", FUSED_MATMUL)  # declares an operator the model never uses: a warning note
    model = str(EXAMPLES / "strict_dense.onnx")
    code, full, _ = check("--operator-declarations", str(ops), model)
    fcode, out, _ = check("--findings-only", "--operator-declarations", str(ops), model)
    assert code == fcode == 0
    assert out == _without_proofs(full)
    lines = out.splitlines()
    assert lines[0] == f"model: {model}" and lines[1].startswith("  warning: ") and lines[2].startswith("result: ")
