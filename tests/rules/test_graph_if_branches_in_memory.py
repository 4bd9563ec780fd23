"""GRAPH-IF-BRANCHES on a model held by no file: the types its branches produce are derived from the ONNX bytes it
is written as (``CheckConfig.derived_types``), never from its declarations; each guard checked by a planted fault."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

import pytest

from sonnx.base.files import WriteError
from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.loader.derived import ReadAgain
from sonnx.loader.writer import model_bytes, save_model
from sonnx.model.graph import Graph, Model, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import CheckConfig
from tests.common.rulekit import data, init, model, run

pytestmark = pytest.mark.rule("GRAPH-IF-BRANCHES")

ID = "GRAPH-IF-BRANCHES"
F32 = TensorType("tensor", 1, (2, 3))
SERIALIZED = CheckConfig(derived_types=ReadAgain(model_bytes))


def if_graph(then_ops: str = "Identity") -> Graph:
    """y = If(c) then <then_ops>(x) else Identity(x); both branches declare FLOAT. ``Cast`` computes INT64."""
    then_op = op("Cast", ["x"], ["a"], to=7) if then_ops == "Cast" else op(then_ops, ["x"], ["a"])
    then_g = make_graph("t", [], ["a"], [then_op], {"a": Tensor("a", F32)})
    else_g = make_graph("e", [], ["b"], [op("Identity", ["x"], ["b"])], {"b": Tensor("b", F32)})
    return make_graph(
        "main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)],
        {"c": Tensor("c", TensorType("tensor", 9, ())), "x": Tensor("x", F32)},
    )


def test_a_model_built_in_memory_is_judged_on_the_bytes_it_is_written_as() -> None:
    assert run(ID, model(if_graph()), SERIALIZED).status is Status.PROVED
    # the same declarations, but the then branch computes INT64: a certain violation, found without any file
    v = run(ID, model(if_graph("Cast")), SERIALIZED)
    assert v.status is Status.VIOLATED, v
    (f,) = data(v)["mismatches"]
    assert f["problem"] == "produced output types differ" and f["then_branch"]["type"] == "tensor(7)"


def test_a_model_changed_after_it_was_read_is_judged_on_its_own_bytes(tmp_path: Path) -> None:
    path = str(tmp_path / "m.onnx")
    save_model(model(if_graph()), path)
    read = load_model(path)
    assert run(ID, read, SERIALIZED).status is Status.PROVED  # the file holds it
    changed = dataclasses.replace(read, graph=if_graph("Cast"))
    assert run(ID, changed, SERIALIZED).status is Status.VIOLATED  # not the file's agreeing branches
    # without a way to write it, the changed model stays open
    assert run(ID, changed).status is Status.UNKNOWN


def test_bytes_that_do_not_read_back_as_the_model_are_not_used() -> None:
    # a faulty serializer that writes another model (agreeing branches) for one whose branches disagree
    other = model_bytes(model(if_graph()))
    v = run(ID, model(if_graph("Cast")), CheckConfig(derived_types=ReadAgain(lambda _m: other)))
    assert v.status is Status.UNKNOWN and "does not read back as the same model" in (v.reason or ""), v


def test_a_model_that_cannot_be_written_is_unknown() -> None:
    def refuse(_m: Model) -> bytes:
        raise WriteError("planted refusal")

    v = run(ID, model(if_graph()), CheckConfig(derived_types=ReadAgain(refuse)))
    assert v.status is Status.UNKNOWN and "cannot be written as ONNX: planted refusal" in (v.reason or ""), v
    # a model whose weights were not read cannot be written: its derived types are not known
    g = if_graph()
    w = init("w", [[0.0] * 3] * 2, ty=F32)
    weighted = make_graph(g.name, g.inputs, g.outputs, g.operations, {**g.tensors, "w": w})
    v = run(ID, model(weighted, weights_loaded=False), SERIALIZED)
    assert v.status is Status.UNKNOWN and "structure only" in (v.reason or ""), v


def test_bytes_onnx_cannot_read_are_unknown_without_the_temporary_path(tmp_path: Path) -> None:
    v = run(ID, model(if_graph()), CheckConfig(derived_types=ReadAgain(lambda _m: b"\x08\x08not a model")))
    assert v.status is Status.UNKNOWN and "no inferred types" in (v.reason or ""), v
    assert "sonnx-derived-" not in (v.reason or "")


def test_the_temporary_file_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run(ID, model(if_graph()), SERIALIZED).status is Status.PROVED
    garbage = CheckConfig(derived_types=ReadAgain(lambda _m: b"garbage"))
    assert run(ID, model(if_graph()), garbage).status is Status.UNKNOWN
    assert os.listdir(tmp_path) == []


def test_a_checked_file_is_never_judged_on_a_re_encoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the runtimes execute the file: its types are derived from the bytes read for it, never compared with a reading
    # again (a planted mismatch there changes nothing); when that derivation fails (planted here), the check of the
    # file stays open rather than derive types from sonnx's own bytes; a caller's model in memory is judged on those
    import sonnx.checking.pipeline as pipeline
    import sonnx.loader.derived as derived
    import sonnx.loader.load as load

    path = str(tmp_path / "m.onnx")
    save_model(model(if_graph()), path)
    written: list[Model] = []

    def spy(m: Model) -> bytes:
        written.append(m)
        return model_bytes(m)

    monkeypatch.setattr(pipeline, "model_bytes", spy)
    v = pipeline.check_file(path).verdict(ID)
    assert v is not None and v.status is Status.PROVED and not written
    monkeypatch.setattr(derived, "same_structure", lambda a, b: b.source != path)
    v = pipeline.check_file(path).verdict(ID)
    assert v is not None and v.status is Status.PROVED and not written, v
    real_infer = load._infer
    monkeypatch.setattr(load, "_infer", lambda data: (b"", "planted refusal"))  # runs in the sandbox's child
    v = pipeline.check_file(path).verdict(ID)
    assert v is not None and v.status is Status.UNKNOWN, v
    assert v.reason == (
        "the element types the branches produce are not established: no inferred types: onnx's shape inference "
        "cannot read the model: planted refusal, so the types the branches produce are not derived"
    ), v
    assert not written
    monkeypatch.setattr(load, "_infer", real_infer)
    # the file's reading does not match (still planted): a model in memory is judged on its own bytes
    v = pipeline.check_model(load_model(path)).verdict(ID)
    assert v is not None and v.status is Status.PROVED and len(written) == 1, v
