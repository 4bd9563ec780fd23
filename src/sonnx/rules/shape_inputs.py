"""The table of shape inputs: which inputs of an operator fix its output shapes through their values.

Data of rule OP-VALUE-SHAPES (spec/operators.rst, section 4), packaged as
``sonnx/data/shape_inputs.json`` and read once. Per domain it lists the
operators whose output shapes follow from some inputs' values (with the
opset version from which each list holds), the operators whose output shapes
follow from their inputs' shapes alone, and the control-flow operators whose
nested graphs the analysis follows instead. An operator the table does not
list is not decided.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

DATA_FILE = "shape_inputs.json"


@dataclass(frozen=True)
class ShapeTable:
    """The table of ``shape_inputs.json`` for one domain."""

    value_shaped: dict[str, list[tuple[int, tuple[int, ...]]]]
    shape_only: frozenset[str]
    nested: frozenset[str]

    def positions(self, operator: str, opset: int) -> tuple[int, ...] | None:
        """The input positions whose values fix ``operator``'s output shapes at ``opset``; None when not listed."""
        if operator in self.shape_only or operator in self.nested:
            return ()
        rows = self.value_shaped.get(operator)
        if rows is None:
            return None
        chosen: tuple[int, ...] | None = None
        for since, pos in rows:
            if since <= opset:
                chosen = pos
        return chosen


@cache
def shape_tables() -> dict[str, ShapeTable]:
    """The packaged table, by domain (the default domain spelled ``""``)."""
    raw = json.loads(resources.files("sonnx.data").joinpath(DATA_FILE).read_text(encoding="utf-8"))
    out: dict[str, ShapeTable] = {}
    for domain, t in raw["domains"].items():
        rows = {op: sorted((int(s), tuple(int(p) for p in pos)) for s, pos in v) for op, v in t["value_shaped"].items()}
        out[domain] = ShapeTable(rows, frozenset(t["shape_only"]), frozenset(t["nested"]))
    return out
