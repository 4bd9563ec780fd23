"""The docs' Coq section lists every theorem of theorems.txt, and says loudly when the Coq check did not run.

``docs/_ext/coq_docs.py`` writes the section of the "Proof results" page that
lists the Coq theorems the spec cites with their ``Print Assumptions``. Its
three cases are checked here without a Sphinx build: no ``coqc`` (a visible
warning admonition, every theorem marked not checked, never an empty list), a
failing check (an error admonition and a build warning, which ``sphinx -W``
turns into a failed build), and a passing check (Coq's own output per theorem).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tools import coq_check

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def coq_docs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "docs" / "_ext"))
    sys.modules.pop("coq_docs", None)
    mod = importlib.import_module("coq_docs")
    monkeypatch.setattr(mod, "LISTING", tmp_path / "coq_assumptions.txt")
    monkeypatch.setattr(mod, "BUILD", tmp_path / "build")
    return mod


def _entries() -> list[coq_check.Entry]:
    _root, files = coq_check.read_project(coq_check.PROJECT)
    return coq_check.read_table(coq_check.PROJECT, files)


def test_without_coqc_the_section_warns_and_still_lists_every_theorem(
    coq_docs: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coq_docs.shutil, "which", lambda name: None)
    text = coq_docs.section()
    assert ".. warning::" in text and "The Coq check did not run in this build" in text
    for entry in _entries():
        assert f"``{entry.qualified}``" in text and f":ref:`{entry.rule}`" in text
    assert "     - ::\n\n          Closed under the global context" not in text


def test_a_failing_check_is_an_error_on_the_page_and_a_build_warning(
    coq_docs: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object, **kwargs: object) -> str:
        raise coq_check.CoqCheckFailed("proofs/coq/Acyclic.v:3: 'Admitted' leaves a step unproved or assumes it")

    warned: list[str] = []
    monkeypatch.setattr(coq_docs.shutil, "which", lambda name: "/usr/bin/coqc")
    monkeypatch.setattr(coq_check, "check", fail)
    monkeypatch.setattr(coq_docs.LOG, "warning", lambda msg, *a: warned.append(msg % a))
    text = coq_docs.section()
    assert ".. error::" in text and "Admitted" in text
    assert warned and "Coq check FAILED" in warned[0]
    assert "     - ::\n\n          Closed under the global context" not in text


def test_a_passing_check_prints_coqs_assumptions_for_every_theorem(
    coq_docs: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = _entries()

    def passed(project: Path, build: Path, listing: Path, say: bool = True, **records: object) -> str:
        # The checker's listing format: a header, then per theorem its name line and Coq's output indented.
        lines = ["Coq theorems of proofs/coq/ and their assumptions", ""]
        for e in entries:
            lines += [f"{e.qualified}  ({e.file}; supports {e.rule})", f"    Closed under the global context {e.name}"]
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return f"Coq check PASSED: {len(entries)} theorems"

    monkeypatch.setattr(coq_docs.shutil, "which", lambda name: "/usr/bin/coqc")
    monkeypatch.setattr(coq_check, "check", passed)
    text = coq_docs.section()
    assert ".. warning::" not in text and ".. error::" not in text
    assert f"**Coq check PASSED: {len(entries)} theorems**" in text
    for e in entries:
        assert f"Closed under the global context {e.name}\n" in text, e.qualified
