"""proofs/README.md is generated from the theorem modules, so its table and statements cannot drift from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofs import readme
from proofs.registry import theorems

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_readme_is_the_generated_one() -> None:
    committed = (ROOT / "proofs" / "README.md").read_text(encoding="utf-8")
    assert committed == readme.render(), "proofs/README.md is stale: make proofs-readme"


def test_the_table_gives_each_module_its_own_supports_and_review_items() -> None:
    text = readme.render()
    for t in theorems():
        justifies = ", ".join(t.supports) if t.supports else f"pass `{t.rewrite_pass}`"
        coq = len(t.proved_in_coq)
        row = f"| `{Path(t.module).name}` | {t.title} | {justifies} | {len(t.rests_on)} | {coq} |"
        assert row in text.splitlines(), row
        assert t.statement in text
        assert all(f"- {item}" in text for item in t.rests_on)
        assert all(f"- {item}: `{name}`" in text for item, name in t.proved_in_coq)
    assert "`proofs/coq/`" in text and "`make proofs`" in text


def test_check_reports_a_stale_readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "README.md"
    # The audit's drift: a SUPPORTS column the modules do not state.
    drifted = readme.render().replace("| GRAPH-C1, GRAPH-C1-SOURCES | 0 |", "| GRAPH-C1, GRAPH-R2 | 0 |", 1)
    assert drifted != readme.render()
    stale.write_text(drifted, encoding="utf-8")
    monkeypatch.setattr(readme, "README", stale)
    assert readme.run(["--check"]) == 1
    assert readme.run([]) == 0
    assert readme.run(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == readme.render()
