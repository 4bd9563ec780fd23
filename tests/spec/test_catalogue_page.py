"""The requirement catalogue and the table of rules show the spec's words, and each rule's tests by name.

``docs/_ext/sonnx_docs.py`` writes both pages from the traceability matrix;
they are checked here on the matrix of this checkout without a Sphinx build
(the proofs are not run: the catalogue is given no theorem results).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tools import traceability

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def docs_ext() -> ModuleType:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        return importlib.import_module("sonnx_docs")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))


@pytest.fixture(scope="module")
def trace() -> dict[str, Any]:
    return traceability.matrix(ROOT)


def rule_entry(page: str, rule_id: str) -> str:
    """The catalogue's ``.. rule::`` block of ``rule_id``."""
    start = page.index(f"   :id: {rule_id}\n")
    end = page.find("\n.. ", start)
    return page[start:end]


def test_every_test_of_a_rule_is_listed_by_name_under_its_file(docs_ext: ModuleType, trace: dict[str, Any]) -> None:
    page = docs_ext.catalogue_page(trace, [])
    for row in trace["rules"]:
        entry = rule_entry(page, row["id"])
        assert row["tests"], row["id"]
        assert f"* Tests ({len(row['tests'])}, in " in entry
        for test in row["tests"]:
            path, _, name = test.partition("::")
            line = next(ln for ln in entry.splitlines() if ln.strip().startswith(f"* ``{path}``:"))
            assert f"``{name}``" in line, (row["id"], test)


def test_the_catalogue_holds_the_spec_statement_and_rationale(docs_ext: ModuleType, trace: dict[str, Any]) -> None:
    page = docs_ext.catalogue_page(trace, [])
    for row in trace["rules"]:
        entry = " ".join(rule_entry(page, row["id"]).split())
        for para in row["statement"].split("\n"):
            text = para[2:] if para.startswith("- ") else para
            assert " ".join(docs_ext.esc(text).split()) in entry, row["id"]
        if row["rationale"] is None:
            assert "*Rationale:* **none given in the spec**" in entry
        else:
            assert " ".join(docs_ext.esc(row["rationale"].split("\n")[0]).split()) in entry


def test_the_table_of_rules_shows_titles_not_a_second_statement(docs_ext: ModuleType, trace: dict[str, Any]) -> None:
    page = docs_ext.rules_page(trace)
    for row in trace["rules"]:
        assert docs_ext.esc(row["title"]) in page and row["section"] in page
        first = row["statement"].split("\n")[0]
        assert docs_ext.esc(first)[:60] not in page, row["id"]


def test_a_test_list_is_grouped_by_file(docs_ext: ModuleType) -> None:
    got = docs_ext.tests_by_file(["tests/a.py::t1", "tests/b.py::C::t2", "tests/a.py::t3"], 3)
    assert got == (
        "   * Tests (3, in 2 files):\n\n"
        "     * ``tests/a.py``: ``t1``, ``t3``\n"
        "     * ``tests/b.py``: ``C::t2``\n"
    )
    assert docs_ext.tests_by_file([], 3) == "   * Tests: **none**"
