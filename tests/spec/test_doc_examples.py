"""The example commands of README.md and docs/tutorial.rst run as the text shows them (tools/doc_examples.py).

Each marked block runs in a fresh working directory holding ``examples/``; every command must exit with the
code its marker states, and a command shown with its output must print output that fits it. The other
tests show that the markers cannot be bypassed: a sonnx command shown in a README ``sh`` block without a
marker, or a tool output in the tutorial that is not a ``sonnx-example``, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.doc_examples import (
    README,
    TUTORIAL,
    Example,
    ExampleError,
    all_examples,
    blocks,
    mismatch,
    prepare,
    readme_examples,
    run,
    tutorial_examples,
)

BLOCKS = blocks(all_examples())


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b[0].source}:{b[0].block}" for b in BLOCKS])
def test_every_marked_example_runs_as_the_text_shows(block: tuple[Example, ...], tmp_path: Path) -> None:
    prepare(tmp_path, block[0].setup)
    for example in block:
        code, out = run(example, tmp_path)
        assert code == example.exit_code, f"{example.where}: {example.command!r} exits {code}\n{out}"
        if example.shown is not None:
            line = mismatch(example.shown, out)
            assert line is None, f"{example.where}: {example.command!r} no longer prints {line!r}; it prints\n{out}"


def test_both_documents_have_their_examples() -> None:
    readme = readme_examples(README.read_text(encoding="utf-8"))
    tutorial = tutorial_examples(TUTORIAL.read_text(encoding="utf-8"))
    assert any(e.shown for e in readme) and len(readme) >= 9
    assert len(tutorial) >= 7 and all(e.shown for e in tutorial)


def test_every_sonnx_command_of_the_readme_is_marked() -> None:
    text = README.read_text(encoding="utf-8")
    marked = {e.command for e in readme_examples(text)}
    shown = set()
    for block in re.findall(r"^```sh\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL):
        shown |= {c.strip() for c in block.splitlines() if re.match(r"\s*(\.venv/bin/)?sonnx", c)}
    assert shown and shown <= marked, f"sonnx commands shown without a sonnx-example marker: {shown - marked}"


def test_the_tutorial_shows_tool_output_only_through_the_directive() -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    assert "literalinclude" not in text
    assert not re.search(r"^\s*\$ sonnx", text, flags=re.MULTILINE)


# --------------------------------------------------------------------------- the pattern and the markers


OUTPUT = "model: m.onnx\n  PROVED    A\n  VIOLATED  B\n            witness: x\nresult: VIOLATED (1 violated)\n"


@pytest.mark.parametrize(
    "shown",
    [
        ("model: m.onnx", "  PROVED    A", "  VIOLATED  B", "            witness: x", "result: VIOLATED (1 violated)"),
        ("model: m.onnx", "...", "result: VIOLATED (...)"),
        ("...", "  VIOLATED  B", "...", "result: ..."),
        ("model: m.onnx", "...", "  PROVED    A", "...", "result: VIOLATED (1 violated)"),  # "..." may be no line
    ],
)
def test_a_pattern_fits_the_output_it_abbreviates(shown: tuple[str, ...]) -> None:
    assert mismatch(shown, OUTPUT) is None


@pytest.mark.parametrize(
    ("shown", "culprit"),
    [
        (("model: m.onnx", "...", "result: PROVED (...)"), "result: PROVED (...)"),
        (("model: m.onnx", "  VIOLATED  B", "..."), "  VIOLATED  B"),  # a line may not be skipped silently
        (("...", "  WARNING   B", "..."), "  WARNING   B"),
        (("model: m.onnx", "..."), None),
        (("model: m.onnx",), "model: m.onnx"),  # without "...", the output may not go on
    ],
)
def test_a_pattern_that_does_not_fit_names_its_line(shown: tuple[str, ...], culprit: str | None) -> None:
    assert mismatch(shown, OUTPUT) == culprit


def test_the_readme_output_no_longer_fits_once_a_line_changes() -> None:
    example = next(e for e in readme_examples(README.read_text(encoding="utf-8")) if e.shown)
    changed = tuple(line.replace("Sub:sub (#3 in Test)", "Sub:sub (#4 in Test)") for line in example.shown or ())
    assert changed != example.shown
    _, out = run(example, _workdir(example))
    assert mismatch(example.shown or (), out) is None
    assert mismatch(changed, out) is not None


def _workdir(example: Example) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="sonnx-doc-example-"))
    prepare(path, example.setup)
    return path


@pytest.mark.parametrize(
    "text",
    [
        "<!-- sonnx-example exit=0 -->\nno block\n",
        "<!-- sonnx-example exit=0 -->\n```python\nsonnx-check m.onnx\n```\n",
        "<!-- sonnx-example -->\n```sh\nsonnx-check m.onnx\n```\n",
        "<!-- sonnx-example exit=0 colour=red -->\n```sh\nsonnx-check m.onnx\n```\n",
        "<!-- sonnx-example exit=1 -->\n```sh\nsonnx-check a.onnx\nsonnx-check b.onnx\n```\n\n```\nout\n```\n",
        "<!--sonnx-example exit=1-->\n```sh\nsonnx-check a.onnx\n```\n",
    ],
)
def test_a_malformed_readme_marker_is_refused(text: str) -> None:
    with pytest.raises(ExampleError):
        readme_examples(text)


def test_a_tutorial_directive_needs_its_exit_code() -> None:
    with pytest.raises(ExampleError):
        tutorial_examples(".. sonnx-example:: sonnx-check m.onnx\n\n   result: PROVED\n")
    [ex] = tutorial_examples(".. sonnx-example:: sonnx-check m.onnx\n   :exit: 2\n\n   a\n     b\n\nafter\n")
    assert (ex.command, ex.exit_code, ex.shown) == ("sonnx-check m.onnx", 2, ("a", "  b"))


def test_no_page_calls_the_shipped_evidence_bundle_future() -> None:
    """The bundle ships the JSON report (verdicts.json) and the traceability matrix (traceability.json)."""
    pages = [README, *sorted((README.parent / "docs").glob("*.rst"))]
    stale = re.compile(r"planned\s+(:doc:`)?evidence bundle|bundle\b[^.]*\bwill embed", re.IGNORECASE)
    found = [p.name for p in pages if stale.search(" ".join(p.read_text(encoding="utf-8").split()))]
    assert not found, f"pages that call the evidence bundle, or what it embeds, future: {found}"
