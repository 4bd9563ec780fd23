"""Every passage of an operator text that leaves a result open is decided by GRAPH-R2's table (GRAPH-R2, A8).

The definition of every schema version of every operator of the domains sonnx
knows (its text and the descriptions of its attributes, inputs and outputs) is
scanned for words that leave a result open: "undefined", "unspecified",
"implementation-defined", "platform dependent", "arbitrary", "may differ"...
Each passage (a sentence, a list item or a table row) that uses one must be
quoted by an entry of the determinism table covering that version: a condition
or ``always`` in ``TABLE`` when the open point can make outputs vary, a
``REVIEWED`` entry when it cannot, or a ``WORDING`` entry (:mod:`sonnx.rules.determinism_review`) when the word leaves
nothing open at all. A new onnx release that adds such a passage makes this
test fail until someone reads it and classifies it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

import onnx.defs
import pytest

from sonnx.rules import determinism_table as table
from sonnx.rules.determinism_review import WORDING
from sonnx.rules.schemas import schema_versions

pytestmark = pytest.mark.rule("GRAPH-R2")

OPEN_WORDS = re.compile(
    r"\b(undefined|unspecified|not (?:well[- ])?defined|implementation[- ](?:defined|dependent|specific)"
    r"|platform[- ](?:dependent|specific)|environment[- ]dependent|arbitrar(?:y|ily)"
    r"|(?:may|might|can) (?:differ|vary)|non-?deterministic|unpredictable|not guaranteed|no guarantee)\b"
)
"""Words that leave a result open, matched on lower-case text at word boundaries."""

ENTRIES = (*table.TABLE, *table.REVIEWED, *WORDING)


class Hit(NamedTuple):
    domain: str
    operator: str
    since: int
    word: str
    passage: str

    def __str__(self) -> str:
        return f"{self.domain or 'ai.onnx'}::{self.operator}-{self.since} {self.word!r}: {self.passage}"


def normal(text: str) -> str:
    return " ".join(text.lower().split())


def passages(text: str) -> Iterator[str]:
    """The sentences, list items and table rows of an operator text, lower case with blanks collapsed."""
    paragraph: list[str] = []

    def flush() -> Iterator[str]:
        if paragraph:
            yield from (normal(s) for s in re.split(r"(?<=[.!?])\s+", " ".join(paragraph)) if s.strip())
            paragraph.clear()

    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(("|", "* ", "- ")):
            yield from flush()
        if s.startswith("|"):
            yield normal(s)
        elif s:
            paragraph.append(s)
    yield from flush()


def texts(schema: onnx.defs.OpSchema) -> list[str]:
    """The definition's text and every description of its attributes, inputs and outputs."""
    parts = [schema.doc or ""]
    parts += [a.description or "" for a in schema.attributes.values()]
    parts += [p.description or "" for p in (*schema.inputs, *schema.outputs)]
    return parts


@cache
def schemas() -> tuple[onnx.defs.OpSchema, ...]:
    return tuple(s for s in onnx.defs.get_all_schemas_with_history() if s.domain in table.KNOWN_DOMAINS)


def hits() -> list[Hit]:
    out = []
    for s in schemas():
        for text in texts(s):
            for p in passages(text):
                for w in dict.fromkeys(m.group(1) for m in OPEN_WORDS.finditer(p)):
                    out.append(Hit(s.domain, s.name, s.since_version, w, p))
    return out


def covers(e: table.Entry, domain: str, operator: str, since: int) -> bool:
    return (e.domain, e.operator) == (domain, operator) and e.first <= since and (e.last is None or since <= e.last)


def test_the_scan_finds_the_passages_it_must() -> None:
    # the scan itself: passages known to leave a result open are found, with the words that mark them
    found = {(h.operator, h.since, h.word) for h in hits()}
    for expected in [
        ("Cast", 13, "undefined"),  # "fixed point: undefined if OOR"
        ("Cast", 24, "unspecified"),  # the FLOAT8E8M0 table
        ("Mod", 10, "platform dependent"),
        ("TopK", 11, "undefined"),
        ("Bernoulli", 15, "non-deterministic"),
        ("StringNormalizer", 10, "environment dependent"),
        ("Slice", 13, "undefined"),
    ]:
        assert expected in found, expected
    assert len(found) >= 40


def test_every_open_passage_is_classified() -> None:
    uncovered = [
        h
        for h in hits()
        if not any(covers(e, h.domain, h.operator, h.since) and any(q in h.passage for q in e.quotes) for e in ENTRIES)
    ]
    assert not uncovered, "passages no entry of the determinism table quotes:\n" + "\n".join(map(str, uncovered))


@pytest.mark.parametrize("e", [e for e in ENTRIES if e.quotes], ids=lambda e: f"{e.operator}-{e.first}")
def test_every_quote_is_in_a_text_its_entry_covers(e: table.Entry) -> None:
    # a quote that no covered version contains (a typo, a text onnx has since changed) decides nothing
    covered = [normal(t) for s in schemas() if covers(e, s.domain, s.name, s.since_version) for t in texts(s)]
    assert covered, e
    for q in e.quotes:
        assert q == normal(q), q
        assert any(q in t for t in covered), q


def test_wording_entries_leave_nothing_open() -> None:
    for e in WORDING:
        assert e.condition == table.NEVER and e.reason and e.quotes, e
        assert schema_versions(e.domain, e.operator), e
