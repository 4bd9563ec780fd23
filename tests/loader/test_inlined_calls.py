"""The loader's record of each inlined call of a function named like an ONNX operator (``Model.inlined_calls``).

GRAPH-R2 and GRAPH-DETERMINISM read these records to weigh the standard operator's meaning at each call of a
shadowing function (spec, GRAPH-FUNCTION-SHADOWING): the call must carry the names it has in the inlined
graph, its resolved attributes, and that graph.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import helper

from sonnx.loader import load_model
from sonnx.model.graph import Model
from tests.common import shadowing as sh


def _load(tmp_path: Path, m: onnx.ModelProto) -> Model:
    return load_model(sh.save(tmp_path / "m.onnx", m))


def test_a_call_of_the_main_graph_keeps_its_names(tmp_path: Path) -> None:
    m = _load(tmp_path, sh.random_identity())
    (rec,) = m.inlined_calls
    assert rec.function == ("", "RandomNormalLike", "") and rec.graph is m.graph
    assert (rec.call.name, rec.call.input_mapping, rec.call.output_mapping) == ("call", ("X",), ("Y",))
    assert [op.operator for op in m.graph.operations] == ["Identity"]  # the body replaced the call


def test_a_call_inside_a_function_is_renamed_with_the_body(tmp_path: Path) -> None:
    m = _load(tmp_path, sh.nested_random())
    (rec,) = m.inlined_calls
    assert rec.graph is m.graph
    assert (rec.call.input_mapping, rec.call.output_mapping) == (("call/Block/a",), ("call/Block/r",))
    written = {o for op in m.graph.operations for o in op.output_mapping}
    assert set(rec.call.input_mapping) | set(rec.call.output_mapping) <= written


def test_each_instance_of_a_function_records_its_own_call(tmp_path: Path) -> None:
    model = sh.nested_random()
    model.graph.node[0].output[0] = "Z"
    model.graph.node.append(helper.make_node("Block", ["Z"], ["Y"], name="again", domain="local"))
    m = _load(tmp_path, model)
    assert sorted(r.call.output_mapping for r in m.inlined_calls) == [("again/Block/r",), ("call/Block/r",)]


def test_an_attribute_reference_of_the_call_is_resolved(tmp_path: Path) -> None:
    for s in (0, 1):
        (rec,) = _load(tmp_path, sh.topk_through_block(s)).inlined_calls
        a = rec.call.attribute("sorted")
        assert a is not None and (a.type, a.value) == ("INT", s)


def test_a_call_in_a_branch_names_the_inlined_branch(tmp_path: Path) -> None:
    m = _load(tmp_path, sh.random_in_branch())
    (rec,) = m.inlined_calls
    (branch,) = [g for name, g in m.graph.operations[0].subgraphs if name == "then_branch"]
    assert rec.graph is branch and rec.call.output_mapping == ("t",)


def test_only_functions_named_like_an_onnx_operator_are_recorded(tmp_path: Path) -> None:
    assert _load(tmp_path, sh.custom_relu()).inlined_calls == ()
    # named like an operator of a later opset: recorded; the rules decide it does not shadow at opset 17
    (rec,) = _load(tmp_path, sh.later_gelu()).inlined_calls
    assert rec.function == ("", "Gelu", "")
