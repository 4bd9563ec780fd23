"""Each rule has one text, the spec's: tools/rule_texts.py reads it, the package data holds it, rules show it.

The title, statement and rationale of a rule are those of its entry in
``spec/graph.rst`` section 4 (heading, statement paragraphs, one
``[*Rationale:* ...]`` paragraph). These tests keep the packaged texts current
with the spec, check that rules take their words from them and nowhere else,
and that the reader refuses entries that break the shape.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from sonnx.rules import RULES
from sonnx.rules.base import Rule
from tools import rule_texts
from tools.rule_texts import SpecShapeError, parse, plain

ROOT = Path(__file__).resolve().parents[2]


LABELS = {"GRAPH-X": "GRAPH-X", "sec": "4.2 What a PROVED rests on"}


def packaged() -> dict[str, object]:
    data: dict[str, object] = json.loads((ROOT / rule_texts.PACKAGED).read_text(encoding="utf-8"))
    return data


def test_packaged_texts_are_current_with_the_spec() -> None:
    assert (ROOT / rule_texts.PACKAGED).read_text(encoding="utf-8") == rule_texts.packaged(ROOT), (
        "src/sonnx/data/rule_texts.json is out of date: run make rule-texts"
    )


def test_every_registry_rule_has_a_spec_text_and_no_spec_rule_is_missing() -> None:
    texts = packaged()["rules"]
    assert isinstance(texts, dict)
    assert set(texts) == {r.id for r in RULES}


def test_rules_show_the_spec_words_and_have_none_of_their_own() -> None:
    assert not {f.name for f in fields(Rule)} & {"title", "statement", "rationale"}
    texts = packaged()["rules"]
    assert isinstance(texts, dict)
    for r in RULES:
        t = texts[r.id]
        assert (r.title, r.statement, r.rationale, r.text.number) == (
            t["title"], t["statement"], t["rationale"], t["number"]), r.id
        assert r.title and r.statement


def test_heading_severity_is_the_registry_severity() -> None:
    for r in RULES:
        strict = None if r.strict_severity is None else r.strict_severity.value
        assert (r.text.severity, r.text.strict_severity) == (r.severity.value, strict), r.id


def test_every_rule_has_a_rationale() -> None:
    assert rule_texts.document(ROOT)["problems"] == []
    assert all(r.rationale for r in RULES)


def test_the_generator_names_each_rule_without_a_rationale(capsys: pytest.CaptureFixture[str]) -> None:
    code = rule_texts.main(["--check"])
    err = capsys.readouterr().err
    missing = [r.id for r in RULES if r.rationale is None]
    assert code == (1 if missing else 0)
    assert all(f"{rid}: no [*Rationale:* ...] paragraph" in err for rid in missing)


# --------------------------------------------------------------------------- the reader, on small spec pages


def page(body: str, heading: str = "4.0.9 GRAPH-X — the title (error)") -> str:
    return f".. _GRAPH-X:\n\n{heading}\n{'~' * len(heading)}\n{body}\n.. _next-section:\n\nNext\n----\nafter\n"


def test_statement_rationale_and_notes_are_told_apart() -> None:
    text = page(
        "   First ``a`` paragraph,\n   two lines.\n\n   * item one\n     continued;\n   * item two.\n\n"
        "   [*Rationale:* why it\n   matters.\n\n   * because;\n   * and so.]\n\n"
        "   [*Note:* not normative.]\n"
    )
    t = parse(text, LABELS)["GRAPH-X"]
    assert t.number == "4.0.9" and t.title == "The title" and t.severity == "error" and t.strict_severity is None
    assert t.statement == "First a paragraph, two lines.\n\n- item one continued;\n- item two."
    assert t.rationale == "Why it matters.\n\n- because;\n- and so."


def test_a_bracketed_line_above_the_statement_is_left_out() -> None:
    text = page("   [Source: the group's\n   text.]\n   The statement.\n\n.. include:: table.rst\n")
    t = parse(text, LABELS)["GRAPH-X"]
    assert t.statement == "The statement." and t.rationale is None


def test_the_strict_severity_of_the_heading_is_read() -> None:
    t = parse(page("   S.\n", "4.0.9 GRAPH-X — t (warning; error in sonnx-strict)"), LABELS)["GRAPH-X"]
    assert (t.severity, t.strict_severity) == ("warning", "error")


@pytest.mark.parametrize(
    ("body", "heading", "message"),
    [
        ("   [*Rationale:* only.]\n", None, "GRAPH-X: no normative statement"),
        ("   S.\n\n   [*Rationale:* a.]\n\n   [*Rationale:* b.]\n", None, "GRAPH-X: more than one"),
        ("   S.\n\n   [*Rationale:* a.]\n\n   More rules.\n", None, "GRAPH-X: normative text after the rationale"),
        ("   S.\n\n   [*Rationale:* never\n   closed.\n", None, "GRAPH-X: a bracketed paragraph is not closed"),
        ("   S.\n\n.. figure:: x.png\n", None, "GRAPH-X: directive"),
        ("   See :ref:`nowhere`.\n", None, "names no label"),
        ("   S.\n", "4.0.9 GRAPH-X (error)", "GRAPH-X: heading"),
        ("   S.\n", "4.0.9 GRAPH-Y — t (error)", "GRAPH-X: heading"),
    ],
)
def test_an_entry_that_breaks_the_shape_is_refused_naming_the_rule(
    body: str, heading: str | None, message: str
) -> None:
    with pytest.raises(SpecShapeError, match=message.replace("[", r"\[").replace("*", r"\*")):
        parse(page(body) if heading is None else page(body, heading), LABELS)


def test_inline_markup_is_rendered_as_plain_text() -> None:
    got = plain(
        "``x * y`` and :ref:`GRAPH-X`, :ref:`sec`, :ref:`shown <elsewhere>`, *em*, **strong**, "
        "`a link <https://example.org>`_, :class:`~sonnx.rules.base.Rule`, a\\*b",
        LABELS,
    )
    assert got == ("x * y and GRAPH-X, 4.2 What a PROVED rests on, shown, em, strong, a link, Rule, a*b")


def test_references_resolve_to_rule_ids_and_section_headings_of_the_source_tree() -> None:
    labels = rule_texts.labels_of(ROOT)
    assert labels["GRAPH-C2"] == "GRAPH-C2"
    assert labels["proved-rests-on"] == "9.4 What a PROVED rests on"
