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
