"""The trace between the seed texts and the spec (``spec/seed_trace.toml``): read it, check it, render it.

The spec (``spec/graph.rst``) states the graph semantics of the SONNX profile
in the project's own words, from the seed texts 000 and 001 (``../shared/seeds``
beside the clone). The trace says, for every statement line of those seeds,
which sections and rules of the spec carry it, or why it is not adopted; and,
for every section and rule of the spec that no seed statement reaches, where
it comes from instead. :func:`problems` checks both directions:

* every statement line of a seed has exactly one entry, at its line number,
  with the digest of its text (a changed seed is then a finding, not a stale
  trace), and every entry names such a line;
* every entry is traced to targets that exist (a label of the spec, or a
  reading ``A1``... ``D1``... of its sections 5 and 7), or gives a reason it
  is not adopted, never both;
* every section label ``spec-...`` and every rule of the spec is reached by
  a statement or has exactly one origin, and no origin is given for a target
  a statement reaches;
* no paraphrase repeats eight or more consecutive words of its seed line.

``python -m tools.seed_trace`` prints the problems and exits 1 when there is
one, 2 when the seeds are not found.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "spec" / "seed_trace.toml"
SPEC = ROOT / "spec" / "graph.rst"
SEEDS = ROOT.parent / "shared" / "seeds"
TRACED_SEEDS = ("000", "001")
COPY_WORDS = 8
"""A paraphrase that repeats this many consecutive words of its seed line is a copy."""


class SeedsMissing(Exception):
    """The seed texts are not beside the clone (``../shared/seeds``)."""


@dataclass(frozen=True)
class SeedLine:
    seed: str
    line: int
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]


def seed_lines(seeds: Path = SEEDS) -> list[SeedLine]:
    """The statement lines of seeds 000 and 001: not blank, a heading, HTML, a table rule or code."""
    found: list[SeedLine] = []
    for seed in TRACED_SEEDS:
        files = sorted(seeds.glob(f"{seed}_*.txt"))
        if len(files) != 1:
            raise SeedsMissing(f"expected one file {seeds}/{seed}_*.txt, found {len(files)}")
        fenced = False
        for number, raw in enumerate(files[0].read_text(encoding="utf-8").splitlines(), 1):
            text = raw.strip()
            if text.startswith("```"):
                fenced = not fenced
                continue
            if fenced or not text or text.startswith(("#", "<")) or set(text) <= set("|-: "):
                continue
            found.append(SeedLine(seed, number, text))
    return found


def load(path: Path = TRACE) -> dict[str, list[dict[str, Any]]]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    return {"statement": data.get("statement", []), "origin": data.get("origin", [])}


def spec_targets(spec: Path = SPEC) -> tuple[set[str], set[str]]:
    """Every target a trace may name (labels and reading IDs), and those that must be reached."""
    text = spec.read_text(encoding="utf-8")
    labels = set(re.findall(r"^\.\. _([A-Za-z0-9-]+):\s*$", text, flags=re.M))
    readings = set(re.findall(r"^([AD]\d+)\. ", text, flags=re.M))
    rules = {x for x in labels if re.fullmatch(r"(GRAPH|STRICT|FORMAT)-[A-Z0-9-]+", x)}
    sections = {x for x in labels if x.startswith("spec-") and x != "spec-graph"}
    return labels | readings, rules | sections


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _copies(says: str, original: str) -> bool:
    ours, theirs = _words(says), _words(original)
    runs = {tuple(theirs[i : i + COPY_WORDS]) for i in range(len(theirs) - COPY_WORDS + 1)}
    return any(tuple(ours[i : i + COPY_WORDS]) in runs for i in range(len(ours) - COPY_WORDS + 1))


def problems(trace: dict[str, list[dict[str, Any]]], lines: list[SeedLine], spec: Path = SPEC) -> list[str]:
    """Every way the trace fails to cover the seeds or the spec (empty when it holds in both directions)."""
    known, required = spec_targets(spec)
    found: list[str] = []
    by_place = {(s.seed, s.line): s for s in lines}
    entries: dict[tuple[str, int], dict[str, Any]] = {}
    for e in trace["statement"]:
        place = (str(e.get("seed")), int(e.get("line", 0)))
        where = f"seed {place[0]} line {place[1]}"
        if place in entries:
            found.append(f"{where}: traced twice")
        entries[place] = e
        line = by_place.get(place)
        if line is None:
            found.append(f"{where}: not a statement line of the seed")
        elif e.get("digest") != line.digest:
            found.append(f"{where}: digest {e.get('digest')} but the line's is {line.digest} (the seed changed)")
        elif _copies(str(e.get("says", "")), line.text):
            found.append(f"{where}: the paraphrase repeats {COPY_WORDS} or more words of the seed")
        if not str(e.get("says", "")).strip():
            found.append(f"{where}: no paraphrase")
        targets, reason = e.get("spec", []), str(e.get("not_adopted", "")).strip()
        if bool(targets) == bool(reason):
            found.append(f"{where}: needs either spec targets or a reason it is not adopted, not both")
        found += [f"{where}: no such spec label or reading: {t}" for t in targets if t not in known]
    found += [f"seed {s.seed} line {s.line}: not traced" for s in lines if (s.seed, s.line) not in entries]
    reached = {t for e in trace["statement"] for t in e.get("spec", [])}
    origins: dict[str, int] = {}
    for o in trace["origin"]:
        target = str(o.get("target"))
        origins[target] = origins.get(target, 0) + 1
        if target not in known:
            found.append(f"origin of {target}: no such spec label")
        if target in reached:
            found.append(f"origin of {target}: a seed statement already reaches it")
        if not str(o.get("source", "")).strip():
            found.append(f"origin of {target}: no source")
    found += [f"origin of {t}: given {n} times" for t, n in origins.items() if n > 1]
    found += [f"{t}: reached by no seed statement and has no origin" for t in sorted(required - reached - set(origins))]
    return found


def _cell(text: str) -> str:
    return text.replace("\n", " ").strip()


def _targets(names: list[str]) -> str:
    return ", ".join(f":ref:`{n}`" if not re.fullmatch(r"[AD]\d+", n) else n for n in names)


def render(trace: dict[str, list[dict[str, Any]]]) -> str:
    """The two tables as reStructuredText: seed statement to spec, then spec target to origin."""
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 8 40 30 22", ""]
    out += ["   * - Seed, line", "     - What it states", "     - Where the spec says it", "     - How"]
    for e in trace["statement"]:
        where = _targets(e["spec"]) if e.get("spec") else "not adopted"
        how = e.get("how") or e.get("not_adopted") or ""
        out += [
            f"   * - {e['seed']}:{e['line']}",
            f"     - {_cell(e['says'])}",
            f"     - {where}",
            f"     - {_cell(how)}",
        ]
    out += ["", ".. list-table::", "   :header-rows: 1", "   :widths: 25 75", ""]
    out += ["   * - Spec section or rule", "     - Where it comes from (no seed statement reaches it)"]
    for o in trace["origin"]:
        out += [f"   * - :ref:`{o['target']}`", f"     - {_cell(o['source'])}"]
    return "\n".join(out) + "\n"


def main() -> int:
    try:
        lines = seed_lines()
    except SeedsMissing as exc:
        print(f"seed trace: {exc}", file=sys.stderr)
        return 2
    found = problems(load(), lines)
    for p in found:
        print(p)
    print(f"seed trace: {len(lines)} statement lines, {len(found)} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
