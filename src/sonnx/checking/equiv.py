"""``sonnx equiv``: is model B (an optimizer's output, say) equivalent to model A?

The report has three parts:

* a **structural diff**: operations added and removed (counted per operator),
  operations present in both by node name whose operator, attributes or
  mappings changed, and how each output of A is matched in B (by name, else
  by position);
* **numeric equivalence**: both models run on the NumPy executor on the
  input sets of :mod:`sonnx.execution.inputs.sets` (normal, signed with zeros of
  both signs, extremes; only the sets asked for are drawn and run; given
  values are the normal set), each run within a wall-clock budget, each
  output compared with the cross-check
  figures (:func:`sonnx.differential.metrics.compare_arrays`: max abs, max rel,
  max ULP, elements outside the tolerance, worst indices), and flagged
  bit-exact when the bytes are equal;
* both models' ``sonnx-check`` verdicts (SONNX profile, direct engine);
* as evidence only, intermediate tensors both models compute under the same
  name (by default those read by the operations writing the outputs: a
  saturated Softmax output can be bit-exact while its logits differ), and
  the number of NaN elements (NaN against NaN counts as equal).

Verdict and exit code (:func:`sonnx.rewrite.validate.outcome`): 0
EQUIVALENT when every compared set agrees within the tolerance and the
normal set, when asked for, was compared (a set that was not compared is
named after the verdict); 1 NOT EQUIVALENT when a compared set differs or
one model fails where the other runs (the figures say where), or the
interfaces differ; 2 NOT ESTABLISHED when no set, or not the normal set,
could be compared (neither model runs on it, or a run exceeded its budget:
a comparison that could not be made is not a difference), and 2 when a
model cannot be loaded or run by the executor at all. A model
with a function that shadows a standard operator is refused (exit 2,
GRAPH-FUNCTION-SHADOWING): the runtimes would run the standard operator where
sonnx runs the function, so sonnx's figures would not be about the model the
runtimes execute.
Equivalence here is evidence on the seeded inputs, not a proof.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED, SonnxError, UsageError
from ..base.progress import Say, quiet
from ..differential.tolerance import Tolerance
from ..execution.inputs import InputSource
from ..execution.inputs.domain import Domain, input_domains
from ..execution.inputs.sets import input_sets, set_source
from ..execution.signature import declared
from ..loader import load_model
from ..model.graph import Model, Operation, TensorType
from ..rewrite.validate import (
    DEFAULT_BUDGET,
    DIFFERS,
    ESTABLISHED,
    INTERMEDIATES,
    SetResult,
    chosen_sets,
    compare_models,
    domain_lines,
    not_compared_text,
    outcome,
    shared_intermediates,
    summarize,
    with_outputs,
)
from ..rules.graph_function_shadowing import refuse_shadowing
from .options import CheckOptions
from .pipeline import check_file

SCHEMA_VERSION = 1


class EquivError(SonnxError):
    """The two models cannot be compared (exit 2)."""


@dataclass
class StructuralDiff:
    added: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)
    changed: list[dict[str, Any]] = field(default_factory=list)
    operations: tuple[int, int] = (0, 0)
    output_map: dict[str, str] = field(default_factory=dict)
    output_match: dict[str, str] = field(default_factory=dict)
    """How each output of A was matched: ``name`` or ``position``."""
    unmatched: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "operations": {"a": self.operations[0], "b": self.operations[1]},
            "added": dict(sorted(self.added.items())),
            "removed": dict(sorted(self.removed.items())),
            "changed": self.changed,
            "outputs": [{"a": k, "b": v, "matched_by": self.output_match[k]} for k, v in self.output_map.items()]
            + [{"a": k, "b": None, "matched_by": None} for k in self.unmatched],
        }


def _kind(op: Operation) -> str:
    return f"{op.domain}:{op.operator}" if op.domain else op.operator


def _attrs(op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in op.attributes:
        if a.type in ("GRAPH", "GRAPHS", "TENSOR", "TENSORS", "SPARSE_TENSOR"):
            out[a.name] = f"<{a.type.lower()}>"
        else:
            out[a.name] = list(a.value) if isinstance(a.value, tuple) else a.value
    return out


def structural_diff(a: Model, b: Model) -> StructuralDiff:
    """Operations added, removed and changed from ``a`` to ``b``, and the matching of outputs."""
    ga, gb = a.graph, b.graph
    ca = Counter(_kind(op) for op in ga.operations)
    cb = Counter(_kind(op) for op in gb.operations)
    d = StructuralDiff(operations=(len(ga.operations), len(gb.operations)))
    d.added = {k: cb[k] - ca.get(k, 0) for k in cb if cb[k] > ca.get(k, 0)}
    d.removed = {k: ca[k] - cb.get(k, 0) for k in ca if ca[k] > cb.get(k, 0)}
    by_name = {op.name: op for op in gb.operations if op.name}
    for op in ga.operations:
        other = by_name.get(op.name) if op.name else None
        if other is None:
            continue
        what = []
        if _kind(op) != _kind(other):
            what.append(f"operator {_kind(op)} -> {_kind(other)}")
        if _attrs(op) != _attrs(other):
            what.append("attributes")
        if op.input_mapping != other.input_mapping:
            what.append("inputs")
        if op.output_mapping != other.output_mapping:
            what.append("outputs")
        if what:
            d.changed.append(
                {
                    "name": op.name,
                    "operator": _kind(op),
                    "changes": what,
                    "attributes_a": _attrs(op),
                    "attributes_b": _attrs(other),
                }
            )
    outs_b = list(gb.outputs)
    for k, name in enumerate(ga.outputs):
        if name in gb.outputs:
            d.output_map[name], d.output_match[name] = name, "name"
        elif len(ga.outputs) == len(gb.outputs) and gb.outputs[k] not in ga.outputs:
            d.output_map[name], d.output_match[name] = outs_b[k], "position"
        else:
            d.unmatched.append(name)
    return d


def _free_inputs(m: Model) -> list[str]:
    g = m.graph
    return [n for n in g.inputs if g.tensor(n).initial_value is None]


def _compatible(a: TensorType | None, b: TensorType | None) -> bool:
    """Same kind, element type and rank, and equal sizes where both fix a dimension (at every depth).

    What one side leaves undeclared (element type 0, unknown rank, a symbolic
    dimension) is compatible with anything.
    """
    while a is not None and b is not None:
        if a.kind != b.kind or (a.elem_type and b.elem_type and a.elem_type != b.elem_type):
            return False
        if a.shape is not None and b.shape is not None:
            if len(a.shape) != len(b.shape):
                return False
            for x, y in zip(a.shape, b.shape, strict=True):
                if isinstance(x, int) and isinstance(y, int) and x >= 0 and y >= 0 and x != y:
                    return False
        a, b = a.element, b.element
    return True


def signature_differences(a: Model, b: Model, output_map: dict[str, str]) -> list[str]:
    """Each input (by name) and each matched output whose declared signature differs between the models.

    What a side leaves undeclared is not compared (the numbers decide there).
    """
    out: list[str] = []
    pairs = [("input", n, n) for n in _free_inputs(a)] + [("output", x, y) for x, y in output_map.items()]
    for what, x, y in pairs:
        ta, tb = a.graph.tensor(x).type, b.graph.tensor(y).type
        if not _compatible(ta, tb):
            out.append(f"{what} {x!r}: {declared(ta)} in the first model, {declared(tb)} in the second")
    return out


@dataclass
class EquivReport:
    a: str
    b: str
    diff: StructuralDiff
    sets: list[SetResult]
    checks: dict[str, dict[str, Any]]
    problem: str | None = None
    """Why the models are not equivalent before any number is compared (interfaces differ)."""
    domains: dict[str, Domain] = field(default_factory=dict)
    """The domains the integer inputs were drawn in (:mod:`sonnx.execution.inputs.domain`)."""
    budget: float | None = DEFAULT_BUDGET

    @property
    def exit_code(self) -> int:
        if self.problem is not None:
            return EXIT_VIOLATED
        found = outcome(self.sets)
        return EXIT_OK if found == ESTABLISHED else EXIT_VIOLATED if found == DIFFERS else EXIT_UNUSABLE

    @property
    def intermediates_outside(self) -> list[str]:
        """``set/name`` of every intermediate comparison outside the tolerance (evidence, not the verdict)."""
        return [f"{r.name}/{n}" for r in self.sets for n, c in r.outputs.items() if n in r.informative and not c.ok]

    @property
    def verdict(self) -> str:
        return {EXIT_OK: "EQUIVALENT", EXIT_VIOLATED: "NOT EQUIVALENT"}.get(self.exit_code, "NOT ESTABLISHED")

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": "sonnx equiv",
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "problem": self.problem,
            "not_compared": {r.name: r.not_compared for r in self.sets if not r.compared},
            "budget_seconds": self.budget,
            "input_domains": {n: d.to_json() for n, d in self.domains.items()},
            "intermediates_outside_tolerance": self.intermediates_outside,
            "structure": self.diff.to_json(),
            "numeric": [s.to_json() for s in self.sets],
            "checks": self.checks,
        }


def _check(path: str) -> dict[str, Any]:
    rep = check_file(path, CheckOptions(engine="direct"))
    return {
        "outcome": rep.outcome,
        "exit_code": rep.exit_code,
        "violated": sorted(v.rule_id for v in rep.all_verdicts() if v.fails),
        "warnings": sorted(v.rule_id for v in rep.all_verdicts() if v.status.name == "VIOLATED" and not v.fails),
        "unknown": sorted(v.rule_id for v in rep.all_verdicts() if v.status.name == "UNKNOWN"),
        "error": rep.error.one_line() if rep.error is not None else None,
        "findings": {v.rule_id: v.witness.summary for v in rep.all_verdicts() if v.fails and v.witness is not None},
    }


def equivalence(
    path_a: str,
    path_b: str,
    seed: int = 0,
    tolerance: Tolerance | None = None,
    sets: Sequence[str] | None = None,
    intermediates: str = "last",
    progress: Say | None = None,
    inputs: Callable[[Model], tuple[dict[str, Any], InputSource]] | None = None,
    budget: float | None = DEFAULT_BUDGET,
) -> EquivReport:
    """Compare the model at ``path_b`` with the one at ``path_a`` (see the module text).

    ``sets`` None compares every set, or the normal set alone when ``inputs``
    is given: it reads, for the loaded first model, the given values and
    where they came from. ``budget`` is the seconds each run of a model may take.
    """
    say = progress or quiet
    chosen = chosen_sets(sets, inputs is not None)
    if intermediates not in INTERMEDIATES:
        raise EquivError(f"--intermediates must be one of {', '.join(INTERMEDIATES)}, not {intermediates!r}")
    if tolerance is not None and tolerance.policy != "default":  # its classes are of one model's operations
        raise UsageError(f"--tolerance {tolerance.policy} applies to the cross-check, not to sonnx equiv")
    say(f"loading {path_a} and {path_b}")
    a, b = load_model(path_a), load_model(path_b)
    refuse_shadowing(a)
    refuse_shadowing(b)
    diff = structural_diff(a, b)
    say("sonnx-check on both models")
    checks = {"a": _check(path_a), "b": _check(path_b)}
    report = EquivReport(path_a, path_b, diff, [], checks)
    fa, fb = _free_inputs(a), _free_inputs(b)
    if sorted(fa) != sorted(fb):
        report.problem = f"the models take different inputs: {sorted(fa)} and {sorted(fb)}"
        return report
    if diff.unmatched:
        report.problem = f"output(s) of the first model without a counterpart: {', '.join(diff.unmatched)}"
        return report
    differences = signature_differences(a, b, diff.output_map)
    if differences:
        report.problem = "the interfaces differ: " + "; ".join(differences)
        return report
    common = shared_intermediates(a, b, tuple(diff.output_map), intermediates)
    mapping = {**diff.output_map, **{n: n for n in common}}
    given, given_source = inputs(a) if inputs is not None else (None, None)
    say(f"running both models on the input sets {', '.join(chosen)}")
    a_ext, b_ext = with_outputs(a, common), with_outputs(b, common)
    feeds = input_sets(a, seed, chosen, given)
    report.domains, report.budget = input_domains(a), budget
    sources: Mapping[str, str] = {k: set_source(k, seed, given_source) for k in chosen}
    report.sets = compare_models(
        a_ext, b_ext, mapping, feeds, tolerance or Tolerance(), frozenset(common), frozenset(common), budget, sources
    )
    return report


def text(report: EquivReport) -> str:
    d = report.diff
    skipped = not_compared_text(report.sets) if report.problem is None else ""
    lines = [f"{report.verdict}: {report.b} against {report.a}" + (f"; not compared: {skipped}" if skipped else "")]
    lines.append(f"structure: {d.operations[0]} -> {d.operations[1]} operations")
    if d.removed:
        lines.append("  removed: " + ", ".join(f"{k} x{v}" for k, v in sorted(d.removed.items())))
    if d.added:
        lines.append("  added: " + ", ".join(f"{k} x{v}" for k, v in sorted(d.added.items())))
    for c in d.changed[:20]:
        lines.append(f"  changed: {c['name']} ({c['operator']}): {', '.join(c['changes'])}")
    if len(d.changed) > 20:
        lines.append(f"  ... {len(d.changed) - 20} more changed operations (see --json)")
    for k, v in d.output_map.items():
        lines.append(f"  output {k} -> {v} (by {d.output_match[k]})")
    for k in d.unmatched:
        lines.append(f"  output {k} -> (none)")
    if report.problem:
        lines.append(f"not comparable numerically: {report.problem}")
    else:
        lines.append(f"numeric (NumPy executor; budget {report.budget:g} s per run):")
        lines.extend(domain_lines(report.domains))
        lines.append(summarize(report.sets))
        if report.intermediates_outside:
            lead = (
                "note: the verdict is on the graph outputs, but intermediate tensor(s) are outside the tolerance"
                if report.exit_code == EXIT_OK
                else "also outside the tolerance, intermediate tensor(s)"
            )
            lines.append(f"{lead}: {', '.join(report.intermediates_outside)}")
    for side in ("a", "b"):
        c = report.checks[side]
        extra = f"; violated {', '.join(c['violated'])}" if c["violated"] else ""
        lines.append(f"sonnx-check {side}: {c['outcome']}{extra}")
        for rule_id, summary in c.get("findings", {}).items():
            lines.append(f"  {rule_id}: {summary}")
    return "\n".join(lines) + "\n"


__all__ = ["EXIT_UNUSABLE", "EquivError", "EquivReport", "equivalence", "structural_diff", "text"]
