"""The evidence page (report.html): its header facts, its links into the spec, escaping and determinism.

The page is read back with :mod:`html.parser`, so the tests look at what a browser would show (cell text,
link targets, the tags present), not at substrings that could match in the wrong place. The spec anchors
are derived here from spec/graph.rst's labels with docutils' own ``make_id`` (what Sphinx uses), not with
the page's helper, so a wrong helper cannot agree with itself.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections import Counter
from dataclasses import replace
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

import onnx
import pytest
from docutils.nodes import make_id
from onnx import TensorProto, helper

from sonnx.checking.evidence import render
from sonnx.checking.evidence.html import PageHeader, render_html, text_with_links
from sonnx.checking.evidence.pictures import graph_svg
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.checking.report import ModelReport
from sonnx.rules import RULES
from tests.common.bundles import EX, ROOT, verify, write

SPEC = ROOT / "spec" / "graph.rst"
LABEL = re.compile(r"^\.\. _([A-Za-z0-9-]+):\s*$", re.M)


class Page(HTMLParser):
    """What a browser shows of a page: its tags, its links (target and text), its header table rows."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.header: dict[str, str] = {}
        self._href: str | None = None
        self._link_text = ""
        self._in_header = False
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "a":
            self._href, self._link_text = a.get("href") or "", ""
        elif tag == "table" and a.get("class") == "header":
            self._in_header = True
        elif tag in ("th", "td") and self._in_header:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, self._link_text))
            self._href = None
        elif tag in ("th", "td") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._in_header:
            key, value = self._row
            self.header[key] = value
            self._row = []
        elif tag == "table":
            self._in_header = False

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._link_text += data
        if self._cell is not None:
            self._cell.append(data)


def spec_anchors() -> dict[str, str]:
    """Every label of spec/graph.rst -> the HTML id Sphinx gives it."""
    return {label: make_id(label) for label in LABEL.findall(SPEC.read_text(encoding="utf-8"))}


def operator_anchors() -> dict[str, str]:
    """Every label of spec/operators.rst (published as operators.html) -> the HTML id Sphinx gives it."""
    text = (SPEC.parent / "operators.rst").read_text(encoding="utf-8")
    return {label: make_id(label) for label in LABEL.findall(text)}


HEADER = PageHeader(
    version="1.2.3",
    commit="0123456789abcdef0123456789abcdef01234567",
    model_file="model/cnn_block.onnx",
    model_sha256=hashlib.sha256((EX / "cnn_block.onnx").read_bytes()).hexdigest(),
    command_line=("sonnx-check", "--seed", "0", "--inputs", "my inputs.npz", "examples/cnn_block.onnx"),
    created="2026-11-27T10:00:00Z",
    spec_version="0.6.0",
    docs_url="https://docs.example.org/sonnx",
)
SPEC_SITE = "https://docs.example.org/sonnx/"


@pytest.fixture(scope="module")
def full_report() -> tuple[ModelReport, CheckOptions]:
    """A check giving a verdict of every rule (strict profile), EXEC-ORDERS and a cross-check verdict."""
    options = CheckOptions(profile="sonnx-strict", engine="both", orders=1, oracles=("reference",))
    return check_file(str(EX / "cnn_block.onnx"), options), options


def test_the_header_shows_every_fact(full_report: tuple[ModelReport, CheckOptions]) -> None:
    page = Page(render_html(*full_report, HEADER))
    assert page.header == {
        "tool": f"sonnx 1.2.3 (commit {HEADER.commit})",
        "model": "model/cnn_block.onnx",
        "model SHA-256": HEADER.model_sha256,
        "command line": "sonnx-check --seed 0 --inputs 'my inputs.npz' examples/cnn_block.onnx",
        "created": "2026-11-27T10:00:00Z",
        "specification": "SONNX graph spec 0.6.0",
    }
    assert page.tags.index("table") < page.tags.index("h2")  # at the top, before the first section


def test_facts_a_bundle_does_not_record_are_said_to_be_missing(full_report: tuple[ModelReport, CheckOptions]) -> None:
    header = PageHeader("1.2.3", None, "model/m.onnx", "ab" * 32, ["sonnx-check", "m.onnx"], None, None)
    assert header.command_line == ("sonnx-check", "m.onnx")  # kept as a tuple: the header stays hashable
    rows = Page(render_html(*full_report, header)).header
    assert rows["tool"] == "sonnx 1.2.3 (commit not recorded)"
    assert rows["created"] == rows["specification"] == "not recorded"


@pytest.mark.rule("GRAPH-R1")
def test_every_link_goes_to_a_label_of_the_spec_and_every_rule_has_one(
    full_report: tuple[ModelReport, CheckOptions],
) -> None:
    report, options = full_report
    shown = {v.rule_id for v in report.all_verdicts()}
    assert {r.id for r in RULES} <= shown and "EXEC-ORDERS" in shown and "EXEC-CROSSCHECK-REFERENCE" in shown
    anchors = spec_anchors()
    assert "GRAPH-R1" in anchors and anchors["GRAPH-R1"] == "graph-r1"  # as the built site has it: <dl id="graph-r1">
    assert ".. include:: ../spec/graph.rst" in (ROOT / "docs" / "spec.rst").read_text(encoding="utf-8")
    links = Page(render_html(report, options, HEADER)).links
    assert links
    operators = operator_anchors()
    for href, text in links:  # the link's own rule, on the page that states it, nowhere else
        page, anchor = ("operators.html", operators[text]) if text in operators else ("spec.html", anchors[text])
        assert href == f"{SPEC_SITE}{page}#{anchor}", (href, text)
    linked = {text for _, text in links}
    anchors = {**anchors, **{r.id: operators[r.id] for r in RULES if r.id in operators}}
    assert linked == {r.id for r in RULES if r.id in anchors} == {r.id for r in RULES}
    assert not {i for i in shown if i.startswith("EXEC-")} & linked  # no section in the spec: no link
    expected = Counter(v.rule_id for v in report.all_verdicts() if v.rule_id in anchors)
    expected.update(ob.rule_id for ob in report.obligations)  # the obligation table's rule column
    assert report.obligations and Counter(t for _, t in links) >= expected


@pytest.mark.rule("GRAPH-R1")
def test_without_a_docs_site_rule_ids_are_named_not_linked(full_report: tuple[ModelReport, CheckOptions]) -> None:
    text = render_html(*full_report, replace(HEADER, docs_url=None))
    page = Page(text)
    assert page.links == [] and "written without <code>--docs-url</code>" in text
    assert "<span class='rule' title=" in text and "GRAPH-R1" in text


def test_a_bundle_written_with_docs_url_links_there_and_verifies(tmp_path: Path) -> None:
    site = "file:///srv/sonnx-docs"
    assert write(tmp_path / "b", EX / "cnn_block.onnx", "--engine", "direct", "--docs-url", site) == 0
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["docs_url"] == site
    links = Page((tmp_path / "b" / "report.html").read_text()).links
    assert links and all(href.startswith(f"{site}/spec.html#") for href, _ in links)
    assert verify(tmp_path / "b")[0] == 0


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS")
def test_rule_ids_in_free_text_are_linked_whole() -> None:
    text = "GRAPH-R1-OUTPUTS, then GRAPH-R1; XGRAPH-R1, GRAPH-R10 and EXEC-ORDERS: <b>"
    page = Page("<p>" + text_with_links(text, HEADER.docs_url) + "</p>")
    assert page.links == [
        (f"{SPEC_SITE}spec.html#graph-r1-outputs", "GRAPH-R1-OUTPUTS"),
        (f"{SPEC_SITE}spec.html#graph-r1", "GRAPH-R1"),
    ]
    assert "b" not in page.tags


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-DETERMINISM")
def test_a_reason_naming_another_rule_links_it(tmp_path: Path) -> None:
    report = check_file(str(EX / "acyclic_cycle.onnx"), CheckOptions(engine="both"))
    determinism = report.verdict("GRAPH-DETERMINISM")
    assert determinism is not None and "GRAPH-ACYCLIC" in (determinism.reason or "")
    links = Page(render_html(report, CheckOptions(engine="both"), HEADER)).links
    rows = 1 + sum(1 for ob in report.obligations if ob.rule_id == "GRAPH-ACYCLIC")  # its verdict, its obligations
    mentions = (determinism.reason or "").count("GRAPH-ACYCLIC")
    assert mentions >= 1 and sum(1 for _, t in links if t == "GRAPH-ACYCLIC") >= rows + mentions


def hostile_model(path: Path) -> Path:
    """A model whose names hold markup; the second Relu is dead, so a witness names it."""
    x = helper.make_tensor_value_info('x"<b>', TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    nodes = [
        helper.make_node("Relu", ['x"<b>'], ["y"], name="<script>alert(1)</script>"),
        helper.make_node("Relu", ['x"<b>'], ["unused"], name="<img src=x onerror=alert(2)>"),
    ]
    graph = helper.make_graph(nodes, "g</title><script>", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.mark.rule("GRAPH-R1")
def test_markup_in_the_model_or_the_header_stays_text(tmp_path: Path) -> None:
    model = hostile_model(tmp_path / "m.onnx")
    options = CheckOptions(engine="both")
    report = check_file(str(model), options)
    r1 = report.verdict("GRAPH-R1")
    assert r1 is not None and r1.status.value == "VIOLATED" and "<img" in (r1.witness.summary if r1.witness else "")
    header = PageHeader(
        version='<b>1</b>"',
        commit="<i>c</i>",
        model_file="model/<img src=y>.onnx",
        model_sha256='"><script>',
        command_line=("sonnx-check", "--inputs", 'a<b".npz', "x&y.onnx"),
        created="<u>today</u>",
        spec_version="<s>0</s>",
    )
    text = render_html(report, options, header)
    page = Page(text)
    allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table", "tr", "th", "td"}
    allowed |= {"code", "span", "a", "br", "svg", "defs", "marker", "path", "line", "polyline", "rect", "ellipse"}
    allowed |= {"text", "g"}
    assert set(page.tags) <= allowed, set(page.tags) - allowed
    assert (
        page.header["command line"] == shlex.join(header.command_line) == "sonnx-check --inputs 'a<b\".npz' 'x&y.onnx'"
    )
    assert page.header["tool"] == 'sonnx <b>1</b>" (commit <i>c</i>)' and page.header["created"] == "<u>today</u>"
    assert page.header["model"] == "model/<img src=y>.onnx" and page.header["model SHA-256"] == '"><script>'
    assert "<script" not in text.lower() and "<img" not in text.lower()


def test_two_renders_are_identical_and_carry_no_clock(full_report: tuple[ModelReport, CheckOptions]) -> None:
    report, options = full_report
    again = check_file(str(EX / "cnn_block.onnx"), options)
    first = render_html(report, options, HEADER)
    assert first == render_html(report, options, HEADER) == render_html(again, options, HEADER)
    undated = render_html(report, options, replace(HEADER, created=None))
    assert not re.search(r"\d{4}-\d\d-\d\d", undated)  # no date but the recorded one
    assert re.findall(r"\d{4}-\d\d-\d\dT[\d:]+Z", first) == ["2026-11-27T10:00:00Z"]


def test_the_page_is_self_contained(full_report: tuple[ModelReport, CheckOptions]) -> None:
    text = render_html(*full_report, HEADER)
    assert not re.search(r"<(script|link|img|iframe|object)\b|\bsrc=|url\((?!#)", text, re.I)
    assert all(href.startswith(SPEC_SITE) for href, _ in Page(text).links)


def test_a_written_bundle_states_its_own_model_and_command(tmp_path: Path) -> None:
    model = tmp_path / "cnn.onnx"
    model.write_bytes((EX / "cnn_block.onnx").read_bytes())
    assert write(tmp_path / "b", model, "--engine", "direct", "--evidence-timestamp") == 0
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    rows = Page((tmp_path / "b" / "report.html").read_text()).header
    assert rows["model"] == "model/cnn.onnx"
    assert rows["model SHA-256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert rows["command line"] == shlex.join(manifest["command_line"])
    assert manifest["command_line"][-1] == "model/cnn.onnx"
    assert rows["specification"] == f"SONNX graph spec {render.spec_version()}"
    assert manifest["created"] and manifest["created"] in rows["created"]
    assert manifest["build"]["commit"] in rows["tool"] and manifest["build"]["sonnx"] in rows["tool"]


class Shapes(HTMLParser):
    """The boxes (rectangles, and ellipses by their bounding box) and the edges (point lists) of an SVG."""

    def __init__(self, svg: str) -> None:
        super().__init__()
        self.boxes: list[tuple[float, float, float, float]] = []
        self.edges: list[list[tuple[float, float]]] = []
        self.feed(svg)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: float(v) for k, v in attrs if v is not None and re.fullmatch(r"-?[\d.]+", v)}
        if tag == "rect":
            self.boxes.append((a["x"], a["y"], a["x"] + a["width"], a["y"] + a["height"]))
        elif tag == "ellipse":
            self.boxes.append((a["cx"] - a["rx"], a["cy"] - a["ry"], a["cx"] + a["rx"], a["cy"] + a["ry"]))
        elif tag == "polyline":
            points = dict(attrs)["points"] or ""
            self.edges.append([(float(x), float(y)) for x, y in (p.split(",") for p in points.split())])
        elif tag == "line":
            self.edges.append([(a["x1"], a["y1"]), (a["x2"], a["y2"])])


def test_an_edge_that_skips_layers_goes_around_the_boxes_between(tmp_path: Path) -> None:
    # x feeds a chain of three Relu and the Add at its end: drawn straight, the edge x -> Add would cross
    # every Relu box and look like a path through them.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    nodes = [helper.make_node("Relu", [f"t{k}"], [f"t{k + 1}"], name=f"r{k}") for k in range(3)]
    nodes[0].input[0] = "x"
    nodes.append(helper.make_node("Add", ["x", "t3"], ["y"], name="add"))
    model = tmp_path / "skip.onnx"
    onnx.save(
        helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)]), model
    )
    report = check_file(str(model), CheckOptions(engine="direct"))
    assert report.model is not None
    shapes = Shapes(graph_svg(report.model.graph, {}))
    assert len(shapes.boxes) == 6 and len(shapes.edges) == 6  # x, three Relu, Add, y; six tensors drawn
    for edge in shapes.edges:
        for (xa, ya), (xb, yb) in pairwise(edge):
            for t in (k / 100 for k in range(101)):
                px, py = xa + t * (xb - xa), ya + t * (yb - ya)
                inside = [b for b in shapes.boxes if b[0] + 1 < px < b[2] - 1 and b[1] + 1 < py < b[3] - 1]
                assert not inside, (edge, (px, py), inside)
