"""Tests are traced to rules by their ``rule`` marker, test by test (``tools/rule_markers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import rule_markers, traceability

SOURCE = '''
import pytest

pytestmark = pytest.mark.rule("GRAPH-C1")


def test_module_level() -> None: ...


@pytest.mark.rule("GRAPH-C3")
def test_own_and_module() -> None: ...


@pytest.mark.rule("GRAPH-R1")
class TestGroup:
    @pytest.mark.rule("GRAPH-R2")
    def test_in_class(self) -> None: ...


def helper() -> None: ...


@pytest.mark.rule()
def test_empty_marker() -> None: ...


@pytest.mark.rule(RULE)
def test_not_a_literal() -> None: ...
'''


def test_markers_are_read_from_the_test_its_class_and_its_module(tmp_path: Path) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(SOURCE, encoding="utf-8")
    marked, bad = rule_markers.scan_file(path, "tests/x/test_x.py")
    assert marked == {
        "tests/x/test_x.py::test_module_level": ["GRAPH-C1"],
        "tests/x/test_x.py::test_own_and_module": ["GRAPH-C1", "GRAPH-C3"],
        "tests/x/test_x.py::TestGroup::test_in_class": ["GRAPH-C1", "GRAPH-R1", "GRAPH-R2"],
        "tests/x/test_x.py::test_empty_marker": ["GRAPH-C1"],
        "tests/x/test_x.py::test_not_a_literal": ["GRAPH-C1"],
    }
    assert len(bad) == 2 and "without a rule ID" in bad[0] and "string literals" in bad[1]


def test_every_rule_has_marked_tests_named_one_by_one() -> None:
    rows = traceability.build()
    assert all(r.tests for r in rows), [r.id for r in rows if not r.tests]
    assert all("::" in t for r in rows for t in r.tests)


def test_a_marker_naming_no_rule_is_a_traceability_problem(tmp_path: Path) -> None:
    root = traceability.default_root()
    marked, _ = rule_markers.scan(root)
    assert marked  # the real suite is marked
    path = tmp_path / "test_y.py"
    path.write_text('import pytest\n\n\n@pytest.mark.rule("GRAPH-C9")\ndef test_y() -> None: ...\n', encoding="utf-8")
    found, _ = rule_markers.scan_file(path, "tests/y/test_y.py")
    registered = {r.id for r in traceability.RULES}
    assert [rid for ids in found.values() for rid in ids if rid not in registered] == ["GRAPH-C9"]


def test_a_file_read_again_unchanged_is_not_parsed_again_and_an_edit_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "test_z.py"
    path.write_text(SOURCE, encoding="utf-8")
    parsed: list[str] = []
    scan_text = rule_markers._scan_text
    monkeypatch.setattr(rule_markers, "_scan_text", lambda text, rel: parsed.append(rel) or scan_text(text, rel))
    first, _ = rule_markers.scan_file(path, "tests/z/test_z.py")
    first["tests/z/test_z.py::test_module_level"].append("GRAPH-R9")  # a caller's change stays its own
    second, bad = rule_markers.scan_file(path, "tests/z/test_z.py")
    assert parsed == ["tests/z/test_z.py"]
    assert second["tests/z/test_z.py::test_module_level"] == ["GRAPH-C1"] and len(bad) == 2
    path.write_text(SOURCE.replace('pytestmark = pytest.mark.rule("GRAPH-C1")', ""), encoding="utf-8")
    edited, _ = rule_markers.scan_file(path, "tests/z/test_z.py")
    assert parsed == ["tests/z/test_z.py"] * 2
    assert "tests/z/test_z.py::test_module_level" not in edited
    assert edited["tests/z/test_z.py::test_own_and_module"] == ["GRAPH-C3"]
    elsewhere, _ = rule_markers.scan_file(path, "tests/w/test_z.py")
    assert set(elsewhere) == {name.replace("tests/z/", "tests/w/") for name in edited}
