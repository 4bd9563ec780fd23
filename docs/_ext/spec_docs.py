"""How the rules of the spec render: each rule's heading is linked by its rule ID.

A rule of ``spec/graph.rst`` section 4 is a numbered heading (``4.0.3 GRAPH-C1 — ...``) under the label
``.. _GRAPH-C1:``. docutils gives the section two ids, one made from the heading's words and the label's
(``graph-c1``), and Sphinx uses the first for the heading's permalink and for the sidebar. The words of a
heading may change from one spec version to the next; the rule ID does not, and it is the anchor the tool's
outputs link to (SARIF ``helpUri``, the evidence bundle's report page). So, for a section headed by a rule ID
and labelled with it, this puts the label's id first: permalink, sidebar and table of contents all use it.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.nodes import make_id
from sphinx.application import Sphinx

RULE_HEADING = re.compile(r"^\d+(?:\.\d+)* ([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\b")
"""A rule heading: its section number, then the rule ID."""


def rule_ids_first(app: Sphinx, doctree: nodes.document) -> None:
    for section in doctree.findall(nodes.section):
        match = RULE_HEADING.match(section[0].astext()) if section.children else None
        if match is None:
            continue
        anchor = make_id(match.group(1))
        if anchor in section["ids"]:
            section["ids"].remove(anchor)
            section["ids"].insert(0, anchor)


def setup(app: Sphinx) -> dict[str, Any]:
    # Before Sphinx's own doctree-read handlers (the table-of-contents collector reads the first id).
    app.connect("doctree-read", rule_ids_first, priority=100)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
