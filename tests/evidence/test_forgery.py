"""Bundles edited by an adversary who recomputes every hash: ``sonnx evidence verify`` refuses each edit.

Each test forges one statement of a real bundle, keeps the manifest's hashes
consistent (:func:`rehash_all`), and checks that verify exits non-zero. The
campaign of ``make fuzz-evidence`` tries every file and field the same way;
these are the cases a review found first, kept as named regressions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sonnx.checking.evidence import verify as verify_mod
from tests.common.bundles import EX, copy_of, edit_json, rehash_all, verify, write


@pytest.fixture(scope="module")
def violated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle whose check finds GRAPH-R1 VIOLATED (a dead operation), with the SMT engine."""
    dest = tmp_path_factory.mktemp("forge") / "r1"
    assert write(dest, EX / "seed001_example.onnx", "--engine", "both") == 1
    return dest


@pytest.fixture(scope="module")
def differ(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle whose onnxruntime cross-check DIFFERs (a zero tolerance against a 60-ulp difference)."""
    dest = tmp_path_factory.mktemp("forge") / "cc"
    extra = ("--cross-check", "reference,onnxruntime", "--atol", "0", "--rtol", "0", "--ulp", "0")
    assert write(dest, EX / "cnn_block.onnx", *extra) == 1
    return dest


@pytest.mark.rule("GRAPH-R1")
def test_a_result_edited_in_the_manifest_without_a_rehash(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["result"].update(outcome="PROVED", exit_code=0))
    code, out = verify(d)
    assert code == 1 and "manifest.json: differs from the manifest the re-run check renders" in out
    assert "confirms" not in out


@pytest.mark.rule("GRAPH-R1")
def test_the_page_edited_from_violated_to_proved(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    page = (d / "report.html").read_text(encoding="utf-8")
    assert "VIOLATED" in page
    (d / "report.html").write_text(page.replace("VIOLATED", "PROVED"), encoding="utf-8")
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "report.html: differs from the file the re-run check renders" in out


def test_a_cross_check_rewritten_from_differ_to_agree(differ: Path, tmp_path: Path) -> None:
    d = copy_of(differ, tmp_path)

    def agree(doc: dict[str, Any]) -> None:
        rep = doc["report"]
        rep["outcome"], rep["exit_code"] = "AGREE", 0
        for o in rep["oracles"]:
            o["outcome"] = "AGREE"
            for out in o["outputs"]:
                out["ok"], out["outside"] = True, 0

    def tested(doc: dict[str, Any]) -> None:
        for v in doc["models"][0]["verdicts"]:
            if v["rule"].startswith("EXEC-CROSSCHECK") and v["status"] == "VIOLATED":
                v["status"], v["severity"] = "TESTED", "error"

    edit_json(d / "crosscheck.json", agree)
    edit_json(d / "verdicts.json", tested)
    edit_json(d / "manifest.json", lambda m: m["result"].update(outcome="TESTED", exit_code=0))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "crosscheck.json: differs from the file the re-run check renders" in out


@pytest.mark.rule("GRAPH-R1")
def test_a_fake_proved_entry_before_the_real_one(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)

    def insert(doc: dict[str, Any]) -> None:
        verdicts = doc["models"][0]["verdicts"]
        real = next(k for k, v in enumerate(verdicts) if v["rule"] == "GRAPH-R1")
        verdicts.insert(real, {**verdicts[real], "status": "PROVED", "witness": None})

    edit_json(d / "verdicts.json", insert)
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "verdicts.json: differs from the file the re-run check renders" in out


@pytest.mark.rule("GRAPH-R1")
def test_an_extra_obligation_listed_as_a_proof(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    first = sorted((d / "smt").glob("*.smt2"))[0]
    (d / "smt" / "999-r1.all_proved.smt2").write_bytes(first.read_bytes())

    def listed(doc: dict[str, Any]) -> None:
        doc["obligations"].append({**doc["obligations"][0], "file": "smt/999-r1.all_proved.smt2"})

    edit_json(d / "smt" / "answers.json", listed)
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "smt/999-r1.all_proved.smt2: a file no check of this model writes" in out


@pytest.mark.rule("GRAPH-R1")
def test_every_holds_when_flipped(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    flip = {"sat": "unsat", "unsat": "sat"}

    def flipped(doc: dict[str, Any]) -> None:
        for ob in doc["obligations"]:
            ob["holds_when"] = flip.get(ob["holds_when"], "sat")

    edit_json(d / "smt" / "answers.json", flipped)
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "smt/answers.json: differs from the file the re-run check renders" in out


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("name", ["v\u0435rdicts.json", "verdicts.json ", "Verdicts.json", "verdicts.js\u03bfn"])
def test_a_listed_file_with_a_look_alike_name(violated: Path, tmp_path: Path, name: str) -> None:
    d = copy_of(violated, tmp_path)
    (d / name).write_bytes((d / "verdicts.json").read_bytes())
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and f"{name}: a file no check of this model writes" in out


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("field", ["sonnx", "commit", "package_sha256", "dependencies.onnx", "platform.machine"])
def test_edited_tool_versions(violated: Path, tmp_path: Path, field: str) -> None:
    d = copy_of(violated, tmp_path)
    def edit(m: dict[str, Any]) -> None:
        *outer, last = ["build", *field.split(".")]
        target = m
        for k in outer:
            target = target[k]
        target[last] = "99.0"

    edit_json(d / "manifest.json", edit)
    rehash_all(d)
    code, out = verify(d)
    # exit 2 (a claim not re-derived), or 1 where the page also shows the field (the page then differs)
    assert code == (1 if field in ("sonnx", "commit") else 2)
    assert f"not re-derived: the recording build differs from this one: {field} '99.0'" in out
    assert "--trust build" in out and "verified" not in out


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("value", [0, None, "false"])
def test_a_build_field_of_another_json_type(violated: Path, tmp_path: Path, value: Any) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["build"].update(uncommitted_changes=value))  # was a bool
    rehash_all(d)
    code, out = verify(d)
    assert code == 2 and "uncommitted_changes" in out


@pytest.mark.rule("GRAPH-R1")
def test_an_edited_command_line(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["command_line"].extend(["--profile", "sonnx-strict"]))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "manifest.json: differs from the manifest the re-run check renders" in out


@pytest.mark.rule("GRAPH-R1")
def test_a_billion_orders_is_refused_at_once(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["options"].update(orders=1_000_000_000))
    rehash_all(d)
    code, out = verify(d)  # refused before any schedule runs: a run of them would not end within the suite
    assert code == 2
    assert out == ""  # a bundle whose options could not be given on the command line is unreadable


@pytest.mark.rule("GRAPH-R1")
def test_the_bundles_solver_limits_are_never_used(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "smt" / "answers.json", lambda a: a["solver"].update(rlimit=10**15, timeout_ms=10**9))
    edit_json(d / "manifest.json", lambda m: m["z3"].update(rlimit=10**15))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "smt/answers.json: differs" in out and "manifest.json: differs" in out


@pytest.mark.rule("GRAPH-R1")
def test_a_duplicate_key_hiding_a_result(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    text = (d / "manifest.json").read_text(encoding="utf-8")
    fake = '"result": {"outcome": "PROVED", "exit_code": 0, "counts": {}},\n  "files": {'
    (d / "manifest.json").write_text(text.replace('"files": {', fake), encoding="utf-8")  # JSON keeps the last
    code, out = verify(d)
    assert code == 2 and out == ""


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("text", ["[" * 100 + "]" * 100, '{"created": NaN}'])
def test_hostile_json_is_refused_in_one_line(violated: Path, tmp_path: Path, text: str) -> None:
    d = copy_of(violated, tmp_path)
    (d / "manifest.json").write_text(text)
    code, out = verify(d)
    assert code == 2 and out == ""


@pytest.mark.rule("GRAPH-R1")
def test_an_unknown_manifest_key(violated: Path, tmp_path: Path) -> None:
    d = copy_of(violated, tmp_path)
    edit_json(d / "manifest.json", lambda m: m.update(approved_by="the authority"))
    code, _ = verify(d)
    assert code == 2


def test_a_missing_runtime_is_named_and_refused_unless_trusted(
    differ: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as on a machine without the optional extra
    code, out = verify(differ)
    assert code == 2 and "not re-derived: the onnxruntime figures of crosscheck.json" in out
    assert "--trust crosscheck" in out
    code, out = verify(differ, "--trust", "crosscheck")
    assert code == 0, out
    assert "taken on trust: the onnxruntime figures of crosscheck.json" in out and "confirms" not in out
    assert out.startswith("verified but 1 claim taken on trust: ")
    # the trusted figures still decide the verdicts, which are re-derived from them: a flipped outcome is refused
    d = copy_of(differ, tmp_path)

    def agree(doc: dict[str, Any]) -> None:
        for o in doc["report"]["oracles"]:
            if o["oracle"] == "onnxruntime":
                o["outcome"] = "AGREE"

    edit_json(d / "crosscheck.json", agree)
    rehash_all(d)
    code, out = verify(d, "--trust", "crosscheck")
    assert code == 1 and "the outcome AGREE does not follow from the figures" in out


@pytest.mark.rule("GRAPH-R1")
def test_unknown_trust_kind_is_a_usage_error(violated: Path) -> None:
    code, out = verify(violated, "--trust", "everything")
    assert code == 2 and out == ""


@pytest.mark.rule("GRAPH-R1")
def test_verify_reports_its_time(violated: Path) -> None:
    code, out = verify(violated)
    assert code == 0 and out.splitlines()[-1].startswith("time: ")
    assert verify_mod.TRUST == ("build", "date", "crosscheck")


def _as_written_by(d: Path, version: str, ort: str | None) -> None:
    """Make ``d`` what another build would have written: another sonnx version (and onnxruntime version)."""
    text = {rel: (d / rel).read_text(encoding="utf-8") for rel in ("verdicts.json", "crosscheck.json", "report.html")}
    manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    mine = manifest["build"]["sonnx"]
    for rel, body in text.items():
        body = body.replace(f'"version": "{mine}"', f'"version": "{version}"')
        body = body.replace(f"sonnx {mine}", f"sonnx {version}")
        if ort is not None:
            body = body.replace(f"onnxruntime {manifest['build']['dependencies']['onnxruntime']}", f"onnxruntime {ort}")
        (d / rel).write_text(body, encoding="utf-8")

    def build(m: dict[str, Any]) -> None:
        m["build"]["sonnx"] = version
        if ort is not None:
            m["build"]["dependencies"]["onnxruntime"] = ort

    edit_json(d / "manifest.json", build)
    rehash_all(d)


def test_a_bundle_of_another_build_verifies_when_the_build_is_trusted(differ: Path, tmp_path: Path) -> None:
    d = copy_of(differ, tmp_path)
    _as_written_by(d, "9.9.9", None)
    code, out = verify(d)
    assert code == 2 and "not re-derived: the recording build differs from this one: sonnx '9.9.9'" in out
    code, out = verify(d, "--trust", "build")
    assert code == 0, out  # every file names the recording build; everything else was re-derived


def test_figures_of_another_runtime_version_are_not_confirmed(differ: Path, tmp_path: Path) -> None:
    d = copy_of(differ, tmp_path)
    _as_written_by(d, "9.9.9", "0.1.0")
    code, out = verify(d, "--trust", "build")
    assert code == 2 and "the onnxruntime figures of crosscheck.json (onnxruntime 0.1.0 recorded, onnxruntime" in out
    code, out = verify(d, "--trust", "build,crosscheck")
    assert code == 0, out
