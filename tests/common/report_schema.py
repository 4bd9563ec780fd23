"""The JSON report's schema (``sonnx/data/report.schema.json``, as the package ships it) and checks against it.

Every JSON report a test makes the tool write is checked: :func:`validated` by the helpers that run the command
line (:mod:`tests.common.cli`: ``sonnx-check`` and ``sonnx batch`` in JSON), and :func:`watch_json_reports`,
which the suite's ``conftest.py`` opens for the whole session, on every document
:func:`sonnx.checking.report.json_document` builds (the check, the batch, the evidence bundle's
``verdicts.json``, the qualification kit, the API).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import jsonschema

SCHEMA_FILE = "report.schema.json"


def load_schema() -> dict[str, Any]:
    """The schema as the installed package holds it."""
    schema: dict[str, Any] = json.loads(resources.files("sonnx.data").joinpath(SCHEMA_FILE).read_text("utf-8"))
    return schema


SCHEMA = load_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def schema_errors(document: Any) -> list[str]:
    """Every way ``document`` departs from the schema, one line each (empty when it conforms)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in sorted(VALIDATOR.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    ]


def validated(document: Any) -> Any:
    """``document``, after asserting that it conforms to the schema."""
    errors = schema_errors(document)
    assert not errors, "the JSON report departs from report.schema.json:\n" + "\n".join(errors[:20])
    return document


def validated_text(text: str) -> Any:
    """The JSON report printed as ``text``, parsed and checked against the schema."""
    return validated(json.loads(text))


WRITERS = ("sonnx.checking.report", "sonnx.cli.batch", "sonnx.checking.qualify.runner")
"""The modules of sonnx that hold :func:`sonnx.checking.report.json_document` under that name (the function's own
module, and those that import it by name); ``tests/formats/test_report_schema.py`` keeps the list complete."""


@contextmanager
def watch_json_reports() -> Iterator[None]:
    """While open, every document :func:`sonnx.checking.report.json_document` builds is checked on the way out.

    The function is replaced under its name in each module of :data:`WRITERS` (imported here) and in every
    module already loaded that imported it by name (the test modules), so that no writer of the format is missed.
    """
    import importlib
    import sys

    from sonnx.checking import report

    original: Callable[..., dict[str, Any]] = report.json_document

    def checked(*args: Any, **kwargs: Any) -> dict[str, Any]:
        document = original(*args, **kwargs)
        validated(document)
        return document

    for name in WRITERS:
        importlib.import_module(name)
    holders = [m for m in list(sys.modules.values()) if getattr(m, "json_document", None) is original]
    for module in holders:
        module.json_document = checked
    try:
        yield
    finally:
        for module in holders:
            module.json_document = original
