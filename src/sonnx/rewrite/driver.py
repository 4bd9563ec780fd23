"""Running the passes: preconditions, transformations, postconditions, then translation validation.

:func:`rewrite_model` applies the selected passes to the main graph until
none applies any more. Each application is checked by the shared
postcondition (:func:`.base.ensures`). A rewrite that would leave a graph
input unread (the removed operation was its only reader) is refused as a
failed precondition: graph inputs are the model's interface and are not
removed. At the end the rewritten model is validated against the input
model on the input sets of :mod:`sonnx.execution.inputs.sets` (seeded, or the values given),
each run within a wall-clock budget. :attr:`RewriteResult.outcome` says what
the validation established: ``established`` (every compared set bit-exact,
the normal set among them), ``differs`` (an output differs in a bit, or one
model fails where the other runs), or ``not established`` (no set, or not the
normal set, could be compared: neither model runs on it, or a run exceeded its
budget). Only ``established`` lets the command line write the output.

:func:`rewrite_file` refuses a file that FORMAT-ONNX does not prove (onnx's
full check, run by that rule with its crash isolation), as a model is
refused when its graph violates a rule or leaves it UNKNOWN.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.files import refuse_overwrite
from ..base.progress import Say, quiet
from ..base.verdict import Severity, Status
from ..execution.inputs import InputSource
from ..execution.inputs.domain import Domain, input_domains
from ..execution.inputs.sets import input_sets, set_source
from ..loader import load_model, load_with_inferred_shapes
from ..loader.writer import save_model
from ..model.graph import Model
from ..rules import format_onnx
from ..rules.base import CheckConfig, CheckContext
from ..rules.graph_function_shadowing import refuse_shadowing
from .base import RULES_CONFIG, Application, Pass, Refusal, RewriteError, ensures, rule_statuses
from .constant import ConstantToInitializer
from .dropout import DropoutRemoval
from .flatten import FlattenToReshape
from .identity import IdentityRemoval
from .pad_conv import PadIntoConv
from .pad_nop import PadRemoval
from .pad_pool import PadIntoPool
from .runtime import RuntimeCheck, runtime_check
from .shape import ShapeToConstant
from .validate import (
    DEFAULT_BUDGET,
    DIFFERS,
    ESTABLISHED,
    SetResult,
    chosen_sets,
    compare_models,
    outcome,
    shared_intermediates,
    with_outputs,
)

PASSES: tuple[Pass, ...] = (
    DropoutRemoval(),
    FlattenToReshape(),
    ConstantToInitializer(),
    IdentityRemoval(),
    ShapeToConstant(),
    PadRemoval(),
    PadIntoPool(),
    PadIntoConv(),
)
"""Every pass, in the order of seed 002 (also the order they are tried in)."""

PASS_NAMES: tuple[str, ...] = tuple(p.name for p in PASSES)


def select(names: Sequence[str] | None) -> tuple[Pass, ...]:
    """The passes called ``names`` (all when None or empty), in the fixed order of :data:`PASSES`."""
    if not names:
        return PASSES
    unknown = sorted(set(names) - set(PASS_NAMES))
    if unknown:
        raise RewriteError(f"unknown pass(es) {', '.join(unknown)}; known: {', '.join(PASS_NAMES)}")
    return tuple(p for p in PASSES if p.name in names)


@dataclass
class RewriteResult:
    """What a rewrite did: the new model, each application, each refusal, and the validation."""

    original: Model
    model: Model
    applications: list[Application] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    validation: list[SetResult] = field(default_factory=list)
    runtime: RuntimeCheck | None = None
    """The onnxruntime half of the validation (None when nothing was rewritten or the executor established nothing)."""
    domains: dict[str, Domain] = field(default_factory=dict)
    """The domains the integer inputs were drawn in (:mod:`sonnx.execution.inputs.domain`)."""
    budget: float | None = DEFAULT_BUDGET

    @property
    def outcome(self) -> str:
        """``established``, ``differs`` or ``not established`` (see the module text); onnxruntime included."""
        if self.runtime is not None and not self.runtime.ok:
            return DIFFERS
        return outcome(self.validation)

    @property
    def ok(self) -> bool:
        """True when the validation established that the rewritten model computes the same bits: the compared
        sets (the normal set among them) are bit-exact, and onnxruntime, when installed, runs the rewritten model
        wherever it runs the input model, with agreeing outputs."""
        return self.outcome == ESTABLISHED

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "outcome": self.outcome,
            "budget_seconds": self.budget,
            "input_domains": {n: d.to_json() for n, d in self.domains.items()},
            "operations": {"before": len(self.original.graph.operations), "after": len(self.model.graph.operations)},
            "applications": [a.__dict__ for a in self.applications],
            "refusals": [r.__dict__ for r in self.refusals],
            "validation": [r.to_json() for r in self.validation],
            "runtime": None if self.runtime is None else self.runtime.to_json(),
        }


def _read_inputs(m: Model) -> set[str]:
    read: set[str] = set()
    for op in m.graph.operations:
        read.update(op.required_inputs)
    read.update(m.graph.outputs)
    return {n for n in m.graph.inputs if n in read}


def conformance_problems(model: Model) -> list[str]:
    """The error-severity graph rules the model violates or leaves UNKNOWN (the rewrite needs none)."""
    from ..rules import run_rules

    out = []
    for v in run_rules(model, RULES_CONFIG, graph_only=True):
        if v.status is Status.VIOLATED and v.severity is Severity.ERROR:
            out.append(f"{v.rule_id} violated")
        elif v.status is Status.UNKNOWN:
            out.append(f"{v.rule_id} unknown")
    return out


def format_problem(model: Model, path: str) -> str | None:
    """Why FORMAT-ONNX does not prove the file at ``path`` (``model`` was read from it), or None when it does.

    The rule's own check is run (onnx's full check in a child process), so that
    a rewrite refuses exactly what ``sonnx-check`` reports.
    """
    v = format_onnx.check(CheckContext(dataclasses.replace(model, source=path), CheckConfig()))
    if v.status is Status.PROVED:
        return None
    why = v.witness.summary if v.witness is not None else (v.reason or "")
    return f"FORMAT-ONNX {v.status.name.lower()}: {why}"


def rewrite_model(
    model: Model,
    passes: Sequence[Pass] = PASSES,
    seed: int = 0,
    progress: Say | None = None,
    sets: Sequence[str] | None = None,
    given: Mapping[str, Any] | None = None,
    given_source: InputSource | None = None,
    budget: float | None = DEFAULT_BUDGET,
    file_problem: str | None = None,
) -> RewriteResult:
    """Apply ``passes`` until none applies, checking each application; then validate the result.

    ``given`` (every graph input's value; ``given_source`` says where from) is the
    normal input set; ``sets`` the input sets to compare (by default all
    three, or the normal set alone when values are given); ``budget`` the
    seconds each run of a model on a set may take. ``file_problem`` is why the
    file the model was read from fails FORMAT-ONNX (:func:`format_problem`): a
    refusal, named with the graph rules that fail.
    """
    say = progress or quiet
    say("checking that the input model conforms")
    if not model.weights_loaded:
        raise RewriteError("the model was loaded without its weights; a rewrite needs them")
    refuse_shadowing(model)  # the written file would mean the standard operator to every runtime
    problems = conformance_problems(model) + ([file_problem] if file_problem is not None else [])
    if problems:
        raise RewriteError(
            "the input model does not conform to the SONNX rules (" + "; ".join(problems) + "); "
            "the passes' preconditions assume a conforming graph, so nothing was rewritten"
        )
    current = model
    status = rule_statuses(current)
    result = RewriteResult(model, model)
    refused: dict[tuple[str, str], Refusal] = {}
    steps = (len(model.graph.operations) + 1) * (len(passes) + 1)
    changed = True
    while changed and steps > 0:
        changed = False
        for p in passes:
            for op in current.graph.operations:
                if op.operator not in p.operators:
                    continue
                key = (p.name, op.label)
                reason = p.requires(current, op)
                if reason is None:
                    candidate, detail = p.transform(current, op)
                    lost = sorted(_read_inputs(current) - _read_inputs(candidate))
                    if lost:
                        reason = f"graph input(s) {', '.join(lost)} would be left unread"
                if reason is not None:
                    refused[key] = Refusal(p.name, op.label, reason)
                    continue
                status = ensures(current, status, candidate, p.name)
                refused.pop(key, None)
                result.applications.append(Application(p.name, op.label, detail))
                say(f"applied {p.name} to {op.label} ({len(result.applications)} so far); rules re-checked")
                current = candidate
                changed = True
                steps -= 1
                break
            if changed:
                break
    if steps <= 0:
        raise RewriteError("the passes did not reach a fixed point within the step budget (a defect)")
    result.model = current
    result.refusals = list(refused.values())
    # The inputs of the operations writing the outputs are compared too, bit-exact like the outputs:
    # a saturated Softmax (probabilities exactly 0 or 1) would hide a difference in the logits.
    chosen = chosen_sets(sets, given is not None)
    say(f"translation validation: running both models on the input sets {', '.join(chosen)}")
    last = shared_intermediates(model, current, model.graph.outputs, "last")
    names = {n: n for n in (*model.graph.outputs, *last)}
    feeds = input_sets(model, seed, chosen, given)
    result.domains, result.budget = input_domains(model), budget
    sources = {k: set_source(k, seed, given_source) for k in chosen}
    result.validation = compare_models(
        with_outputs(model, last), with_outputs(current, last), names, feeds, None, frozenset(), frozenset(last),
        budget, sources,
    )
    ran = next((r.name for r in result.validation if r.compared and r.refused is None), None)
    if result.applications and outcome(result.validation) == ESTABLISHED and ran is not None:
        say("translation validation: running both models on onnxruntime")
        result.runtime = runtime_check(model, current, feeds[ran])
    return result


def rewrite_file(
    source: str,
    destination: str,
    passes: Sequence[Pass] = PASSES,
    seed: int = 0,
    infer_shapes: bool = False,
    progress: Say | None = None,
    sets: Sequence[str] | None = None,
    inputs: Callable[[Model], tuple[dict[str, Any], InputSource]] | None = None,
    budget: float | None = DEFAULT_BUDGET,
) -> tuple[RewriteResult, bool]:
    """Rewrite the model at ``source``; write it to ``destination`` only when validated. Returns (result, written).

    ``infer_shapes`` loads the model after onnx's shape inference (seed 002
    assumes static intermediate shapes). The destination may not be the source.
    A file FORMAT-ONNX does not prove is refused (:func:`format_problem`).
    ``inputs``, given the loaded model, returns the given input values and
    where they came from (see :func:`rewrite_model` for ``sets`` and ``budget``).
    """
    refuse_overwrite(destination, [source], "the output")
    model = load_with_inferred_shapes(source) if infer_shapes else load_model(source)
    given, given_source = inputs(model) if inputs is not None else (None, None)
    result = rewrite_model(
        model, passes, seed, progress, sets, given, given_source, budget, format_problem(model, source)
    )
    if result.ok:
        save_model(result.model, destination)
    return result, result.ok
