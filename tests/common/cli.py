"""Calling ``sonnx-check`` and ``sonnx`` in-process, as a user would, and reading what they printed."""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sonnx.cli import check_main, main

from .report_schema import validated_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

EntryPoint = Callable[..., int]


def prints_json_report(fn: EntryPoint, argv: tuple[str, ...]) -> bool:
    """Whether ``argv`` asks ``sonnx-check`` or ``sonnx batch`` for the JSON report on stdout."""
    if not (fn is check_main or (fn is main and argv[:1] == ("batch",))):
        return False
    if {"-h", "--help", "-V", "--version"} & set(argv):  # these print text whatever else is asked
        return False
    pairs = itertools.pairwise(argv)
    return "--json" in argv or "--format=json" in argv or ("--format", "json") in pairs


def call(fn: EntryPoint, *argv: str) -> tuple[int, str, str]:
    """Run an entry point (``check_main`` or ``main``) with ``argv``; its exit code, stdout and stderr.

    A JSON report printed by ``sonnx-check`` or ``sonnx batch`` is checked against the package's
    ``report.schema.json`` (:mod:`.report_schema`), the ``batch`` object included.
    """
    out, err = io.StringIO(), io.StringIO()
    code = fn(list(argv), stdout=out, stderr=err)
    if out.getvalue() and prints_json_report(fn, argv):
        validated_text(out.getvalue())
    return code, out.getvalue(), err.getvalue()


def check(*argv: str) -> tuple[int, str, str]:
    """``sonnx-check ARGV``."""
    return call(check_main, *argv)


def sonnx(*argv: str) -> tuple[int, str, str]:
    """``sonnx ARGV`` (a subcommand first)."""
    return call(main, *argv)


def one_line(code: int, out: str, err: str) -> None:
    """The usual refusal: exit 2, nothing on stdout, one line on stderr, no traceback."""
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    assert "Traceback" not in err and "internal error" not in err, err


def run_to_file(model: Path, inputs: dict[str, Any], output: Path) -> tuple[int, str, str]:
    """``sonnx run -q MODEL --inputs <inputs as an .npz beside output> --output OUTPUT``."""
    feeds = output.with_name(output.stem + ".inputs.npz")
    np.savez(feeds, **inputs)
    return call(main, "run", "-q", str(model), "--inputs", str(feeds), "--output", str(output))
