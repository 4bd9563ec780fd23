"""Inventory of the tagged statements of the working group's operator specifications.

Reads, from a local mirror of ``onnx/working-groups`` at one commit, the 35
operator specifications, the general restrictions and the broadcast
pseudo-operator, and writes ``src/sonnx/data/wg_operator_tags.json``: one
record per *defining* occurrence of a tag (a restriction ``[Rn]``, a
constraint ``[Cn]``, a general restriction ``[GRn]`` or a traceability tag
``[E_<OP>_...]``), never the references to it that the texts repeat.

A statement is keyed ``<file>|<family>|<section>|<tag>``: the file under the
``informal/`` folder, the type family of the top-level heading the statement
sits under (``real``, ``float``...; ``-`` for files without families), the
attribute, input or output heading it belongs to (``Restrictions`` for a
restriction) and the tag, because ``[C1]`` recurs once per attribute or input.
The record keeps the line number and heading path, and no sentence of the
group's: the topic of a statement is the short title the group gives it when
there is one (a constraint's name, such as ``Value domain``), else empty.

``make wg-tags`` regenerates the file when the mirror is present
(``python -m tools.wg_tags [--mirror DIR]``); CI has no mirror, and
``tests/spec/test_wg_operator_tags.py`` checks the committed file alone.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

COMMIT = "652b76b8a6611585f4aaa9c1be56699b8629b0c0"
DATE = "2026-08-07"
REPOSITORY = "onnx/working-groups"
FOLDER = "safety-related-profile/sonnx/ops/spec/informal"
MIRROR = Path("/work/.mirror/onnx+working-groups/repo")
OUT = Path("src/sonnx/data/wg_operator_tags.json")

OPERATOR_FILES = (
    "abs/abs.md", "add/add.md", "argmax/argmax.md", "batchnormalization/batch_normalization.md",
    "clip/clip.md", "concat/concat.md", "constant/constant.md", "conv/conv.md", "div/div.md", "exp/exp.md",
    "flatten/flatten.md", "gemm/gemm.md", "leakyrelu/leakyrelu.md", "less/less.md", "log/log.md",
    "lstm/lstm.md", "matmul/matmul.md", "max/max.md", "maxpool/maxpool.md", "mul/mul.md", "neg/neg.md",
    "pad/pad.md", "pow/pow.md", "range/range.md", "relu/relu.md", "reshape/reshape.md", "shape/shape.md",
    "sigmoid/sigmoid.md", "slice/slice.md", "softmax/softmax.md", "sqrt/sqrt.md", "sub/sub.md",
    "tanh/tanh.md", "unsqueeze/unsqueeze.md", "where/where.md",
)
"""The 35 operator specifications (``conv/conv2.md``, a draft beside ``conv.md``, is not one of them)."""
COMMON_FILES = ("common/general_restrictions.md", "common/broadcast/broadcast.md")

TAG = r"(R\d+|C\d+|GR\d+|E_[A-Z0-9_]+)"
ROW = re.compile(rf"^\s*\|\s*`\[?{TAG}\]?`")
"""A row of a restrictions table whose first cell is the tag."""
ITEM = re.compile(rf"^\s*[-*]\s*(?:<a id=\"[^\"]*\"></a>\s*)?`\[{TAG}\]`")
"""A list item that opens with the tag: a constraint, or a restriction written as a list."""
BANNER = re.compile(r"<span style=\"background: red[^>]*>\[(E_[A-Z0-9_]+)\]")
"""The coloured banner that tags a functional statement (``E_<OP>_<TYPE>_FUNC_...``)."""
TRAILING = re.compile(r"`\[(R\d+)\]`\s*$")
"""A restriction written as a list item that ends with its tag."""
FAMILY = re.compile(r"^#\s+(?:\*\*[^*]+\*\*|`[^`]+`\s*operator)\s*(?:\((.*)\))?")
"""A top-level heading naming the operator, with its type family in parentheses (``# **Conv** (real)``)."""
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
GENERIC = ("constraints", "constraints.", "inputs", "outputs", "attributes", "inputs and outputs")
TOPIC = re.compile(r"`\s*(?:<a id=[^>]*></a>)?\s*:?\s*(.*)$")


def clean(text: str) -> str:
    """A heading or title without markup: no anchors, backquotes, dollar signs, TeX escapes or bold."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\\text(?:it|bf)?\{([^}]*)\}", r"\1", text)
    text = text.replace("\\\\", "").replace("\\", "").replace("$", "").replace("`", "").replace("**", "")
    return " ".join(text.split()).strip(" :")


def family_of(line: str) -> str | None:
    """The type family a top-level operator heading opens (``-`` when it names none), or None."""
    m = FAMILY.match(line)
    if not m:
        return None
    fam = clean(m.group(1) or "")
    return fam or "-"


def statements(rel: str, text: str) -> list[dict[str, Any]]:
    """The defining occurrences of tags in one file, in order (see the module docstring)."""
    out: list[dict[str, Any]] = []
    family, heading, section, restricting = "-", "", "", False
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        fam = family_of(line)
        if fam is not None:
            family, heading, section, restricting = fam, "", "", False
            continue
        h = HEADING.match(line)
        if h:
            level, title = len(h.group(1)), clean(h.group(2))
            restricting = "restriction" in title.lower()
            if level <= 2:
                heading, section = title, ""
            elif title.lower() not in GENERIC:
                section = title
            continue
        tag, topic = None, ""
        m = ROW.match(line) or ITEM.match(line)
        if m:
            tag = m.group(1)
            if ITEM.match(line):
                rest = TOPIC.search(line[line.index(f"[{tag}]") + len(tag) + 2:])
                title = clean(rest.group(1)) if rest and tag.startswith(("C", "E_")) else ""
                topic = title if len(title.split()) <= 6 else ""
        elif (b := BANNER.search(line)) is not None:
            tag = b.group(1)
        elif restricting and line.lstrip().startswith(("-", "*")):
            t = TRAILING.search(line)
            tag = t.group(1) if t else None
        if tag is None:
            continue
        section = "Restrictions" if tag.startswith(("R", "GR")) else (section or heading or "-")
        if tag.startswith("E_") and "_FUNC_" in tag:
            section = "Informal specification"
        out.append({
            "key": f"{rel}|{family}|{section}|{tag}",
            "file": rel,
            "line": n,
            "family": family,
            "section": section,
            "heading": heading,
            "tag": tag,
            "kind": kind_of(tag),
            "title": topic,
        })
    return out


def kind_of(tag: str) -> str:
    if tag.startswith("GR"):
        return "general restriction"
    if tag.startswith("R"):
        return "restriction"
    if tag.startswith("C") or "_CONSTR_" in tag:
        return "constraint"
    return "traceability"


def dedupe(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per key: a tag defined twice in one section keeps its first line and lists the others."""
    by_key: dict[str, dict[str, Any]] = {}
    for s in found:
        if s["key"] in by_key:
            by_key[s["key"]].setdefault("also_lines", []).append(s["line"])
        else:
            by_key[s["key"]] = s
    return list(by_key.values())


def read(mirror: Path, rel: str) -> str:
    return subprocess.run(
        ["git", "-C", str(mirror), "show", f"{COMMIT}:{FOLDER}/{rel}"],
        check=True, capture_output=True, text=True,
    ).stdout


def inventory(mirror: Path) -> dict[str, Any]:
    found: list[dict[str, Any]] = []
    for rel in OPERATOR_FILES + COMMON_FILES:
        found.extend(dedupe(statements(rel, read(mirror, rel))))
    return {
        "comment": "Generated by tools/wg_tags.py (make wg-tags) from the working group's operator specifications; "
                   "do not edit. One record per tagged statement, keyed file|family|section|tag; topics are the "
                   "group's short constraint titles, never its statements.",
        "source": {"repository": REPOSITORY, "folder": FOLDER, "commit": COMMIT, "date": DATE},
        "files": list(OPERATOR_FILES + COMMON_FILES),
        "statements": found,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--mirror", type=Path, default=MIRROR, help="the git directory of an onnx/working-groups mirror")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    if not (args.mirror / "HEAD").exists() and not (args.mirror / ".git").exists():
        print(f"wg-tags: no mirror of {REPOSITORY} at {args.mirror}", file=sys.stderr)
        return 2
    data = inventory(args.mirror)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wg-tags: {len(data['statements'])} statements from {len(data['files'])} files -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
