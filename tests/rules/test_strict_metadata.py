"""STRICT-METADATA (REQ-FO-040/050): required metadata_props keys, and the declared execution order's format."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from sonnx.base.errors import UsageError
from sonnx.base.verdict import Status
from sonnx.checking.options import CheckOptions
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from sonnx.model.metadata import DEFAULT_REQUIRED, EXECUTION_ORDER, OrderError, declared_order
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("STRICT-METADATA")

ID = "STRICT-METADATA"
STRICT = CheckConfig(profile=PROFILE_STRICT)


def chain(names: tuple[str, str] = ("first", "second")) -> Any:
    g = make_graph("g", ["x"], ["y"], [op("Abs", ["x"], ["a"], name=names[0]), op("Relu", ["a"], ["y"], name=names[1])])
    return g


def with_meta(meta: dict[str, str], names: tuple[str, str] = ("first", "second")) -> Any:
    return model(chain(names), metadata=MappingProxyType(meta))


FULL = {k: "given" for k in DEFAULT_REQUIRED} | {EXECUTION_ORDER: '["first", "second"]'}


def test_default_keys_are_required() -> None:
    assert DEFAULT_REQUIRED == (
        "sonnx.io_semantics", "sonnx.dimension_semantics", "sonnx.execution_order", "sonnx.target"
    )
    d = data(run(ID, with_meta({}), STRICT))
    assert d["lacking"] == {k: "absent" for k in DEFAULT_REQUIRED}
    assert d["required"] == list(DEFAULT_REQUIRED)
    assert run(ID, with_meta(FULL), STRICT).status is Status.PROVED


def test_an_empty_value_is_not_an_entry() -> None:
    d = data(run(ID, with_meta(FULL | {"sonnx.target": "  "}), STRICT))
    assert d["lacking"] == {"sonnx.target": "empty"}


def test_the_configured_list_replaces_the_default() -> None:
    cfg = CheckConfig(profile=PROFILE_STRICT, required_metadata=("owner",))
    assert data(run(ID, with_meta(FULL), cfg))["lacking"] == {"owner": "absent"}
    assert run(ID, with_meta({"owner": "me"}), cfg).status is Status.PROVED
    assert run(ID, with_meta({}), CheckConfig(profile=PROFILE_STRICT, required_metadata=())).status is Status.PROVED


def test_a_key_named_like_a_standard_field_is_read_from_metadata_props() -> None:
    cfg = CheckConfig(profile=PROFILE_STRICT, required_metadata=("domain",))
    # the loader keeps a metadata_props entry "domain" apart from ModelProto.domain
    assert run(ID, with_meta({"domain": "x"}), cfg).status is Status.VIOLATED
    assert run(ID, with_meta({"metadata_props:domain": "x"}), cfg).status is Status.PROVED


@pytest.mark.parametrize(
    ("value", "names", "message"),
    [
        ("[first", ("first", "second"), "is not JSON"),
        ('{"a": 1}', ("first", "second"), "must be a JSON array of node names"),
        ('["first", 2]', ("first", "second"), "must be a JSON array of node names"),
        ('["first", "third"]', ("first", "second"), "names 'third', which is no operation"),
        ('["first", "first", "second"]', ("first", "second"), "names 'first' twice"),
        ('["first"]', ("first", "second"), "leaves out 1 operation(s): second"),
        ('["second", "first"]', ("first", "second"), "'second' is not executable at its turn"),
        ('["first", "second"]', ("first", ""), "has no name"),
        ('["same", "same"]', ("same", "same"), "names two operations"),
        ("[" * 100_000, ("first", "second"), "nested too deeply"),
    ],
)
def test_a_malformed_declared_order_is_a_witness(value: str, names: tuple[str, str], message: str) -> None:
    m = with_meta(FULL | {EXECUTION_ORDER: value}, names)
    with pytest.raises(OrderError, match=message.replace("(", r"\(").replace(")", r"\)")):
        declared_order(m)
    v = run(ID, m, STRICT)
    assert v.status is Status.VIOLATED
    assert message in data(v)["order_error"] and "\n" not in v.witness.summary  # type: ignore[union-attr]


def test_a_well_formed_order_is_read_as_operation_indices() -> None:
    g = make_graph(
        "g", ["x"], ["y"],
        [op("Add", ["a", "b"], ["y"], name="join"), op("Abs", ["x"], ["a"], name="left"),
         op("Neg", ["x"], ["b"], name="right")],
    )
    m = model(g, metadata=MappingProxyType({EXECUTION_ORDER: json.dumps(["right", "left", "join"])}))
    assert declared_order(m) == (2, 1, 0)
    assert declared_order(model(g)) is None


def test_the_option_is_validated_and_recorded() -> None:
    with pytest.raises(UsageError, match="only applies with --profile sonnx-strict"):
        CheckOptions(required_metadata=("a",))
    with pytest.raises(UsageError, match="is not a metadata key"):
        CheckOptions(profile=PROFILE_STRICT, required_metadata=(" a",))
    o = CheckOptions(profile=PROFILE_STRICT, required_metadata=("a", "b"))
    assert o.rules_config().required_metadata == ("a", "b")
    assert CheckOptions.from_recorded(o.recorded(), None).required_metadata == ("a", "b")
    assert "--required-metadata" in o.command_line("m.onnx")
    from sonnx.api import check_options

    assert check_options(profile=PROFILE_STRICT, required_metadata=["a", "b"]).required_metadata == ("a", "b")
    assert check_options(profile=PROFILE_STRICT, required_metadata="a, b").required_metadata == ("a", "b")
