"""Tamper campaign: every hash-consistent edit of real evidence bundles against ``sonnx evidence verify``.

The clean bundles (:mod:`tests.fuzz.evidence_bundles`) are written by the
real ``sonnx-check --evidence`` into a temporary folder; each must verify
(exit 0) before any of its mutants is judged. The mutants
(:mod:`tests.fuzz.evidence_mutations`) are edits a forger holding a bundle
can make, each followed by a rehash of the manifest. A JSON edit of a file
whose bytes an earlier bundle already holds at the same place (the packaged
traceability matrix, identical obligations) is made once, in the first such
bundle.

Oracle, per mutant, with :func:`sonnx.checking.replay.verify_bundle` in a forked
child under a memory limit and a wall-clock limit:

* a mutant whose files equal the clean bundle's is a **no-op**: skipped and
  counted;
* an edit of a generated file, of a file's name or of the manifest must give
  an exit code other than 0 (**refused**); exit 0 is a **survivor**;
* an edit of the bytes of the model, its external data or the inputs file
  changes the subject itself: it passes when verify refuses it, or when the
  mutant is, file for file (manifest included), the bundle ``sonnx-check
  --evidence`` writes for the changed subject with the same options
  (**genuine**); otherwise it is a survivor;
* a child that passes the time limit (**hang**) or ends without an answer
  (**crash**: an exception other than a ``SonnxError``, a signal) is a
  failure of verify too;
* a same-type edit of the creation date of a bundle whose spec takes the date
  on trust, accepted, is **trusted**: listed apart, not a survivor.

    python -m tests.fuzz.evidence_campaign --seed S --mutants N --jobs J --out FILE.json   # make fuzz-evidence

``--mutants N`` takes the first N of the full list in the seeded order (0:
all); the exit status is 1 when a survivor, hang or crash exists.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sonnx.base.progress import Say, quiet
from tests.fuzz import evidence_bundles as eb
from tests.fuzz.evidence_json import dump
from tests.fuzz.evidence_mutations import MANIFEST, Mutation, apply, file_class, mutations, seeded_order
from tests.fuzz.forked import forked

TIME_LIMIT = 120.0
"""Wall-clock seconds one verification (or one genuine rebuild) may take before it counts as a hang."""
FAILURES = ("survivor", "hang", "crash")
LISTED = 100
"""Failures printed at the end; the JSON summary lists every one."""


@dataclass
class State:
    """What every worker needs, set before the workers are forked."""

    work: Path
    clean: dict[str, dict[str, bytes]]
    time_limit: float = TIME_LIMIT


_STATE: State | None = None


def all_mutations(clean: dict[str, dict[str, bytes]], seed: int) -> list[Mutation]:
    """Every mutation of the clean bundles (a JSON edit of bytes seen in an earlier bundle made once)."""
    seen: set[tuple[str, str]] = set()
    out: list[Mutation] = []
    for name, files in clean.items():
        for m in mutations(name, files, seed):
            key = (m.file, hashlib.sha256(files[m.file]).hexdigest())
            if m.kind.startswith("json-") and key in seen:
                continue
            out.append(m)
        seen.update((rel, hashlib.sha256(data).hexdigest()) for rel, data in files.items())
    return out


def _verify_options(bundle: str) -> dict[str, Any]:
    from sonnx.checking.replay import verify_bundle

    trust = eb.BY_NAME[bundle].trust
    if trust and "trust" in inspect.signature(verify_bundle).parameters:
        return {"trust": frozenset(trust)}
    return {}


def run_verify(directory: Path, bundle: str) -> dict[str, Any]:
    """``verify_bundle`` on ``directory``: its exit code and first difference (or note, or refusal)."""
    from sonnx.base.errors import SonnxError
    from sonnx.checking.replay import verify_bundle

    try:
        v = verify_bundle(str(directory), **_verify_options(bundle))
    except SonnxError as exc:
        return {"exit_code": exc.exit_code, "first": exc.one_line()[:300]}
    lines = v.differences or v.notes or [""]
    return {"exit_code": v.exit_code, "first": lines[0][:300]}


def trusted(m: Mutation) -> bool:
    """Whether ``m`` edits only a claim the bundle's reviewer takes on trust (the creation date)."""
    spec = eb.BY_NAME[m.bundle]
    return "date" in spec.trust and m.file == MANIFEST and m.path == ("created",) and m.kind == "json-value"


def _with_created(genuine: bytes, mutant: bytes) -> bytes:
    """The genuine manifest with the mutant's creation date (a second run cannot have the same date)."""
    doc, theirs = json.loads(genuine), json.loads(mutant)
    if isinstance(theirs, dict) and "created" in theirs:
        doc["created"] = theirs["created"]
    return dump(doc)


def _genuine_differs(m: Mutation, mutant: dict[str, bytes], work: Path, state: State) -> str:
    """Why the mutant is not the bundle sonnx-check writes for the changed subject ("" when it is)."""
    spec = eb.BY_NAME[m.bundle]
    source = state.work / "sources" / m.bundle
    name = eb.source_name(m.file)
    assert name is not None
    changed = {name: mutant[m.file]}

    def rebuild() -> dict[str, Any]:
        eb.genuine_bundle(spec, source, changed, work)
        return {"written": True}

    got = forked(rebuild, state.time_limit)
    if "written" not in got:
        return f"the genuine bundle of the changed subject could not be written: {got}"
    genuine = eb.files_of(work / "genuine")
    if not spec.rebuildable and MANIFEST in genuine and MANIFEST in mutant:
        genuine[MANIFEST] = _with_created(genuine[MANIFEST], mutant[MANIFEST])
    differ = sorted(rel for rel in set(genuine) | set(mutant) if genuine.get(rel) != mutant.get(rel))
    return f"verify accepted it, and it differs from the genuine bundle in {', '.join(differ)}" if differ else ""


def examine(job: tuple[int, Mutation]) -> dict[str, Any]:
    """Make mutant ``job`` and judge verify's answer (see the module docstring)."""
    index, m = job
    state = _STATE
    assert state is not None
    clean = state.clean[m.bundle]
    mutant, what = apply(m, clean)
    rec: dict[str, Any] = {"index": index, "bundle": m.bundle, "id": m.id, "kind": m.kind,
                           "file": file_class(m.file), "description": what}
    if mutant == clean:
        return rec | {"outcome": "noop", "seconds": 0.0}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sonnx-tamper-", dir=state.work) as tmp:
        directory = eb.materialize(mutant, Path(tmp) / "bundle")
        got = forked(lambda: run_verify(directory, m.bundle), state.time_limit)
        if "hang" in got or "crash" in got:
            outcome = "hang" if "hang" in got else "crash"
            rec |= {"outcome": outcome, "exit_code": None, "first": got.get("hang") or got.get("crash")}
        else:
            rec |= {"exit_code": got["exit_code"], "first": got["first"]}
            if got["exit_code"] != 0:
                rec["outcome"] = "refused"
            elif m.subject:
                why = _genuine_differs(m, mutant, Path(tmp), state)
                rec["outcome"], rec["reason"] = ("survivor", why) if why else ("genuine", "")
            elif trusted(m):
                rec["outcome"] = "trusted"
            else:
                rec["outcome"], rec["reason"] = "survivor", "verify accepted a bundle whose claims were edited"
    rec["seconds"] = round(time.monotonic() - began, 2)
    return rec


@dataclass
class Summary:
    records: list[dict[str, Any]] = field(default_factory=list)
    baseline: dict[str, dict[str, Any]] = field(default_factory=dict)

    def outcomes(self, key: str) -> dict[str, dict[str, int]]:
        table: dict[str, Counter[str]] = {}
        for r in self.records:
            table.setdefault(r[key], Counter())[r["outcome"]] += 1
        return {k: dict(sorted(c.items())) for k, c in sorted(table.items())}

    def failures(self) -> list[dict[str, Any]]:
        bad = [r for r in self.records if r["outcome"] in FAILURES]
        return sorted(bad, key=lambda r: int(r["index"]))

    def unusable(self) -> list[str]:
        """Clean bundles that do not verify: their mutants cannot be judged."""
        return [name for name, got in self.baseline.items() if got.get("exit_code") != 0]

    def line(self) -> str:
        c = Counter(r["outcome"] for r in self.records)
        parts = ", ".join(f"{n} {k}" for k, n in sorted(c.items()))
        return f"{len(self.records)} mutants: {parts}"

    def to_json(self) -> dict[str, Any]:
        return {
            "mutants": len(self.records),
            "outcomes": dict(sorted(Counter(r["outcome"] for r in self.records).items())),
            "per_kind": self.outcomes("kind"),
            "per_file": self.outcomes("file"),
            "per_bundle": self.outcomes("bundle"),
            "baseline": self.baseline,
            "unusable_clean_bundles": self.unusable(),
            "survivors": sum(r["outcome"] == "survivor" for r in self.records),
        "failures": self.failures(),
            "records": sorted(self.records, key=lambda r: int(r["index"])),
        }


def campaign(seed: int, count: int, jobs: int = 1, bundles: Sequence[str] | None = None,
             say: Say = quiet, every: int = 25, time_limit: float = TIME_LIMIT,
             ) -> Summary:
    """The first ``count`` mutants (0: all) of campaign ``seed`` on the named clean bundles (all by default)."""
    global _STATE
    with tempfile.TemporaryDirectory(prefix="sonnx-tamper-") as tmp:
        work = Path(tmp)
        say("writing the clean bundles with sonnx-check --evidence")
        clean = eb.clean_bundles(work, None if bundles is None else tuple(bundles))
        summary = Summary()
        for name in clean:
            summary.baseline[name] = run_verify(work / "clean" / name, name)  # warms this process too
        if summary.unusable():
            say(f"clean bundles that do not verify: {', '.join(summary.unusable())}")
            return summary
        ordered = seeded_order(all_mutations(clean, seed), seed)
        chosen = ordered[:count] if count else ordered
        say(f"{len(chosen)} of {len(ordered)} mutants of {len(clean)} bundle(s), seed {seed}")
        _STATE = State(work, clean, time_limit)
        jobs_list = list(enumerate(chosen))
        began = time.monotonic()

        def take(rec: dict[str, Any]) -> None:
            summary.records.append(rec)
            if len(summary.records) % every == 0:
                say(f"{summary.line()} ({time.monotonic() - began:.0f} s)")

        try:
            if jobs <= 1:
                for job in jobs_list:
                    take(examine(job))
            else:
                import multiprocessing

                with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=100) as pool:
                    for rec in pool.imap_unordered(examine, jobs_list, chunksize=1):
                        take(rec)
        finally:
            _STATE = None
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mutants", type=int, default=0, help="the first N mutants in the seeded order (0: all)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--bundles", help=f"comma-separated clean bundles (default all: {','.join(eb.BY_NAME)})")
    ap.add_argument("--time-limit", type=float, default=TIME_LIMIT, help="seconds per verification")
    ap.add_argument("--out", default="fuzz-evidence.json", help="the JSON summary and every mutant's record")
    args = ap.parse_args(argv)
    names = None if args.bundles is None else tuple(n for n in args.bundles.split(",") if n)
    if args.mutants < 0 or args.jobs < 1 or args.time_limit <= 0:
        ap.error("--mutants must be at least 0, --jobs at least 1, --time-limit positive")
    if names is not None and (not names or set(names) - set(eb.BY_NAME)):
        ap.error(f"--bundles: choose among {', '.join(eb.BY_NAME)}")
    began = time.time()

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    summary = campaign(args.seed, args.mutants, args.jobs, names, say, time_limit=args.time_limit)
    elapsed = time.time() - began
    head = f"seed {args.seed}: {summary.line()} in {elapsed:.0f} s with {args.jobs} job(s)"
    doc = {"command": " ".join(["python -m tests.fuzz.evidence_campaign", *(argv or sys.argv[1:])]),
           "summary": head, "seed": args.seed, "elapsed_s": round(elapsed), **summary.to_json()}
    Path(args.out).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(head)
    for kind, counts in summary.outcomes("kind").items():
        print(f"  {kind}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    failures = summary.failures()
    for r in failures[:LISTED]:
        print(f"{r['outcome']}: {r['id']}: {r['description']} (exit {r['exit_code']}; {r.get('first', '')})")
    if len(failures) > LISTED:
        print(f"... and {len(failures) - LISTED} more failures, every one listed in {args.out}")
    if summary.unusable():
        print(f"clean bundles that do not verify (their mutants were not judged): {', '.join(summary.unusable())}")
    return 1 if summary.failures() or summary.unusable() else 0


if __name__ == "__main__":
    sys.exit(main())
