"""The tests each rule has: every ``@pytest.mark.rule(...)`` of ``tests/``, read without importing a test module.

A test exercises a rule when it carries the marker ``rule`` with the rule's
ID among its arguments: on the test function itself, on its class, or on the
whole module (``pytestmark = pytest.mark.rule(...)``, or a list of marks).
The marker is declared in ``pyproject.toml``, and pytest runs with
``--strict-markers``; ``pytest -m rule`` selects every traced test. Tests are
named as pytest names them, ``path::test`` or ``path::Class::test``;
``tests/spec`` is not searched (its tests check the documents, not the rules).

The traceability matrix scans every test file several times in one process
(the rows, then the problems; the docs build and the spec tests build it more
than once), so a file's result is kept under its name and the SHA-256 of its
text: a file read again with the same text is not parsed again, and any edit
gives another key.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

MARKER = "rule"
# (name, SHA-256 of the text) -> what scan_file found in it
_SCANNED: dict[tuple[str, str], tuple[dict[str, list[str]], list[str]]] = {}


def _rule_ids(expr: ast.expr | None) -> tuple[list[str], list[str]]:
    """The rule IDs of the ``pytest.mark.rule(...)`` calls in a decorator or a ``pytestmark`` value; problems."""
    if expr is None:
        return [], []
    calls = expr.elts if isinstance(expr, (ast.List, ast.Tuple)) else [expr]
    ids: list[str] = []
    bad: list[str] = []
    for c in calls:
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == MARKER):
            continue
        for a in c.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                ids.append(a.value)
            else:
                bad.append(f"line {c.lineno}: a rule marker's arguments must be string literals")
        if not c.args:
            bad.append(f"line {c.lineno}: a rule marker without a rule ID")
    return ids, bad


def _pytestmark(body: list[ast.stmt]) -> ast.expr | None:
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return node.value
    return None


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[list[str], list[str]]:
    ids: list[str] = []
    bad: list[str] = []
    for d in node.decorator_list:
        i, b = _rule_ids(d)
        ids += i
        bad += b
    return ids, bad


def scan_file(path: Path, rel: str) -> tuple[dict[str, list[str]], list[str]]:
    """Test name -> rule IDs for the marked tests of one file; the problems found in its markers."""
    text = path.read_text(encoding="utf-8")
    key = (rel, hashlib.sha256(text.encode("utf-8")).hexdigest())
    if key not in _SCANNED:
        _SCANNED[key] = _scan_text(text, rel)
    found, bad = _SCANNED[key]
    return {name: list(ids) for name, ids in found.items()}, list(bad)


def _scan_text(text: str, rel: str) -> tuple[dict[str, list[str]], list[str]]:
    """What :func:`scan_file` returns, from the file's text."""
    tree = ast.parse(text, filename=rel)
    module_ids, bad = _rule_ids(_pytestmark(tree.body))
    out: dict[str, list[str]] = {}

    def add(name: str, ids: list[str]) -> None:
        if ids:
            out[f"{rel}::{name}"] = sorted(set(ids))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            ids, b = _decorated(node)
            bad += b
            add(node.name, module_ids + ids)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            class_ids, b = _decorated(node)
            inner, b2 = _rule_ids(_pytestmark(node.body))
            bad += b + b2
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                    ids, b3 = _decorated(sub)
                    bad += b3
                    add(f"{node.name}::{sub.name}", module_ids + class_ids + inner + ids)
    return out, [f"{rel}: {b}" for b in bad]


def scan(root: Path) -> tuple[dict[str, list[str]], list[str]]:
    """Every marked test of ``tests/`` outside ``tests/spec``, with its rule IDs; the problems of the markers."""
    marked: dict[str, list[str]] = {}
    bad: list[str] = []
    for f in sorted((root / "tests").rglob("test_*.py")):
        rel = f.relative_to(root).as_posix()
        if rel.startswith("tests/spec/"):
            continue
        found, b = scan_file(f, rel)
        marked.update(found)
        bad += b
    return marked, bad
