"""``sonnx run`` and ``sonnx-check --orders`` through their entry functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.cli import check_main, main
from tests.common.cli import call


def diamond(path: Path) -> Path:
    """a = x + x, b = relu(x), c = x + b, y = a + c: three valid orders (a may fire first, second or third)."""
    nodes = [
        helper.make_node("Add", ["x", "x"], ["a"]),
        helper.make_node("Relu", ["x"], ["b"]),
        helper.make_node("Add", ["x", "b"], ["c"]),
        helper.make_node("Add", ["a", "c"], ["y"]),
    ]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "diamond", [vi("x", TensorProto.FLOAT, [2, 3])], [vi("y", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def test_run_with_npz_inputs_writes_outputs(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    x = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    np.savez(tmp_path / "in.npz", x=x)
    code, out, err = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"),
                          "--output", str(tmp_path / "out.npz"))
    assert code == 0, err
    assert "y: float32 [2, 3]" in out
    with np.load(tmp_path / "out.npz") as got:
        np.testing.assert_array_equal(got["y"], (x + x) + (x + np.maximum(x, 0)))


def test_run_with_npy_input_and_repeat(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    code, out, _ = call(main, "run", str(model), "--input", f"x={tmp_path / 'x.npy'}", "--repeat", "2")
    assert code == 0
    assert out.splitlines()[-1].startswith("min ") and ", median " in out


def test_run_rejects_unknown_input_name_in_one_line(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    np.savez(tmp_path / "in.npz", z=np.ones(3))
    code, out, err = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "not graph inputs" in err


def test_orders_names_distinct_schedules_and_agrees(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    code, out, _ = call(check_main, "--json", "--orders", "2", str(model))
    assert code == 0, out
    verdict = json.loads(out)["models"][0]["verdicts"][-1]
    assert verdict["rule"] == "EXEC-ORDERS" and verdict["status"] == "PROVED"
    schedules = verdict["details"]["schedules"]
    assert schedules[0]["schedule"] == "file-order"
    assert len({s["sha256"] for s in schedules}) == len(schedules) == 3


def test_orders_on_a_single_order_model_says_so(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Add", ["a", "a"], ["y"])]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "chain", [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, tmp_path / "c.onnx")
    code, out, _ = call(check_main, "--json", "--orders", "3", str(tmp_path / "c.onnx"))
    assert code == 0
    verdict = json.loads(out)["models"][0]["verdicts"][-1]
    assert verdict["status"] == "PROVED" and "single valid order" in verdict["details"]["note"]


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.onnx"))
# Examples that cannot run: a cycle or an undefined tensor leaves outputs without values, and an unresolved
# recursive call has no kernel. (The r2 examples run: a random operator draws from sonnx's generator seeded by
# its seed attribute, the same values in every order; r2_dropout_training's input seed 0 draws
# training_mode = False, so its Dropout is inference.)
NOT_EXECUTABLE = {
    "acyclic_cycle.onnx",
    "c3_incomplete.onnx",
    "functions_recursion.onnx",
}


# Two operations assign y (a GRAPH-C1 violation): which one fires last decides y, so the schedules disagree.
# if_branches_mismatch's else branch has two valid orders: its orders are sampled, not all run (TESTED).
# Every other example has few enough valid orders that all of them are run (PROVED).
ORDER_DEPENDENT = {"c1_two_producers.onnx": "VIOLATED", "if_branches_mismatch.onnx": "TESTED"}


def test_orders_on_every_example_gives_a_verdict() -> None:
    assert EXAMPLES
    for path in EXAMPLES:
        _code, out, err = call(check_main, "--json", "--orders", "3", str(path))
        assert "Traceback" not in err and "internal error" not in err, (path.name, err)
        verdict = json.loads(out)["models"][0]["verdicts"][-1]
        assert verdict["rule"] == "EXEC-ORDERS"
        expected = "UNKNOWN" if path.name in NOT_EXECUTABLE else ORDER_DEPENDENT.get(path.name, "PROVED")
        assert verdict["status"] == expected, (path.name, verdict)


def test_every_valid_order_is_run_when_there_are_few(tmp_path: Path) -> None:
    """The diamond has three valid orders: all are run and the verdict is PROVED with that count."""
    _code, out, _ = call(check_main, "--json", "-q", "--orders", "1", str(diamond(tmp_path / "d.onnx")))
    v = json.loads(out)["models"][0]["verdicts"][-1]
    assert v["status"] == "PROVED" and v["details"]["valid_orders"] == 3
    assert len({s["sha256"] for s in v["details"]["schedules"]}) == 3  # every order, though one was asked


def test_sampled_orders_are_tested_not_proved(tmp_path: Path) -> None:
    """41 independent operations have 41! valid orders: three are sampled and the verdict says so."""
    nodes = [helper.make_node("Relu", ["x"], [f"y{k}"]) for k in range(41)]
    vi = helper.make_tensor_value_info
    outs = [vi(f"y{k}", TensorProto.FLOAT, [2]) for k in range(41)]
    g = helper.make_graph(nodes, "wide", [vi("x", TensorProto.FLOAT, [2])], outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, tmp_path / "wide.onnx")
    code, out, _ = call(check_main, "--json", "-q", "--orders", "3", str(tmp_path / "wide.onnx"))
    v = json.loads(out)["models"][0]["verdicts"][-1]
    assert v["status"] == "TESTED" and "3 distinct seeded random orders" in v["details"]["tested"]
    assert code == 0 and json.loads(out)["models"][0]["outcome"] == "TESTED"
    _code, text, _ = call(check_main, "--orders", "3", str(tmp_path / "wide.onnx"))
    assert "result: TESTED" in text and "1 tested" in text


def _two_order_chain(path: Path, length: int = 45) -> Path:
    """a = relu(x), b = neg(x), then a chain of ``length`` Adds that starts from a + b: exactly two valid orders.

    More operations than orders are enumerated for, so the check draws seeded random orders, nearly all of
    which repeat one of the two.
    """
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"]),
             helper.make_node("Add", ["a", "b"], ["c0"])]
    nodes += [helper.make_node("Add", [f"c{k}", f"c{k}"], [f"c{k + 1}"]) for k in range(length)]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "two", [vi("x", TensorProto.FLOAT, [2])], [vi(f"c{length}", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def _count_executions(monkeypatch: Any) -> list[int]:
    import sonnx.execution.executor

    calls: list[int] = []
    real = sonnx.execution.executor.execute

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sonnx.execution.executor, "execute", counting)
    return calls


def test_orders_never_executes_a_schedule_twice(tmp_path: Path, monkeypatch: Any) -> None:
    from sonnx.execution.orders import check_orders
    from sonnx.loader import load_model

    model = load_model(str(_two_order_chain(tmp_path / "two.onnx")))
    calls = _count_executions(monkeypatch)
    verdict = check_orders(model, 3, seed=0)
    schedules = verdict.details["schedules"]
    assert verdict.status.name == "TESTED"
    assert len({s["sha256"] for s in schedules}) == len(schedules) == 2  # file order and the other one
    assert len(calls) == 2  # one execution per distinct schedule; the repeated draws ran nothing


def test_orders_on_a_single_order_model_runs_it_once(tmp_path: Path, monkeypatch: Any) -> None:
    from sonnx.execution.orders import check_orders
    from sonnx.loader import load_model

    nodes = [helper.make_node("Relu", ["x"], ["y0"])]
    nodes += [helper.make_node("Neg", [f"y{k}"], [f"y{k + 1}"]) for k in range(60)]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "chain", [vi("x", TensorProto.FLOAT, [2])], [vi("y60", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, tmp_path / "chain.onnx")
    calls = _count_executions(monkeypatch)
    verdict = check_orders(load_model(str(tmp_path / "chain.onnx")), 5, seed=0)
    assert verdict.status.name == "PROVED" and len(calls) == 1


def test_run_states_its_thread_count(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    code, out, err = call(main, "run", str(model), "--threads", "1", "--json")
    assert code == 0, err
    threads = json.loads(out)["threads"]
    assert threads["requested"] == 1
    assert all(n == 1 for n in threads["blas"].values())  # every BLAS pool found ran with one thread
    code, out, _ = call(main, "run", str(model), "--threads", "1")
    assert code == 0 and "threads: 1 (" in out


def test_run_refuses_a_thread_count_below_one(tmp_path: Path) -> None:
    code, out, err = call(main, "run", str(diamond(tmp_path / "d.onnx")), "--threads", "0")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--threads 0" in err


def test_profile_counts_every_operation_and_the_largest_live_set(tmp_path: Path) -> None:
    """Diamond on a float32 [2, 3] input (24 bytes a value): x, a, b and c are live together once c is
    computed (x and b are last read there), so the largest live set is 4 x 24 = 96 bytes."""
    code, out, err = call(main, "run", str(diamond(tmp_path / "d.onnx")), "--timings", "--repeat", "2", "--json")
    assert code == 0, err
    prof = json.loads(out)["profile"]
    assert prof["runs"] == 2
    assert sorted((o["operator"], o["count"]) for o in prof["operators"]) == [("Add", 3), ("Relu", 1)]
    assert [o["index"] for o in prof["operations"]] == [0, 1, 2, 3]
    assert all(o["output_bytes"] == 24 for o in prof["operations"])
    assert prof["peak_live_bytes"] == 96 and prof["input_bytes"] == 24 and prof["weights_bytes"] == 0
    assert len(prof["top"]) == 4 and abs(sum(o["share"] for o in prof["operators"]) - 1) < 1e-9
    code, text, _ = call(main, "run", str(diamond(tmp_path / "d.onnx")), "--timings")
    assert code == 0 and "largest live set 96 B" in text and "top 4 operations:" in text


def test_trace_has_one_complete_event_per_firing_in_time_order(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    code, _out, err = call(main, "run", str(diamond(tmp_path / "d.onnx")), "--trace", str(trace), "--repeat", "3")
    assert code == 0, err
    events = json.loads(trace.read_text())
    assert isinstance(events, list)
    for e in events:
        assert set(e) == {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"} and e["ph"] == "X"
        assert e["dur"] >= 0 and e["ts"] >= 0
    runs = [e for e in events if e["cat"] == "Session"]
    nodes = [e for e in events if e["cat"] == "Node"]
    assert len(runs) == 3 and len(nodes) == 3 * 4 and len(events) == len(runs) + len(nodes)
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    for run_event in runs:
        mine = [e for e in nodes if e["args"]["run"] == run_event["args"]["run"]]
        assert [e["args"]["node_index"] for e in mine] == [0, 1, 2, 3]
        assert [e["args"]["op_name"] for e in mine] == ["Add", "Relu", "Add", "Add"]
        for e in mine:
            assert run_event["ts"] <= e["ts"] and e["ts"] + e["dur"] <= run_event["ts"] + run_event["dur"] + 1e-3


def test_trace_refuses_to_overwrite_the_model(tmp_path: Path) -> None:
    model = diamond(tmp_path / "d.onnx")
    code, out, err = call(main, "run", str(model), "--trace", str(model))
    assert code == 2 and out == "" and "--trace" in err and onnx.load(str(model)).graph.node


def _log_model(path: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Log", ["x"], ["y"]), helper.make_node("Greater", ["x", "zero"], ["positive"])],
        "log",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5]),
         helper.make_tensor_value_info("positive", TensorProto.BOOL, [5])],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_run_gives_each_output_its_statistics_with_nan_and_inf_counted(tmp_path: Path) -> None:
    model = _log_model(tmp_path / "log.onnx")
    np.savez(tmp_path / "in.npz", x=np.array([-1.0, 0.0, 1.0, np.e, 100.0], np.float32))
    code, out, err = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"), "--json")
    assert code == 0, err
    y = json.loads(out, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))["outputs"]["y"]["statistics"]
    assert (y["elements"], y["nan"], y["inf"]) == (5, 1, 1)  # Log(-1) is NaN, Log(0) is -inf
    assert y["min"] == "-inf" and y["mean"] == "-inf"  # strict JSON: non-finite numbers as strings
    assert abs(y["max"] - float(np.log(np.float32(100.0)))) < 1e-6
    assert json.loads(out)["outputs"]["positive"]["statistics"] == {"elements": 5, "true": 3}
    code, text, _ = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"))
    assert "y: float32 [5]  min -inf max 4.60517 mean -inf nan 1 inf 1" in text
    assert "positive: bool [5]  true 3 of 5" in text


def test_print_shows_small_outputs_and_names_the_size_of_larger_ones(tmp_path: Path) -> None:
    model = _log_model(tmp_path / "log.onnx")
    np.savez(tmp_path / "in.npz", x=np.array([-1.0, 0.0, 1.0, 1.0, 1.0], np.float32))
    code, text, _ = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"), "--print")
    assert code == 0 and "  [ nan -inf   0.   0.   0.]" in text and "  [False False  True  True  True]" in text
    code, text, _ = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"), "--print", "--print-limit", "4")
    assert code == 0 and text.count("(5 elements, more than --print-limit 4: not printed)") == 2
    code, out, _ = call(main, "run", str(model), "--inputs", str(tmp_path / "in.npz"), "--print", "--json")
    assert json.loads(out)["outputs"]["y"]["values"] == ["nan", "-inf", 0.0, 0.0, 0.0]
    code, out, err = call(main, "run", str(model), "--print-limit", "0")
    assert code == 2 and out == "" and "--print-limit" in err and err.count("\n") == 1


def test_timings_is_the_option_and_profile_its_deprecated_alias(tmp_path: Path) -> None:
    model = str(diamond(tmp_path / "d.onnx"))
    code, new, err = call(main, "run", model, "--timings")
    assert code == 0 and "top 4 operations:" in new and err == ""
    code, old, err = call(main, "run", model, "--profile")
    assert code == 0 and "top 4 operations:" in old
    assert err.count("\n") == 1 and "--profile is deprecated here, use --timings" in err
