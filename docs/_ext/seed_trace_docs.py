"""Build-time rendering of the trace between the seed texts and the spec (spec section 8).

``spec/seed_trace.toml`` says, for every statement line of seeds 000 and 001,
where the spec carries it or why it is not adopted, and for every section and
rule no seed reaches, where it comes from. At ``config-inited`` (after
``sonnx_docs`` has recreated ``docs/_generated/``) this extension checks the
trace with ``tools.seed_trace`` and writes ``docs/_generated/seed_trace.inc``,
the two tables the spec includes. A problem in the trace is a build warning,
so ``sphinx -W`` stops rather than publish a trace that does not hold. When
the seeds are not beside the clone the tables are still rendered, under a
visible warning that they were not checked against the seeds in this build.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOG = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
INCLUDE = DOCS / "_generated" / "seed_trace.inc"


def generate(app: Sphinx, config: Any) -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tools import seed_trace

    trace = seed_trace.load()
    head = ""
    try:
        found = seed_trace.problems(trace, seed_trace.seed_lines())
    except seed_trace.SeedsMissing as exc:
        head = (
            ".. warning::\n\n   The seed texts were not found beside the clone, so this build did not check the"
            f" trace against them ({exc}).\n\n"
        )
        found = []
    for p in found:
        LOG.warning("seed trace: %s", p)
    INCLUDE.parent.mkdir(parents=True, exist_ok=True)
    INCLUDE.write_text(head + seed_trace.render(trace), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", generate, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
