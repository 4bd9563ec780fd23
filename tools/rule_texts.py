"""The one text of every rule: its title, statement and rationale, taken from the spec.

Each rule of ``spec/graph.rst`` section 4, and of the operator layer's page
``spec/operators.rst``, is written once, in the spec, in one shape (section 4,
"Verification rules"):

* a label ``.. _RULE-ID:`` and a numbered heading
  ``4.0.3 RULE-ID — title (severity)``, the severity written ``error``,
  ``warning`` or ``warning; error in sonnx-strict``;
* the normative statement: the paragraphs and list items after the heading;
* exactly one ``[*Rationale:* ...]`` paragraph (which may hold a list);
* any other bracketed paragraphs (``[*Note:* ...]``), which are not normative
  and are left out.

This tool reads that shape and writes the package data file
``src/sonnx/data/rule_texts.json`` (``make rule-texts``), from which
:class:`sonnx.rules.base.Rule` takes its title, statement and rationale, so an
installed sonnx without the source tree has them and no second wording exists
in the code; a test keeps the file current. reStructuredText inline markup is
rendered as plain text (````code```` as ``code``, a ``:ref:`` as the rule ID or
the heading it points at, emphasis without its stars). A directive inside a rule
(the ``.. include::`` of GRAPH-R2's table) is material of the rendered spec and
is not part of the plain text.

A spec entry that breaks the shape (no statement, two rationales, normative
text after the rationale, an unclosed bracket, a malformed heading, another
directive, a reference that cannot be resolved) is an error and nothing is
written. A rule without a rationale is a problem: the file is still written,
with no rationale for that rule, and the tool exits 1 naming it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SCHEMA = "sonnx-rule-texts/1"
SPEC = Path("spec/graph.rst")
OPERATORS = Path("spec/operators.rst")
PAGES = (SPEC, OPERATORS)
"""The spec pages that state rules: the graph layer, then the operator layer. A rule ID is stated on one page."""
PACKAGED = Path("src/sonnx/data/rule_texts.json")
"""Where the packaged texts live, relative to the repository root."""

RULE_LABEL = re.compile(r"^\.\. _([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+):\s*$")
ANY_LABEL = re.compile(r"^\.\. _([^:`]+):\s*$")
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>])\1{2,}\s*$")
HEADING = re.compile(
    r"^(?P<number>\d+(?:\.\d+)+) (?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+) — (?P<title>\S.*?) "
    r"\((?P<severity>error|warning)(?:; (?P<strict>error) in sonnx-strict)?\)$"
)
"""A rule heading: ``4.0.17 GRAPH-ARITY — every operator position bound (warning; error in sonnx-strict)``."""
RATIONALE = "[*Rationale:*"
DIRECTIVES_LEFT_OUT = ("include",)
"""Directives a rule entry may hold; they render material of the spec page (a table), not sentences."""


class SpecShapeError(Exception):
    """A rule entry of the spec that does not have the shape this tool reads (nothing is written)."""


@dataclass(frozen=True)
class RuleText:
    """One rule as the spec states it, in plain text."""

    number: str
    title: str
    severity: str
    strict_severity: str | None
    statement: str
    rationale: str | None


# --------------------------------------------------------------------------- inline markup

LITERAL = re.compile(r"``(.+?)``")
ROLE = re.compile(r":(?P<role>[a-z:]+):`(?P<body>[^`]+)`")
LINK = re.compile(r"`(?P<text>[^`<]+?)\s*(?:<[^`>]+>)?`__?")
STRONG = re.compile(r"\*\*(?P<text>\S(?:.*?\S)?)\*\*")
EMPHASIS = re.compile(r"(?<![\w*])\*(?P<text>[^\s*](?:[^*]*?[^\s*])?)\*(?![\w*])")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def plain(text: str, labels: Mapping[str, str]) -> str:
    """``text`` with its inline reST markup rendered as the words a reader sees.

    ``labels`` maps a label to the text a reference to it shows (a rule ID to
    itself, a section label to its heading). A reference without explicit
    text to a label it does not hold is a :class:`SpecShapeError`.
    """
    pieces = LITERAL.split(text)
    out = []
    for k, piece in enumerate(pieces):
        out.append(piece if k % 2 else _markup(piece, labels))
    return " ".join("".join(out).split())


def _markup(text: str, labels: Mapping[str, str]) -> str:
    def role(m: re.Match[str]) -> str:
        body = m.group("body")
        explicit = EXPLICIT.match(body)
        if explicit and explicit.group("text"):
            return explicit.group("text")
        if m.group("role") == "ref":
            if body not in labels:
                raise SpecShapeError(f"the reference :ref:`{body}` names no label of the spec or docs/*.rst; "
                                     "give it an explicit text (:ref:`text <label>`)")
            return labels[body]
        return body.lstrip("~").rsplit(".", 1)[-1] if body.startswith("~") else body

    text = ROLE.sub(role, text)
    text = LINK.sub(lambda m: m.group("text"), text)
    text = STRONG.sub(lambda m: m.group("text"), text)
    text = EMPHASIS.sub(lambda m: m.group("text"), text)
    text = text.replace("\\ ", "")
    return re.sub(r"\\(.)", r"\1", text)


def capital(raw: str, rendered: str) -> str:
    """``rendered`` with its first letter capitalized, when the source starts with a lower-case word (not code)."""
    return rendered[:1].upper() + rendered[1:] if raw[:1].islower() else rendered


# --------------------------------------------------------------------------- the spec's shape


def labels_of(root: Path) -> dict[str, str]:
    """Label -> the text a reference to it shows: a rule ID itself, a section label its heading's text.

    Read from ``spec/*.rst`` and the hand-written pages ``docs/*.rst`` (never generated pages: the texts must
    not depend on whether the docs were built)."""
    out: dict[str, str] = {}
    pages = sorted((root / "spec").glob("*.rst")) + sorted((root / "docs").glob("*.rst"))
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            m = ANY_LABEL.match(line)
            if not m:
                continue
            if RULE_LABEL.match(line):
                out.setdefault(m.group(1), m.group(1))
                continue
            heading = _heading_after(lines, n + 1)
            if heading is not None:
                out.setdefault(m.group(1), heading)
    return out


def _heading_after(lines: list[str], start: int) -> str | None:
    """The text of the section heading that a label at ``start - 1`` stands before, if any."""
    k = start
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k < len(lines) and UNDERLINE.match(lines[k]):  # an overlined title
        k += 1
    if k + 1 < len(lines) and lines[k].strip() and UNDERLINE.match(lines[k + 1]):
        return lines[k].strip()
    return None


def _body(lines: list[str], start: int) -> list[tuple[int, str]]:
    """The lines of a rule entry from ``start`` up to the next label or section heading, numbered from 1."""
    out: list[tuple[int, str]] = []
    k = start
    while k < len(lines):
        line = lines[k]
        if ANY_LABEL.match(line):
            break
        if k + 1 < len(lines) and line.strip() and not line[0].isspace() and UNDERLINE.match(lines[k + 1]):
            break
        out.append((k + 1, line))
        k += 1
    return out


def _blocks(body: list[tuple[int, str]]) -> list[list[str]]:
    """The body split at blank lines."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for _, line in body:
        if line.strip():
            current.append(line.strip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _paragraphs(block: list[str]) -> list[str]:
    """A block's paragraphs: one paragraph, or one per list item (``* ``/``- ``), each as one line."""
    items: list[list[str]] = []
    for line in block:
        if line.startswith(("* ", "- ")) or not items:
            items.append([line])
        else:
            items[-1].append(line)
    return [" ".join(i) for i in items]


def _depth(text: str) -> int:
    return text.count("[") - text.count("]")


def _render(paragraphs: Iterable[str], labels: Mapping[str, str]) -> str:
    """Paragraphs as plain text: a blank line between paragraphs, a list item on a line of its own."""
    out: list[str] = []
    for p in paragraphs:
        item = p.startswith(("* ", "- "))
        text = ("- " + plain(p[2:], labels)) if item else plain(p, labels)
        if out and item and out[-1].startswith("- "):
            out[-1] += "\n" + text
        else:
            out.append(text)
    return "\n\n".join(out)


def _segments(rule_id: str, blocks: list[list[str]]) -> list[tuple[str, list[str]]]:
    """A rule body as ``(kind, paragraphs)``: ``text`` (normative), ``bracket`` (one bracketed paragraph,
    possibly over several blocks) or ``directive`` (its lines).

    A bracket opens at a block that starts with ``[`` and closes at the end of the line where its brackets
    balance; lines after it in the same block start a new block (a bracketed source line directly above
    the statement, as GRAPH-R2 has)."""
    out: list[tuple[str, list[str]]] = []
    bracket: list[list[str]] = []
    depth = 0
    for block in blocks:
        rest = list(block)
        if bracket:
            bracket.append([])
        while rest:
            if not bracket and rest[0].startswith(".. "):
                out.append(("directive", rest))
                break
            if not bracket and not rest[0].startswith("["):
                out.append(("text", _paragraphs(rest)))
                break
            if not bracket:
                bracket.append([])
            line = rest.pop(0)
            bracket[-1].append(line)
            depth += _depth(line)
            if depth <= 0:
                if not line.endswith("]"):
                    raise SpecShapeError(f"{rule_id}: a bracketed paragraph does not end with ']': {line[-60:]!r}")
                out.append(("bracket", [p for b in bracket if b for p in _paragraphs(b)]))
                bracket, depth = [], 0
    if bracket:
        raise SpecShapeError(f"{rule_id}: a bracketed paragraph is not closed: {bracket[0][0][:60]!r}")
    return out


def entry(rule_id: str, heading_line: int, lines: list[str], labels: Mapping[str, str]) -> RuleText:
    """The text of the rule whose heading is line ``heading_line`` (0-based index) of ``lines``."""
    m = HEADING.match(lines[heading_line].strip())
    if m is None or m.group("id") != rule_id:
        raise SpecShapeError(f"{rule_id}: heading {lines[heading_line].strip()!r} is not "
                             "'<number> <ID> — <title> (<severity>)' for this label")
    statement: list[str] = []
    rationale: list[str] | None = None
    for kind, content in _segments(rule_id, _blocks(_body(lines, heading_line + 2))):
        if kind == "directive":
            name = content[0][3:].split("::", 1)[0].strip()
            if name not in DIRECTIVES_LEFT_OUT:
                raise SpecShapeError(f"{rule_id}: directive {content[0]!r} in the rule entry (only "
                                     f"{', '.join(DIRECTIVES_LEFT_OUT)} may appear)")
        elif kind == "text":
            if rationale is not None:
                raise SpecShapeError(f"{rule_id}: normative text after the rationale: {content[0][:60]!r}")
            statement.extend(content)
        elif content[0].startswith(RATIONALE):
            if rationale is not None:
                raise SpecShapeError(f"{rule_id}: more than one [*Rationale:* ...] paragraph")
            rationale = list(content)
            rationale[0] = rationale[0][len(RATIONALE):].strip()
            rationale[-1] = rationale[-1][:-1].rstrip()
    if not statement:
        raise SpecShapeError(f"{rule_id}: no normative statement after the heading")
    title = m.group("title")
    return RuleText(
        number=m.group("number"),
        title=capital(title, plain(title, labels)),
        severity=m.group("severity"),
        strict_severity=m.group("strict"),
        statement=_render(statement, labels),
        rationale=None if rationale is None else capital(rationale[0], _render(rationale, labels)),
    )


def parse(spec_text: str, labels: Mapping[str, str]) -> dict[str, RuleText]:
    """Every rule entry of a spec page, by rule ID, in the page's order."""
    lines = spec_text.splitlines()
    out: dict[str, RuleText] = {}
    for n, line in enumerate(lines):
        m = RULE_LABEL.match(line)
        if not m:
            continue
        k = n + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k + 1 >= len(lines) or not UNDERLINE.match(lines[k + 1]):
            raise SpecShapeError(f"{m.group(1)}: the label is not followed by a section heading")
        if m.group(1) in out:
            raise SpecShapeError(f"{m.group(1)}: labelled twice")
        out[m.group(1)] = entry(m.group(1), k, lines, labels)
    return out


def problems(texts: Mapping[str, RuleText]) -> list[str]:
    """What the spec still lacks though the texts can be written: each rule without a rationale."""
    return [f"{rid}: no [*Rationale:* ...] paragraph in its spec entry" for rid, t in texts.items()
            if t.rationale is None]


def spec_version(text: str) -> str | None:
    m = re.search(r"^:Spec version:\s*(\S+)", text, re.M)
    return m.group(1) if m else None


def document(root: Path) -> dict[str, Any]:
    """The package data: the spec's version, each rule's text with its page, and the problems (:func:`problems`).

    The version is the one ``spec/graph.rst`` states: the pages are one spec, versioned together.
    """
    labels = labels_of(root)
    texts: dict[str, RuleText] = {}
    page_of: dict[str, str] = {}
    for page in PAGES:
        for rid, t in parse((root / page).read_text(encoding="utf-8"), labels).items():
            if rid in texts:
                raise SpecShapeError(f"{rid}: stated in {page_of[rid]} and again in {page.as_posix()}")
            texts[rid] = t
            page_of[rid] = page.as_posix()
    return {
        "schema": SCHEMA,
        "source": SPEC.as_posix(),
        "pages": [p.as_posix() for p in PAGES],
        "spec_version": spec_version((root / SPEC).read_text(encoding="utf-8")),
        "rules": {rid: {**asdict(t), "page": page_of[rid]} for rid, t in texts.items()},
        "problems": problems(texts),
    }


def packaged(root: Path) -> str:
    """The text of the package data file: keys sorted, UTF-8 kept, final newline."""
    return json.dumps(document(root), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def default_root() -> Path:
    return Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Write (or --check) the rules' texts taken from spec/graph.rst and spec/operators.rst."
    )
    ap.add_argument("--check", action="store_true", help="exit 1 when the packaged file is not current")
    args = ap.parse_args(argv)
    root = default_root()
    try:
        fresh = packaged(root)
    except SpecShapeError as exc:
        print(f"{SPEC}: {exc}", file=sys.stderr)
        return 1
    target = root / PACKAGED
    stale = False
    if args.check:
        stale = not target.is_file() or target.read_text(encoding="utf-8") != fresh
        if stale:
            print(f"{PACKAGED} is out of date: run make rule-texts", file=sys.stderr)
    else:
        target.write_text(fresh, encoding="utf-8")
        print(f"wrote {PACKAGED}")
    found = json.loads(fresh)["problems"]
    for p in found:
        print(f"{SPEC}: {p}", file=sys.stderr)
    return 1 if found or stale else 0


if __name__ == "__main__":
    sys.exit(main())
