"""The text an exported SMT-LIB file says about itself, per kind of obligation, kept as a reviewed copy.

Every obligation sonnx writes (``--smt-dir``, evidence bundles) opens with a
header (rule, mode, meaning, the answer under which the property holds) and
carries comments that tell a second solver's user what the raw facts and the
formula are. A formula change shows in the verdicts; a wrong or garbled
comment shows nowhere. So the comments of every obligation the shipped
examples produce, in both modes and with certificates checked in parts, are
listed in ``tests/data/smt_comments.txt`` and a test compares them with what
the engine writes now.

The listing is one block per kind of obligation (its rule, its name with
every number written ``#``, its mode): the meaning, then each distinct
comment line in the order first met (examples sorted, search mode first),
numbers written ``#`` too, so that the tensor and operation ids of one
example do not matter. ``python -m tools.smt_comments`` (``make
smt-comments``) writes the file after a deliberate change; review its diff.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sonnx.loader import load_model
from sonnx.model.graph import Model
from sonnx.smt import common, run_smt
from sonnx.smt.smtlib import Obligation

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.onnx"))
LISTING = ROOT / "tests" / "data" / "smt_comments.txt"
MODES = ("search", "certificate")
_NUMBER = re.compile(r"[0-9]+")


def _hash(text: str) -> str:
    return _NUMBER.sub("#", text)


@contextmanager
def parts_of(size: int) -> Iterator[None]:
    """Certificates and counter-certificates checked in parts of ``size`` instances (:data:`sonnx.smt.common.PART`)."""
    saved = common.PART
    common.PART = size
    try:
        yield
    finally:
        common.PART = saved


def runs(m: Model) -> list[list[Obligation]]:
    """The obligations of each run of ``m``: both modes, then certificate mode again with parts of 2 instances.

    No shipped example is large enough to be checked in parts; the last run
    writes the comments of the parted obligations too.
    """
    out = [run_smt(m, mode=mode).obligations for mode in MODES]
    with parts_of(2):
        out.append(run_smt(m, mode="certificate").obligations)
    return out


def obligations(m: Model) -> Iterator[Obligation]:
    """Every obligation of :func:`runs`, run after run."""
    for run in runs(m):
        yield from run


def listing(models: Iterable[Path] = EXAMPLES) -> str:
    """The comment listing of the obligations of ``models`` (the content of :data:`LISTING`)."""
    blocks: dict[str, tuple[list[str], list[str]]] = {}
    for path in models:
        for ob in obligations(load_model(path)):
            meanings, comments = blocks.setdefault(f"{ob.rule_id} {_hash(ob.name)} [{ob.mode}]", ([], []))
            meaning = _hash(ob.meaning)
            if meaning not in meanings:
                meanings.append(meaning)
            for line in ob.render().splitlines():
                if line.startswith(";") and _hash(line) not in comments:
                    comments.append(_hash(line))
    out: list[str] = []
    for key in sorted(blocks):
        meanings, comments = blocks[key]
        out.append(f"== {key}")
        out.extend(f"meaning: {m}" for m in meanings)
        out.extend(comments)
        out.append("")
    return "\n".join(out)


def main() -> int:
    LISTING.write_text(listing(), encoding="utf-8")
    print(f"wrote {LISTING.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
