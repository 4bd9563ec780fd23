"""The example commands of the README and the tutorial, run for real and compared with what the text shows.

Both documents mark their examples in the source, so that a command shown to a reader cannot drift from
what sonnx does:

* ``README.md``: an HTML comment ``<!-- sonnx-example exit=N -->`` (invisible on the rendered page) just
  before a fenced ``sh`` block. Every command of the block (one per line, ``#`` lines are comments) must
  exit with N. When a plain fenced block follows the ``sh`` block, it is the output the block's single
  command shows. ``setup=ed25519-key`` asks for an Ed25519 key pair ``key.pem``/``key.pub`` in the working
  directory first (the README says how to make one with openssl).
* ``docs/tutorial.rst``: the directive ``.. sonnx-example:: COMMAND`` with the option ``:exit: N`` and, as
  its content, the output the text relies on. The docs build (``docs/_ext/example_docs.py``) runs the
  command, shows its real output, and fails when the output or the exit code disagree with the directive.

Shown output is a pattern: a line ``...`` stands for any number of lines, and ``...`` inside a line for any
text. Everything else must be equal, line for line, after trailing spaces are dropped. Nothing else is
normalized: the examples write no timing, version or absolute path that the text shows.

Commands run in-process (``sonnx.cli``), in a working directory holding ``examples/`` of this checkout, so
that relative paths in the commands mean what they mean from the repository root.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TUTORIAL = ROOT / "docs" / "tutorial.rst"
ELLIPSIS = "..."

_README_MARK = re.compile(r"^<!-- sonnx-example ((?:[a-z]+=[^ ]+ ?)+)-->$")
_DIRECTIVE = re.compile(r"^\.\. sonnx-example:: (.+)$")
_OPTION = re.compile(r"^   :([a-z]+): (.*)$")


class ExampleError(Exception):
    """A marked example that is malformed (the marker, its block or its command)."""


@dataclass(frozen=True)
class Example:
    """One command shown by a document: where, what it runs, its exit code and the output it shows."""

    source: str
    line: int
    command: str
    exit_code: int
    shown: tuple[str, ...] | None
    setup: str | None = None
    block: int = 0
    """The line of the marker: the commands of one block run in order, in one working directory."""

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def _fence(lines: list[str], start: int) -> tuple[str, list[str], int]:
    """The fenced block opening at ``lines[start]``: its language, its lines, and the index after it."""
    opening = lines[start]
    if not opening.startswith("```"):
        raise ExampleError(f"line {start + 1}: a fenced block was expected after the sonnx-example marker")
    end = start + 1
    while end < len(lines) and lines[end] != "```":
        end += 1
    if end == len(lines):
        raise ExampleError(f"line {start + 1}: fenced block never closed")
    return opening[3:].strip(), lines[start + 1 : end], end + 1


def _next_nonblank(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def readme_examples(text: str, source: str = "README.md") -> list[Example]:
    """Every command marked in a Markdown text, in order."""
    lines = text.splitlines()
    found: list[Example] = []
    for i, line in enumerate(lines):
        mark = _README_MARK.match(line)
        if mark is None:
            if "sonnx-example" in line:
                raise ExampleError(f"{source}:{i + 1}: malformed sonnx-example marker: {line!r}")
            continue
        attrs = dict(pair.split("=", 1) for pair in mark.group(1).split())
        unknown = set(attrs) - {"exit", "setup"}
        if unknown or "exit" not in attrs:
            raise ExampleError(f"{source}:{i + 1}: a marker takes exit=N and optionally setup=...: {line!r}")
        lang, body, after = _fence(lines, _next_nonblank(lines, i + 1))
        if lang != "sh":
            raise ExampleError(f"{source}:{i + 1}: the marked block must be a sh block, not {lang!r}")
        commands = [(k, c) for k, c in enumerate(body) if c.strip() and not c.lstrip().startswith("#")]
        shown: tuple[str, ...] | None = None
        nxt = _next_nonblank(lines, after)
        if nxt < len(lines) and lines[nxt] == "```":
            shown = tuple(_fence(lines, nxt)[1])
            if len(commands) != 1:
                raise ExampleError(f"{source}:{i + 1}: shown output needs exactly one command in the block")
        first_body_line = _next_nonblank(lines, i + 1) + 2
        found.extend(
            Example(source, first_body_line + k, c.strip(), int(attrs["exit"]), shown, attrs.get("setup"), i + 1)
            for k, c in commands
        )
    return found


def tutorial_examples(text: str, source: str = "docs/tutorial.rst") -> list[Example]:
    """Every ``.. sonnx-example::`` directive of a reStructuredText text, in order."""
    lines = text.splitlines()
    found: list[Example] = []
    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if m is None:
            continue
        options: dict[str, str] = {}
        j = i + 1
        while j < len(lines) and (opt := _OPTION.match(lines[j])):
            options[opt.group(1)] = opt.group(2).strip()
            j += 1
        if set(options) != {"exit"}:
            raise ExampleError(f"{source}:{i + 1}: sonnx-example takes the one option :exit: N, got {sorted(options)}")
        body: list[str] = []
        j = _next_nonblank(lines, j)
        while j < len(lines) and (lines[j].startswith("   ") or not lines[j].strip()):
            body.append(lines[j][3:])
            j += 1
        while body and not body[-1].strip():
            body.pop()
        found.append(Example(source, i + 1, m.group(1).strip(), int(options["exit"]), tuple(body) or None, None, i + 1))
    return found


def all_examples(root: Path = ROOT) -> list[Example]:
    """The examples of the README and of the tutorial."""
    return readme_examples((root / "README.md").read_text(encoding="utf-8")) + tutorial_examples(
        (root / "docs" / "tutorial.rst").read_text(encoding="utf-8")
    )


def blocks(examples: list[Example]) -> list[tuple[Example, ...]]:
    """The examples grouped by the block that shows them, in order."""
    grouped: dict[tuple[str, int], list[Example]] = {}
    for ex in examples:
        grouped.setdefault((ex.source, ex.block), []).append(ex)
    return [tuple(group) for group in grouped.values()]


def argv_of(command: str) -> tuple[str, list[str]]:
    """The program (``sonnx-check`` or ``sonnx``, wherever the command says it is installed) and its arguments."""
    words = shlex.split(command)
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program not in ("sonnx-check", "sonnx"):
        raise ExampleError(f"not a sonnx command: {command!r}")
    return program, words[1:]


def prepare(workdir: Path, setup: str | None = None) -> None:
    """A working directory where the commands' relative paths resolve: ``examples/`` of this checkout, and
    for ``setup="ed25519-key"`` the key pair ``key.pem`` (PKCS#8) and ``key.pub`` that the README's
    ``openssl genpkey -algorithm ed25519`` would give."""
    link = workdir / "examples"
    if not link.exists():
        link.symlink_to(ROOT / "examples", target_is_directory=True)
    if setup is None:
        return
    if setup != "ed25519-key":
        raise ExampleError(f"unknown setup {setup!r}")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate()
    pem, raw = serialization.Encoding.PEM, serialization.NoEncryption()
    (workdir / "key.pem").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, raw))
    public = key.public_key().public_bytes(pem, serialization.PublicFormat.SubjectPublicKeyInfo)
    (workdir / "key.pub").write_bytes(public)


def run(example: Example, workdir: Path) -> tuple[int, str]:
    """Run the example's command in ``workdir``: its exit code and what it printed on stdout."""
    from sonnx import cli

    program, args = argv_of(example.command)
    entry = cli.check_main if program == "sonnx-check" else cli.main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(workdir):
        try:
            code = entry(args, out, err)
        except SystemExit as stop:  # argparse's own exits (--help, a usage error)
            code = stop.code if isinstance(stop.code, int) else 2
    return code, out.getvalue()


def _line_matches(pattern: str, line: str) -> bool:
    parts = pattern.split(ELLIPSIS)
    regex = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(regex, line) is not None


def _fits(want: list[str], got: list[str]) -> bool:
    """Whether the lines ``got`` fit the pattern ``want`` (dynamic programming over both positions)."""
    # ok[w][g]: want[w:] fits got[g:]
    ok = [[False] * (len(got) + 1) for _ in range(len(want) + 1)]
    ok[len(want)][len(got)] = True
    for w in range(len(want) - 1, -1, -1):
        for g in range(len(got), -1, -1):
            if want[w].strip() == ELLIPSIS:
                ok[w][g] = ok[w + 1][g] or (g < len(got) and ok[w][g + 1])
            else:
                ok[w][g] = g < len(got) and _line_matches(want[w], got[g]) and ok[w + 1][g + 1]
    return ok[0][0]


def mismatch(shown: tuple[str, ...], actual: str) -> str | None:
    """None when ``actual`` fits the shown pattern, else the first shown line from which nothing fits."""
    got = [line.rstrip() for line in actual.rstrip("\n").splitlines()]
    want = [line.rstrip() for line in shown]
    if _fits(want, got):
        return None
    for w in range(len(want) - 1, -1, -1):  # the longest prefix of the pattern that fits names the culprit
        if _fits([*want[:w], ELLIPSIS], got):
            return want[w]
    return want[0] if want else "(the shown output is empty)"
