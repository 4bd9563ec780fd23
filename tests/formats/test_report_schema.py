"""The JSON report's schema, ``sonnx/data/report.schema.json``: a valid JSON Schema 2020-12 that every report
the tool writes meets and that refuses what the format does not allow."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sonnx.base.verdict import Verdict
from sonnx.checking import report as report_module
from sonnx.checking.report import JSON_SCHEMA_VERSION, ModelReport
from sonnx.cli import check_main, main
from tests.common.cli import EXAMPLES, check, prints_json_report, sonnx
from tests.common.report_schema import SCHEMA, WRITERS, schema_errors

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    _, out, _ = check("-q", "--json", str(EXAMPLES / "seed001_example.onnx"))
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_the_schema_is_valid_and_names_the_current_version() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["properties"]["schema_version"]["const"] == JSON_SCHEMA_VERSION


def test_a_real_report_conforms(document: dict[str, Any]) -> None:
    assert schema_errors(document) == []


@pytest.mark.parametrize(("what", "edit"), [
    ("a status outside the enum", lambda d: d["models"][0]["verdicts"][0].update(status="PASSED")),
    ("a missing required field", lambda d: d.pop("profile")),
    ("an unknown top-level field", lambda d: d.update(extra=1)),
    ("an unknown field of a verdict", lambda d: d["models"][0]["verdicts"][0].update(note="x")),
    ("a warning labelled VIOLATED", lambda d: next(
        v for v in d["models"][0]["verdicts"] if v["label"] == "WARNING").update(label="VIOLATED")),
    ("a VIOLATED verdict without a witness", lambda d: next(
        v for v in d["models"][0]["verdicts"] if v["status"] == "VIOLATED").pop("witness")),
    ("an outcome outside the enum", lambda d: d["models"][0].update(outcome="PASSED")),
    ("a TESTED outcome without its reason", lambda d: d["models"][0].update(outcome="TESTED")),
    ("another schema version", lambda d: d.update(schema_version=2)),
])
def test_the_schema_refuses(document: dict[str, Any], what: str, edit: Any) -> None:
    bad = copy.deepcopy(document)
    edit(bad)
    assert schema_errors(bad), what


def test_batch_output_conforms_with_its_batch_object(tmp_path: Path) -> None:
    code, out, _ = sonnx("batch", "-q", "-j", "1", "--json", str(EXAMPLES / "cnn_block.onnx"))
    doc = json.loads(out)
    assert code == 0 and set(doc["batch"]) == {"executor", "where", "workers", "notes", "models"}
    assert schema_errors(doc) == []


def test_every_json_report_built_in_the_tests_is_checked() -> None:
    """The session's watch is live: a report the format does not allow (no model, no error) fails when built."""
    with pytest.raises(AssertionError, match=r"departs from report\.schema\.json"):
        report_module.json_document([ModelReport("m.onnx", verdicts=(Verdict.proved("FORMAT-ONNX"),))], "sonnx", 0)


def _imports_json_document(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.ImportFrom) and any(a.name == "json_document" for a in n.names)
               for n in ast.walk(tree))


def test_the_watch_covers_every_module_that_imports_json_document() -> None:
    found = {".".join(p.relative_to(SRC).with_suffix("").parts) for p in SRC.rglob("*.py") if _imports_json_document(p)}
    assert found | {"sonnx.checking.report"} == set(WRITERS)


def test_the_cli_helpers_check_exactly_the_commands_that_print_the_report() -> None:
    assert prints_json_report(check_main, ("-q", "--json", "m.onnx"))
    assert prints_json_report(check_main, ("--format", "json", "m.onnx"))
    assert prints_json_report(main, ("batch", "--format=json", "d"))
    assert not prints_json_report(check_main, ("--format", "sarif", "m.onnx"))
    assert not prints_json_report(check_main, ("--json", "--help"))
    assert not prints_json_report(main, ("run", "--json", "m.onnx"))
