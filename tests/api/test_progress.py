"""Progress callbacks: one type and one silent default for the whole package, and the API's callbacks work.

Every long-running entry point (check, batch, replay, equiv, partition,
rewrite, the rules, the SMT engine) takes a callback of the type
:data:`sonnx.base.progress.Say` and falls back to
:func:`sonnx.base.progress.quiet`. The scan below keeps them written once:
a module that spells the type out again, or writes its own do-nothing
callback, fails it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sonnx
import sonnx.api
from sonnx.base import progress

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "sonnx"
HOME = SRC / "base" / "progress.py"
CNN = str(ROOT / "examples" / "cnn_block.onnx")


def _is_callable_of_str(node: ast.AST) -> bool:
    """``Callable[[str], None]`` (bare or as ``collections.abc.Callable``/``typing.Callable``)."""
    if not isinstance(node, ast.Subscript):
        return False
    base = node.value
    named = (isinstance(base, ast.Name) and base.id == "Callable") or (
        isinstance(base, ast.Attribute) and base.attr == "Callable"
    )
    if not named or not isinstance(node.slice, ast.Tuple) or len(node.slice.elts) != 2:
        return False
    params, result = node.slice.elts
    return (
        isinstance(params, ast.List)
        and len(params.elts) == 1
        and isinstance(params.elts[0], ast.Name)
        and params.elts[0].id == "str"
        and isinstance(result, ast.Constant)
        and result.value is None
    )


def _is_silent_lambda(node: ast.AST) -> bool:
    """``lambda _m: None``: a one-argument function that does nothing."""
    return (
        isinstance(node, ast.Lambda)
        and len(node.args.args) == 1
        and isinstance(node.body, ast.Constant)
        and node.body.value is None
    )


def _is_quiet_function(node: ast.AST) -> bool:
    """A module's own ``def _quiet(...)`` or ``def quiet(...)``."""
    return isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "quiet"


def second_homes(root: Path) -> list[str]:
    """Every place under ``root``, other than the progress module, that writes the type or a silent callback again."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if path.resolve() == HOME.resolve():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if _is_callable_of_str(node) or _is_silent_lambda(node) or _is_quiet_function(node):
                found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}")
    return found


def test_the_callback_type_and_the_silent_default_are_written_once() -> None:
    assert second_homes(SRC) == []


@pytest.mark.parametrize(
    "line",
    [
        "Say = Callable[[str], None]\n",
        "say = None or (lambda _m: None)\n",
        "def _quiet(_message: str) -> None:\n    return None\n",
    ],
    ids=["type", "lambda", "function"],
)
def test_the_scan_finds_a_second_home(tmp_path: Path, line: str) -> None:
    (tmp_path / "mod.py").write_text("from collections.abc import Callable\n\n" + line, encoding="utf-8")
    assert second_homes(tmp_path) == [f"mod.py:{3}"]


def test_the_api_has_no_second_name_for_the_type() -> None:
    assert not hasattr(sonnx.api, "Progress")
    assert not hasattr(sonnx, "Progress")


@pytest.mark.rule("GRAPH-C1")
def test_quiet_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    say: progress.Say = progress.quiet
    say("checking GRAPH-C1")
    assert capsys.readouterr() == ("", "")


def test_check_tells_its_callback_each_rule_and_is_silent_without_one(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    told = sonnx.check(CNN, engine="direct", progress=lines.append)
    assert capsys.readouterr() == ("", "")
    rules = [v.rule_id for v in told.verdicts]
    for rule_id in rules:
        assert f"checking {rule_id}" in lines
    silent = sonnx.check(CNN, engine="direct")
    assert capsys.readouterr() == ("", "")
    assert [v.rule_id for v in silent.verdicts] == rules
    assert [v.status for v in silent.verdicts] == [v.status for v in told.verdicts]


def test_batch_tells_its_callback_and_is_silent_without_one(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    sonnx.batch([CNN], workers=1, engine="direct", progress=lines.append)
    assert lines and capsys.readouterr() == ("", "")
    sonnx.batch([CNN], workers=1, engine="direct")
    assert capsys.readouterr() == ("", "")
