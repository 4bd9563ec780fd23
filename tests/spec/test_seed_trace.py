"""The trace between the seed texts and the spec holds in both directions (spec section 8, ``tools/seed_trace.py``).

The first test checks the real trace against the real seeds (``../shared/seeds``
beside the clone, which CI always has). The others plant each kind of defect
in a small synthetic seed, spec and trace, and show the checker reports it.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from tools import seed_trace

_MISSING = not seed_trace.SEEDS.is_dir()


@pytest.mark.xfail(
    condition=_MISSING and os.environ.get("CI") != "true",
    reason="the seed texts (../shared/seeds) are not beside this clone; CI always has them",
    raises=seed_trace.SeedsMissing,
    strict=True,
)
def test_the_trace_of_the_seeds_holds_in_both_directions() -> None:
    lines = seed_trace.seed_lines()
    assert len(lines) >= 90  # seeds 000 and 001 have 92 statement lines
    assert seed_trace.problems(seed_trace.load(), lines) == []


SPEC = """\
.. _spec-one:

1. One
======

.. _spec-two:

2. Two
======

.. _GRAPH-C1:

GRAPH-C1 — single assignment (error)

A1. A reading
   Text.
"""

SEED_000 = "# Title\n\n- A tensor is written by one operation only.\n<p>\n```\ncode line\n```\n- Editorial remark.\n"
SEED_001 = "| a | b |\n|---|---|\n- Operations fire when their inputs have values.\n"


def _world(tmp_path: Path) -> tuple[list[seed_trace.SeedLine], Path, dict[str, list[dict[str, Any]]]]:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "000_x.txt").write_text(SEED_000, encoding="utf-8")
    (seeds / "001_y.txt").write_text(SEED_001, encoding="utf-8")
    spec = tmp_path / "graph.rst"
    spec.write_text(SPEC, encoding="utf-8")
    lines = seed_trace.seed_lines(seeds)
    by = {(s.seed, s.line): s.digest for s in lines}
    trace: dict[str, list[dict[str, Any]]] = {
        "statement": [
            {
                "seed": "000",
                "line": 3,
                "digest": by[("000", 3)],
                "says": "One writer per tensor.",
                "spec": ["GRAPH-C1"],
            },
            {"seed": "000", "line": 8, "digest": by[("000", 8)], "says": "A remark.", "not_adopted": "Editorial."},
            {"seed": "001", "line": 1, "digest": by[("001", 1)], "says": "A header row.", "not_adopted": "A header."},
            {
                "seed": "001",
                "line": 3,
                "digest": by[("001", 3)],
                "says": "Firing waits for inputs.",
                "spec": ["spec-one", "A1"],
            },
        ],
        "origin": [{"target": "spec-two", "source": "sonnx's own."}],
    }
    return lines, spec, trace


def test_the_synthetic_world_is_clean(tmp_path: Path) -> None:
    lines, spec, trace = _world(tmp_path)
    assert [(s.seed, s.line) for s in lines] == [("000", 3), ("000", 8), ("001", 1), ("001", 3)]
    assert seed_trace.problems(trace, lines, spec) == []


def _planted(tmp_path: Path, plant: str) -> list[str]:
    lines, spec, trace = _world(tmp_path)
    t = copy.deepcopy(trace)
    first = t["statement"][0]
    if plant == "untraced line":
        del t["statement"][0]
    elif plant == "changed seed":
        first["digest"] = "000000000000"
    elif plant == "wrong line":
        first["line"] = 2
    elif plant == "unknown target":
        first["spec"] = ["GRAPH-C9"]
    elif plant == "both kinds":
        first["not_adopted"] = "No."
    elif plant == "neither kind":
        del first["spec"]
    elif plant == "copied paraphrase":
        first["says"] = "Here: a tensor is written by one operation only, they say."
    elif plant == "unreached section":
        t["origin"] = []
    elif plant == "origin of a reached target":
        t["origin"].append({"target": "GRAPH-C1", "source": "x"})
    elif plant == "traced twice":
        t["statement"].append(dict(first))
    return seed_trace.problems(t, lines, spec)


@pytest.mark.parametrize(
    ("plant", "expected"),
    [
        ("untraced line", "seed 000 line 3: not traced"),
        ("changed seed", "the seed changed"),
        ("wrong line", "not a statement line"),
        ("unknown target", "no such spec label or reading: GRAPH-C9"),
        ("both kinds", "not both"),
        ("neither kind", "not both"),
        ("copied paraphrase", "repeats 8 or more words"),
        ("unreached section", "spec-two: reached by no seed statement and has no origin"),
        ("origin of a reached target", "a seed statement already reaches it"),
        ("traced twice", "traced twice"),
    ],
)
def test_a_planted_defect_of_the_trace_is_reported(tmp_path: Path, plant: str, expected: str) -> None:
    found = _planted(tmp_path, plant)
    assert any(expected in p for p in found), found


def test_the_rendered_tables_name_every_statement_and_origin() -> None:
    trace = seed_trace.load()
    text = seed_trace.render(trace)
    assert text.count("   * - 000:") + text.count("   * - 001:") == len(trace["statement"])
    assert all(f":ref:`{o['target']}`" in text for o in trace["origin"])
