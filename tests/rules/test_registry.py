"""The RULES table: stable IDs, modules named after them, complete metadata, and a clean run on the seed example."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import sonnx.rules
from sonnx.base.errors import InputError
from sonnx.base.verdict import Severity, Status, Verdict
from sonnx.model.graph import Attribute, InitialValue, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import RULES, graph_arity, registry, rule_by_id, rules_for, run_rules
from sonnx.rules.base import PROFILE_SONNX, PROFILE_STRICT, CheckConfig, CheckContext, Rule
from tests.common.rulekit import function, init, model, seed_example, tensors

EXPECTED = {
    "FORMAT-ONNX": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-ACYCLIC": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-C1": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-C1-SOURCES": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-C1-SHADOWING": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-C2": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-C3": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-OUTPUTS": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-R1": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-R1-OUTPUTS": (Severity.WARNING, PROFILE_SONNX),
    "GRAPH-INITIALIZERS-USED": (Severity.WARNING, PROFILE_SONNX),
    "GRAPH-R1-TRANSITIVE": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-R2": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-DETERMINISM": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-FUNCTIONS": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-FUNCTION-SHADOWING": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-IF-BRANCHES": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-NAMES": (Severity.ERROR, PROFILE_SONNX),
    "GRAPH-ARITY": (Severity.WARNING, PROFILE_SONNX),
    "GRAPH-ATTRIBUTES": (Severity.ERROR, PROFILE_SONNX),
    "STRICT-OPERATORS": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-ATTRIBUTES": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-SHAPES": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-BROADCAST": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-SPARSE": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-OPSET": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-METADATA": (Severity.ERROR, PROFILE_STRICT),
    "STRICT-OP-RESTRICTIONS": (Severity.ERROR, PROFILE_STRICT),
    "OP-SHAPES": (Severity.ERROR, PROFILE_STRICT),
    "OP-VALUE-SHAPES": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-DIV-ZERO": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-LOG": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-SQRT": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-POW": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-INDEX": (Severity.ERROR, PROFILE_STRICT),
    "OP-ERROR-INT-OVERFLOW": (Severity.ERROR, PROFILE_STRICT),
    "OP-RANGE-FLOAT": (Severity.WARNING, PROFILE_STRICT),
}

SHIPPED = str(Path(__file__).resolve().parents[2] / "examples" / "cnn_block.onnx")
"""A shipped model every rule of the base profile proves or warns about (GRAPH-ARITY), none left UNKNOWN."""

STRICTER = {"GRAPH-ARITY"}
"""Rules of the base profile that sonnx-strict makes errors (the working group marks [R1] TBC)."""


def module_name(rule_id: str) -> str:
    """Each rule lives in the module named after its ID: GRAPH-R1-OUTPUTS in ``graph_r1_outputs``."""
    return rule_id.lower().replace("-", "_")


def test_table_matches_the_expected_rules() -> None:
    assert [r.id for r in RULES] == list(EXPECTED)
    for r in RULES:
        severity, profile = EXPECTED[r.id]
        module = importlib.import_module(f"sonnx.rules.{module_name(r.id)}")
        assert r.module == module.__name__ and r.code() is module and rule_by_id(r.id) is r
        # the module's own constants, which its verdicts carry, agree with the table
        assert module.ID == r.id and module.SEVERITY is severity and callable(module.check)
        assert hasattr(module, "start") is r.starts_early
        assert r.severity is severity and r.profile == profile
        assert r.severity_in(PROFILE_SONNX) is severity
        assert r.severity_in(PROFILE_STRICT) is (Severity.ERROR if r.id in STRICTER else severity)
        assert r.title and r.statement  # the spec's words (tests/spec/test_rule_texts.py)
        assert module.__doc__ and r.id in module.__doc__.split("\n")[0]


def test_every_rule_answers_on_the_seed_example() -> None:
    verdicts = run_rules(model(seed_example()), CheckConfig(profile=PROFILE_STRICT))
    got = {v.rule_id: v.status for v in verdicts}
    assert len(verdicts) == len(RULES)
    # STRICT-OP-RESTRICTIONS: the example's Constant writes no ``value`` (the group's Constant [R1])
    violated = {"GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE", "STRICT-SHAPES", "STRICT-METADATA",
                "STRICT-OP-RESTRICTIONS"}
    assert {k for k, s in got.items() if s is Status.VIOLATED} == violated
    # the example is built in memory: there is no file for FORMAT-ONNX to check, nor to infer shapes from
    assert got.pop("FORMAT-ONNX") is Status.UNKNOWN and got.pop("STRICT-BROADCAST") is Status.UNKNOWN
    # its graph inputs declare no rank, so OP-SHAPES derives no shape
    assert got.pop("OP-SHAPES") is Status.UNKNOWN
    assert all(s is Status.PROVED for k, s in got.items() if k not in violated)
    for v in verdicts:
        json.loads(json.dumps(v.to_json()))  # JSON-ready


def test_every_witness_is_plain_json_on_a_faulty_model() -> None:

    sparse = InitialValue(1, (2,), True, None, lambda: None)
    # the branch also writes the outer initializer "dead" (GRAPH-C1-SHADOWING)
    then_g = make_graph("t", [], ["a"], [op("Relu", ["x"], ["a"], name="n"), op("Neg", ["x"], ["dead"])])
    else_g = make_graph("e", [], ["b", "b2"], [op("Relu", ["x"], ["b"]), op("Neg", ["x"], ["b2"])])
    ops = [
        op("Add", ["x", "loop"], ["loop"], name="n"),
        op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
        op("RandomUniformLike", ["x"], ["x"]),
        op("Split", ["x"], ["s", "s"]),  # one operation writing one tensor twice (GRAPH-C1)
        op("Conv", ["x", "w"], ["ghosted"], domain="com.vendor"),
        op("Constant", [], ["k"])._replace(attributes=(Attribute("sparse_value", "SPARSE_TENSOR", sparse),)),
        op("Dropout", ["x"], ["dropped"], ratio=0.5),  # optional inputs and mask left out (GRAPH-ARITY); no
        # attribute ratio since version 12 (GRAPH-ATTRIBUTES)
    ]
    g = make_graph(
        "main",
        ["c", "x", "unused"],
        ["y", "missing"],
        ops,
        {**tensors(init("w"), init("dead")), "c": Tensor("c", TensorType("tensor", 9, ("N",)))},
        redeclared=(("w", "initializer"),),
    )
    m = model(g, opset_imports={"": 17}, call_cycles=(("local.f", "local.f"),), functions=(function("", "Relu"),))
    verdicts = run_rules(m, CheckConfig(profile=PROFILE_STRICT))
    statuses = {v.rule_id: v.status for v in verdicts}
    assert statuses["GRAPH-R2"] is Status.VIOLATED  # the random operation wins over the unknown domain
    # graph determinism is stated for acyclic, single-assignment graphs only: not decided here
    assert statuses.pop("GRAPH-DETERMINISM") is Status.UNKNOWN
    # a model with missing outputs still has outputs: GRAPH-OUTPUTS's witness is tested in test_seed_rules.py
    assert statuses.pop("GRAPH-OUTPUTS") is Status.PROVED
    assert statuses.pop("FORMAT-ONNX") is Status.UNKNOWN  # built in memory: no file to check
    assert statuses.pop("STRICT-BROADCAST") is Status.UNKNOWN  # nor to infer shapes from
    assert statuses.pop("OP-SHAPES") is Status.UNKNOWN  # no rank declared, nothing run to confirm a failure
    # the vendor's Conv is not in the table of shape inputs, and no operation has a shape input fed by a value
    assert statuses.pop("OP-VALUE-SHAPES") is Status.UNKNOWN
    # the error-condition rules: no operator of theirs for five; the Add on a cycle and the If's branches are not
    # analysed for the other two, and a violation needs a run, which this check was not given
    for rid in ("OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW", "OP-ERROR-INDEX"):
        assert statuses.pop(rid) is Status.PROVED
    assert statuses.pop("OP-ERROR-INT-OVERFLOW") is Status.UNKNOWN and statuses.pop("OP-RANGE-FLOAT") is Status.UNKNOWN
    assert all(s is Status.VIOLATED for s in statuses.values()), statuses
    for v in verdicts:
        text = json.dumps(v.to_json())
        assert json.loads(text) == v.to_json()
        if v.witness is not None:
            assert "\n" not in v.witness.summary


def _raises(exc: BaseException) -> Callable[[CheckContext], Verdict]:
    def check(_ctx: CheckContext) -> Verdict:
        raise exc

    return check


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        (_raises(InputError("bad\n   input")), "bad input"),
        (_raises(RecursionError()), "the check exceeded Python's recursion limit (a tool defect)"),
        (_raises(ValueError("boom")), "internal error in the check: ValueError: boom"),
        (lambda _ctx: Verdict.proved("GRAPH-C1"), "the check answered for 'GRAPH-C1' (a tool defect)"),
    ],
    ids=["sonnx-error", "recursion", "other-exception", "wrong-rule"],
)
def test_a_check_that_fails_is_unknown_never_a_pass(
    monkeypatch: pytest.MonkeyPatch, check: Callable[[CheckContext], Verdict], reason: str
) -> None:
    # GRAPH-ARITY: its severity differs between the profiles, so the verdict's must follow the profile
    monkeypatch.setattr(graph_arity, "check", check)  # the table's GRAPH-ARITY runs its module's check
    monkeypatch.setattr(registry, "RULES", (rule_by_id("GRAPH-ARITY"),))
    for profile, severity in ((PROFILE_SONNX, Severity.WARNING), (PROFILE_STRICT, Severity.ERROR)):
        (v,) = run_rules(model(seed_example()), CheckConfig(profile=profile))
        assert (v.rule_id, v.status, v.reason, v.severity) == ("GRAPH-ARITY", Status.UNKNOWN, reason, severity)


def test_rule_by_id_names_an_unknown_id() -> None:
    with pytest.raises(KeyError, match="GRAPH-NO-SUCH-RULE"):
        rule_by_id("GRAPH-NO-SUCH-RULE")


def test_strict_rules_belong_to_the_strict_profile_only() -> None:
    strict = {r.id for r in rules_for(PROFILE_STRICT)} - {r.id for r in rules_for(PROFILE_SONNX)}
    assert strict == {
        "STRICT-OPERATORS", "STRICT-ATTRIBUTES", "STRICT-SHAPES", "STRICT-SPARSE", "STRICT-OPSET", "STRICT-METADATA",
        "STRICT-BROADCAST", "STRICT-OP-RESTRICTIONS", "OP-SHAPES", "OP-VALUE-SHAPES",
        "OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW", "OP-ERROR-INDEX",
        "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT",
    }


IMPORT_FAILED = "the rule's code could not be imported: "


def test_a_rule_whose_module_cannot_be_imported_is_unknown_and_the_other_rules_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # None in sys.modules makes the import fail as a missing module does; GRAPH-ARITY: its severity follows the profile
    monkeypatch.setitem(sys.modules, "sonnx.rules.graph_arity", None)
    for profile, severity in ((PROFILE_SONNX, Severity.WARNING), (PROFILE_STRICT, Severity.ERROR)):
        verdicts = {v.rule_id: v for v in run_rules(model(seed_example()), CheckConfig(profile=profile))}
        v = verdicts["GRAPH-ARITY"]
        assert (v.status, v.severity) == (Status.UNKNOWN, severity)
        assert v.reason == (
            f"{IMPORT_FAILED}ModuleNotFoundError: import of sonnx.rules.graph_arity halted; None in sys.modules "
            "(a tool defect)"
        )
        assert verdicts["GRAPH-C2"].status is Status.PROVED and len(verdicts) == len(rules_for(profile))


def test_a_rule_module_that_raises_while_imported_is_unknown_with_what_it_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a module of sonnx.rules named after a rule ID, whose top level fails (a broken data file, for one)
    (tmp_path / "graph_broken.py").write_text('raise ValueError("the table\\n  is broken")\n', encoding="utf-8")
    monkeypatch.setattr(sonnx.rules, "__path__", [*sonnx.rules.__path__, str(tmp_path)])
    broken = Rule("GRAPH-BROKEN", Severity.ERROR, PROFILE_SONNX)
    monkeypatch.setattr(registry, "RULES", (rule_by_id("GRAPH-C2"), broken))
    got = [(v.rule_id, v.status, v.reason) for v in run_rules(model(seed_example()))]
    assert got == [
        ("GRAPH-C2", Status.PROVED, None),
        ("GRAPH-BROKEN", Status.UNKNOWN, f"{IMPORT_FAILED}ValueError: the table is broken (a tool defect)"),
    ]
    assert "sonnx.rules.graph_broken" not in sys.modules


def test_a_check_whose_file_rule_cannot_be_imported_starts_no_child_and_says_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # FORMAT-ONNX's check starts before the model is read; its module missing must not stop the check
    from sonnx.checking.options import CheckOptions
    from sonnx.checking.pipeline import check_file

    monkeypatch.setitem(sys.modules, "sonnx.rules.format_onnx", None)
    assert registry.start_file_checks(SHIPPED, CheckConfig()) == {}
    report = check_file(SHIPPED, CheckOptions(engine="direct"))
    verdicts = {v.rule_id: v for v in report.verdicts}
    assert verdicts["FORMAT-ONNX"].status is Status.UNKNOWN
    assert (verdicts["FORMAT-ONNX"].reason or "").startswith(f"{IMPORT_FAILED}ModuleNotFoundError: ")
    assert all(v.status is not Status.UNKNOWN for k, v in verdicts.items() if k != "FORMAT-ONNX")
    assert report.exit_code == 2
