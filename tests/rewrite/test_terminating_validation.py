"""Translation validation that terminates and says only what it established (``sonnx rewrite``, ``sonnx equiv``).

The models reproduce, with onnx.helper, the structure of real exports: a TorchScript Loop whose trip count is an
int64 graph input (a 2^63-1 trip count drawn for it never ended), and an ALBERT-like pair of embedding tables read
by Gather, the token-type table with two rows (indices drawn in [-10, 10] made neither model run).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import sonnx.rewrite.validate as validate
from sonnx.base.errors import BudgetExceeded
from sonnx.cli import main
from sonnx.execution.executor import execute
from sonnx.execution.inputs import random_inputs
from sonnx.execution.inputs.domain import input_domains
from sonnx.execution.inputs.sets import SETS, input_sets
from sonnx.rewrite.validate import DIFFERS, ESTABLISHED, NOT_ESTABLISHED, SetResult, outcome
from tests.common.rewrite_models import build, init, load, vi

I64 = TensorProto.INT64


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _loop(tmp: Path) -> Path:
    """``y = Loop(n)(x + 1 each iteration)``, the trip count ``n`` an int64 graph input of one element."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["acc_in", "one"], ["acc_out"]),
        ],
        "body",
        [vi("i", [], I64), vi("cond_in", [], TensorProto.BOOL), vi("acc_in", [2])],
        [vi("cond_out", [], TensorProto.BOOL), vi("acc_out", [2])],
        [init("one", [1.0, 1.0], np.float32)],
    )
    nodes = [
        helper.make_node("Identity", ["x"], ["x0"]),
        helper.make_node("Constant", [], ["t"], value=helper.make_tensor("tv", TensorProto.BOOL, [], [True])),
        helper.make_node("Loop", ["n", "t", "x0"], ["y"], body=body),
    ]
    return build(tmp, nodes, [vi("n", [1], I64), vi("x", [2])], [vi("y", [2])], name="loop.onnx")


def _embeddings(tmp: Path, name: str = "emb.onnx") -> Path:
    """ALBERT's embeddings: word ids into a 30-row table, token types (int32, cast) into a 2-row table, summed."""
    words = init("words", np.linspace(-1, 1, 30 * 4).reshape(30, 4), np.float32)
    types = init("types", np.array([[0.5] * 4, [-0.5] * 4]), np.float32)
    nodes = [
        helper.make_node("Gather", ["words", "ids"], ["w"]),
        helper.make_node("Cast", ["tt"], ["tt64"], to=I64),
        helper.make_node("Gather", ["types", "tt64"], ["t"]),
        helper.make_node("Add", ["w", "t"], ["y"]),
    ]
    inputs = [vi("ids", [1, 5], I64), vi("tt", [1, 5], TensorProto.INT32)]
    return build(tmp, nodes, inputs, [vi("y", [1, 5, 4])], [words, types], name=name)


def test_the_domains_come_from_the_model(tmp_path: Path) -> None:
    emb = input_domains(load(_embeddings(tmp_path)))
    assert (emb["ids"].low, emb["ids"].high) == (-30, 29)
    assert (emb["tt"].low, emb["tt"].high) == (-2, 1)  # followed through the Cast to the Gather
    assert "'types'" in emb["tt"].reasons[0] and "size 2" in emb["tt"].reasons[0]
    loop = input_domains(load(_loop(tmp_path)))
    assert (loop["n"].low, loop["n"].high) == (0, 8) and "trip count" in loop["n"].reasons[0]


def test_every_set_stays_inside_the_domain(tmp_path: Path) -> None:
    model = load(_embeddings(tmp_path))
    for seed in range(5):
        for name, feeds in input_sets(model, seed).items():
            assert feeds["tt"].min() >= -2 and feeds["tt"].max() <= 1, name
            assert feeds["ids"].min() >= -30 and feeds["ids"].max() <= 29, name
        assert random_inputs(model, seed)["tt"].max() <= 1
    extreme = np.concatenate([input_sets(model, s, ["extreme"])["extreme"]["tt"].ravel() for s in range(5)])
    assert {-2, 1} <= set(extreme.tolist())  # the ends of the domain, not of int32
    loop = load(_loop(tmp_path))
    for feeds in input_sets(loop, 0).values():
        assert 0 <= int(feeds["n"][0]) <= 8


def test_equiv_and_rewrite_of_the_embeddings_compare_every_set(tmp_path: Path) -> None:
    src = _embeddings(tmp_path)
    code, stdout, _ = run("equiv", str(src), str(src), "--json")
    doc = json.loads(stdout)
    assert code == 0 and doc["verdict"] == "EQUIVALENT", stdout
    assert [s["set"] for s in doc["numeric"] if s["compared"]] == list(SETS)
    assert doc["input_domains"]["tt"]["low"] == -2 and doc["budget_seconds"] == 60
    values = doc["numeric"][0]["inputs"]["tt"]["values"]
    assert len(values) == 5 and all(-2 <= v <= 1 for v in values)
    code, stdout, _ = run("rewrite", str(src), str(tmp_path / "out.onnx"))
    assert code == 0 and "input tt: domain [-2, 1]" in stdout and "no pass applied" in stdout


def test_a_loop_with_a_trip_count_input_terminates(tmp_path: Path) -> None:
    src = _loop(tmp_path)
    code, stdout, err = run("rewrite", str(src), str(tmp_path / "out.onnx"), "--json")
    doc = json.loads(stdout)
    assert code == 0 and doc["outcome"] == "established", err
    for s in doc["validation"]:
        assert 0 <= s["inputs"]["n"]["min"] <= s["inputs"]["n"]["max"] <= 8
    code, stdout, _ = run("equiv", str(src), str(tmp_path / "out.onnx"))
    assert code == 0, stdout


def test_the_budget_stops_a_long_loop(tmp_path: Path) -> None:
    model = load(_loop(tmp_path))
    feeds = {"n": np.array([200_000], np.int64), "x": np.zeros(2, np.float32)}
    with pytest.raises(BudgetExceeded, match=r"budget of 0\.01 s exceeded"):
        execute(model, feeds, budget=0.01)
    assert execute(model, {**feeds, "n": np.array([3], np.int64)}, budget=60)["y"].tolist() == [3.0, 3.0]


def test_a_set_stopped_at_its_budget_is_not_compared(tmp_path: Path) -> None:
    src = _loop(tmp_path)
    npz = tmp_path / "huge.npz"
    np.savez(npz, n=np.array([2**63 - 1], np.int64), x=np.zeros(2, np.float32))
    code, stdout, _ = run("equiv", str(src), str(src), "--inputs", str(npz), "--budget", "0.2")
    assert code == 2 and stdout.startswith("NOT ESTABLISHED"), stdout
    assert "not compared" in stdout and "budget of 0.2 s exceeded" in stdout
    assert "DIFFERS" not in stdout and "NOT EQUIVALENT" not in stdout
    code, stdout, _ = run("rewrite", str(src), str(tmp_path / "o.onnx"), "--inputs", str(npz), "--budget", "0.2")
    assert code == 2 and "the validation could not be made" in stdout and not (tmp_path / "o.onnx").exists()
    assert "budget of 0.2 s exceeded" in stdout and "differs" not in stdout


def test_a_model_stopped_at_its_budget_is_not_a_model_that_fails(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    nodes = [helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT), helper.make_node("Add", ["x", "nf"], ["y"])]
    direct = build(tmp_path, nodes, [vi("n", [1], I64), vi("x", [2])], [vi("y", [2])], name="direct.onnx")
    npz = tmp_path / "huge.npz"
    np.savez(npz, n=np.array([2**63 - 1], np.int64), x=np.zeros(2, np.float32))
    code, stdout, _ = run("equiv", str(loop), str(direct), "--inputs", str(npz), "--budget", "0.2", "--json")
    doc = json.loads(stdout)
    assert code == 2 and doc["verdict"] == "NOT ESTABLISHED", stdout
    assert doc["not_compared"]["normal"].startswith("the first model did not finish: budget of 0.2 s exceeded")


def test_a_set_neither_model_runs_is_not_a_difference(tmp_path: Path) -> None:
    src = _embeddings(tmp_path)
    npz = tmp_path / "bad.npz"
    np.savez(npz, ids=np.zeros((1, 5), np.int64), tt=np.full((1, 5), 7, np.int32))  # row 7 of a 2-row table
    code, stdout, _ = run("rewrite", str(src), str(tmp_path / "o.onnx"), "--inputs", str(npz))
    assert code == 2, stdout
    assert "not compared" in stdout and "neither model runs" in stdout and "differs" not in stdout
    assert "nothing written: the validation could not be made" in stdout and not (tmp_path / "o.onnx").exists()
    code, stdout, _ = run("equiv", str(src), str(src), "--inputs", str(npz), "--json")
    doc = json.loads(stdout)
    assert code == 2 and doc["verdict"] == "NOT ESTABLISHED" and list(doc["not_compared"]) == ["normal"]
    assert [s["set"] for s in doc["numeric"]] == ["normal"]  # given values: the normal set alone
    assert doc["numeric"][0]["source"].startswith(f"given: {npz}")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = validate.execute

    def counted(*args: object, **kwargs: object) -> dict[str, np.ndarray]:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(validate, "execute", counted)
    return calls


def test_only_the_requested_sets_are_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _embeddings(tmp_path)
    calls = _counting(monkeypatch)
    code, stdout, _ = run("equiv", str(src), str(src), "--sets", "normal", "--json")
    assert code == 0 and len(calls) == 2, stdout  # one run of each model
    assert [s["set"] for s in json.loads(stdout)["numeric"]] == ["normal"]
    calls.clear()
    code, stdout, _ = run("rewrite", str(src), str(tmp_path / "o.onnx"), "--sets", "signed", "--json")
    assert code == 0 and len(calls) == 2 and [s["set"] for s in json.loads(stdout)["validation"]] == ["signed"]
    assert sorted(input_sets(load(src), 0, ["extreme"])) == ["extreme"]


def _unsorted(tmp: Path) -> Path:
    """Nodes out of topological order: every graph rule holds, onnx's full check (FORMAT-ONNX) refuses the file."""
    nodes = [helper.make_node("Relu", ["a"], ["y"]), helper.make_node("Neg", ["x"], ["a"])]
    return build(tmp, nodes, [vi("x", [2])], [vi("y", [2])], name="unsorted.onnx")


@pytest.mark.rule("FORMAT-ONNX")
def test_rewrite_refuses_a_file_format_onnx_rejects(tmp_path: Path) -> None:
    src = _unsorted(tmp_path)
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(str(src), full_check=True)
    code, stdout, err = run("rewrite", str(src), str(tmp_path / "o.onnx"))
    assert code == 2 and not (tmp_path / "o.onnx").exists() and stdout == ""
    assert err.count("\n") == 1 and "FORMAT-ONNX violated" in err and "topologically sorted" in err
    code, stdout, _ = run("equiv", str(src), str(src))
    assert "violated FORMAT-ONNX" in stdout and "FORMAT-ONNX: onnx.checker refuses the model" in stdout


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "soon"])
def test_a_budget_must_be_a_positive_number(tmp_path: Path, bad: str) -> None:
    src = _embeddings(tmp_path)
    code, _, err = run("equiv", str(src), str(src), "--budget", bad)
    assert code == 2 and err.count("\n") == 1 and "budget" in err


def _set(name: str, not_compared: str | None = None, refused: str | None = None) -> SetResult:
    return SetResult(name, refused=refused, not_compared=not_compared)


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ([_set("normal"), _set("signed"), _set("extreme", not_compared="neither model runs")], ESTABLISHED),
        ([_set("normal", not_compared="budget"), _set("signed"), _set("extreme")], NOT_ESTABLISHED),
        ([_set("normal", not_compared="neither model runs")], NOT_ESTABLISHED),
        ([_set("extreme")], ESTABLISHED),
        ([_set("normal", not_compared="budget"), _set("signed", refused="only the second model fails")], DIFFERS),
        ([], NOT_ESTABLISHED),
    ],
)
def test_what_the_sets_establish_together(sets: list[SetResult], expected: str) -> None:
    assert outcome(sets) == expected


def test_several_consumers_intersect_and_the_type_cuts(tmp_path: Path) -> None:
    small, big = init("small", np.zeros((2, 3)), np.float32), init("big", np.zeros((5, 3)), np.float32)
    nodes = [
        helper.make_node("Gather", ["small", "i"], ["a"]),
        helper.make_node("Unsqueeze", ["i", "ax"], ["iu"]),
        helper.make_node("Gather", ["big", "iu"], ["b"]),
        helper.make_node("Gather", ["big", "u"], ["c"]),
        helper.make_node("TopK", ["d", "k"], ["v", "vi"]),
    ]
    inputs = [vi("i", [4], I64), vi("u", [4], TensorProto.UINT8), vi("d", [1, 6]), vi("k", [1], I64)]
    outputs = [vi("a", [4, 3]), vi("b", [1, 4, 3]), vi("c", [4, 3]), vi("v", None), vi("vi", None, I64)]
    model = load(build(tmp_path, nodes, inputs, outputs, [small, big, init("ax", [0])]))
    d = input_domains(model)
    assert (d["i"].low, d["i"].high) == (-2, 1) and len(d["i"].reasons) == 2
    assert (d["u"].low, d["u"].high) == (0, 4)  # an unsigned type has no negative index
    assert (d["k"].low, d["k"].high) == (1, 6)
    assert "d" not in d


def test_an_index_read_by_a_nested_graph_is_bounded_too(tmp_path: Path) -> None:
    def branch(name: str) -> onnx.GraphProto:
        return helper.make_graph([helper.make_node("Gather", ["types", "ids"], [f"{name}_out"])], name, [],
                                 [vi(f"{name}_out", [3, 4])])

    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=branch("then"), else_branch=branch("else"))]
    types = init("types", np.zeros((2, 4)), np.float32)
    model = load(build(tmp_path, nodes, [vi("c", [], TensorProto.BOOL), vi("ids", [3], I64)], [vi("y", [3, 4])],
                       [types]))
    d = input_domains(model)
    assert (d["ids"].low, d["ids"].high) == (-2, 1)
