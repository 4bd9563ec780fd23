"""Soundness campaign: every PROVED of GRAPH-R2 or GRAPH-DETERMINISM must hold for what the runtimes execute.

For each model of :mod:`tests.fuzz.soundness_models`, sonnx checks it with
the sonnx profile (the direct engine; the SMT engine too on every
``--smt-every``-th model). When either engine proves GRAPH-R2 or
GRAPH-DETERMINISM, the model runs on fixed inputs in onnxruntime (several
fresh sessions, each with its own global seed, each run twice) and in onnx's
reference evaluator (several fresh evaluators, NumPy's global seed changed
between them). Any difference between two runs of one runtime (bit for bit,
NaN equal to NaN, shapes and types included) is a **wrong PROVED**: the model
and a JSON note are saved under ``--save``. A runtime that cannot load or run
the model is a *refusal*, counted and listed apart (never taken for
agreement). Where both runtimes ran, a difference between them beyond
rounding is listed as *runtimes disagree*: a lead, not a wrong PROVED, since
two implementations may round differently.

The check and each runtime run in forked children under memory, CPU and
wall-clock limits, so a runtime that crashes (an integer division by zero, a
segmentation fault) is a refusal of that runtime and the campaign goes on.

    python -m tests.fuzz.soundness --models 10000 --seed 1 [--start K] [--jobs N] --save fuzz-soundness
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from sonnx.base.progress import Say, quiet
from tests.fuzz.forked import forked as run_forked
from tests.fuzz.soundness_build import build, feeds
from tests.fuzz.soundness_models import Spec, product, spec

RULES = ("GRAPH-R2", "GRAPH-DETERMINISM")
SESSIONS = 3
"""Fresh onnxruntime sessions per model, each run twice."""
EVALUATIONS = 3
"""Fresh reference evaluators per model."""
MEMORY = 3 << 30
CPU_SECONDS = 60
WALL_SECONDS = 300.0
RTOL, ATOL = 1e-5, 1e-6
"""How close the two runtimes' outputs must be to count as agreeing (a lead only; runs of one runtime are exact)."""


def forked(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``work()`` in a forked child under the limits; its dict, or ``{"crash": why}`` when the child did not report."""
    return run_forked(work, WALL_SECONDS, memory=MEMORY, cpu_seconds=CPU_SECONDS, timeout="crash")


def _check(path: str, engines: Sequence[str]) -> dict[str, Any]:
    from sonnx.api import check

    out: dict[str, Any] = {}
    for engine in engines:
        report = check(path, profile="sonnx", engine=engine)
        if report.error is not None:
            out[engine] = {rule: "ERROR" for rule in RULES} | {"error": str(report.error)[:300]}
            continue
        found = {rule: report.verdict(rule) for rule in RULES}
        out[engine] = {rule: (v.status.value if v is not None else "ABSENT") for rule, v in found.items()}
    return out


def _arrays(values: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in values]


def _ort_runs(data: bytes, inputs: dict[str, np.ndarray]) -> list[list[np.ndarray]]:
    import onnxruntime as ort

    runs = []
    for s in range(SESSIONS):
        ort.set_seed(1000 + s)
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 4
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        for _ in range(2):
            runs.append(_arrays(session.run(None, inputs)))
    return runs


def _reference_runs(data: bytes, inputs: dict[str, np.ndarray]) -> list[list[np.ndarray]]:
    from onnx.reference import ReferenceEvaluator

    runs = []
    with warnings.catch_warnings():  # NumPy warns on casts out of range, which some models make on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        for s in range(EVALUATIONS):
            np.random.seed(2000 + s)  # a generator without a seed attribute draws from a fresh unseeded RandomState
            runs.append(_arrays(ReferenceEvaluator(onnx.load_from_string(data)).run(None, inputs)))
    return runs


def differing(a: np.ndarray, b: np.ndarray) -> int:
    """Elements of ``b`` that differ from ``a`` bit for bit (NaN equals NaN); all of them when shape or type differ."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return max(a.size, b.size, 1)
    if a.dtype.kind in "fc":
        same = (a == b) | (np.isnan(a) & np.isnan(b))
    elif a.dtype.kind in "biu":
        same = a == b
    else:
        same = a.astype(np.uint8).view(np.uint8) == b.astype(np.uint8).view(np.uint8)
    return int(np.count_nonzero(~same))


def _spread(runs: list[list[np.ndarray]]) -> int:
    """How many output elements of some run differ from the first run's."""
    first = runs[0]
    return max((sum(differing(a, b) for a, b in zip(first, r, strict=True)) for r in runs[1:]), default=0)


def _runtime(name: str, data: bytes, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    def work() -> dict[str, Any]:
        try:
            runs = _ort_runs(data, inputs) if name == "onnxruntime" else _reference_runs(data, inputs)
        except Exception as exc:
            text = str(exc).strip()
            return {"refused": f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:300]}
        first = runs[0]
        return {"runs": len(runs), "differ": _spread(runs),
                "first": [{"dtype": str(a.dtype), "shape": list(a.shape), "bytes": a.tobytes().hex()} for a in first]}

    got = forked(work)
    if "crash" in got:
        return {"refused": f"crashed: {got['crash']}"}
    return got


def _decode(first: list[dict[str, Any]]) -> list[np.ndarray]:
    return [np.frombuffer(bytes.fromhex(a["bytes"]), np.dtype(a["dtype"])).reshape(a["shape"]) for a in first]


def disagreement(a: list[np.ndarray], b: list[np.ndarray]) -> str:
    """How two runtimes' outputs differ: ``shapes``, ``values`` (beyond rounding), or "" when they agree."""
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b, strict=True)):
        return "shapes"
    for x, y in zip(a, b, strict=True):
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            if not np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True):
                return "values"
        elif differing(x, y.astype(x.dtype, copy=False) if x.dtype != y.dtype else y):
            return "values"
    return ""


def examine(sp: Spec, engines: Sequence[str]) -> dict[str, Any]:
    """Check model ``sp``; when a rule is PROVED, run both runtimes and compare their runs."""
    model = build(sp)
    data = model.SerializeToString()
    note: dict[str, Any] = {"label": sp.label(), "spec": {**sp.__dict__, "place": list(sp.place)}}
    with tempfile.TemporaryDirectory(prefix="sonnx-sound-") as work:
        path = os.path.join(work, "model.onnx")
        Path(path).write_bytes(data)
        verdicts = forked(lambda: _check(path, engines))
    note["verdicts"] = verdicts
    if "crash" in verdicts:
        return note
    note["proved"] = sorted({f"{e}:{r}" for e, vs in verdicts.items() for r in RULES if vs.get(r) == "PROVED"})
    if not note["proved"]:
        return note
    inputs = feeds(sp)
    results = {name: _runtime(name, data, inputs) for name in ("onnxruntime", "reference")}
    note["runtimes"] = {n: {k: v for k, v in r.items() if k != "first"} for n, r in results.items()}
    note["wrong"] = sorted(n for n, r in results.items() if r.get("differ", 0) > 0)
    ok = [r for r in results.values() if "first" in r]
    if len(ok) == 2 and (how := disagreement(_decode(ok[0]["first"]), _decode(ok[1]["first"]))):
        note["runtimes_disagree"] = how
    return note


@dataclass
class Campaign:
    models: int = 0
    runs: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    proved: int = 0
    wrong: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, str]] = field(default_factory=list)
    disagree: list[dict[str, str]] = field(default_factory=list)
    check_crashes: list[dict[str, str]] = field(default_factory=list)
    sources: Counter[str] = field(default_factory=Counter)
    places: Counter[str] = field(default_factory=Counter)

    def record(self, note: dict[str, Any], save: Path | None) -> None:
        """Count one model's note; save its file and note when it is a wrong PROVED or the runtimes disagree."""
        self.models += 1
        sp = note["spec"]
        self.sources[sp["source"]] += 1
        self.places["+".join(sp["place"]) or "main"] += 1
        verdicts = note["verdicts"]
        if "crash" in verdicts:
            self.check_crashes.append({"label": note["label"], "why": str(verdicts["crash"])})
            return
        for engine, vs in verdicts.items():
            for rule in RULES:
                self.verdicts[f"{engine} {rule} {vs[rule]}"] += 1
        if not note.get("proved"):
            return
        self.proved += 1
        for name, r in note["runtimes"].items():
            self.runs += int(r.get("runs", 0))
            if "refused" in r:
                self.refusals.append({"label": note["label"], "runtime": name, "why": str(r["refused"])})
        folder = "wrong-proved" if note["wrong"] else "runtimes-disagree" if note.get("runtimes_disagree") else ""
        if note["wrong"]:
            self.wrong.append(note)
        elif folder:
            self.disagree.append({"label": note["label"], "how": str(note["runtimes_disagree"])})
        if folder and save is not None:
            out = save / folder
            out.mkdir(parents=True, exist_ok=True)
            k = int(sp["k"])
            seed = int(note["seed"])
            onnx.save(build(spec(k, seed)), str(out / f"{note['label']}.onnx"))
            (out / f"{note['label']}.json").write_text(json.dumps(note, indent=1, sort_keys=True) + "\n")

    def line(self) -> str:
        return (f"{self.models} models, {self.proved} with a PROVED, {len(self.wrong)} wrong PROVED, "
                f"{len(self.refusals)} runtime refusals, {len(self.disagree)} runtimes disagree, {self.runs} runs")

    def summary(self) -> dict[str, Any]:
        return {
            "models": self.models, "runs": self.runs, "proved": self.proved,
            "verdicts": dict(sorted(self.verdicts.items())),
            "wrong_proved": [{"label": n["label"], "proved": n["proved"], "runtimes": n["runtimes"]}
                             for n in self.wrong],
            "refusals": self.refusals, "runtimes_disagree": self.disagree, "check_crashes": self.check_crashes,
            "sources": dict(sorted(self.sources.items())), "places": dict(sorted(self.places.items())),
        }


def engines_for(k: int, smt_every: int) -> tuple[str, ...]:
    """The direct engine on every model, and the SMT engine too on every ``smt_every``-th (0: never)."""
    return ("direct", "smt") if smt_every and k % smt_every == 0 else ("direct",)


def warm() -> None:
    """Fill sonnx's per-process caches (operator schemas) once, so that forked children inherit them."""
    from sonnx.api import check

    with tempfile.TemporaryDirectory(prefix="sonnx-sound-") as work:
        path = os.path.join(work, "warm.onnx")
        onnx.save(build(spec(0, 0)), path)
        check(path, profile="sonnx", engine="direct")


def _one(job: tuple[int, int, int]) -> dict[str, Any]:
    k, seed, smt_every = job
    note = examine(spec(k, seed, _walk(seed)), engines_for(k, smt_every))
    note["seed"] = seed
    return note


_WALKS: dict[int, list[Any]] = {}


def _walk(seed: int) -> list[Any]:
    if seed not in _WALKS:
        _WALKS[seed] = product(seed)
    return _WALKS[seed]


def campaign(models: int, seed: int, save: Path | None = None, say: Say = quiet,
             start: int = 0, jobs: int = 1, smt_every: int = 10, every: int = 50) -> Campaign:
    """Models ``start`` .. ``start + models - 1`` of campaign ``seed``; model k depends only on (seed, k)."""
    warm()
    _walk(seed)
    c = Campaign()
    jobs_list = [(k, seed, smt_every) for k in range(start, start + models)]

    def take(note: dict[str, Any]) -> None:
        c.record(note, save)
        if c.models % every == 0:
            say(c.line())

    if jobs <= 1:
        for job in jobs_list:
            take(_one(job))
        return c
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=200) as pool:
        for note in pool.imap_unordered(_one, jobs_list, chunksize=1):
            take(note)
    return c


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="number of the first model (default 0)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--smt-every", type=int, default=10, help="check every k-th model with the SMT engine too")
    ap.add_argument("--save", default="fuzz-soundness", help="folder for the saved models and the summary")
    args = ap.parse_args(argv)
    if args.models < 1 or args.start < 0 or args.jobs < 1 or args.smt_every < 0:
        ap.error("--models and --jobs must be at least 1, --start and --smt-every at least 0")
    began = time.time()
    save = Path(args.save)
    c = campaign(args.models, args.seed, save, lambda m: print(m, flush=True), args.start, args.jobs, args.smt_every)
    elapsed = time.time() - began
    last = args.start + args.models - 1
    head = (f"models {args.start}..{last} of seed {args.seed} ({len(_walk(args.seed))} in the product walk): "
            f"{c.line()} in {elapsed:.0f} s with {args.jobs} job(s)")
    save.mkdir(parents=True, exist_ok=True)
    summary = {"command": head, "elapsed_s": round(elapsed), **c.summary()}
    (save / f"summary-{args.seed}-{args.start}-{last}.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(head)
    for n in c.wrong:
        print(f"wrong PROVED: {n['label']} ({', '.join(n['proved'])}; runs differ in {', '.join(n['wrong'])})")
    return 1 if c.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
