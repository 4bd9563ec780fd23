"""Invariants the model types keep, so that code reading them needs one spelling."""

from __future__ import annotations

from sonnx.model.graph import Model, make_graph, make_operation


def test_the_default_domain_is_spelled_empty_in_operations() -> None:
    assert make_operation("Relu", ["x"], ["y"], domain="ai.onnx").domain == ""
    assert make_operation("Relu", ["x"], ["y"]).domain == ""
    assert make_operation("Foo", ["x"], ["y"], domain="com.example").domain == "com.example"


def test_the_default_domain_is_spelled_empty_in_opset_imports() -> None:
    g = make_graph("g", ["x"], ["y"], [make_operation("Relu", ["x"], ["y"])])
    m = Model(g, 8, {"ai.onnx": 17, "com.example": 1})
    assert dict(m.opset_imports) == {"": 17, "com.example": 1}
    assert dict(Model(g, 8, {"": 13}).opset_imports) == {"": 13}
