"""One cross-check: the NumPy executor against each requested oracle, on the same inputs.

The inputs are drawn once (seeded, from the declared types and shapes) or read
from an ``.npz`` file; every runtime receives the same arrays, whose SHA-256
digests are kept in the report. Each output of each oracle gets the figures
of :mod:`.metrics` (the oracle's value is the expected one, the executor's the
actual one).

Outcome per oracle:

* ``AGREE``: it ran and every output is within tolerance;
* ``DIFFER``: some output is outside tolerance or not comparable, and no known
  oracle defect explains it (exit 1);
* ``KNOWN-DEVIATION``: the reference evaluator differs on a model that uses an
  operator for which it is known to be wrong (:data:`KNOWN_REFERENCE_DEFECTS`),
  and another oracle that ran agrees with the executor on every such output.
  The figures are reported in full; only the exit code does not fail. Without
  a corroborating oracle the difference stays ``DIFFER``;
* ``UNKNOWN``: the oracle is not installed, refuses the model or fails (exit 2:
  agreement was not established).

Every runtime's outputs (the executor's and each oracle's) are also compared
with the types the model declares for them (:func:`sonnx.execution.signature.output_misfits`).
A contradiction is listed as a warning beside the figures and changes no
outcome: a declared output shape is not enforced by any runtime (onnxruntime
warns and returns the value), so it is not a fact the agreement rests on.

With ``Tolerance.quant_steps`` the outputs a quantizing operation writes get a
tolerance in quantization steps (:func:`.quant.step_tolerances`); the report
lists them, and every other output keeps the float tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from ..base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED, ExecutionError, InputSizeError, SonnxError, UsageError
from ..base.progress import Say, Steps, quiet
from ..base.text import printable
from ..base.threads import CHECK_THREADS, blas_threads
from ..base.version import __version__
from ..execution.signature import OutputMisfit, output_misfits
from ..loader import load_model
from ..model.graph import Model
from ..ops.values import value_digest
from .metrics import OutputComparison, Tolerance, compare_arrays
from .names import ORACLES
from .oracles import OracleRun, run_contained
from .quant import StepTolerance, step_tolerances
from .wg_tolerance import NOT_APPLIED, SOURCE, OutputClass, output_classes, resolved_for

if TYPE_CHECKING:
    from ..execution.inputs import InputSource

SCHEMA = "sonnx-crosscheck/1"


@dataclass(frozen=True)
class KnownDefect:
    """An operator version range on which an oracle is known to compute wrong results."""

    oracle: str
    domain: str
    operators: tuple[str, ...]
    first: int
    last: int
    why: str


KNOWN_REFERENCE_DEFECTS: tuple[KnownDefect, ...] = (
    KnownDefect(
        "reference",
        "",
        ("Softmax", "LogSoftmax", "Hardmax"),
        1,
        12,
        "before opset 13 these operators coerce the input to 2-D at `axis` (default 1) and normalise over "
        "all trailing dimensions together; onnx's reference evaluator normalises over `axis` alone",
    ),
    KnownDefect(
        "reference",
        "",
        ("BatchNormalization",),
        9,
        13,
        "onnx's reference evaluator fills in a default `momentum` and then takes the training path, "
        "whereas an inference-mode BatchNormalization normalises with the given mean and variance",
    ),
)
"""Measured defects of the oracles (/work/shared/notes/measurements.md); docs/evidence.rst explains them."""


def parse_oracles(text: str, option: str = "--cross-check") -> tuple[str, ...]:
    """``reference,onnxruntime`` as a tuple of known oracle names (order kept, duplicates dropped)."""
    names: list[str] = []
    for item in text.split(","):
        name = item.strip()
        if not name:
            continue
        if name not in ORACLES:
            raise UsageError(f"{option}: unknown oracle {name!r} (known: {', '.join(ORACLES)})")
        if name not in names:
            names.append(name)
    if not names:
        raise UsageError(f"{option}: name at least one oracle (reference, onnxruntime)")
    return tuple(names)


@dataclass
class OracleResult:
    """One oracle's run and its comparison with the executor."""

    run: OracleRun
    comparisons: dict[str, OutputComparison] = field(default_factory=dict)
    outcome: str = "UNKNOWN"
    known_defects: list[KnownDefect] = field(default_factory=list)
    missing_outputs: list[str] = field(default_factory=list)
    declared_misfits: list[OutputMisfit] = field(default_factory=list)
    """The oracle's outputs that contradict their declared types (a warning, see the module text)."""

    def to_json(self) -> dict[str, Any]:
        r = self.run
        return {
            "oracle": r.name,
            "outcome": self.outcome,
            "status": r.status,
            "version": r.version,
            "message": r.message,
            "settings": r.settings,
            "notes": list(r.notes),
            "known_defects": [
                {"operators": list(d.operators), "opsets": [d.first, d.last], "why": d.why} for d in self.known_defects
            ],
            "missing_outputs": list(self.missing_outputs),
            "declared_output_misfits": [m.to_json() for m in self.declared_misfits],
            "outputs": [{"name": n, **c.to_json()} for n, c in self.comparisons.items()],
        }


@dataclass
class CrossCheckReport:
    """Everything one cross-check established, JSON-ready through :meth:`to_json`."""

    path: str
    seed: int
    inputs_file: str | None
    tolerance: Tolerance
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    subject_error: str | None = None
    results: list[OracleResult] = field(default_factory=list)
    declared_misfits: list[OutputMisfit] = field(default_factory=list)
    """The executor's outputs that contradict their declared types (a warning, see the module text)."""
    steps: dict[str, StepTolerance] = field(default_factory=dict)
    """The outputs given a tolerance in quantization steps."""
    source: InputSource | None = None
    """Where the inputs came from (None when they could not be made)."""
    classes: dict[str, OutputClass] = field(default_factory=dict)
    """Under ``--tolerance sonnx-wg``: the class of each output, which chooses its tolerance."""

    @property
    def exit_code(self) -> int:
        """1 if an oracle differs; else 2 if the executor failed or an oracle is UNKNOWN; else 0."""
        if self.subject_error is not None:
            return EXIT_UNUSABLE
        if any(r.outcome == "DIFFER" for r in self.results):
            return EXIT_VIOLATED
        if any(r.outcome == "UNKNOWN" for r in self.results):
            return EXIT_UNUSABLE
        return EXIT_OK

    @property
    def outcome(self) -> str:
        return {EXIT_OK: "AGREE", EXIT_VIOLATED: "DIFFER"}.get(self.exit_code, "UNKNOWN")

    def __repr__(self) -> str:
        """One line: the model, the outcome and exit code, each oracle's outcome (not the arrays compared)."""
        each = [f"{r.run.name} {r.outcome}" for r in self.results]
        if self.subject_error is not None:
            each.insert(0, "the executor failed")
        return f"<CrossCheckReport {printable(self.path)}: {self.outcome} (exit {self.exit_code}; {', '.join(each)})>"

    def to_json(self, tool_version: str = __version__) -> dict[str, Any]:
        """JSON-ready; ``tool_version`` names the build whose executor ran (this one unless a bundle says otherwise)."""
        return {
            "schema": SCHEMA,
            "model": self.path,
            "outcome": self.outcome,
            "exit_code": self.exit_code,
            "subject": {
                "name": "numpy",
                "version": f"sonnx {tool_version}",
                "status": "failed" if self.subject_error else "ran",
                "message": self.subject_error,
                "declared_output_misfits": [m.to_json() for m in self.declared_misfits],
            },
            "seed": self.seed,
            "inputs_file": self.inputs_file,
            "inputs": self.inputs,
            "tolerance_overrides": self.tolerance.to_json(),
            "step_tolerances": {name: st.to_json() for name, st in self.steps.items()},
            **self._policy_json(),
            "oracles": [r.to_json() for r in self.results],
        }

    def _policy_json(self) -> dict[str, Any]:
        """The named policy's record; none under the default policy, so older reports read the same."""
        if self.tolerance.policy == "default":
            return {}
        classes = {n: {"class": c.cls, "because": c.because} for n, c in self.classes.items()}
        return {"tolerance_policy": {"name": self.tolerance.policy, "source": SOURCE, "classes": classes,
                                     "not_applied": list(NOT_APPLIED)}}


def _defects_in(model: Model, oracle: str) -> list[KnownDefect]:
    """The known defects of ``oracle`` that the model's operations (any graph) can trigger."""
    used = {(op.domain, op.operator) for _, g in model.graph.nested() for op in g.operations}
    out = []
    for d in KNOWN_REFERENCE_DEFECTS:
        version = model.opset_imports.get(d.domain)
        if d.oracle != oracle or version is None or not d.first <= version <= d.last:
            continue
        if any((d.domain, name) in used for name in d.operators):
            out.append(d)
    return out


def _compare(
    run: OracleRun,
    ours: Mapping[str, np.ndarray],
    tolerance: Tolerance,
    steps: Mapping[str, StepTolerance],
    misfits: list[OutputMisfit],
    classes: Mapping[str, OutputClass],
) -> OracleResult:
    result = OracleResult(run)
    if not run.ran:
        return result
    result.declared_misfits = misfits
    for name, actual in ours.items():
        if name not in run.outputs:
            result.missing_outputs.append(name)
            continue
        expected = run.outputs[name]
        resolved = resolved_for(classes, name, expected)
        result.comparisons[name] = compare_arrays(expected, actual, tolerance, step=steps.get(name), resolved=resolved)
    ok = not result.missing_outputs and all(c.ok for c in result.comparisons.values())
    result.outcome = "AGREE" if ok else "DIFFER"
    return result


def _settle_known_defects(results: Sequence[OracleResult], model: Model) -> None:
    """Turn a reference DIFFER into KNOWN-DEVIATION when a known defect applies and another oracle agrees."""
    for r in results:
        if r.outcome != "DIFFER" or r.missing_outputs:
            continue
        defects = _defects_in(model, r.run.name)
        if not defects:
            continue
        r.known_defects = defects
        differing = [n for n, c in r.comparisons.items() if not c.ok]
        others = [o for o in results if o is not r and o.run.ran]
        if any(all(n in o.comparisons and o.comparisons[n].ok for n in differing) for o in others):
            r.outcome = "KNOWN-DEVIATION"


def cross_check(
    path: str,
    oracles: Sequence[str] = ORACLES,
    seed: int = 0,
    inputs_file: str | None = None,
    tolerance: Tolerance | None = None,
    model: Model | None = None,
    given: Mapping[str, OracleResult] | None = None,
    data: bytes | None = None,
    say: Say = quiet,
) -> CrossCheckReport:
    """Run the executor and each oracle on ``path`` with the same inputs; compare every output.

    ``data``: the bytes of a model read from no file (``model`` then holds it and ``path`` names it); the
    oracles run those bytes, as they run a file's.

    ``say`` hears the runs done (the executor's, then each oracle's) out of all of them.

    ``given`` holds results to use instead of running an oracle (a replay of
    an evidence bundle where that runtime is missing, taken on trust by the
    reviewer: :mod:`.recorded`); the outcomes are still settled together.

    An unreadable model or input file, or a declared input size that cannot be drawn,
    raises a :class:`SonnxError` (exit 2); anything an oracle does wrong is
    kept in the report instead.
    """
    from ..execution.executor import execute  # the kernels are imported by a run that uses them, not at start-up
    from ..execution.inputs import read_inputs

    tol = tolerance or Tolerance()
    report = CrossCheckReport(path, seed, inputs_file, tol)
    if model is None:
        model = load_model(path)
    try:
        made = read_inputs(model, inputs_file, [], seed)
    except InputSizeError:  # a declared size no input can have: the model is unusable here, as for sonnx run
        raise
    except ExecutionError as exc:  # an input without a declared type or shape: give its value with --inputs
        report.subject_error = f"no inputs: {exc.one_line()}"
        return report
    feeds, report.source = made.values, made.source
    runs = Steps(say, "cross-check runs done", 1 + len(oracles), estimate=False)  # runtimes differ too much
    report.inputs = {name: value_digest(v) for name, v in sorted(feeds.items())}
    try:
        with blas_threads(CHECK_THREADS):  # verdicts independent of the machine's cores (sonnx.base.threads)
            ours = execute(model, feeds)
    except SonnxError as exc:
        report.subject_error = exc.one_line()
    except Exception as exc:  # a kernel defect: the executor's result is not established
        report.subject_error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    if report.subject_error is not None:
        return report
    runs.advance(detail="sonnx's executor")
    report.declared_misfits = output_misfits(model, feeds, ours)
    if tol.quant_steps is not None:
        report.steps = step_tolerances(model, tol.quant_steps)
    if tol.policy == "sonnx-wg":
        report.classes = output_classes(model)
    proto, load_error = _load_proto(path) if data is None else _proto_of(data)
    for name in oracles:
        if given is not None and name in given:
            report.results.append(given[name])
            runs.advance(detail=f"{name} (recorded)")
            continue
        if proto is None:
            run = OracleRun(name, "cannot load model", message=load_error)
        else:
            run = run_contained(name, proto, feeds)
        misfits = output_misfits(model, feeds, run.outputs) if run.ran else []
        report.results.append(_compare(run, ours, tol, report.steps, misfits, report.classes))
        runs.advance(detail=name)
    _settle_known_defects(report.results, model)
    return report


def _load_proto(path: str) -> tuple[onnx.ModelProto | None, str]:
    """The model as onnx reads it, external data included (the oracles run the file, not our model)."""
    try:
        return onnx.load(path), ""
    except Exception as exc:
        return None, f"onnx cannot read the file: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"


def _proto_of(data: bytes) -> tuple[onnx.ModelProto | None, str]:
    """The model of ``data`` as onnx reads it (the oracles run those bytes, not our model)."""
    try:
        return onnx.load_model_from_string(data), ""
    except Exception as exc:
        return None, f"onnx cannot read the bytes: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
