"""The spec is in the form its readers rely on (spec/graph.rst: preamble, sections 2.2, 3, 4 and 9).

* Every rule of section 4 is a heading, then its normative statement, then exactly one
  ``[*Rationale:* ...]``, then only ``[*Note:* ...]`` paragraphs: the shape the rule texts are generated from.
* Requirements use the key words of BCP 14 (RFC 2119, RFC 8174): a rule of severity *error* says MUST or
  SHALL, one of severity *warning* says SHOULD; non-normative text (rationales, notes, section 3.7, sections
  5 to 8) and the dynamic semantics of section 3, which states no requirement, never use them.
* A rule's *Dynamic semantics* paragraph says what the rule means for executions and uses no key word.
* A rule's statement is about graphs: the checker's verdicts (PROVED, VIOLATED, UNKNOWN) are section 9's.

Each check is a function over the spec's text, so the planted-defect tests below show it can fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SPEC = Path(__file__).resolve().parents[2] / "spec" / "graph.rst"
KEY_WORDS = re.compile(r"\b(MUST|SHALL|SHOULD|MAY)\b")
VERDICTS = re.compile(r"\b(PROVED|VIOLATED|UNKNOWN)\b")
LABEL = re.compile(r"^\.\. _([A-Za-z0-9-]+):\s*$")
RULE_HEADING = re.compile(r"^4\.\d+\.\d+ ((?:GRAPH|STRICT|FORMAT)-[A-Z0-9-]+)\b.*\(([^()]*)\)\s*$")
UNDERLINE = re.compile(r"^([=\-~^])\1{3,}\s*$")


@dataclass
class Rule:
    rule_id: str
    severity: str
    items: list[tuple[str, str]] = field(default_factory=list)
    """The body as (kind, text): kind ``statement``, ``rationale``, ``note`` or ``other`` (a stray bracket)."""

    def texts(self, kind: str) -> list[str]:
        return [text for k, text in self.items if k == kind]


def _blocks(lines: list[str]) -> list[str]:
    """The body split at blank lines, each block's lines stripped and joined."""
    out: list[str] = []
    current: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append("\n".join(current))
            current = []
    return out


def _items(blocks: list[str]) -> list[tuple[str, str]]:
    """Blocks grouped into statement paragraphs and bracketed paragraphs (a bracket may span blocks)."""
    items: list[tuple[str, str]] = []
    i = 0
    while i < len(blocks):
        if not blocks[i].startswith("["):
            items.append(("statement", blocks[i]))
            i += 1
            continue
        depth, group = 0, []
        while i < len(blocks):
            group.append(blocks[i])
            depth += blocks[i].count("[") - blocks[i].count("]")
            i += 1
            if depth <= 0:
                break
        text = "\n\n".join(group)
        kind = "rationale" if text.startswith("[*Rationale:*") else "note" if text.startswith("[*Note:*") else "other"
        items.append((kind, text))
    return items


def rules(text: str) -> list[Rule]:
    """The rules of section 4: a label, then a numbered heading naming the labelled rule ID."""
    lines = text.splitlines()
    start = lines.index("4. Verification rules")
    end = next(i for i in range(start + 2, len(lines)) if re.match(r"^\d+\. ", lines[i]) and lines[i + 1][:1] == "=")
    found: list[Rule] = []
    i = start
    while i < end:
        label = LABEL.match(lines[i])
        heading = RULE_HEADING.match(lines[i + 2]) if label and i + 3 < len(lines) else None
        if label is None or heading is None or not UNDERLINE.match(lines[i + 3]):
            i += 1
            continue
        assert heading.group(1) == label.group(1), f"heading {lines[i + 2]!r} under label {label.group(1)}"
        j = i + 4
        while j < end and not LABEL.match(lines[j]) and not (j + 1 < end and UNDERLINE.match(lines[j + 1])):
            j += 1
        found.append(Rule(label.group(1), heading.group(2), _items(_blocks(lines[i + 4 : j]))))
        i = j
    return found


def shape_problems(rule: Rule) -> list[str]:
    """How the rule's body departs from: statement paragraph(s), one rationale, then notes only."""
    kinds = [k for k, _ in rule.items]
    problems = [
        f"{rule.rule_id}: a bracketed paragraph that is neither a rationale nor a note" for k in kinds if k == "other"
    ]
    if kinds.count("rationale") != 1:
        problems.append(f"{rule.rule_id}: {kinds.count('rationale')} rationales, not one")
        return problems
    at = kinds.index("rationale")
    if at == 0 or any(k != "statement" for k in kinds[:at]):
        problems.append(f"{rule.rule_id}: the rationale does not follow the normative statement")
    if any(k != "note" for k in kinds[at + 1 :]):
        problems.append(f"{rule.rule_id}: something other than a note after the rationale")
    if len(re.sub(r"[\[\]*\s]|Rationale:", "", rule.texts("rationale")[0])) < 20:
        problems.append(f"{rule.rule_id}: an empty rationale")
    return problems


def key_word_problems(rule: Rule) -> list[str]:
    """A rule's statement uses the key word of its severity; its rationale and notes use none."""
    statement = " ".join(rule.texts("statement"))
    words = set(KEY_WORDS.findall(statement))
    problems: list[str] = []
    if "error" in rule.severity and not words & {"MUST", "SHALL"}:
        problems.append(f"{rule.rule_id}: an error rule whose statement says neither MUST nor SHALL")
    if "warning" in rule.severity and "SHOULD" not in words:
        problems.append(f"{rule.rule_id}: a warning rule whose statement does not say SHOULD")
    for kind in ("rationale", "note"):
        problems += [f"{rule.rule_id}: the {kind} uses {w}" for t in rule.texts(kind) for w in KEY_WORDS.findall(t)]
    dynamic = [t for t in rule.texts("statement") if t.startswith("*Dynamic semantics:*")]
    problems += [f"{rule.rule_id}: the dynamic semantics uses {w}" for t in dynamic for w in KEY_WORDS.findall(t)]
    return problems


def verdict_problems(rule: Rule) -> list[str]:
    """A rule's statement names no verdict of a checker (section 9 does)."""
    return [f"{rule.rule_id}: the statement names {w}" for w in VERDICTS.findall(" ".join(rule.texts("statement")))]


def section(text: str, heading: re.Pattern[str]) -> str:
    """The text of the section whose heading matches, up to the next heading of the same or a higher level."""
    lines = text.splitlines()
    at = next(i for i in range(len(lines) - 1) if heading.match(lines[i]) and UNDERLINE.match(lines[i + 1]))
    level = "=-~^".index(lines[at + 1][0])
    for j in range(at + 2, len(lines) - 1):
        if UNDERLINE.match(lines[j + 1]) and lines[j].strip() and "=-~^".index(lines[j + 1][0]) <= level:
            return "\n".join(lines[at:j])
    return "\n".join(lines[at:])


def non_normative_problems(text: str) -> list[str]:
    """Key words in text that states no requirement: section 3, sections 5 to 8, every rationale and note."""
    found: list[str] = []
    for name in (r"3\. Dynamic semantics", r"5\. ", r"6\. ", r"7\. ", r"8\. "):
        body = section(text, re.compile(name))
        found += [f"section {name[:1]}: uses {w}" for w in KEY_WORDS.findall(body)]
    for bracket in _bracketed(text):
        found += [f"a bracketed rationale or note uses {w}" for w in KEY_WORDS.findall(bracket)]
    return found


def _bracketed(text: str) -> list[str]:
    """Every ``[*Rationale:* ...]`` and ``[*Note:* ...]`` of the text, to its matching bracket."""
    found: list[str] = []
    for start in re.finditer(r"\[\*(?:Rationale|Note):\*", text):
        depth = 0
        for end in range(start.start(), len(text)):
            depth += {"[": 1, "]": -1}.get(text[end], 0)
            if depth == 0:
                break
        found.append(text[start.start() : end + 1])
    return found


TEXT = SPEC.read_text(encoding="utf-8")
RULES = rules(TEXT)


def test_section_4_lists_every_rule() -> None:
    ids = [r.rule_id for r in RULES]
    assert len(ids) == len(set(ids)) >= 25
    assert {"FORMAT-ONNX", "GRAPH-ACYCLIC", "GRAPH-R2", "GRAPH-ATTRIBUTES", "STRICT-METADATA"} <= set(ids)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.rule_id)
def test_every_rule_is_statement_then_one_rationale_then_notes(rule: Rule) -> None:
    assert shape_problems(rule) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.rule_id)
def test_every_rule_states_its_requirement_with_the_key_word_of_its_severity(rule: Rule) -> None:
    assert key_word_problems(rule) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.rule_id)
def test_no_rule_statement_speaks_of_a_checker_verdict(rule: Rule) -> None:
    assert verdict_problems(rule) == []


def test_non_normative_text_and_the_dynamic_semantics_use_no_key_word() -> None:
    assert non_normative_problems(TEXT) == []


def test_the_key_words_are_defined_by_bcp_14() -> None:
    preamble = TEXT[: TEXT.index("1. Syntax")]
    assert all(x in preamble for x in ("BCP 14", "RFC 2119", "RFC 8174"))


def test_the_legality_rules_and_the_checker_have_their_sections() -> None:
    legality = section(TEXT, re.compile(r"2\.2 "))
    assert "section 4" in legality and "MUST" in legality
    checker = section(TEXT, re.compile(r"9\. What a conforming checker does"))
    assert ".. _proved-rests-on:" in checker and "UNKNOWN" in checker
    for name in (r"3\.6\.1 Loop", r"3\.6\.2 Scan", r"3\.8 Operators that fail"):
        assert len(section(TEXT, re.compile(name))) > 800


# Planted defects: each check reports the defect it is for.

GOOD = """\
4. Verification rules
=====================

.. _GRAPH-X:

4.0.1 GRAPH-X — something (error)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
   Every operation SHALL do X (see ``[N, N]``).

   [*Rationale:* a reason long enough to count, with a [bracket] inside.]

   [*Note:* a note.]

.. _GRAPH-Y:

4.0.2 GRAPH-Y — other (warning)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
   Every operation SHOULD do Y.

   [*Rationale:* another reason, across

   * a list;

   and a second paragraph.]

5. Ambiguities
==============

A1. Text.
"""


def _one(text: str, rule_id: str) -> Rule:
    return next(r for r in rules(text) if r.rule_id == rule_id)


def test_a_well_formed_rule_passes_every_check() -> None:
    for r in rules(GOOD):
        assert shape_problems(r) == key_word_problems(r) == verdict_problems(r) == []
    assert [r.rule_id for r in rules(GOOD)] == ["GRAPH-X", "GRAPH-Y"]


@pytest.mark.parametrize(
    ("old", "new", "found"),
    [
        ("   [*Rationale:* a reason long enough to count, with a [bracket] inside.]\n\n", "", "0 rationales"),
        ("   [*Note:* a note.]", "   [*Rationale:* a second reason, long enough.]", "2 rationales"),
        ("   [*Note:* a note.]", "   A normative sentence after the rationale.", "other than a note"),
        ("   Every operation SHALL do X (see ``[N, N]``).\n\n", "", "does not follow"),
        ("   [*Note:* a note.]", "   [Source: somewhere.]", "neither a rationale nor a note"),
    ],
)
def test_a_misshapen_rule_is_reported(old: str, new: str, found: str) -> None:
    text = GOOD.replace(old, new)
    assert text != GOOD
    assert any(found in p for p in shape_problems(_one(text, "GRAPH-X")))


@pytest.mark.parametrize(
    ("old", "new", "rule_id", "found"),
    [
        ("SHALL do X", "does X", "GRAPH-X", "neither MUST nor SHALL"),
        ("SHOULD do Y", "does Y", "GRAPH-Y", "does not say SHOULD"),
        ("a note.", "a note that SHOULD not be.", "GRAPH-X", "the note uses SHOULD"),
        ("another reason", "another reason that MUST not be", "GRAPH-Y", "the rationale uses MUST"),
        (
            "   Every operation SHALL do X (see ``[N, N]``).\n",
            "   Every operation SHALL do X.\n\n   *Dynamic semantics:* every run SHALL do X.\n",
            "GRAPH-X",
            "the dynamic semantics uses SHALL",
        ),
    ],
)
def test_a_misworded_rule_is_reported(old: str, new: str, rule_id: str, found: str) -> None:
    text = GOOD.replace(old, new)
    assert text != GOOD
    assert found in key_word_problems(_one(text, rule_id))[0]


def test_a_statement_naming_a_verdict_is_reported() -> None:
    text = GOOD.replace("(see ``[N, N]``).", "(else the rule is UNKNOWN).")
    assert verdict_problems(_one(text, "GRAPH-X")) == ["GRAPH-X: the statement names UNKNOWN"]


def test_a_key_word_in_non_normative_text_is_reported() -> None:
    spec = (
        "3. Dynamic semantics\n====================\n\nA state SHALL be.\n\n"
        "5. A\n====\n\n6. B\n====\n\n7. C\n====\n\n8. D\n====\n\nText [*Note:* it MUST.]\n\nChanges\n=======\n"
    )
    assert non_normative_problems(spec) == [
        "section 3: uses SHALL",
        "section 8: uses MUST",
        "a bracketed rationale or note uses MUST",
    ]
