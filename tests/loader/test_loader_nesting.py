"""Deeply nested graphs load without recursion; the wire encoder writes valid ONNX."""

from __future__ import annotations

import sys
from collections.abc import Callable

import onnx
from google.protobuf.message import DecodeError

from sonnx.loader import load_model, wire
from sonnx.model import Graph, Operation

Save = Callable[..., str]
DEPTH = 2000


def test_wire_encoder_matches_onnx() -> None:
    data = wire.encode_nested_if_model(3)
    m = onnx.ModelProto.FromString(data)
    onnx.checker.check_model(m)
    assert m.ir_version == 8 and m.opset_import[0].version == 17
    assert [i.name for i in m.graph.input] == ["c", "x"]
    then = m.graph.node[0].attribute[0].g
    assert then.name == "level1" and then.node[0].op_type == "If"
    assert wire.varint(300) == b"\xac\x02"
    assert wire.varint(-1) == b"\xff" * 9 + b"\x01"


def test_the_deep_model_loads_whether_or_not_protobuf_can_parse_it(save: Save) -> None:
    """The reason the loader has shallow classes: protobuf's own parser limits nesting depth (upb: 100 levels).

    The installed protobuf is asked, not assumed: whatever its limit, the loader reads the model.
    """
    data = wire.encode_nested_if_model(DEPTH)
    try:
        onnx.ModelProto.FromString(data)
    except DecodeError:
        pass  # protobuf's depth limit refused it, as upb's default does
    _check_deep(load_model(save(data), read_weights=False).graph)


def _check_deep(g: Graph) -> None:
    paths = [p for p, _ in g.nested()]
    assert len(paths) == 2 * DEPTH + 1
    assert paths[1] == "main/If:if0.then_branch"
    assert g.captures == frozenset()
    level = g
    for k in range(DEPTH):
        (op,) = level.operations
        assert (op.operator, op.name, op.input_mapping, op.output_mapping) == ("If", f"if{k}", ("c",), (f"y{k}",))
        other = op.attribute("else_branch")
        assert other is not None and other.value.captures == frozenset({"x"})
        then = op.attribute("then_branch")
        assert then is not None
        level = then.value
        assert level.outputs == (f"y{k + 1}",)
        assert level.captures == (frozenset({"x"}) if k == DEPTH - 1 else frozenset({"c", "x"}))
    assert level.name == "leaf"
    assert level.operations == (Operation("Identity", "", f"id{DEPTH}", ("x",), (f"y{DEPTH}",), ()),)


def test_2000_nested_if_bodies_load(save: Save) -> None:
    path = save(wire.encode_nested_if_model(DEPTH))
    model = load_model(path)
    assert model.graph.inputs == ("c", "x") and model.graph.outputs == ("y0",)
    _check_deep(model.graph)


def test_2000_nested_if_bodies_load_under_a_tiny_recursion_limit(save: Save) -> None:
    path = save(wire.encode_nested_if_model(DEPTH))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        model = load_model(path, read_weights=False)
        _check_deep(model.graph)
    finally:
        sys.setrecursionlimit(old)


def test_deep_nesting_inside_an_inlined_function(save: Save) -> None:
    """A function whose body holds the deep nesting is inlined without recursion too."""
    inner = wire.encode_nested_if_model(300)
    # The main graph of the nested model (ModelProto field 7), read with the small decoder below.
    main_graph = _field(inner, 7)
    # The function 'f(c, x) -> y0' has that graph's nodes as its body (FunctionProto: name=1,
    # input=4, output=5, node=7, opset_import=9, domain=10); ModelProto.functions is field 25.
    nodes = _repeated(main_graph, 1)
    body = b"".join(wire.field_bytes(7, n) for n in nodes)
    function = (wire.field_bytes(1, "f") + wire.field_bytes(4, "c") + wire.field_bytes(4, "x")
                + wire.field_bytes(5, "y0") + body + wire.field_bytes(9, wire.field_varint(2, 17))
                + wire.field_bytes(10, "local"))
    main = wire.graph(
        "main",
        [wire.node("f", ["C", "X"], ["Y"], name="call", domain="local")],
        inputs=[wire.value_info("C", 9, []), wire.value_info("X", wire.FLOAT, [1])],
        outputs=[wire.value_info("Y", wire.FLOAT, [1])],
    )
    data = wire.model(main, opsets=[("", 17), ("local", 1)]) + wire.field_bytes(25, function)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        model = load_model(save(data))
    finally:
        sys.setrecursionlimit(old)
    (top,) = model.graph.operations
    assert (top.name, top.input_mapping, top.output_mapping) == ("call/f/if0", ("C",), ("Y",))
    level, depth = top, 0
    while True:
        then = level.attribute("then_branch")
        if then is None:
            break
        (level,) = then.value.operations
        depth += 1
    assert depth == 300
    assert level.input_mapping == ("X",) and level.output_mapping == ("call/f/y300",)
    assert model.graph.captures == frozenset()


def _fields(data: bytes) -> list[tuple[int, bytes]]:
    """(field number, payload) of the length-delimited fields of one message level (varints skipped)."""
    out = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            _, pos = _varint(data, pos)
        elif wire_type == 2:
            size, pos = _varint(data, pos)
            out.append((number, data[pos:pos + size]))
            pos += size
        else:
            raise AssertionError(f"unexpected wire type {wire_type}")
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def _field(data: bytes, number: int) -> bytes:
    return next(p for n, p in _fields(data) if n == number)


def _repeated(data: bytes, number: int) -> list[bytes]:
    return [p for n, p in _fields(data) if n == number]


def test_scope_paths_stay_short_at_any_depth(save: Save) -> None:
    """Paths name the root and the innermost levels: total size linear in the depth, not quadratic."""
    from sonnx.model.scopes import PATH_LEVELS

    model = load_model(save(wire.encode_nested_if_model(300)), read_weights=False)
    paths = [p for p, _ in model.graph.nested()]
    assert len(paths) == 601
    assert max(len(p) for p in paths) < 40 * PATH_LEVELS
    deepest = next(p for p in paths if p.endswith("If:if299.then_branch"))
    assert deepest.startswith("main/(") and "levels)/" in deepest and deepest.endswith("If:if299.then_branch")
    assert len(set(paths)) == len(paths)  # still one name per scope
