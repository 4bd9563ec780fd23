"""The z3 theorems cite Coq theorems only by names that the Coq check prints the assumptions of.

A step of a z3 theorem that a Coq theorem proves is cited (``PROVED_IN_COQ``)
instead of counted as a review item. That is honest only when the cited
theorem is one ``python -m tools.coq_check`` compiles and lists with its
``Print Assumptions`` (``proofs/coq/theorems.txt``), and when the cited step
is one of the module's own steps.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from proofs import _kit, rewrite_flatten
from proofs.registry import MODULES, theorems
from tools.coq_check import read_project, read_table

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "proofs" / "coq"


def listed_coq_theorems() -> set[str]:
    """The full names (``SONNX.File.name``) of every theorem of ``proofs/coq/theorems.txt``."""
    _root, files = read_project(PROJECT)
    return {entry.qualified for entry in read_table(PROJECT, files)}


@pytest.mark.parametrize("name", MODULES)
def test_every_cited_coq_theorem_is_listed_and_cites_a_step_of_the_module(name: str) -> None:
    mod = importlib.import_module(f"proofs.{name}")
    cited: dict[str, str] = getattr(mod, "PROVED_IN_COQ", {})
    listed = listed_coq_theorems()
    for item, coq_name in cited.items():
        assert coq_name in listed, f"{name}: {coq_name} is not in proofs/coq/theorems.txt"
        assert item in mod.RESTS_ON, f"{name}: cites Coq for a step it does not list in RESTS_ON"


def test_steps_proved_in_coq_are_cited_not_counted() -> None:
    res = _kit.Result("t", [_kit.Outcome("a", True, "valid", obligation=True, rests_on=("axiom A",))])
    res.steps = ("prose step B",)
    assert res.verdict.startswith("PROVED, resting on 2 review items (")
    res.coq = {"prose step B": "SONNX.Termination.every_run_terminates"}
    assert res.verdict.startswith("PROVED, resting on 1 review item (")
    assert res.review_items == ("axiom A",)
    assert res.coq_items == (("prose step B", "SONNX.Termination.every_run_terminates"),)
    res.coq["axiom A"] = "SONNX.Acyclic.acyclic_iff_strict_rank"
    assert res.verdict == "PROVED"


def test_the_registry_splits_each_module_s_steps_into_review_items_and_coq_citations() -> None:
    for t in theorems():
        mod = importlib.import_module(f"proofs.{Path(t.module).stem}")
        assert set(t.rests_on) | {item for item, _ in t.proved_in_coq} == set(mod.RESTS_ON), t.id
        assert not set(t.rests_on) & {item for item, _ in t.proved_in_coq}, t.id


def test_the_coq_citations_this_change_made() -> None:
    # Every review item of the z3 routes is proved in Coq: the prose steps of termination, Newman's lemma,
    # theorem (e), and the exact hand-written instances (least-number, walk induction, Flatten's downward
    # induction, SONNX.Instances). Flatten's base and step obligations are checked to conclude the Coq
    # instance's two hypotheses term for term, so no review item is left.
    by_id = {t.id: t for t in theorems()}
    assert {n for _, n in by_id["termination"].proved_in_coq} == {
        "SONNX.Termination.every_run_terminates",
        "SONNX.Termination.exactly_once",
        "SONNX.Instances.least_unfired_instance",
    }
    assert next(n for _, n in by_id["order_independence"].proved_in_coq) == "SONNX.OrderIndependence.order_independence"
    assert [n for _, n in by_id["acyclicity"].proved_in_coq] == [
        "SONNX.Instances.walk_rank_induction_instance",
        "SONNX.Acyclic.acyclic_iff_bounded_rank",
    ]
    assert {n for _, n in by_id["inlining"].proved_in_coq} == {
        "SONNX.Acyclic.acyclic_iff_strict_rank_dec",
        "SONNX.Functions.inlining_terminates_iff",
    }
    assert [n for _, n in by_id["rewrite-flatten"].proved_in_coq] == [
        "SONNX.Instances.flatten_downward_induction_instance"
    ]
    left = {t.id: t.rests_on for t in theorems() if t.rests_on}
    assert left == {}
    assert rewrite_flatten.coq_citations(rewrite_flatten.obligations()) == rewrite_flatten.PROVED_IN_COQ


SPEC = ROOT / "spec" / "graph.rst"
COQ_NAME = re.compile(r"\bSONNX\.[A-Z]\w*\.\w+")


def _section_3_7(text: str) -> str:
    start = text.index("3.7 Properties of execution")
    return text[start : text.index("4. Verification rules", start)]


def test_every_coq_theorem_the_spec_cites_is_listed() -> None:
    cited = set(COQ_NAME.findall(SPEC.read_text(encoding="utf-8")))
    unknown = sorted(cited - listed_coq_theorems())
    assert cited and not unknown, f"spec/graph.rst cites Coq theorems not in proofs/coq/theorems.txt: {unknown}"


@pytest.mark.parametrize(
    ("claim", "theorem"),
    [
        ("*Termination.*", "SONNX.Termination.every_run_terminates"),
        ("*Exactly once.*", "SONNX.Premises.exactly_once_under_rules"),
        ("*Order independence.*", "SONNX.OrderIndependence.order_independence"),
        ("*Determinism.*", "SONNX.OrderIndependence.determinism"),
        ("*GRAPH-C3's two forms.*", "SONNX.C3.c3_fixpoint_iff_defined"),
        ("*Acyclicity and ranks.*", "SONNX.Acyclic.acyclic_iff_strict_rank"),
        ("*Functions.*", "SONNX.Functions.inlining_terminates_iff"),
        ("*Functions.*", "SONNX.Inline.inline_matches_nested"),
        ("*Functions.*", "SONNX.InlineExamples.strict_call_needed"),
        ("*Functions.*", "SONNX.InlineOmitted.inline_matches_nested_omitted"),
        ("*Functions.*", "SONNX.InlineOmittedInput.inline_matches_nested_omitted_input"),
        ("*Functions.*", "SONNX.InlineOmittedInputExamples.unstripped_call_differs"),
        ("*Nested graphs.*", "SONNX.Nested.nested_order_independence"),
        ("*Operators that fail.*", "SONNX.Errors.error_order_independence"),
    ],
)
def test_each_property_of_section_3_7_cites_its_coq_theorem(claim: str, theorem: str) -> None:
    section = _section_3_7(SPEC.read_text(encoding="utf-8"))
    bullet = section[section.index(f"* {claim}") :].split("\n* ", 1)[0]
    assert "Proved in Coq" in bullet and theorem in " ".join(bullet.split()), claim


def test_section_3_7_says_what_is_not_yet_proved_in_coq() -> None:
    section = " ".join(_section_3_7(SPEC.read_text(encoding="utf-8")).split())
    assert "**Not yet proved in Coq.**" in section
    rest = section[section.index("**Not yet proved in Coq.**") :].replace("``", "")
    # Calls that omit an input are proved (InlineOmittedInput.v): the list of open cases must not name them.
    for stale in ("omits an optional input", "covers omitted outputs only"):
        assert stale not in rest, stale
