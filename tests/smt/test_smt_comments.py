"""What the exported SMT-LIB files say is what was reviewed, and their numerals are those of their logic.

The comments and meanings of every obligation the examples produce are kept
in ``tests/data/smt_comments.txt`` (:mod:`tools.smt_comments`): a reading,
a raw-fact legend or a refutation rule garbled in the code would otherwise
reach the evidence bundles unseen, since no verdict depends on it.
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from pathlib import Path

import pytest

from sonnx.loader import load_model
from sonnx.smt.smtlib import Obligation
from sonnx.smt.solver import COMMANDS
from tests.common.smtkit import EXAMPLES
from tools import smt_comments

DECIMAL = re.compile(r"(?<![\w.])[0-9]+\.[0-9]*(?![\w.])")
"""A decimal numeral: a Real literal, which the integer logics forbid."""

INTEGER_LOGICS = ("QF_IDL", "QF_LIA", "QF_UFLIA", "QF_UF")
"""The logics of every obligation except GRAPH-R2's, whose constant facts are floating-point terms (logic ALL)."""


@cache
def _runs(path: Path) -> list[list[Obligation]]:
    """The obligations of each run :func:`tools.smt_comments.runs` makes of the example (solved once here)."""
    return smt_comments.runs(load_model(path))


def _obligations(path: Path) -> list[Obligation]:
    return [ob for run in _runs(path) for ob in run]


def test_the_comments_of_the_exported_obligations_are_the_reviewed_ones() -> None:
    now = smt_comments.listing()
    kept = smt_comments.LISTING.read_text(encoding="utf-8")
    diff = "\n".join(difflib.unified_diff(kept.splitlines(), now.splitlines(), "kept", "now", lineterm="", n=1))
    assert now == kept, f"the exported comments changed; review, then run make smt-comments:\n{diff[:4000]}"


def test_the_listing_covers_every_rule_of_the_engine() -> None:
    from sonnx.smt.engine import RULE_IDS

    kept = smt_comments.LISTING.read_text(encoding="utf-8")
    rules = {line.split()[1] for line in kept.splitlines() if line.startswith("== ")}
    assert rules == set(RULE_IDS)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_command_starts_a_line(path: Path) -> None:
    """What :func:`sonnx.smt.solver.load_script` relies on to refuse a command z3 would skip: each command
    starts a line, one per line, and a command written over several lines continues on indented lines."""
    for ob in _obligations(path):
        depth = 0
        for n, line in enumerate(ob.script().splitlines(), 1):
            if line.startswith(";"):
                assert depth == 0, (ob.name, n, line)
                continue
            assert (depth == 0) == line.startswith("(") and (depth > 0) == line[:1].isspace(), (ob.name, n, line)
            starts = 0
            for ch in line:
                if ch == "(":
                    starts += depth == 0
                    depth += 1
                elif ch == ")":
                    depth -= 1
            assert starts <= 1 and depth >= 0, (ob.name, n, line)
            assert line[1:].split(maxsplit=1)[0].rstrip(")") in COMMANDS or depth > 0 or starts == 0, (ob.name, n)
        assert depth == 0, ob.name


PARTED = re.compile(r"^(?P<base>.+)\.part(?P<k>[0-9]+)$")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_parts_of_an_obligation_are_numbered_one_to_n(path: Path) -> None:
    """An obligation checked in parts: ``<name>.part<k>`` for k = 0 .. n-1 (n at least 2), each meaning
    "part k+1 of n" (the numbers the listing above writes as ``#``); and no two obligations of a run share a
    name."""
    for run in _runs(path):  # names are file names in an export: one obligation each
        names = [ob.name for ob in run]
        assert len(names) == len(set(names)), sorted(names)
    groups: dict[str, list[tuple[int, str]]] = {}
    for ob in _obligations(path):
        hit = PARTED.match(ob.name)
        if hit:
            groups.setdefault(f"{ob.mode} {hit['base']}", []).append((int(hit["k"]), ob.meaning))
    for base, parts in groups.items():
        n = len(parts)
        assert n >= 2 and [k for k, _ in parts] == list(range(n)), (base, parts)  # one part is not "parts"
        for k, meaning in parts:
            assert f"part {k + 1} of {n}" in meaning, (base, meaning)


@pytest.mark.rule("GRAPH-C1", "GRAPH-DETERMINISM")
def test_some_example_is_checked_in_parts_by_every_parted_obligation() -> None:
    """The test above reaches each way of cutting an obligation: certificates (the shared cutter and
    GRAPH-C1's sorted chains), counter-certificates, and GRAPH-DETERMINISM's components."""
    names = {PARTED.sub(r"\g<base>", ob.name) for p in EXAMPLES for ob in _obligations(p)
             if PARTED.match(ob.name)}
    assert {"c1.distinct", "graph_acyclic.certificate", "r1.dead"} <= names, sorted(names)
    assert any(n.startswith("determinism.") for n in names), sorted(names)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_numeral_is_an_integer(path: Path) -> None:
    """In both modes, and with certificates checked in parts."""
    for ob in _obligations(path):
        if ob.rule_id == "GRAPH-R2":
            continue
        assert ob.logic in INTEGER_LOGICS, (ob.name, ob.logic)
        body = "\n".join(line for line in ob.script().splitlines() if not line.startswith(";"))
        bad = DECIMAL.findall(body)
        assert not bad, (ob.name, bad[:5])
