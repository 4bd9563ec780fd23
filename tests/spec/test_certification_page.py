"""docs/certification.rst run as the page shows it: every command, in order, in one working directory.

The page shows its commands in ``console`` blocks: ``$ COMMAND``, the output the reader is shown (a pattern:
``...`` stands for lines or text, as in ``tools/doc_examples.py``), then ``$ echo $?`` and the exit code. The
files it shows with a ``:caption:`` (the waivers file, the pre-commit configuration) are written under that
name before the commands that follow them run. A command that is neither sonnx's nor ``echo $?`` fails the
test, and so does a sonnx command whose exit code the page does not show: nothing on the page goes unrun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tools.doc_examples import Example, mismatch, prepare, run

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "certification.rst"
_DIRECTIVE = re.compile(r"^\.\. code-block:: (\w+)$")
_OPTION = re.compile(r"^   :(\w+): (.*)$")


@dataclass(frozen=True)
class Step:
    """A file the page shows under a name (``command`` None), or a command with its output and exit code."""

    line: int
    command: str | None
    shown: tuple[str, ...]
    exit_code: int | None = None
    file: str | None = None


def _blocks(text: str) -> list[tuple[int, str, dict[str, str], list[str]]]:
    """Every ``code-block``: its line, language, options and body (indentation removed)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if m is None:
            continue
        j, options = i + 1, {}
        while j < len(lines) and (opt := _OPTION.match(lines[j])):
            options[opt.group(1)] = opt.group(2).strip()
            j += 1
        body: list[str] = []
        while j < len(lines) and (lines[j].startswith("   ") or not lines[j].strip()):
            body.append(lines[j][3:])
            j += 1
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
        out.append((i + 1, m.group(1), options, body))
    return out


def steps(text: str) -> list[Step]:
    """The page's files and commands, in order (a malformed console block is an AssertionError)."""
    found: list[Step] = []
    for line, lang, options, body in _blocks(text):
        if lang != "console":
            if "caption" in options:
                found.append(Step(line, None, tuple(body), file=options["caption"]))
            continue
        commands: list[tuple[str, list[str]]] = []
        for row in body:
            if row.startswith("$ "):
                commands.append((row[2:].strip(), []))
            else:
                assert commands, f"line {line}: output before any command"
                commands[-1][1].append(row)
        k = 0
        while k < len(commands):
            command, shown = commands[k]
            following = commands[k + 1] if k + 1 < len(commands) else None
            assert following is not None and following[0] == "echo $?", f"line {line}: {command!r} shows no exit code"
            assert len(following[1]) == 1 and following[1][0].isdigit(), f"line {line}: echo $? shows one number"
            found.append(Step(line, command, tuple(shown), int(following[1][0])))
            k += 2
    return found


STEPS = steps(PAGE.read_text(encoding="utf-8"))


def test_the_page_walks_from_the_first_check_to_a_qualified_bundle() -> None:
    commands = [s.command for s in STEPS if s.command is not None]
    order = ["--findings-only --profile sonnx-strict", "--waivers waivers.toml", "--evidence bundle",
             "evidence verify bundle", "qualify kit", "--version"]
    at = [next(i for i, c in enumerate(commands) if part in c) for part in order]
    assert at == sorted(at), commands
    assert {s.file for s in STEPS if s.file} == {"waivers.toml", ".pre-commit-config.yaml"}


def test_every_command_of_the_page_runs_as_it_shows(tmp_path: Path) -> None:
    prepare(tmp_path)
    for step in STEPS:
        if step.command is None:
            assert step.file is not None
            (tmp_path / step.file).write_text("\n".join(step.shown) + "\n", encoding="utf-8")
            continue
        example = Example("docs/certification.rst", step.line, step.command, step.exit_code or 0, step.shown)
        code, out = run(example, tmp_path)
        assert code == step.exit_code, f"line {step.line}: {step.command!r} exits {code}\n{out}"
        culprit = mismatch(step.shown, out) if step.shown else None
        assert culprit is None, f"line {step.line}: {step.command!r} no longer prints {culprit!r}; it prints\n{out}"


def test_the_pre_commit_configuration_names_the_hook_at_a_release_tag() -> None:
    [config] = [s for s in STEPS if s.file == ".pre-commit-config.yaml"]
    [repo] = yaml.safe_load("\n".join(config.shown))["repos"]
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert repo["rev"] == "v0.2.0" and [h["id"] for h in repo["hooks"]] == [hook["id"]]


@pytest.mark.parametrize(
    "block",
    [
        ".. code-block:: console\n\n   $ sonnx-check m.onnx\n   result: PROVED\n",  # no exit code
        ".. code-block:: console\n\n   $ sonnx-check m.onnx\n   $ echo $?\n   zero\n",
        ".. code-block:: console\n\n   output first\n   $ sonnx-check m.onnx\n   $ echo $?\n   0\n",
    ],
)
def test_a_console_block_without_its_exit_code_is_refused(block: str) -> None:
    with pytest.raises(AssertionError):
        steps(block)


def test_a_command_other_than_sonnx_cannot_be_shown() -> None:
    [step] = steps(".. code-block:: console\n\n   $ pip install sonnx\n   $ echo $?\n   0\n")
    with pytest.raises(Exception, match="not a sonnx command"):
        run(Example("page", step.line, step.command or "", 0, None), Path("."))
