"""Weights and nodes cut out of the file's bytes (sonnx.loader.detach): the same model, errors and values as a plain
parse.

The cut is an optimisation of memory; these tests hold it to
changing nothing else: the parsed message equals the file's minus the cut
payloads and node fields, the node runs hold the file's nodes in order, every
loaded model is the one a plain parse gives (with one run or a run per node),
and a mutated file gives the same model or the same one-line error either way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import SonnxError
from sonnx.loader import load_model
from sonnx.loader.detach import detach_weights
from sonnx.loader.writer import model_bytes


def _model() -> onnx.ModelProto:
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    b = numpy_helper.from_array(np.array([1, -2, 3, -4], np.int64), "b")
    typed = helper.make_tensor("t", TensorProto.FLOAT, [4], [0.5, 1.5, 2.5, 3.5])  # float_data, not raw_data
    packed = helper.make_tensor("q", TensorProto.INT4, [3], [1, -2, 7])
    cast = helper.make_node("Cast", ["b"], ["bf"], to=TensorProto.FLOAT)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["y0"]),
        cast,
        helper.make_node("Add", ["y0", "bf"], ["y1"]),
        helper.make_node("Add", ["y1", "t"], ["y"]),
        helper.make_node("Cast", ["q"], ["qf"], to=TensorProto.FLOAT),
    ]
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("qf", TensorProto.FLOAT, [3])],
        [w, b, typed, packed],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    return m


def test_the_cut_message_is_the_file_minus_the_raw_data_payloads_and_the_nodes() -> None:
    m = _model()
    data = m.SerializeToString()
    cut = detach_weights(data)
    assert cut is not None and len(cut.raw) == 4
    want = onnx.ModelProto.FromString(data)
    kept = [t.raw_data if t.HasField("raw_data") else None for t in want.graph.initializer]
    for t in want.graph.initializer:
        t.ClearField("raw_data")
    nodes = list(want.graph.node)
    want.graph.ClearField("node")
    assert onnx.ModelProto.FromString(cut.stripped) == want
    assert [data[r.offset:r.offset + r.length] if r is not None else None for r in cut.raw] == kept
    assert cut.raw[2] is None  # the typed-field tensor keeps its own fields
    runs = [onnx.GraphProto.FromString(data[r.offset:r.offset + r.length]).node for r in cut.nodes]
    assert len(runs) == 1 and list(runs[0]) == nodes


def _graph_of(nodes: list[bytes], other: bytes) -> bytes:
    """A model whose graph holds ``nodes`` (serialized, one field each, in order) with ``other`` after the second."""
    fields = [b"\x0a" + bytes([len(n)]) + n for n in nodes]
    body = b"".join(fields[:2]) + other + b"".join(fields[2:])
    assert len(body) < 128
    return b"\x08\x0a\x3a" + bytes([len(body)]) + body + b"\x42\x02\x10\x15"


def test_node_runs_close_at_other_fields_and_at_the_run_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nodes read run after run are the nodes of the whole file, in order, whatever the runs' bounds."""
    from sonnx.loader import detach

    nodes = [helper.make_node("Relu", [f"t{k}"], [f"t{k + 1}"]).SerializeToString() for k in range(4)]
    data = _graph_of(nodes, b"\x12\x01g")  # the graph's name between the second node and the third
    whole = [n.SerializeToString() for n in onnx.ModelProto.FromString(data).graph.node]
    for size, count in ((1 << 20, 2), (1, 4)):
        monkeypatch.setattr(detach, "NODE_RUN", size)
        cut = detach.detach_weights(data)
        assert cut is not None and len(cut.nodes) == count
        got = [n.SerializeToString() for r in cut.nodes
               for n in onnx.GraphProto.FromString(data[r.offset:r.offset + r.length]).node]
        assert got == whole
        stripped = onnx.ModelProto.FromString(cut.stripped)
        assert len(stripped.graph.node) == 0 and stripped.graph.name == "g" and stripped.ir_version == 10


def _outcome(path: str, cut: bool) -> Any:
    try:
        model = load_model(path, weights_from_file=cut)
    except SonnxError as e:
        return ("error", type(e).__name__, e.one_line())
    values = {}
    for name in model.graph.initialized:
        init = model.graph.tensors[name].initial_value
        try:
            a = init.read()
            values[name] = (a.dtype.str, a.shape, a.tobytes())
        except SonnxError as e:
            values[name] = ("error", type(e).__name__, e.one_line())
    g = model.graph
    return (g.inputs, g.outputs, g.operations, {n: t.type for n, t in g.tensors.items()}, values)


def test_loading_with_and_without_the_cut_gives_the_same_model(save: Callable[..., str]) -> None:
    path = save(_model())
    assert _outcome(path, True) == _outcome(path, False)


def _calls_and_bodies() -> onnx.ModelProto:
    """Calls of overloaded local functions (their overloads are read by index), and a nested graph."""
    f1 = helper.make_function("local", "f", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])],
                              [helper.make_opsetid("", 17)], overload="neg")
    f2 = helper.make_function("local", "f", ["a"], ["b"], [helper.make_node("Abs", ["a"], ["b"])],
                              [helper.make_opsetid("", 17)], overload="abs")
    then = helper.make_graph([helper.make_node("Relu", ["t"], ["r"])], "then", [], [fvi("r")])
    other = helper.make_graph([helper.make_node("Neg", ["t"], ["e"])], "else", [], [fvi("e")])
    nodes = [
        helper.make_node("f", ["x"], ["t"], domain="local"),
        helper.make_node("Greater", ["x", "x"], ["c"]),
        helper.make_node("If", ["c"], ["u"], then_branch=then, else_branch=other),
        helper.make_node("f", ["u"], ["y"], domain="local"),
    ]
    nodes[0].overload, nodes[3].overload = "abs", "neg"
    g = helper.make_graph(nodes, "g", [fvi("x")], [fvi("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[f1, f2])
    m.ir_version = 10
    return m


def fvi(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])


@pytest.mark.parametrize("run", [1 << 20, 1], ids=["one-run", "a-run-per-node"])
def test_nodes_read_run_by_run_give_the_model_of_a_whole_parse(
    save: Callable[..., str], monkeypatch: pytest.MonkeyPatch, run: int
) -> None:
    from sonnx.loader import detach

    monkeypatch.setattr(detach, "NODE_RUN", run)
    path = save(_calls_and_bodies())
    assert len(detach_weights(Path(path).read_bytes()).nodes) == (1 if run > 1 else 4)  # type: ignore[union-attr]
    cut, plain = load_model(path, weights_from_file=True), load_model(path)
    assert [o.operator for o in cut.graph.operations] == ["Abs", "Greater", "If", "Neg"]
    assert model_bytes(cut) == model_bytes(plain)  # nested graphs and functions included


@pytest.mark.parametrize("run", [1 << 20, 1], ids=["one-run", "a-run-per-node"])
def test_a_refused_field_of_a_later_node_comes_before_an_earlier_node_that_fails(
    save: Callable[..., str], monkeypatch: pytest.MonkeyPatch, run: int
) -> None:
    """IR 9 has no ``overload``: the gate reads every node before any is converted, in one run or in many."""
    from sonnx.loader import detach

    monkeypatch.setattr(detach, "NODE_RUN", run)
    bad = helper.make_node("Custom", ["x"], ["t"], domain="my")
    a = bad.attribute.add()
    a.name, a.i, a.f = "k", 4, 1.0  # no type and two values: the conversion of this node fails
    late = helper.make_node("Relu", ["t"], ["y"])
    late.overload = "o"
    g = helper.make_graph([bad, late], "g", [fvi("x")], [fvi("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("my", 1)])
    m.ir_version = 9
    path = save(m)
    assert _outcome(path, True) == _outcome(path, False)
    assert "overload" in _outcome(path, True)[2]


@pytest.mark.parametrize("run", [1 << 20, 1], ids=["one-run", "a-run-per-node"])
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_file_loads_or_fails_the_same_with_the_cut(
    tmp_path_factory: pytest.TempPathFactory, run: int, data: st.DataObject
) -> None:
    from sonnx.loader import detach

    blob = bytearray(_model().SerializeToString())
    for _ in range(data.draw(st.integers(1, 4))):
        how = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, len(blob) - 1))
        if how == "flip":
            blob[at] = data.draw(st.integers(0, 255))
        elif how == "cut":
            del blob[at:at + data.draw(st.integers(1, 8))]
        else:
            blob[at:at] = bytes(data.draw(st.lists(st.integers(0, 255), min_size=1, max_size=4)))
        if not blob:
            blob = bytearray(b"\x08")
    path = tmp_path_factory.mktemp("m") / "m.onnx"
    path.write_bytes(bytes(blob))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(detach, "NODE_RUN", run)
        assert _outcome(str(path), True) == _outcome(str(path), False)


@pytest.mark.parametrize(
    "data",
    [
        b"", b"\x3a", b"\x3a\x05\x2a\x03", b"\x3a\x02\x2a\x00\x3a\x00", b"\x3b\x00", b"\xff" * 10 + b"\x01",
        b"\x3a\x02\x2a\x00",
    ],
    ids=["empty", "truncated-key", "truncated-graph", "graph-twice", "group", "overlong-varint", "no-raw-data"],
)
def test_the_scanner_declines_what_it_does_not_expect(data: bytes) -> None:
    assert detach_weights(data) is None


def test_a_graph_given_twice_is_merged_as_protobuf_merges_it(save: Callable[..., str]) -> None:
    """Protobuf merges a repeated message field; the cut declines it and the file loads as a plain parse does."""
    extra = onnx.GraphProto(initializer=[numpy_helper.from_array(np.ones(5, np.float32), "w2")]).SerializeToString()
    data = _model().SerializeToString() + b"\x3a" + bytes([len(extra)]) + extra
    assert len(extra) < 128 and detach_weights(data) is None
    path = save(data)
    assert _outcome(path, True) == _outcome(path, False)


def test_a_weight_is_read_from_the_loaded_file_only(save: Callable[..., str]) -> None:
    """The main graph's weights are read from the file when read; a file changed since loading is refused."""
    path = save(_model())
    model = load_model(path, weights_from_file=True)
    w = model.graph.tensors["w"].initial_value
    assert w is not None
    first = w.read()
    assert first.flags.aligned and not first.flags.writeable
    assert np.array_equal(first, np.arange(12, dtype=np.float32).reshape(3, 4))
    data = Path(path).read_bytes()
    Path(path).write_bytes(data + b"\x00")  # same bytes where the weight lies, but another file
    with pytest.raises(SonnxError, match="'w': the model file changed after it was loaded"):
        w.read()
    Path(path).unlink()
    with pytest.raises(SonnxError, match="'w': cannot read the model file again"):
        w.read()


def test_by_default_a_loaded_model_does_not_need_its_file(save: Callable[..., str]) -> None:
    path = save(_model())
    model = load_model(path)
    Path(path).unlink()
    w = model.graph.tensors["w"].initial_value
    assert w is not None and np.array_equal(w.read(), np.arange(12, dtype=np.float32).reshape(3, 4))


def test_a_load_that_reads_the_nodes_run_by_run_gives_the_freed_heap_back_once(
    save: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sonnx.loader import load as load_module

    calls: list[str] = []
    monkeypatch.setattr(load_module, "release_freed_heap", lambda: calls.append("trim") or True)
    path = save(_calls_and_bodies())
    load_model(path)  # the whole file parsed at once: nothing was cut, nothing to give back
    assert calls == []
    trimmed = load_model(path, weights_from_file=True)
    assert calls == ["trim"]
    assert model_bytes(trimmed) == model_bytes(load_model(path))
