"""Every subcommand on every model of the real-export corpus, each within a stated wall-clock budget.

A safety engineer runs sonnx unattended, in CI or over a night's batch; a
command that never returns is worse than one that refuses. This campaign
runs each step of :data:`STEPS` as its own process on each model of
``tests/data/real/`` and judges the result:

* **ok**: the process ended within the step's budget with a defined exit
  code (0, 1 or 2), no "internal error" on stderr, and, for the steps that
  print a report, a report on stdout whatever the exit code;
* **over budget**: the process was still running at the budget and was
  killed;
* **defect**: an undefined exit code, an internal error, a dropped report.

The budgets are the stated ones of ``docs/budgets.rst``, and are far above
what the steps take on the corpus (the table this campaign prints says by
how much). They are not performance targets: the validation steps carry a
budget of their own (``--budget``) and must stop by themselves, so a step
that reaches the campaign's budget is a termination defect.

When ``tests/data/real/inputs/<model stem>.npz`` or ``.json`` exists, the
steps that execute the model are given it with ``--inputs``; otherwise the
inputs are drawn from the model's own domain with the seed.

    python -m tests.corpus.budget_campaign [--only NAME,...] [--steps STEP,...] [--out FILE.json]   # make corpus-budget

The exit status is 1 when any step is over budget or a defect.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sonnx.base.progress import Say, quiet

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "real"
VALIDATION_BUDGET = 20
"""Seconds each input set may take in ``rewrite`` and ``equiv`` (their own ``--budget``)."""


@dataclass(frozen=True)
class Step:
    """One subcommand run on one model: its name, its budget in seconds and its command line."""

    name: str
    budget: float
    argv: Callable[[Path, Path, Path | None], list[str]]
    """(model, scratch folder, inputs file or None) -> the arguments after ``python -m sonnx``."""
    reports: bool = False
    """Whether stdout must hold a report whatever the exit code (the check steps: a report is never dropped)."""


def _inputs(given: Path | None) -> list[str]:
    return ["--inputs", str(given)] if given is not None else []


STEPS: tuple[Step, ...] = (
    Step("check", 120, lambda m, _t, _i: ["check", "-q", str(m)], reports=True),
    Step(
        "check-orders-crosscheck-evidence",
        600,
        lambda m, t, i: ["check", "-q", str(m), "--orders", "3", "--cross-check", "reference,onnxruntime",
                         "--evidence", str(t / "evidence"), *_inputs(i)],
        reports=True,
    ),
    Step("evidence-verify", 600,
         lambda _m, t, _i: ["evidence", "verify", str(t / "evidence"), "--trust", "crosscheck"]),
    Step("run", 300, lambda m, t, i: ["run", "-q", str(m), "--output", str(t / "outputs.json"), *_inputs(i)]),
    Step("crosscheck", 300, lambda m, _t, i: ["crosscheck", "-q", str(m), *_inputs(i)]),
    Step(
        "rewrite",
        300,
        lambda m, t, i: ["rewrite", "-q", str(m), str(t / "rewritten.onnx"), "--budget", str(VALIDATION_BUDGET),
                         *_inputs(i)],
    ),
    Step("equiv", 300, lambda m, _t, i: ["equiv", "-q", str(m), str(m), "--budget", str(VALIDATION_BUDGET),
                                         *_inputs(i)]),
    Step(
        "partition-fused",
        300,
        lambda m, t, i: ["partition", "-q", str(m), "--provider", "ACC=Conv,MatMul,Gemm,Add", "--fused",
                         str(t / "fused.onnx"), "--execute", *_inputs(i)],
    ),
)
"""Every subcommand that reads a model, with its stated budget (docs/budgets.rst)."""

STEP_NAMES = tuple(s.name for s in STEPS)


@dataclass(frozen=True)
class Outcome:
    model: str
    step: str
    verdict: str
    """ok, over budget, or defect."""
    exit_code: int | None
    seconds: float
    budget: float
    detail: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def inputs_for(model: Path) -> Path | None:
    """The corpus's input file for ``model``, if it has one."""
    stem = model.name.removesuffix(".onnx")
    for ext in (".npz", ".json"):
        candidate = CORPUS / "inputs" / f"{stem}{ext}"
        if candidate.is_file():
            return candidate
    return None


def judge(step: Step, code: int | None, stdout: str, stderr: str) -> tuple[str, str]:
    """The verdict of one finished (or killed, ``code`` None) process, with a short reason."""
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if code is None:
        return "over budget", f"killed at {step.budget:g} s"
    if code not in (0, 1, 2):
        return "defect", f"exit code {code}: {last}"
    if "internal error" in stderr:
        return "defect", last
    if "unrecognized arguments" in stderr or "usage:" in stderr:
        return "defect", f"the campaign's command line is wrong: {last}"
    if code == 2 and not stdout.strip() and not last.startswith("sonnx"):
        return "defect", f"exit 2 without a one-line error: {last or '(nothing on stderr)'}"
    if step.reports and not stdout.strip():
        return "defect", f"no report printed (exit {code}): {last}"
    return "ok", last if code == 2 else ""


def run_step(step: Step, model: Path, scratch: Path) -> Outcome:
    argv = [sys.executable, "-m", "sonnx", *step.argv(model, scratch, inputs_for(model))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=step.budget, env=env, cwd=ROOT)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = None, str(exc.stdout or ""), str(exc.stderr or "")
    seconds = time.perf_counter() - start
    verdict, detail = judge(step, code, out, err)
    return Outcome(model.name, step.name, verdict, code, round(seconds, 2), step.budget, detail)


def campaign(
    models: Sequence[Path], steps: Sequence[Step], progress: Say = quiet
) -> list[Outcome]:
    """Every step on every model, in order (the evidence step before its verify)."""
    out: list[Outcome] = []
    for model in models:
        with tempfile.TemporaryDirectory(prefix="sonnx-budget-") as tmp:
            for step in steps:
                outcome = run_step(step, model, Path(tmp))
                progress(f"{model.name} {step.name}: {outcome.verdict} ({outcome.seconds:.1f} s, exit "
                         f"{outcome.exit_code})")
                out.append(outcome)
    return out


def table(outcomes: Sequence[Outcome]) -> str:
    """Per step: models run, the slowest, its time against the budget, and the failures."""
    lines = ["| step | models | slowest (s) | budget (s) | over budget | defects |", "|---|---|---|---|---|---|"]
    for name in STEP_NAMES:
        rows = [o for o in outcomes if o.step == name]
        if not rows:
            continue
        slow = max(rows, key=lambda o: o.seconds)
        over = sum(o.verdict == "over budget" for o in rows)
        bad = sum(o.verdict == "defect" for o in rows)
        lines.append(f"| {name} | {len(rows)} | {slow.seconds:.1f} ({slow.model}) | {slow.budget:g} | {over} | {bad} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated model file names (default: the whole corpus)")
    ap.add_argument("--steps", default="", help=f"comma-separated steps (default all: {', '.join(STEP_NAMES)})")
    ap.add_argument("--out", default=None, help="write every outcome here as JSON")
    args = ap.parse_args(argv)
    models = sorted(CORPUS.glob("*.onnx"))
    if args.only:
        wanted = {n.strip() for n in args.only.split(",") if n.strip()}
        missing = sorted(wanted - {m.name for m in models})
        if missing:
            ap.error(f"not in the corpus: {', '.join(missing)}")
        models = [m for m in models if m.name in wanted]
    names = [n.strip() for n in args.steps.split(",") if n.strip()] or list(STEP_NAMES)
    unknown = sorted(set(names) - set(STEP_NAMES))
    if unknown:
        ap.error(f"unknown step(s) {', '.join(unknown)}; known: {', '.join(STEP_NAMES)}")
    steps = [s for s in STEPS if s.name in names]
    outcomes = campaign(models, steps, lambda m: print(m, file=sys.stderr, flush=True))
    print(table(outcomes))
    failures = [o for o in outcomes if o.verdict != "ok"]
    for o in failures:
        print(f"{o.verdict}: {o.model} {o.step}: {o.detail}")
    if args.out:
        Path(args.out).write_text(json.dumps([o.to_json() for o in outcomes], indent=1) + "\n", encoding="utf-8")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
