"""Every rule states the facts its PROVED rests on (spec section 9.4, "What a PROVED rests on").

The list of rules is read from the registry, so a rule added to the table
without an entry in that section fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from sonnx.rules.registry import RULES

SPEC = Path(__file__).resolve().parents[2] / "spec" / "graph.rst"
ANCHOR = ".. _proved-rests-on:"
TERM = re.compile(r"^``([A-Z0-9-]+)``$")


def entries(text: str) -> dict[str, str]:
    """The rule entries of the section: rule ID -> its text (the indented lines under the term)."""
    start = text.index(ANCHOR)
    end = text.index("\nChanges\n", start)
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text[start:end].splitlines():
        m = TERM.match(line)
        if m:
            current = found.setdefault(m.group(1), [])
        elif current is not None and line.startswith("   "):
            current.append(line.strip())
        elif line.strip():
            current = None
    return {k: " ".join(v) for k, v in found.items()}


def test_every_rule_of_the_registry_states_its_premises() -> None:
    listed = entries(SPEC.read_text(encoding="utf-8"))
    missing = [r.id for r in RULES if r.id not in listed]
    assert not missing, f"rules without an entry in 'What a PROVED rests on': {missing}"
    empty = [k for k, v in listed.items() if not v]
    assert not empty, f"entries without text: {empty}"


def test_the_section_names_no_rule_the_registry_lacks() -> None:
    listed = entries(SPEC.read_text(encoding="utf-8"))
    known = {r.id for r in RULES}
    assert set(listed) <= known, sorted(set(listed) - known)


def test_a_rule_without_an_entry_is_found() -> None:
    text = SPEC.read_text(encoding="utf-8")
    cut = re.sub(r"^``GRAPH-R2``\n(   .*\n)+", "", text, flags=re.MULTILINE)
    assert cut != text
    assert "GRAPH-R2" not in entries(cut)
    assert "GRAPH-DETERMINISM" in entries(cut)
