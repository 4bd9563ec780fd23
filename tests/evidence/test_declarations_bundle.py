"""An evidence bundle of a check with ``--operator-declarations``: the file copied and hashed, the verdicts
re-derived with it by ``sonnx evidence verify``, and bundles without it unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sonnx.checking.options import RECORDED_KEYS, CheckOptions
from sonnx.checking.pipeline import check_file
from tests.common.bundles import edit_json, rehash, verify, write
from tests.common.custom_ops import FUSED_MATMUL, declare, fused_matmul_model


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    dest = tmp_path / "bundle"
    assert write(dest, fused_matmul_model(tmp_path / "m.onnx"), "--operator-declarations", str(decl)) == 0
    return dest


@pytest.mark.rule("GRAPH-R2")
def test_bundle_records_copies_and_verifies(bundle: Path) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    copy = bundle / "declarations" / "ops.toml"
    assert copy.read_text(encoding="utf-8") == FUSED_MATMUL
    assert manifest["options"]["operator_declarations"] == "ops.toml"
    assert tuple(manifest["options"]) == (*RECORDED_KEYS, "operator_declarations")
    listed = json.dumps(manifest["files"])
    assert "declarations/ops.toml" in listed and hashlib.sha256(copy.read_bytes()).hexdigest() in listed
    verdicts = json.loads((bundle / "verdicts.json").read_text(encoding="utf-8"))["models"][0]["verdicts"]
    r2 = next(v for v in verdicts if v["rule"] == "GRAPH-R2")
    assert r2["status"] == "PROVED" and r2["assumes"][0].startswith("operator declarations ops.toml")
    assert "assuming operator declarations ops.toml" in (bundle / "report.html").read_text(encoding="utf-8")
    code, out = verify(bundle)
    assert code == 0, out


def test_changed_declarations_fail_verification(bundle: Path) -> None:
    copy = bundle / "declarations" / "ops.toml"
    copy.write_text(FUSED_MATMUL.replace("deterministic = true", "deterministic = false"), encoding="utf-8")
    rehash(bundle, "declarations/ops.toml")  # a forger who also fixes the digest: the replay still differs
    code, out = verify(bundle)
    assert code != 0 and "verdicts.json" in out, out


def test_declarations_key_without_the_copy_is_refused(bundle: Path) -> None:
    def drop(m: dict) -> None:  # type: ignore[type-arg]
        del m["options"]["operator_declarations"]

    edit_json(bundle / "manifest.json", drop)
    code, out = verify(bundle)
    assert code != 0 and "declarations/ops.toml: a file no check of this model writes" in out, out


def test_recorded_options_without_declarations_are_unchanged(tmp_path: Path) -> None:
    opts = CheckOptions()
    assert tuple(opts.recorded()) == RECORDED_KEYS
    assert CheckOptions.from_recorded(opts.recorded(), None) == opts
    decl = declare(tmp_path / "ops.toml", FUSED_MATMUL)
    with_decl = CheckOptions(operator_declarations=str(decl))
    back = CheckOptions.from_recorded(with_decl.recorded(), None, declarations=str(decl))
    assert back.declarations == with_decl.declarations
    assert check_file(str(fused_matmul_model(tmp_path / "m.onnx")), back).exit_code == 0
