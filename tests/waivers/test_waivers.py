"""``--waivers FILE``: covered findings WAIVED (never PROVED); partial cover, stale, expired, other model, bad file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import helper

import sonnx
from sonnx.base.errors import UsageError
from sonnx.base.verdict import Status, Verdict, Witness
from sonnx.checking.waivers import offenders
from tests.common.builders import fvi, make_model
from tests.common.cli import EXAMPLES, check, one_line

C2 = EXAMPLES / "c2_unused_input.onnx"
DEAD = EXAMPLES / "r1_dead_chain.onnx"
DATE = "2026-11-27"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def entry(model: Path, rule: str, target: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """One waiver entry (tensor 'spare' of GRAPH-C2's example unless ``target`` says otherwise)."""
    out: dict[str, Any] = {
        "id": more.pop("id", f"W-{rule}"), "rule": rule, "model_sha256": sha(model),
        **(target if target is not None else {"scope": "unused_input", "tensor": "spare"}),
        "justification": "kept for the interface of the v1 harness", "author": "A. Reviewer", "date": "2026-11-01",
    }
    out.update(more)
    return out


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v)  # a JSON string or number is a TOML basic string or number


def write(tmp: Path, entries: list[dict[str, Any]], *, shared: bool | None = None, head: str = "") -> Path:
    lines = [head or 'schema = "sonnx-waivers/1"']
    if shared is not None:
        lines.append(f"shared = {toml_value(shared)}")
    for e in entries:
        lines.append("\n[[waiver]]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in e.items())
    path = tmp / "waivers.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_json(model: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = check("-q", "--engine", "direct", "--json", *extra, str(model))
    return code, json.loads(out)["models"][0], err


def verdict(model_json: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(v for v in model_json["verdicts"] if v["rule"] == rule)


@pytest.mark.rule("GRAPH-C2")
def test_a_covered_violation_is_waived_never_proved_and_the_waiver_is_listed(tmp_path: Path) -> None:
    w = write(tmp_path, [entry(C2, "GRAPH-C2")])
    code, m, _ = run_json(C2, "--waivers", str(w), "--waivers-date", DATE)
    assert code == 0 and m["outcome"] == "WAIVED" and m["exit_code"] == 0
    v = verdict(m, "GRAPH-C2")
    assert v["status"] == "WAIVED" and v["original"]["status"] == "VIOLATED"
    assert v["original"]["witness"]["unused"][0]["input"] == "spare"
    assert [e["id"] for e in v["details"]["waivers"]] == ["W-GRAPH-C2"]
    assert m["counts"]["waived"] == 1 and m["counts"]["proved"] == len(m["verdicts"]) - 1
    assert m["waivers"]["date"] == DATE and m["waivers"]["sha256"] == sha(w)
    assert m["waivers"]["used"] == [{**v["details"]["waivers"][0], "result": "waived"}]
    code, text, _ = check("-q", "--engine", "direct", "--waivers", str(w), "--waivers-date", DATE, str(C2))
    assert code == 0 and "result: WAIVED" in text and "result: PROVED" not in text
    assert "waived by W-GRAPH-C2 (tensor 'spare' in unused_input): A. Reviewer, 2026-11-01" in text


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE")
@pytest.mark.parametrize("name", ["neg", "Neg:neg"])
def test_an_operation_is_named_by_its_onnx_name_or_its_witness_label(tmp_path: Path, name: str) -> None:
    op = {"scope": "dead_chain", "operation": name}
    entries = [
        entry(DEAD, "GRAPH-R1", op),
        entry(DEAD, "GRAPH-R1-OUTPUTS", {"scope": "dead_chain", "tensor": "b"}),
        entry(DEAD, "GRAPH-R1-TRANSITIVE", op, id="W-T1"),
        entry(DEAD, "GRAPH-R1-TRANSITIVE", {"scope": "dead_chain", "operation": "abs"}, id="W-T2"),
    ]
    code, m, _ = run_json(DEAD, "--waivers", str(write(tmp_path, entries)), "--waivers-date", DATE)
    assert code == 0 and m["outcome"] == "WAIVED"
    assert {v["rule"] for v in m["verdicts"] if v["status"] == "WAIVED"} == {
        "GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE"}


@pytest.mark.rule("GRAPH-R1-TRANSITIVE")
def test_a_partly_covered_violation_stays_violated_and_names_what_remains(tmp_path: Path) -> None:
    entries = [
        entry(DEAD, "GRAPH-R1", whole := {"whole": True}),
        entry(DEAD, "GRAPH-R1-OUTPUTS", whole),
        entry(DEAD, "GRAPH-R1-TRANSITIVE", {"scope": "dead_chain", "operation": "neg"}),
    ]
    code, m, _ = run_json(DEAD, "--waivers", str(write(tmp_path, entries)), "--waivers-date", DATE)
    assert code == 1 and m["outcome"] == "VIOLATED"
    v = verdict(m, "GRAPH-R1-TRANSITIVE")
    assert v["status"] == "VIOLATED"
    assert v["details"]["waivers"] == {
        "covered_by": ["W-GRAPH-R1-TRANSITIVE"], "remaining": ["operation 'Abs:abs' in dead_chain"], "not_listed": 0}
    assert {e["id"]: e["result"] for e in m["waivers"]["used"]}["W-GRAPH-R1-TRANSITIVE"] == (
        "covers part of the finding")


def test_offenders_the_witness_counts_but_does_not_list_are_never_covered() -> None:
    w = Witness("2 dead", {"count": 2, "dead": [{"scope": "g", "index": 0, "operation": "Neg:n"}]})
    found, unlisted = offenders(w)
    assert [o.shown for o in found] == ["operation 'Neg:n' in g"] and unlisted == 1


@pytest.mark.rule("GRAPH-C2", "GRAPH-C1")
@pytest.mark.parametrize(
    ("rule", "target", "why"),
    [
        ("GRAPH-C1", None, "its verdict is PROVED"),
        ("GRAPH-C2", {"scope": "unused_input", "tensor": "other"}, "its verdict is VIOLATED"),
        ("GRAPH-C2", {"scope": "elsewhere", "tensor": "spare"}, "its verdict is VIOLATED"),
        ("EXEC-ORDERS", {"whole": True}, "the check gives no verdict for it"),
    ],
)
def test_a_waiver_that_matches_nothing_is_an_error(tmp_path: Path, rule: str, target: Any, why: str) -> None:
    w = write(tmp_path, [entry(C2, rule, target, id="W-9")])
    code, out, err = check("-q", "--engine", "direct", "--waivers", str(w), "--waivers-date", DATE, str(C2))
    one_line(code, out, err)
    assert f"waiver 'W-9' ({rule}" in err and "matches nothing" in err and why in err


@pytest.mark.parametrize(
    ("dates", "message"),
    [
        ({"expires": "2026-11-26"}, "expired on 2026-11-26 (the check's date is 2026-11-27)"),
        ({"date": "2026-11-28"}, "dated 2026-11-28, after the check's date 2026-11-27"),
    ],
)
def test_an_expired_or_future_waiver_is_an_error_before_the_check(
    tmp_path: Path, dates: dict[str, str], message: str
) -> None:
    w = write(tmp_path, [entry(C2, "GRAPH-C2", **dates)])
    code, out, err = check("-q", "--engine", "direct", "--waivers", str(w), "--waivers-date", DATE, str(C2))
    one_line(code, out, err)
    assert "waiver 'W-GRAPH-C2' (GRAPH-C2)" in err and message in err
    valid_on = dates.get("date", dates.get("expires"))  # the same entry, judged on its first or last valid day
    code, m, _ = run_json(C2, "--waivers", str(w), "--waivers-date", str(valid_on))
    assert code == 0 and m["outcome"] == "WAIVED"


def test_the_check_date_defaults_to_today_and_is_recorded(tmp_path: Path) -> None:
    w = write(tmp_path, [entry(C2, "GRAPH-C2", expires="2999-12-31")])
    code, m, _ = run_json(C2, "--waivers", str(w))
    assert code == 0 and len(m["waivers"]["date"]) == 10


def test_a_waiver_for_another_model_is_an_error_unless_the_file_is_shared(tmp_path: Path) -> None:
    other = entry(DEAD, "GRAPH-R1", {"whole": True}, id="W-OTHER")
    w = write(tmp_path, [entry(C2, "GRAPH-C2"), other])
    code, out, err = check("-q", "--engine", "direct", "--waivers", str(w), "--waivers-date", DATE, str(C2))
    one_line(code, out, err)
    assert "waiver 'W-OTHER' (GRAPH-R1) is for the model with SHA-256" in err and "shared = true" in err
    code, m, _ = run_json(C2, "--waivers", str(write(tmp_path, [entry(C2, "GRAPH-C2"), other], shared=True)),
                          "--waivers-date", DATE)
    assert code == 0 and [e["id"] for e in m["waivers"]["used"]] == ["W-GRAPH-C2"]


GOOD = {"schema": "sonnx-waivers/1"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"drop": "author"}, "waiver 'W-GRAPH-C2': missing 'author'"),
        ({"set": {"owner": "x"}}, "unknown key 'owner'"),
        ({"set": {"model_sha256": "ABC"}}, "'model_sha256' must be 64 lowercase hexadecimal digits"),
        ({"set": {"date": "27/11/2026"}}, "'date' must be a date YYYY-MM-DD"),
        ({"set": {"expires": "2026-10-01"}}, "expires (2026-10-01) before its date (2026-11-01)"),
        ({"set": {"operation": "n"}}, "give exactly one of 'operation', 'tensor' or 'whole = true'"),
        ({"drop": "scope"}, "'tensor' needs the 'scope'"),
        ({"set": {"rule": "GRAPH-C99"}}, "unknown rule 'GRAPH-C99'"),
        ({"set": {"justification": " "}}, "'justification' must be a non-empty string"),
        ({"twice": True}, "waiver 'W-GRAPH-C2': the id is used twice"),
        ({"head": 'schema = "sonnx-waivers/2"'}, "expected schema = 'sonnx-waivers/1' at the top"),
        ({"head": 'schema = "sonnx-waivers/1"\nshared = "yes"'}, "'shared' must be true or false"),
        ({"head": "schema = [unclosed"}, "not a TOML file"),
        ({"head": 'schema = "sonnx-waivers/1"\nx = ' + "[" * 100_000}, "nested too deeply"),
    ],
)
def test_a_malformed_waivers_file_is_one_line_and_exit_2(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    e = entry(C2, "GRAPH-C2")
    for key in [change.get("drop")] if "drop" in change else []:
        del e[key]
    e.update(change.get("set", {}))
    w = write(tmp_path, [e, e] if change.get("twice") else [e], head=change.get("head", ""))
    code, out, err = check("-q", "--engine", "direct", "--waivers", str(w), "--waivers-date", DATE, str(C2))
    one_line(code, out, err)
    assert message in err and str(w) in err


def test_a_missing_waivers_file_and_a_bad_date_are_usage_errors(tmp_path: Path) -> None:
    code, out, err = check("-q", "--waivers", str(tmp_path / "none.toml"), str(C2))
    one_line(code, out, err)
    assert "cannot read it" in err
    w = write(tmp_path, [entry(C2, "GRAPH-C2")])
    for args in (["--waivers", str(w), "--waivers-date", "2026-13-01"], ["--waivers-date", DATE]):
        code, out, err = check("-q", *args, str(C2))
        one_line(code, out, err)
        assert "--waivers-date" in err


def custom_op_model(tmp: Path) -> Path:
    node = helper.make_node("Mystery", ["x"], ["y"], name="m", domain="com.example")
    path = tmp / "custom.onnx"
    onnx.save(make_model([node], [fvi("x")], [fvi("y")], opsets=(("", 17), ("com.example", 1))), path)
    return path


@pytest.mark.rule("GRAPH-R2")
def test_an_unknown_verdict_is_waived_only_by_a_whole_entry(tmp_path: Path) -> None:
    model = custom_op_model(tmp_path)
    code, m, _ = run_json(model)
    unknown = [v["rule"] for v in m["verdicts"] if v["status"] == "UNKNOWN"]
    assert code == 2 and "GRAPH-R2" in unknown
    code, out, err = check("-q", "--engine", "direct", "--waivers", str(write(tmp_path, [
        entry(model, "GRAPH-R2", {"scope": "main", "operation": "m"})])), "--waivers-date", DATE, str(model))
    one_line(code, out, err)
    assert "matches nothing" in err and "its verdict is UNKNOWN" in err
    w = write(tmp_path, [entry(model, rule, {"whole": True}) for rule in unknown])
    code, m, _ = run_json(model, "--waivers", str(w), "--waivers-date", DATE)
    assert code == 0 and m["outcome"] == "WAIVED"
    v = verdict(m, "GRAPH-R2")
    assert v["status"] == "WAIVED" and v["original"]["status"] == "UNKNOWN" and v["original"]["reason"]


def test_the_api_takes_waivers_and_refuses_them_for_a_model_in_memory(tmp_path: Path) -> None:
    w = write(tmp_path, [entry(C2, "GRAPH-C2")])
    report = sonnx.check(C2, engine="direct", waivers=w, waivers_date=DATE)
    assert report.exit_code == 0 and report.outcome == "WAIVED"
    assert report.verdict("GRAPH-C2").status is Status.WAIVED  # type: ignore[union-attr]
    with pytest.raises(UsageError, match="SHA-256"):
        sonnx.check(sonnx.load(C2), engine="direct", waivers=w, waivers_date=DATE)


def test_the_verdict_type_keeps_its_invariants() -> None:
    proved = Verdict.proved("GRAPH-C2")
    with pytest.raises(ValueError, match="VIOLATED or UNKNOWN"):
        Verdict.waived(proved, [{"id": "W"}])
    bad = Verdict.violated("GRAPH-C2", Witness("x"))
    with pytest.raises(ValueError, match="names the waivers"):
        Verdict.waived(bad, [])
    with pytest.raises(ValueError, match="original verdict exactly when it is WAIVED"):
        Verdict("GRAPH-C2", Status.PROVED, original=bad)
    with pytest.raises(ValueError, match="selection"):
        Verdict.not_checked("GRAPH-C2", {})
    assert not Verdict.waived(bad, [{"id": "W"}]).fails
