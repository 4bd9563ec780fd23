"""What the exported SMT-LIB files say is what was reviewed, and their numerals are those of their logic.

The comments and meanings of every obligation the examples produce are kept
in ``tests/data/smt_comments.txt`` (:mod:`tools.smt_comments`): a reading,
a raw-fact legend or a refutation rule garbled in the code would otherwise
reach the evidence bundles unseen, since no verdict depends on it.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from sonnx.loader import load_model
from sonnx.smt import run_smt
from tests.common.smtkit import EXAMPLES
from tools import smt_comments

DECIMAL = re.compile(r"(?<![\w.])[0-9]+\.[0-9]*(?![\w.])")
"""A decimal numeral: a Real literal, which the integer logics forbid."""

INTEGER_LOGICS = ("QF_IDL", "QF_LIA", "QF_UFLIA", "QF_UF")
"""The logics of every obligation except GRAPH-R2's, whose constant facts are floating-point terms (logic ALL)."""


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


PARTED = re.compile(r"^(?P<base>.+)\.part(?P<k>[0-9]+)$")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_parts_of_an_obligation_are_numbered_one_to_n(path: Path) -> None:
    """An obligation checked in parts: ``<name>.part<k>`` for k = 0 .. n-1, each meaning "part k+1 of n"
    (the numbers the listing above writes as ``#``)."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for ob in smt_comments.obligations(load_model(path)):
        hit = PARTED.match(ob.name)
        if hit:
            groups.setdefault(f"{ob.mode} {hit['base']}", []).append((int(hit["k"]), ob.meaning))
    for base, parts in groups.items():
        n = len(parts)
        assert [k for k, _ in parts] == list(range(n)), (base, parts)
        for k, meaning in parts:
            assert f"part {k + 1} of {n}" in meaning, (base, meaning)


def test_some_example_is_checked_in_parts_by_every_parted_obligation() -> None:
    """The test above reaches each way of cutting an obligation: certificates (the shared cutter and
    GRAPH-C1's sorted chains), counter-certificates, and GRAPH-DETERMINISM's components."""
    names = {PARTED.sub(r"\g<base>", ob.name) for p in EXAMPLES for ob in smt_comments.obligations(load_model(p))
             if PARTED.match(ob.name)}
    assert {"c1.distinct", "graph_acyclic.certificate", "r1.dead"} <= names, sorted(names)
    assert any(n.startswith("determinism.") for n in names), sorted(names)


@pytest.mark.parametrize("mode", ["search", "certificate"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_numeral_is_an_integer(path: Path, mode: str) -> None:
    for ob in run_smt(load_model(path), mode=mode).obligations:
        if ob.rule_id == "GRAPH-R2":
            continue
        assert ob.logic in INTEGER_LOGICS, (ob.name, ob.logic)
        body = "\n".join(line for line in ob.script().splitlines() if not line.startswith(";"))
        bad = DECIMAL.findall(body)
        assert not bad, (ob.name, bad[:5])
