"""The docs build reads a recorded run of the theorems only for the very same inputs, and never hides a failure.

``proofs/_record.py`` keeps every theorem's result and report from a run of all of them in one process
(``python -m proofs --json --record DIR``: the run in registry order of ``test_proofs_isolation.py``)
under the SHA-256 of the code that ran and of the installed versions; ``docs/_ext/sonnx_docs.py`` publishes
that record instead of running the theorems again. These tests plant each way a record could hide a
change: a record that is malformed, names another digest, lacks a theorem or part of a result; a changed,
added or moved file; and a recorded FAILED must still be published as FAILED.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from proofs import _record, registry, rewrite_identity

ROOT = Path(__file__).resolve().parents[2]


def _result(proved: bool = True) -> dict[str, Any]:
    outcome = {"name": "claim", "ok": proved, "detail": "valid" if proved else "counterexample: x = 0",
               "needs_hypotheses": None, "rests_on": [], "evidence": True, "obligation": True}
    return {"theorem": "T", "proved": proved, "verdict": "PROVED" if proved else "FAILED", "review_items": [],
            "proved_in_coq": [], "outcomes": [outcome]}


def _entry(proved: bool = True) -> dict[str, Any]:
    return {"result": _result(proved), "report": "PROVED: T\n" if proved else "FAILED: T\n"}


@pytest.mark.parametrize(
    "change",
    ["malformed", "other-digest", "other-format", "missing-theorem", "extra-theorem", "no-report", "part-result",
     "outcomes-not-list", "not-an-object"],
)
def test_an_unusable_record_is_not_read(tmp_path: Path, change: str) -> None:
    record = tmp_path / "abc123.json"
    data: Any = {"format": _record.FORMAT, "digest": "abc123", "theorems": {"a": _entry(), "b": _entry()}}
    if change == "other-digest":
        data["digest"] = "another"
    elif change == "other-format":
        data["format"] = 0
    elif change == "missing-theorem":
        del data["theorems"]["b"]
    elif change == "extra-theorem":
        data["theorems"]["c"] = _entry()
    elif change == "no-report":
        del data["theorems"]["a"]["report"]
    elif change == "part-result":
        del data["theorems"]["b"]["result"]["review_items"]
    elif change == "outcomes-not-list":
        data["theorems"]["a"]["result"]["outcomes"] = "ok"
    elif change == "not-an-object":
        data = [data]
    text = "{not json" if change == "malformed" else json.dumps(data)
    record.write_text(text, encoding="utf-8")
    assert _record.recall(record, ["a", "b"]) is None


def test_a_written_record_is_read_back_whole_and_in_the_order_asked(tmp_path: Path) -> None:
    record = tmp_path / "records" / "abc123.json"
    _record.remember(record, {"a": _entry(), "b": _entry(False)})
    assert _record.recall(record, ["b", "a"]) == {"b": _entry(False), "a": _entry()}
    assert list(_record.recall(record, ["b", "a"]) or {}) == ["b", "a"]
    assert _record.recall(tmp_path / "records" / "absent.json", ["a", "b"]) is None
    assert [p.name for p in record.parent.iterdir()] == ["abc123.json"]


def _tree(tmp_path: Path) -> list[Path]:
    first, second = tmp_path / "proofs", tmp_path / "sonnx"
    (first / "sub").mkdir(parents=True)
    second.mkdir()
    (first / "a.py").write_text("A = 1\n", encoding="utf-8")
    (first / "sub" / "b.json").write_text("{}\n", encoding="utf-8")
    (second / "c.py").write_text("C = 2\n", encoding="utf-8")
    return [first, second]


@pytest.mark.parametrize("edit", ["changed", "added", "removed", "moved", "data-file"])
def test_the_digest_changes_with_every_file_of_the_packages(tmp_path: Path, edit: str) -> None:
    folders = _tree(tmp_path)
    before = _record.inputs_digest(folders)
    assert _record.inputs_digest(folders) == before
    first, second = folders
    if edit == "changed":
        (second / "c.py").write_text("C = 3\n", encoding="utf-8")
    elif edit == "added":
        (second / "d.py").write_text("", encoding="utf-8")
    elif edit == "removed":
        (first / "a.py").unlink()
    elif edit == "moved":
        (first / "a.py").rename(first / "sub" / "a.py")
    else:
        (first / "sub" / "b.json").write_text("{ }\n", encoding="utf-8")
    assert _record.inputs_digest(folders) != before


def test_the_digest_ignores_compiled_caches_and_covers_the_packages_that_run(tmp_path: Path) -> None:
    folders = _tree(tmp_path)
    before = _record.inputs_digest(folders)
    (folders[0] / "__pycache__").mkdir()
    (folders[0] / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert _record.inputs_digest(folders) == before
    # the version module setuptools-scm writes (a wheel built by a test writes it mid-run)
    (folders[1] / "base").mkdir()
    (folders[1] / "base" / "_version.py").write_text("version = '1.0.dev1+g123'\n", encoding="utf-8")
    assert _record.inputs_digest(folders) == before
    (folders[1] / "base" / "_versions.py").write_text("", encoding="utf-8")
    assert _record.inputs_digest(folders) != before
    assert [p.name for p in _record.package_folders()] == ["proofs", "sonnx"]
    assert _record.package_folders()[0] == ROOT / "proofs"


def test_a_record_is_kept_only_for_a_run_of_every_theorem(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "proofs", "rewrite_identity", "--record", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "--record" in proc.stderr and proc.stdout == ""
    assert not list(tmp_path.iterdir())


@pytest.fixture
def docs_ext(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """``sonnx_docs`` with its records folder in ``tmp_path``."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        module = importlib.import_module("sonnx_docs")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    monkeypatch.setattr(module, "PROOF_RECORDS", tmp_path / "records")
    yield module


def test_the_docs_publish_a_recorded_failure_as_failed_without_running_the_theorems(
    docs_ext: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    names = list(registry.MODULES)
    kept = {name: _entry(name != "rewrite_identity") for name in names}
    _record.remember(tmp_path / "records" / f"{_record.inputs_digest()}.json", kept)
    for name in names:
        module = importlib.import_module(f"proofs.{name}")
        monkeypatch.setattr(module, "check", lambda: pytest.fail("a theorem ran although a record was there"))
    results = docs_ext.run_proofs()
    assert [r["module"] for r in results] == [f"proofs/{name}.py" for name in names]
    failed = [r for r in results if r["result"] == "FAILED"]
    assert [r["id"] for r in failed] == [rewrite_identity.ID]
    assert failed[0]["report"] == "FAILED: T\n" and failed[0]["outcomes"][0]["ok"] is False
    assert f"theorem {rewrite_identity.ID}" in caplog.text and "FAILED" in caplog.text
    assert all(r["evidence"] == [1, 1] for r in results)


def test_the_docs_run_the_theorems_without_a_record_of_their_inputs_and_record_them(
    docs_ext: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "MODULES", ("rewrite_identity",))
    # a record of other inputs is there: not read
    _record.remember(tmp_path / "records" / "0123abcd.json", {"rewrite_identity": _entry(False)})
    [first] = docs_ext.run_proofs()
    assert first["result"].startswith("PROVED") and first["report"].startswith("PROVED")
    assert len(list((tmp_path / "records").glob("*.json"))) == 2
    monkeypatch.setattr(rewrite_identity, "check", lambda: pytest.fail("ran again although recorded"))
    assert docs_ext.run_proofs() == [first]
