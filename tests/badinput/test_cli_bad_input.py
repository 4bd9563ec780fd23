"""The bad-input corpus through the command line: exit 2 with one line, or exit 1 with a witness.

Every case of ``tests/common/bad_models.py`` plus the structural extremes the
foundation issue lists: a self-loop, a 100,000-operation cycle, a
1,000,000-operation graph, and 2,000-deep nested subgraphs. None may print a
traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sonnx.loader import wire
from tests.common.bad_models import CASES
from tests.common.cli import check


def run_cli(*argv: str) -> tuple[int, str, str]:
    return check(*argv)


def assert_no_traceback(*texts: str) -> None:
    for t in texts:
        assert "Traceback" not in t
        assert "internal error" not in t


@pytest.mark.parametrize("case_id,builder,_error", CASES, ids=[c[0] for c in CASES])
def test_unusable_input_exits_2_with_one_line(
    case_id: str, builder: Callable[[Path], str], _error: type, tmp_path: Path
) -> None:
    path = builder(tmp_path)
    code, out, err = run_cli(path)
    assert code == 2, out + err
    assert_no_traceback(out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sonnx-check: ")


def chain_model(n: int, loop_back: bool) -> bytes:
    """``n`` Relu operations in a chain; with ``loop_back`` the first reads the last (one big cycle)."""
    first_input = f"t{n - 1}" if loop_back else "x"
    nodes = [wire.node("Relu", [first_input], ["t0"])]
    nodes += [wire.node("Relu", [f"t{i - 1}"], [f"t{i}"]) for i in range(1, n)]
    inputs = [] if loop_back else [wire.value_info("x", 1, [1])]
    g = wire.graph("chain", nodes, inputs=inputs, outputs=[wire.value_info(f"t{n - 1}", 1, [1])])
    return wire.model(g)


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_self_loop_exits_1_with_the_cycle(tmp_path: Path) -> None:
    g = wire.graph(
        "self_loop",
        [wire.node("Add", ["x", "y"], ["y"], name="me")],
        inputs=[wire.value_info("x", 1, [1])],
        outputs=[wire.value_info("y", 1, [1])],
    )
    p = tmp_path / "self_loop.onnx"
    p.write_bytes(wire.model(g))
    code, out, err = run_cli("--json", str(p))
    assert code == 1
    assert_no_traceback(out, err)
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    cyc = verdicts["GRAPH-ACYCLIC"]
    assert cyc["status"] == "VIOLATED"
    assert cyc["witness"]["length"] == 1


@pytest.mark.rule("GRAPH-ACYCLIC")
@pytest.mark.slow
def test_100k_operation_cycle_exits_1_with_the_whole_cycle(tmp_path: Path) -> None:
    p = tmp_path / "cycle.onnx"
    p.write_bytes(chain_model(100_000, loop_back=True))
    code, out, err = run_cli("--json", str(p))
    assert code == 1
    assert_no_traceback(out, err)
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    assert verdicts["GRAPH-ACYCLIC"]["status"] == "VIOLATED"
    assert verdicts["GRAPH-ACYCLIC"]["witness"]["length"] == 100_000


@pytest.mark.slow
def test_million_operation_graph_is_checked(tmp_path: Path) -> None:
    p = tmp_path / "million.onnx"
    p.write_bytes(chain_model(1_000_000, loop_back=False))
    code, out, err = run_cli("--structure-only", "--engine", "direct", str(p))
    assert_no_traceback(out, err)
    assert code == 0, out
    assert "1000000 operations" in out


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-IF-BRANCHES")
def test_2000_deep_nested_subgraphs_are_checked(tmp_path: Path) -> None:
    p = tmp_path / "deep.onnx"
    p.write_bytes(wire.encode_nested_if_model(2000))
    code, out, err = run_cli(str(p))
    assert_no_traceback(out, err)
    # every graph rule decides but two: onnx's parser stops at 100 levels, so FORMAT-ONNX is UNKNOWN (exit 2), and
    # so is GRAPH-IF-BRANCHES, whose branch types onnx's inference derives (spec section 9.4)
    assert code == 2 and "UNKNOWN   FORMAT-ONNX" in out and "2 unknown" in out, out + err
    assert "UNKNOWN   GRAPH-IF-BRANCHES" in out and "no inferred types: onnx's shape inference cannot read" in out
    assert "2000" in out or "4000" in out
