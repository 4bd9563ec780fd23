"""Running the passes: preconditions, transformations, postconditions, then translation validation.

:func:`rewrite_model` applies the selected passes to the main graph until
none applies any more. Each application is checked by the shared
postcondition (:func:`.base.ensures`). A rewrite that would leave a graph
input unread (the removed operation was its only reader) is refused as a
failed precondition: graph inputs are the model's interface and are not
removed. At the end the rewritten model is validated against the input
model on seeded inputs (:mod:`.validate`); :attr:`RewriteResult.ok` is False
when any output differs in any bit, and the command line then refuses to
write the output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..files import refuse_overwrite
from ..loader import load_model, load_with_inferred_shapes
from ..model.graph import Model
from ..rules.graph_function_shadowing import refuse_shadowing
from ..verdict import Severity, Status
from ..writer import save_model
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
from .validate import SetResult, compare_models, input_sets, shared_intermediates, with_outputs

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
    """The onnxruntime half of the validation (None when nothing was rewritten)."""

    @property
    def ok(self) -> bool:
        """True when every input set gave bit-exact outputs (or both models refused it alike), and onnxruntime,
        when installed, runs the rewritten model wherever it runs the input model, with agreeing outputs."""
        executor_ok = bool(self.validation) and all(r.ok for r in self.validation)
        return executor_ok and (self.runtime is None or self.runtime.ok)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
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
    """The error-severity rules the model violates or leaves UNKNOWN (the rewrite needs none)."""
    from ..rules import run_rules

    out = []
    for v in run_rules(model, RULES_CONFIG, graph_only=True):
        if v.status is Status.VIOLATED and v.severity is Severity.ERROR:
            out.append(f"{v.rule_id} violated")
        elif v.status is Status.UNKNOWN:
            out.append(f"{v.rule_id} unknown")
    return out


def rewrite_model(
    model: Model, passes: Sequence[Pass] = PASSES, seed: int = 0, progress: Callable[[str], None] | None = None
) -> RewriteResult:
    """Apply ``passes`` until none applies, checking each application; then validate the result."""
    say = progress or (lambda _m: None)
    say("checking that the input model conforms")
    if not model.weights_loaded:
        raise RewriteError("the model was loaded without its weights; a rewrite needs them")
    refuse_shadowing(model)  # the written file would mean the standard operator to every runtime
    problems = conformance_problems(model)
    if problems:
        raise RewriteError(
            "the input model does not conform to the SONNX rules (" + "; ".join(problems) + "); "
            "the passes' preconditions assume a conforming graph, so nothing was rewritten"
        )
    current = model
    status = rule_statuses(current)
    result = RewriteResult(model, model)
    refused: dict[tuple[str, str], Refusal] = {}
    budget = (len(model.graph.operations) + 1) * (len(passes) + 1)
    changed = True
    while changed and budget > 0:
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
                budget -= 1
                break
            if changed:
                break
    if budget <= 0:
        raise RewriteError("the passes did not reach a fixed point within the step budget (a defect)")
    result.model = current
    result.refusals = list(refused.values())
    # The inputs of the operations writing the outputs are compared too, bit-exact like the outputs:
    # a saturated Softmax (probabilities exactly 0 or 1) would hide a difference in the logits.
    say("translation validation: running both models on the seeded input sets")
    last = shared_intermediates(model, current, model.graph.outputs, "last")
    names = {n: n for n in (*model.graph.outputs, *last)}
    result.validation = compare_models(
        with_outputs(model, last), with_outputs(current, last), names, seed, None, frozenset(), frozenset(last)
    )
    if result.applications:
        say("translation validation: running both models on onnxruntime")
        result.runtime = runtime_check(model, current, input_sets(model, seed)["normal"])
    return result


def rewrite_file(
    source: str,
    destination: str,
    passes: Sequence[Pass] = PASSES,
    seed: int = 0,
    infer_shapes: bool = False,
    progress: Callable[[str], None] | None = None,
) -> tuple[RewriteResult, bool]:
    """Rewrite the model at ``source``; write it to ``destination`` only when validated. Returns (result, written).

    ``infer_shapes`` loads the model after onnx's shape inference (seed 002
    assumes static intermediate shapes). The destination may not be the source.
    """
    refuse_overwrite(destination, [source], "the output")
    model = load_with_inferred_shapes(source) if infer_shapes else load_model(source)
    result = rewrite_model(model, passes, seed=seed, progress=progress)
    if result.ok:
        save_model(result.model, destination)
    return result, result.ok
