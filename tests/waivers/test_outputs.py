"""Waived and not-checked verdicts in every output: SARIF (against the official schema), JUnit, the evidence bundle."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.common.bundles import edit_json, flip_byte, rehash_all, verify, write
from tests.common.cli import EXAMPLES, ROOT, check

C2 = EXAMPLES / "c2_unused_input.onnx"
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
pytestmark = pytest.mark.rule("GRAPH-C2")


def waivers_file(tmp: Path, expires: str = "2026-06-30") -> Path:
    digest = hashlib.sha256(C2.read_bytes()).hexdigest()
    path = tmp / "waivers.toml"
    path.write_text(
        'schema = "sonnx-waivers/1"\n\n[[waiver]]\nid = "W-7"\nrule = "GRAPH-C2"\n'
        f'model_sha256 = "{digest}"\nscope = "unused_input"\ntensor = "spare"\n'
        'justification = "the v1 harness feeds it"\nauthor = "B. Safety"\ndate = 2026-01-02\n'
        f"expires = {expires}\n",
        encoding="utf-8",
    )
    return path


ARGS = ("--engine", "direct", "--waivers-date", "2026-01-15", "--ignore", "GRAPH-R1")


def test_sarif_carries_waived_results_as_suppressions_and_left_out_rules_as_disabled(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    code, _, _ = check("-q", *ARGS, "--waivers", str(waivers_file(tmp_path)), "--sarif", str(sarif), str(C2))
    assert code == 2  # PARTIAL: GRAPH-R1 was left out
    log = json.loads(sarif.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls(SCHEMA, format_checker=cls.FORMAT_CHECKER).validate(log)
    run = log["runs"][0]
    (result,) = [r for r in run["results"] if r["ruleId"] == "GRAPH-C2"]
    assert result["level"] == "error" and result["properties"]["status"] == "WAIVED"
    assert result["suppressions"] == [{
        "kind": "external", "status": "accepted", "justification": "the v1 harness feeds it",
        "properties": {"id": "W-7", "covers": "tensor 'spare' in unused_input", "author": "B. Safety",
                       "date": "2026-01-02", "expires": "2026-06-30"},
    }]
    inv = run["invocations"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [(o["descriptor"]["id"], o["configuration"]) for o in inv["ruleConfigurationOverrides"]] == [
        (rid, {"enabled": False}) for rid in ("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE")]
    assert rules[inv["ruleConfigurationOverrides"][0]["descriptor"]["index"]]["id"] == "GRAPH-R1"
    assert run["properties"]["models"][0]["outcome"] == "PARTIAL"


def test_junit_passes_a_waived_rule_saying_by_whom_and_why_and_skips_a_rule_left_out(tmp_path: Path) -> None:
    junit = tmp_path / "out.xml"
    check("-q", *ARGS, "--waivers", str(waivers_file(tmp_path)), "--junit", str(junit), str(C2))
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    waived = cases["GRAPH-C2"]
    assert waived.find("failure") is None and waived.find("error") is None
    out = waived.findtext("system-out") or ""
    assert out.startswith("WAIVED") and "B. Safety" in out and "the v1 harness feeds it" in out and "spare" in out
    skipped = cases["GRAPH-R1"].find("skipped")
    assert skipped is not None and "NOT CHECKED" in (skipped.get("message") or "")
    assert suite.get("skipped") == "3" and suite.get("failures") == "0" and suite.get("errors") == "0"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["outcome"] == "PARTIAL" and props["exit_code"] == "2"


def test_the_bundle_records_the_waivers_and_selection_and_verify_rederives_them(tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    assert write(dest, C2, *ARGS, "--waivers", str(waivers_file(tmp_path))) == 2
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    opts = manifest["options"]
    assert (opts["select"], opts["ignore"], opts["waivers"], opts["waivers_date"]) == (
        None, ["GRAPH-R1"], "waivers.toml", "2026-01-15")
    assert "waivers/waivers.toml" in manifest["files"]
    assert manifest["result"]["outcome"] == "PARTIAL" and manifest["result"]["counts"]["waived"] == 1
    assert "--waivers" in manifest["command_line"] and "waivers/waivers.toml" in manifest["command_line"]
    page = (dest / "report.html").read_text(encoding="utf-8")
    assert "<h2>Waivers</h2>" in page and "the v1 harness feeds it" in page and "<h2>Rule selection</h2>" in page
    # the entry expired on 2026-06-30: the bundle is judged on its recorded date, not on the day it is verified
    code, out = verify(dest)
    assert code == 0, out
    assert "judged on the check's recorded date 2026-01-15" in out


def test_a_bundle_whose_waivers_copy_was_changed_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    write(dest, C2, *ARGS, "--waivers", str(waivers_file(tmp_path)))
    copy = dest / "waivers" / "waivers.toml"
    flip_byte(copy, copy.read_bytes().index(b"v1"))
    code, out = verify(dest)
    assert code == 1 and "waivers/waivers.toml: SHA-256 differs" in out
    rehash_all(dest)  # a careful forger: the justification changed and every hash updated
    code, out = verify(dest)
    assert code == 1 and "verdicts.json: differs" in out


def test_a_bundle_whose_recorded_date_was_moved_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    write(dest, C2, *ARGS, "--waivers", str(waivers_file(tmp_path)))

    def later(m: Any) -> None:
        m["options"]["waivers_date"] = "2026-12-01"

    edit_json(dest / "manifest.json", later)
    code, out = verify(dest)
    assert code == 1 and "expired on 2026-06-30" in out


def test_a_bundle_without_waivers_or_selection_records_no_such_key(tmp_path: Path) -> None:
    from sonnx.checking.options import RECORDED_KEYS

    dest = tmp_path / "bundle"
    write(dest, C2, "--engine", "direct")
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    assert tuple(manifest["options"]) == RECORDED_KEYS
    assert set(manifest["result"]["counts"]) == {"errors", "warnings", "unknown", "proved", "tested"}
