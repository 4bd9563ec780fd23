"""One oracle's recorded cross-check result read back from JSON, for a replay that cannot run that oracle.

``sonnx evidence verify --trust crosscheck`` re-derives everything a bundle
says about a cross-check except the figures of a runtime that is not
installed where the bundle is verified: those it takes from the bundle's
``crosscheck.json``. Reading them back goes through this module, which
accepts exactly the shape :meth:`~sonnx.differential.run.OracleResult.to_json`
writes (every key, in order, of its type) and nothing else. The figures are
then fed to the same verdict and outcome code as a fresh run, so every
statement derived from them (verdicts, outcome, exit code, the page) is still
re-derived; only the figures themselves are taken on trust.

A ``KNOWN-DEVIATION`` outcome is read back as ``DIFFER`` with no known defect:
the settlement between oracles runs again on the replay
(:func:`sonnx.differential.run.cross_check`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..execution.signature import OutputMisfit
from .metrics import OutputComparison, ResolvedTolerance, WorstElement
from .oracles import OracleRun
from .quant import MAX_QUANT_STEPS, StepTolerance
from .run import OracleResult

OUTCOMES = ("AGREE", "DIFFER", "KNOWN-DEVIATION", "UNKNOWN")


class RecordedResultError(ValueError):
    """A recorded oracle result that is not exactly what sonnx writes."""


def _object(data: Any, keys: tuple[str, ...], where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping) or tuple(data) != keys:
        raise RecordedResultError(f"{where}: expected exactly the keys {', '.join(keys)}")
    return data


def _of(value: Any, kinds: tuple[type, ...], where: str) -> Any:
    if isinstance(value, bool) and bool not in kinds:
        raise RecordedResultError(f"{where}: {value!r} has the wrong type")
    if not isinstance(value, kinds):
        raise RecordedResultError(f"{where}: {value!r} has the wrong type")
    return value


def _float(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return float(_of(value, (int, float), where))


def _scalar(value: Any, where: str) -> Any:
    if isinstance(value, (bool, int)):
        return value
    return _float(value, where)


def _ints(value: Any, where: str) -> tuple[int, ...]:
    items = _of(value, (list,), where)
    return tuple(_of(x, (int,), where) for x in items)


def _strings(value: Any, where: str) -> list[str]:
    return [_of(x, (str,), where) for x in _of(value, (list,), where)]


def _step(data: Any, where: str) -> StepTolerance | None:
    if data is None:
        return None
    d = _object(data, ("steps", "scale", "axis", "integer", "writer"), where)
    steps = _of(d["steps"], (int,), where)
    scale = tuple(float(_of(x, (int, float), where)) for x in _of(d["scale"], (list,), where))
    if not 1 <= steps <= MAX_QUANT_STEPS or not scale or any(not x >= 0 or x == float("inf") for x in scale):
        raise RecordedResultError(f"{where}: the step tolerance is out of bounds")
    axis = d["axis"]
    return StepTolerance(
        steps=steps,
        scale=scale,
        axis=None if axis is None else _of(axis, (int,), where),
        integer=_of(d["integer"], (bool,), where),
        writer=_of(d["writer"], (str,), where),
    )


def _tolerance(data: Any, where: str) -> ResolvedTolerance:
    keys = ("atol", "rtol", "ulp", "exact", "step")
    named = isinstance(data, Mapping) and "policy" in data  # a named policy's class (written only then)
    d = _object(data, (*keys, "policy") if named else keys, where)
    all_of: tuple[str, ...] = ()
    policy = ""
    if named:
        p = _object(d["policy"], ("class", "all_of"), f"{where}.policy")
        policy = _of(p["class"], (str,), where)
        all_of = tuple(_strings(p["all_of"], where))
        if not policy or any(c not in ("atol", "rtol", "ulp") for c in all_of):
            raise RecordedResultError(f"{where}.policy: not a tolerance class sonnx writes")
    return ResolvedTolerance(
        atol=float(_of(d["atol"], (int, float), where)),
        rtol=float(_of(d["rtol"], (int, float), where)),
        ulp=_of(d["ulp"], (int,), where),
        exact=_of(d["exact"], (bool,), where),
        step=_step(d["step"], f"{where}.step"),
        all_of=all_of,
        policy=policy,
    )


def _worst(data: Any, where: str) -> WorstElement:
    d = _object(data, ("index", "expected", "actual", "abs_error", "ulp", "within"), where)
    ulp = d["ulp"]
    abs_error = _float(d["abs_error"], where)
    return WorstElement(
        index=_ints(d["index"], where),
        expected=_scalar(d["expected"], where),
        actual=_scalar(d["actual"], where),
        abs_error=float("nan") if abs_error is None else abs_error,
        ulp=None if ulp is None else _of(ulp, (int,), where),
        within=_of(d["within"], (bool,), where),
    )


def _comparison(data: Any, where: str) -> tuple[str, OutputComparison]:
    keys = ("name", "ok", "mismatch", "expected", "actual", "tolerance", "elements", "max_abs", "max_rel",
            "max_ulp", "outside", "nan_mismatches", "worst")
    d = _object(data, keys, where)
    sides = {k: _object(d[k], ("dtype", "shape"), f"{where}.{k}") for k in ("expected", "actual")}
    mismatch = d["mismatch"]
    max_ulp = d["max_ulp"]
    comparison = OutputComparison(
        expected_dtype=_of(sides["expected"]["dtype"], (str,), where),
        actual_dtype=_of(sides["actual"]["dtype"], (str,), where),
        expected_shape=_ints(sides["expected"]["shape"], where),
        actual_shape=_ints(sides["actual"]["shape"], where),
        tolerance=_tolerance(d["tolerance"], f"{where}.tolerance"),
        mismatch=None if mismatch is None else _of(mismatch, (str,), where),
        elements=_of(d["elements"], (int,), where),
        max_abs=_float(d["max_abs"], where),
        max_rel=_float(d["max_rel"], where),
        max_ulp=None if max_ulp is None else _of(max_ulp, (int,), where),
        outside=_of(d["outside"], (int,), where),
        nan_mismatches=_of(d["nan_mismatches"], (int,), where),
        worst=[_worst(w, f"{where}.worst") for w in _of(d["worst"], (list,), where)],
    )
    if comparison.ok != _of(d["ok"], (bool,), where):
        raise RecordedResultError(f"{where}: 'ok' does not follow from the figures")
    return _of(d["name"], (str,), where), comparison


def oracle_result(data: Any, name: str) -> OracleResult:
    """The recorded result of oracle ``name`` (see the module text), or :class:`RecordedResultError`."""
    keys = ("oracle", "outcome", "status", "version", "message", "settings", "notes", "known_defects",
            "missing_outputs", "declared_output_misfits", "outputs")
    where = f"crosscheck.json oracle {name!r}"
    d = _object(data, keys, where)
    if d["oracle"] != name or d["outcome"] not in OUTCOMES:
        raise RecordedResultError(f"{where}: names another oracle or an unknown outcome")
    version, message = d["version"], d["message"]
    run = OracleRun(
        name=name,
        status=_of(d["status"], (str,), where),
        version=None if version is None else _of(version, (str,), where),
        message=None if message is None else _of(message, (str,), where),
        settings=dict(_of(d["settings"], (dict,), where)),
        notes=_strings(d["notes"], where),
    )
    comparisons = dict(_comparison(c, f"{where} output") for c in _of(d["outputs"], (list,), where))
    missing = _strings(d["missing_outputs"], where)
    misfits = [_misfit(m, f"{where} misfit") for m in _of(d["declared_output_misfits"], (list,), where)]
    outcome = "DIFFER" if d["outcome"] == "KNOWN-DEVIATION" else d["outcome"]
    if not run.ran:
        follows = "UNKNOWN"
    else:
        follows = "AGREE" if not missing and all(c.ok for c in comparisons.values()) else "DIFFER"
    if outcome != follows:
        raise RecordedResultError(f"{where}: the outcome {d['outcome']} does not follow from the figures")
    return OracleResult(run, comparisons, outcome, [], missing, misfits)


def _misfit(data: Any, where: str) -> OutputMisfit:
    d = _object(data, ("output", "declared", "produced", "why"), where)
    return OutputMisfit(*(_of(d[k], (str,), where) for k in ("output", "declared", "produced", "why")))
