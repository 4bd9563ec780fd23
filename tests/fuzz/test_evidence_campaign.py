"""The tamper campaign in CI: a short seeded run on one small bundle, and the mutator's and oracle's own checks.

``make fuzz-evidence`` runs the long campaign over every clean bundle.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz import evidence_bundles as eb
from tests.fuzz import evidence_campaign as ec
from tests.fuzz import evidence_json as ej
from tests.fuzz.evidence_mutations import (
    MANIFEST,
    Mutation,
    apply,
    lookalikes,
    mutations,
    rehash,
    seeded_order,
)

SEED = 20261127
SHORT = 20


def test_a_short_seeded_campaign_finds_no_survivor() -> None:
    began = time.monotonic()
    summary = ec.campaign(SEED, SHORT, bundles=(eb.CI_BUNDLE,))
    assert not summary.unusable(), summary.baseline
    assert len(summary.records) == SHORT
    failures = [f"{r['outcome']} {r['id']}: {r['description']}" for r in summary.failures()]
    assert not failures, "verify accepted hash-consistent forgeries:\n" + "\n".join(failures)
    assert time.monotonic() - began < 60


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tamper")


@pytest.fixture(scope="module")
def clean(work: Path) -> dict[str, dict[str, bytes]]:
    """Every clean bundle of the campaign (about 2 s)."""
    return eb.clean_bundles(work)


def _described(clean: dict[str, dict[str, bytes]], bundle: str, file: str, kind: str, text: str) -> list[str]:
    """Ids of the mutations of ``kind`` on ``file`` of ``bundle`` whose description contains ``text``."""
    found = []
    for m in mutations(bundle, clean[bundle], SEED):
        if m.file == file and m.kind == kind and text in apply(m, clean[bundle])[1]:
            found.append(m.id)
    return found


@pytest.mark.rule("GRAPH-R1")
def test_the_forgeries_of_the_issue_are_among_the_mutations(clean: dict[str, dict[str, bytes]]) -> None:
    smt = sorted(rel for rel in clean["violated"] if rel.endswith(".smt2"))[0]
    r1 = next(i for i, v in enumerate(json.loads(clean["violated"]["verdicts.json"])["models"][0]["verdicts"])
              if v["rule"] == "GRAPH-R1")
    wanted = {
        "result set to PROVED": ("violated", MANIFEST, "json-vocab", '/result/outcome: "VIOLATED" -> "PROVED"'),
        "report.html edited": ("violated", "report.html", "text-vocab", "VIOLATED replaced by PROVED"),
        "cross-check rewritten": ("crosscheck", "crosscheck.json", "json-vocab", '"AGREE" -> "DIFFER"'),
        "fake entry before GRAPH-R1": ("violated", "verdicts.json", "json-fakeentry", f"/models/0/verdicts/{r1} "),
        "extra obligation file": ("violated", smt, "extra", "new file"),
        "holds_when flipped": ("violated", "smt/answers.json", "json-vocab", '/holds_when: "sat" -> "unsat"'),
        "look-alike of verdicts.json": ("violated", "verdicts.json", "lookalike-add", "Cyrillic"),
        "tool version edited": ("violated", MANIFEST, "json-value", "/build/dependencies/onnx:"),
        "command line edited": ("violated", MANIFEST, "json-value", "/command_line/"),
        "orders in the billions": ("orders", MANIFEST, "json-huge", "/options/orders: 3 -> 1000000000"),
    }
    missing = [what for what, args in wanted.items() if not _described(clean, *args)]
    assert not missing, missing


def _every(clean: dict[str, dict[str, bytes]]) -> list[Mutation]:
    return [m for name, files in clean.items() for m in mutations(name, files, SEED)]


def _first_of_each_kind(clean: dict[str, dict[str, bytes]]) -> Iterator[Mutation]:
    seen: set[str] = set()
    for m in _every(clean):
        if m.kind not in seen:
            seen.add(m.kind)
            yield m


def _hashes_consistent(files: dict[str, bytes]) -> list[str]:
    """What a hash check finds wrong in ``files`` (written apart from the rehash it checks)."""
    manifest = json.loads(files[MANIFEST])
    wrong = []
    present = {rel for rel in files if rel != MANIFEST}
    if set(manifest["files"]) != present:
        wrong.append(f"listing {sorted(set(manifest['files']) ^ present)}")
    wrong += [rel for rel, digest in manifest["files"].items()
              if rel in files and hashlib.sha256(files[rel]).hexdigest() != digest]
    for entry in [manifest["model"], *manifest["model"]["external_data"]]:
        data = files.get(entry["file"])
        if data is not None and (entry["sha256"], entry["size"]) != (hashlib.sha256(data).hexdigest(), len(data)):
            wrong.append(entry["file"])
    return wrong


def test_the_clean_bundles_are_written_in_the_bundle_json_style(clean: dict[str, dict[str, bytes]]) -> None:
    for files in clean.values():
        assert _hashes_consistent(files) == []
        same = dict(files)
        rehash(same)
        assert same == files  # rehashing a clean bundle changes nothing
        for rel, data in files.items():
            if rel.endswith(".json"):
                tree = json.loads(data)
                assert ej.dump(tree) == data and (ej.emit(tree) + "\n").encode() == data, rel


def test_every_kind_gives_a_different_rehashed_bundle(clean: dict[str, dict[str, bytes]]) -> None:
    kinds = set()
    for m in _first_of_each_kind(clean):
        kinds.add(m.kind)
        mutant, what = apply(m, clean[m.bundle])
        assert mutant != clean[m.bundle] and what, m.id
        if m.rehashed and MANIFEST in mutant:
            assert _hashes_consistent(mutant) == [], m.id
    expected = {"byte", "truncate", "delete", "duplicate", "extra", "lookalike-rename", "lookalike-add",
                "subject-byte", "subject-truncate", "smt-answer", "smt-assert", "text-vocab",
                *ej.KINDS_OF_NODE, *ej.KINDS_OF_KEY, *ej.KINDS_OF_DICT, *ej.KINDS_OF_ENTRY}
    assert kinds == expected


def test_an_edit_of_the_manifest_hashes_is_not_undone(clean: dict[str, dict[str, bytes]]) -> None:
    files = clean[eb.CI_BUNDLE]
    m = Mutation(eb.CI_BUNDLE, MANIFEST, "json-value", ("files", "verdicts.json"), 0, SEED)
    mutant, _ = apply(m, files)
    assert not m.rehashed and _hashes_consistent(mutant) == ["verdicts.json"]


def _verify(files: dict[str, bytes], where: Path) -> dict[str, Any]:
    from sonnx.checking.replay import verify_bundle

    v = verify_bundle(str(eb.materialize(files, where)))
    return {"differences": v.differences}


def test_the_rehash_makes_the_hash_check_pass(clean: dict[str, dict[str, bytes]], tmp_path: Path) -> None:
    files = clean[eb.CI_BUNDLE]
    m = Mutation(eb.CI_BUNDLE, "verdicts.json", "json-vocab", ("models", 0, "verdicts", 0, "status"), 0, SEED)
    mutant, what = apply(m, files)
    assert what.endswith('"PROVED" -> "VIOLATED"')
    stale = dict(mutant)
    stale[MANIFEST] = files[MANIFEST]  # the same edit without the rehash
    found = _verify(stale, tmp_path / "stale")["differences"]
    assert any("verdicts.json" in d and "SHA-256" in d for d in found), found
    found = _verify(mutant, tmp_path / "rehashed")["differences"]
    assert found and not any("SHA-256" in d for d in found), found


def test_look_alike_names_really_differ(tmp_path: Path) -> None:
    for name in ("verdicts.json", "manifest.json", "réseau.onnx", "entrées.npz", "001-c1.distinct.smt2"):
        pairs = lookalikes(name)
        labels = [label for label, _ in pairs]
        assert len({n for _, n in pairs}) == len(pairs) and name not in {n for _, n in pairs}
        assert "trailing space" in labels and "case" in labels
        assert ("NFD" in labels) == (not name.isascii())
        for label, other in pairs:
            if label.startswith("Cyrillic"):
                assert any("CYRILLIC" in unicodedata.name(c) for c in other) and other.isascii() is False
            if label == "NFD":
                assert unicodedata.normalize("NFC", other) == name and other.encode() != name.encode()
            (tmp_path / name).write_bytes(b"a")
            (tmp_path / other).write_bytes(b"b")
            assert (tmp_path / name).read_bytes() == b"a"  # the file system keeps both apart
    assert lookalikes("verdicts.json")[0][0] == "Cyrillic \u0435 for e"


def test_duplicate_keys_are_written_at_the_text_level() -> None:
    text = ej.dump({"a": {"status": "PROVED"}, "b": [1, 2]})
    first, _ = ej.apply_edit(text, "json-dupkey-first", ("a", "status"), 0)
    last, _ = ej.apply_edit(text, "json-dupkey-last", ("a", "status"), 0)
    for out in (first, last):
        assert out.decode().count('"status"') == 2
    assert json.loads(first) == json.loads(text)  # Python keeps the last: the real value
    assert json.loads(last)["a"]["status"] == "PROVEA"


def test_the_order_depends_only_on_the_seed_and_covers_every_kind_early(clean: dict[str, dict[str, bytes]]) -> None:
    every = _every({name: clean[name] for name in ("proved", eb.CI_BUNDLE)})
    a, b = seeded_order(every, SEED), seeded_order(list(reversed(every)), SEED)
    assert a == b and sorted(a, key=lambda m: m.id) == sorted(every, key=lambda m: m.id)
    assert seeded_order(every, SEED + 1) != a
    kinds = {m.kind for m in every}
    groups = {(m.kind, m.file) for m in every}
    assert {m.kind for m in a[: len(groups)]} == kinds
    m = next(m for m in a if m.kind == "byte")
    assert apply(m, clean[m.bundle]) == apply(m, clean[m.bundle])


def _state(work: Path, clean: dict[str, dict[str, bytes]], limit: float = 60.0) -> None:
    ec._STATE = ec.State(work, clean, limit)


@pytest.fixture
def state(work: Path, clean: dict[str, dict[str, bytes]]) -> Iterator[None]:
    _state(work, clean)
    yield
    ec._STATE = None


def _accept(_d: Path, _b: str) -> dict[str, Any]:
    return {"exit_code": 0, "first": "verified"}


def _refuse(_d: Path, _b: str) -> dict[str, Any]:
    return {"exit_code": 1, "first": "a difference"}


def test_the_oracle_counts_an_accepted_forgery_as_a_survivor(state: None, monkeypatch: pytest.MonkeyPatch) -> None:
    m = Mutation(eb.CI_BUNDLE, "report.html", "text-vocab", (), 0, SEED)
    monkeypatch.setattr(ec, "run_verify", _refuse)
    assert ec.examine((0, m))["outcome"] == "refused"
    monkeypatch.setattr(ec, "run_verify", _accept)
    assert ec.examine((0, m))["outcome"] == "survivor"


def test_a_subject_edit_passes_only_as_the_genuine_bundle(
    state: None, clean: dict[str, dict[str, bytes]], work: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(ec, "run_verify", _accept)
    m = Mutation(eb.CI_BUNDLE, "model/strict_dense.onnx", "subject-truncate", (), 0, SEED)
    rec = ec.examine((0, m))
    assert rec["outcome"] == "survivor" and "verdicts.json" in rec["reason"], rec
    mutant, _ = apply(m, clean[eb.CI_BUNDLE])
    assert ec._STATE is not None
    genuine = eb.genuine_bundle(eb.BY_NAME[eb.CI_BUNDLE], work / "sources" / eb.CI_BUNDLE,
                                {"strict_dense.onnx": mutant[m.file]}, tmp_path / "g")
    assert ec._genuine_differs(m, genuine, tmp_path / "again", ec._STATE) == ""
    assert "verdicts.json" in ec._genuine_differs(m, mutant, tmp_path / "forged", ec._STATE)


def _sleep(_d: Path, _b: str) -> dict[str, Any]:
    time.sleep(30)
    return {}


def _boom(_d: Path, _b: str) -> dict[str, Any]:
    raise KeyError("internal")


def test_a_hang_or_a_crash_of_verify_is_a_failure(
    work: Path, clean: dict[str, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    m = Mutation(eb.CI_BUNDLE, "report.html", "byte", (), 0, SEED)
    _state(work, clean, limit=1.0)
    try:
        monkeypatch.setattr(ec, "run_verify", _sleep)
        assert ec.examine((0, m))["outcome"] == "hang"
        monkeypatch.setattr(ec, "run_verify", _boom)
        rec = ec.examine((0, m))
        assert rec["outcome"] == "crash" and "KeyError" in rec["first"]
    finally:
        ec._STATE = None


def test_a_no_op_is_skipped_and_counted(state: None, clean: dict[str, dict[str, bytes]]) -> None:
    files = clean[eb.CI_BUNDLE]
    m = Mutation(eb.CI_BUNDLE, "verdicts.json", "json-swap", ("models", 0, "verdicts", 0), 0, SEED)
    doc = json.loads(files["verdicts.json"])
    doc["models"][0]["verdicts"][1] = doc["models"][0]["verdicts"][0]
    same_twice = dict(files)
    same_twice["verdicts.json"] = ej.dump(doc)
    rehash(same_twice)
    ec._STATE = ec.State(Path("."), {eb.CI_BUNDLE: same_twice})
    rec = ec.examine((0, m))
    assert rec["outcome"] == "noop" and "exit_code" not in rec


def test_the_command_line_writes_its_summary_and_fails_on_a_survivor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary.json"
    monkeypatch.setattr(ec, "run_verify", _refuse)
    assert ec.main(["--seed", "3", "--mutants", "4", "--bundles", eb.CI_BUNDLE, "--out", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["unusable_clean_bundles"] == [eb.CI_BUNDLE]  # a baseline that does not verify is never judged
    parent = os.getpid()  # the baseline runs in this process, each mutant in a forked child

    def only_the_baseline(_d: Path, _b: str) -> dict[str, Any]:
        return _accept(_d, _b) if os.getpid() == parent else _refuse(_d, _b)

    monkeypatch.setattr(ec, "run_verify", only_the_baseline)
    assert ec.main(["--seed", "3", "--mutants", "4", "--bundles", eb.CI_BUNDLE, "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["mutants"] == 4 and doc["failures"] == [] and doc["baseline"][eb.CI_BUNDLE]["exit_code"] == 0
    assert set(doc["outcomes"]) <= {"refused", "noop"} and doc["per_kind"]
    monkeypatch.setattr(ec, "run_verify", _accept)
    assert ec.main(["--seed", "3", "--mutants", "4", "--bundles", eb.CI_BUNDLE, "--out", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert len(doc["failures"]) == 4 - doc["outcomes"].get("noop", 0) > 0
    assert "survivor:" in capsys.readouterr().out


def test_only_a_same_type_edit_of_a_trusted_date_is_taken_on_trust(
    state: None, clean: dict[str, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert json.loads(clean["timestamp"][MANIFEST])["created"]
    monkeypatch.setattr(ec, "run_verify", _accept)
    date = Mutation("timestamp", MANIFEST, "json-value", ("created",), 0, SEED)
    assert ec.examine((0, date))["outcome"] == "trusted"
    for m in (Mutation("timestamp", MANIFEST, "json-type", ("created",), 0, SEED),
              Mutation("timestamp", MANIFEST, "json-delkey", ("created",), 0, SEED),
              Mutation("proved", MANIFEST, "json-huge", ("options", "seed"), 0, SEED)):
        assert ec.examine((0, m))["outcome"] == "survivor", m.id
