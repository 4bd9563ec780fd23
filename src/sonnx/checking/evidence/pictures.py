"""The pictures of the evidence page, drawn as inline SVG without any layout library.

* The main graph, in layers by topological depth (graph inputs on top, then
  each operation one layer below its deepest producer), operations named in a
  violated verdict's witness filled red (errors) or orange (warnings); an
  edge that skips layers passes each layer in between through a free lane
  beside the boxes, so that it never seems to run through an operation.
* Per cross-checked output, a bar chart of the largest absolute error of each
  oracle on a logarithmic scale, with the absolute tolerance marked, so a
  reviewer sees at a glance how far inside or outside tolerance each one is.

Both are deterministic: positions follow file order and topological depth only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from html import escape
from typing import Any

from ...base.verdict import Severity, Status
from ...model.graph import Graph
from ..report import ModelReport

MAX_DRAWN_OPERATIONS = 300
"""Larger graphs are not drawn (the picture would be unreadable); the page says so."""

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 150, 30, 20, 40, 20


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a JSON-like value (witness data), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def flagged_operations(report: ModelReport) -> dict[str, str]:
    """Operation labels named by violated verdicts: label -> ``error`` or ``warning`` (error wins)."""
    out: dict[str, str] = {}
    for v in report.all_verdicts():
        if v.status is not Status.VIOLATED or v.witness is None:
            continue
        level = "error" if v.severity is Severity.ERROR else "warning"
        for s in _strings(dict(v.witness.data)):
            if out.get(s) != "error":
                out[s] = level
    return out


def layers(graph: Graph) -> list[list[int]]:
    """Operation indices per layer: depth = 1 + the deepest producer of any input (graph inputs are 0).

    Operations on a cycle (a violating model) have no depth; they go to one
    extra layer at the bottom, in file order, so the picture still shows them.
    """
    ops = graph.operations
    producer: dict[str, int] = {}
    for k, op in enumerate(ops):
        for o in op.output_mapping:
            if o:
                producer.setdefault(o, k)
    preds = [sorted({producer[i] for i in op.input_mapping if i in producer}) for op in ops]
    depth: dict[int, int] = {}
    users: dict[int, list[int]] = {}
    waiting = [len(p) for p in preds]
    for k, p in enumerate(preds):
        for q in p:
            users.setdefault(q, []).append(k)
    ready = [k for k, w in enumerate(waiting) if w == 0]
    while ready:
        k = ready.pop()
        depth[k] = 1 + max((depth[q] for q in preds[k]), default=0)
        for u in users.get(k, []):
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    count = max(depth.values(), default=0)
    rows: list[list[int]] = [[] for _ in range(count)]
    for k in range(len(ops)):
        if k in depth:
            rows[depth[k] - 1].append(k)
    stuck = [k for k in range(len(ops)) if k not in depth]
    if stuck:
        rows.append(stuck)
    return rows


def _short(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def graph_svg(graph: Graph, flagged: dict[str, str]) -> str:
    """The main graph as inline SVG (see the module docstring)."""
    ops = graph.operations
    rows = layers(graph)
    inputs = [n for n in graph.inputs if n not in graph.initialized]
    all_rows: list[list[tuple[str, str]]] = [[("in", n) for n in inputs]]
    all_rows += [[("op", str(k)) for k in row] for row in rows]
    all_rows.append([("out", n) for n in graph.outputs])
    width = max(len(r) for r in all_rows) * (BOX_W + GAP_X) + 2 * MARGIN
    height = len(all_rows) * (BOX_H + GAP_Y) + 2 * MARGIN
    pos: dict[tuple[str, str], tuple[float, float]] = {}
    for row_no, row in enumerate(all_rows):
        offset = (width - len(row) * (BOX_W + GAP_X)) / 2
        for col, key in enumerate(row):
            pos[key] = (offset + col * (BOX_W + GAP_X) + GAP_X / 2, MARGIN + row_no * (BOX_H + GAP_Y))
    source: dict[str, tuple[str, str]] = {n: ("in", n) for n in inputs}
    for k, op in enumerate(ops):
        for o in op.output_mapping:
            if o:
                source.setdefault(o, ("op", str(k)))
    edges: list[str] = []
    row_of = {key: r for r, row in enumerate(all_rows) for key in row}

    def lanes(r: int) -> list[float]:
        """The x of the free lanes of row ``r``: left of its first box, between two boxes, right of its last."""
        offset = (width - len(all_rows[r]) * (BOX_W + GAP_X)) / 2
        return [offset + c * (BOX_W + GAP_X) for c in range(len(all_rows[r]) + 1)]

    def edge(a: tuple[str, str], b: tuple[str, str], label: str) -> None:
        # An edge that skips rows passes each row in between through a free lane, never behind a box: a
        # straight line would seem to enter the box it crosses and leave it again.
        (x1, y1), (x2, y2) = pos[a], pos[b]
        points = [(x1 + BOX_W / 2, y1 + BOX_H)]
        for r in range(row_of[a] + 1, row_of[b]):
            top = MARGIN + r * (BOX_H + GAP_Y)
            x = min(lanes(r), key=lambda g: (abs(g - points[-1][0]), g))
            points += [(x, top - GAP_Y / 4), (x, top + BOX_H + GAP_Y / 4)]
        points.append((x2 + BOX_W / 2, y2))
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        edges.append(
            f'<polyline points="{path}" fill="none" stroke="#888" marker-end="url(#arrow)">'
            f"<title>{escape(label)}</title></polyline>"
        )

    for k, op in enumerate(ops):
        for i in op.input_mapping:
            if i in source:
                edge(source[i], ("op", str(k)), i)
    for n in graph.outputs:
        if n in source:
            edge(source[n], ("out", n), n)
    boxes: list[str] = []
    for key, (x, y) in pos.items():
        kind, name = key
        if kind == "op":
            op = ops[int(name)]
            level = flagged.get(op.label)
            fill = {"error": "#f4b0b0", "warning": "#f8d8a0"}.get(level or "", "#dde8f4")
            stroke = {"error": "#b00000", "warning": "#b06000"}.get(level or "", "#4a6a8a")
            text, tip = op.operator, f"{op.label} ({level or 'no violation'})"
            shape = f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="{fill}" '
            shape += f'stroke="{stroke}" stroke-width="{2 if level else 1}"/>'
        else:
            text, tip = name, f"graph {'input' if kind == 'in' else 'output'} {name}"
            shape = (
                f'<ellipse cx="{x + BOX_W / 2:.1f}" cy="{y + BOX_H / 2:.1f}" rx="{BOX_W / 2}" ry="{BOX_H / 2}" '
                'fill="#eef6ee" stroke="#5a8a5a"/>'
            )
        boxes.append(
            f"<g><title>{escape(tip)}</title>{shape}"
            f'<text x="{x + BOX_W / 2:.1f}" y="{y + BOX_H / 2 + 4:.1f}" text-anchor="middle" '
            f'font-size="11">{escape(_short(text))}</text></g>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="graph of the model">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>'
        + "".join(edges)
        + "".join(boxes)
        + "</svg>"
    )


LOG_LOW, LOG_HIGH = -16, 1
"""The error axis of the bar charts: 1e-16 to 1e1 (values outside are clamped to the ends)."""


def _log_x(value: float, x0: float, span: float) -> float:
    if value <= 0 or math.isnan(value):
        return x0
    exp = min(max(math.log10(value), LOG_LOW), LOG_HIGH) if math.isfinite(value) else LOG_HIGH
    return x0 + span * (exp - LOG_LOW) / (LOG_HIGH - LOG_LOW)


HALO = 'stroke="#fff" stroke-width="3" paint-order="stroke"'
"""A white outline under a label, so that it stays readable where it crosses a grid or tolerance line."""


def error_chart(output: str, rows: list[tuple[str, Any]]) -> str:
    """One output's chart: a bar per oracle (max absolute error, log scale) and its absolute tolerance."""
    x0, span, row_h = 130.0, 420.0, 26
    height = 40 + row_h * len(rows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{height}" role="img" '
        f'aria-label="largest absolute error per oracle for {escape(output)}">'
    ]
    for exp in range(LOG_LOW, LOG_HIGH + 1, 4):
        x = _log_x(10.0**exp, x0, span)
        parts.append(f'<line x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{height - 20}" stroke="#ddd"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 6}" font-size="10" text-anchor="middle">1e{exp}</text>')
    for k, (oracle, c) in enumerate(rows):
        y = 14 + k * row_h
        parts.append(f'<text x="{x0 - 8}" y="{y + 13}" font-size="11" text-anchor="end">{escape(oracle)}</text>')
        if c.mismatch is not None or c.max_abs is None:
            parts.append(f'<text x="{x0}" y="{y + 13}" font-size="11" fill="#b00000">{escape(c.summary())}</text>')
            continue
        end = _log_x(c.max_abs, x0, span)
        color = "#4a9a4a" if c.ok else "#c03030"
        parts.append(f'<rect x="{x0}" y="{y}" width="{end - x0:.1f}" height="16" fill="{color}"/>')
        tol_x = _log_x(c.tolerance.atol, x0, span)
        parts.append(
            f'<line x1="{tol_x:.1f}" y1="{y - 3}" x2="{tol_x:.1f}" y2="{y + 19}" stroke="#000" '
            f'stroke-dasharray="3,2"><title>atol {c.tolerance.atol:g}</title></line>'
        )
        label = "exact" if c.max_abs == 0 else f"{c.max_abs:.3g}"
        parts.append(
            f'<text x="{max(end, x0) + 6 if c.max_abs else x0 + 6:.1f}" y="{y + 13}" font-size="11" {HALO}>'
            f"{escape(label)} ({c.outside}/{c.elements} outside)</text>"
        )
    parts.append(
        f'<text x="{x0 + span + 16:.1f}" y="{height - 6}" font-size="10">dashed line: absolute tolerance</text></svg>'
    )
    return "".join(parts)
