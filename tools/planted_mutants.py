"""Replay the hand-planted mutants of ``docs/mutation.rst``: each must make a test fail.

Each mutant is one textual edit of a file under ``src/sonnx/`` (the text must
occur exactly once). For each, the edit is applied, pytest runs on the chosen
tests with ``-x``, and the file is restored whatever happens. A mutant is
*killed* when pytest fails; the first failing test is printed. Usage (from the
repository root, with the development venv)::

    python -m tools.planted_mutants                  # every mutant, tests/smt and tests/rules
    python -m tools.planted_mutants M4 M7            # some of them
    python -m tools.planted_mutants --ignore tests/smt/test_planted_bugs.py   # without some test files

Exit code 1 when a mutant survives. Not run in CI (each survivor costs a full
run of the selected tests); ``make mutate`` is the broad campaign.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent


class Mutant(NamedTuple):
    key: str
    path: str
    old: str
    new: str
    what: str


SMT = "src/sonnx/smt/"
ENCODINGS = SMT + "encodings/"
GUARD = "tests/smt/test_planted_bugs.py::test_every_planted_mutant_still_applies_to_the_code"
"""The test that each mutant's text is in the code: not a test of behaviour."""

MUTANTS: list[Mutant] = [
    Mutant(
        "M1",
        ENCODINGS + "graph_r1_transitive.py",
        "Bool (=> (L t) (C o)))",
        "Bool (=> (and (= k 0) (L t)) (C o)))",
        "search: an operation contributes only through its first output",
    ),
    Mutant(
        "M1c",
        SMT + "certify.py",
        "        new = np.flatnonzero(dist[a] == -1)",
        "        new = np.flatnonzero((dist[a] == -1) & (as_np(f.wr_k)[w] == 0))",
        "certificate: distances follow only first outputs",
    ),
    Mutant(
        "M2",
        ENCODINGS + "graph_determinism.py",
        'if f.parent >= 0 and st != "det" and f.index in holders:',
        'if f.parent >= 0 and st == "nondet" and f.index in holders:',
        "UNKNOWN determinism of a nested graph not propagated to its holder",
    ),
    Mutant(
        "M3",
        ENCODINGS + "graph_determinism.py",
        "outs = list(dict.fromkeys(t for _, t in f.outputs))",
        "outs = list(dict.fromkeys(t for _, t in f.outputs))[:1]",
        "only the first graph output compared between the two runs",
    ),
    Mutant(
        "M4",
        SMT + "classify.py",
        '"(ite (and (= sk 1) (= sv 0)) 2 0)"',
        '"(ite (and (= sk 1) (distinct sv 0)) 2 0)"',
        "TopK's sorted test flipped",
    ),
    Mutant(
        "M5",
        SMT + "constants.py",
        "is_input = any(u == x for _, u in cur.inputs)",
        'is_input = role != "training_mode" and any(u == x for _, u in cur.inputs)',
        "training_mode taken from a graph input counted as a known constant (its initializer's value)",
    ),
    Mutant(
        "M5g",
        SMT + "constants.py",
        "is_input = any(u == x for _, u in cur.inputs)",
        "is_input = False",
        "any constant input taken from a graph input counted as known",
    ),
    Mutant(
        "M6",
        SMT + "classify.py",
        '"(ite (and (= itk 1) (distinct itv 0)) 0 2)"',
        '"(ite (= itk 1) 0 2)"',
        "any is_test value counted as inference",
    ),
    Mutant(
        "M7",
        ENCODINGS + "graph_acyclic.py",
        "kinds += [np.full(len(ix.rd_j), ground.READ, I64)",
        "kinds += [np.full(len(ix.rd_j), ground.WRITE, I64)",
        "rank certificate's read constraint weakened to <=",
    ),
    Mutant(
        "M8",
        SMT + "common.py",
        'if ans.result == "sat":\n        return RuleResult(proved(rule_id, "certificate"), obs)',
        'if True:\n        return RuleResult(proved(rule_id, "certificate"), obs)',
        "any certificate accepted (rank, input-reader, definedness, use and distance certificates alike)",
    ),
    Mutant(
        "M9",
        SMT + "counter.py",
        'if ans.result != "unsat" or not accept:',
        "if not accept:",
        "any counter-certificate accepted (C3 never-defined set, R1 dead list, R1-TRANSITIVE idle list alike)",
    ),
    Mutant(
        "M10",
        ENCODINGS + "graph_r1.py",
        "accept=bool(dead),",
        "accept=True,",
        "an empty list of dead operations accepted as a violation",
    ),
    Mutant(
        "M11",
        ENCODINGS + "graph_r1_transitive.py",
        "accept=bool(idle),",
        "accept=True,",
        "an empty list of non-contributing operations accepted as a violation",
    ),
    Mutant(
        "M12",
        ENCODINGS + "graph_acyclic.py",
        '            if ans.result != "unsat":\n                return RuleResult(rejected(ID, ob, "claimed cycle"',
        '            if False:\n                return RuleResult(rejected(ID, ob, "claimed cycle"',
        "any claimed cycle accepted",
    ),
    Mutant(
        "M13",
        ENCODINGS + "graph_c2.py",
        'items.append(f"(= {t} {f.rd_t[x]})")',
        'items.append("true")',
        "input-reader certificate not checked",
    ),
    Mutant(
        "M14",
        ENCODINGS + "graph_c3.py",
        "kinds += [np.full(len(x), ground.READ, I64)",
        "kinds += [np.full(len(x), ground.WRITE, I64)",
        "firing-time certificate weakened to <=",
    ),
    Mutant(
        "M15",
        ENCODINGS + "graph_r1_transitive.py",
        'distinct_mixed(["(<= {} {})", "(< {} {})"], step, a, b)',
        'distinct_mixed(["(<= {} {})", "(<= {} {})"], step, a, b)',
        "distance certificate weakened to <=",
    ),
    Mutant(
        "M16",
        ENCODINGS + "graph_r1.py",
        "return ground.equalities(written, used)",
        "return ground.equalities(written, written)",
        "use certificate not checked",
    ),
    Mutant(
        "M17",
        SMT + "definitions.py",
        '    if ans.result != "unsat":\n        return RuleResult(rejected(rule_id, ob, "conflicting definitions"',
        '    if False:\n        return RuleResult(rejected(rule_id, ob, "conflicting definitions"',
        "any group of conflicting definitions accepted",
    ),
    Mutant(
        "M18",
        ENCODINGS + "graph_determinism.py",
        '            return "nondet", _path(f, sources, t), ""',
        '            return "nondet", _path(f, sources, f.outputs[0][1]), ""',
        "the witness names the first graph output, not one the solver confirms can differ",
    ),
    Mutant(
        "M19",
        ENCODINGS + "graph_acyclic.py",
        "    for i, r in reversed(steps):",
        "    for i, r in reversed(steps[1:]):",
        "a cycle's closing step left out of the counter-certificate (its facts then admit ranks)",
    ),
    Mutant(
        "M20",
        SMT + "common.py",
        "    for k in range(n):\n        chunk = items",
        "    for k in range(1):\n        chunk = items",
        "only the first part of a large certificate solved",
    ),
]

_FAILED = re.compile(r"^FAILED (\S+)", re.M)


def run_one(m: Mutant, tests: list[str], ignore: list[str]) -> tuple[bool, str]:
    """Apply ``m``, run the tests, restore: (killed, first failing test or pytest's last line)."""
    path = ROOT / m.path
    original = path.read_text(encoding="utf-8")
    if original.count(m.old) != 1:
        raise SystemExit(f"{m.key}: the text to replace occurs {original.count(m.old)} times in {m.path}")
    try:
        path.write_text(original.replace(m.old, m.new), encoding="utf-8")
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-rf", *tests]
        cmd += [f"--ignore={p}" for p in ignore]
        cmd += [f"--deselect={GUARD}"]  # it fails on every applied mutant by design, so it must not count as a kill
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    finally:
        path.write_text(original, encoding="utf-8")
    hit = _FAILED.search(proc.stdout)
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode != 0, hit.group(1) if hit else last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("keys", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--tests", nargs="+", default=["tests/smt", "tests/rules"])
    ap.add_argument("--ignore", nargs="*", default=[], help="test files left out")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.keys or m.key in args.keys]
    survivors = 0
    for m in chosen:
        killed, by = run_one(m, args.tests, args.ignore)
        survivors += not killed
        print(f"{m.key:<4} {'killed ' if killed else 'SURVIVED'} {m.what}: {by}", flush=True)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
