"""The checks of the built site (tools/site_check.py, run by ``make docs``) find each defect they name.

Each test builds a small site by hand: a page set that is sound, then one defect at a time, as the real
site had them (exports linked where they are not, an anchor that does not exist, a reference shown as
code, help text highlighted as Python, a theorem name cut short, a rule stated as a list term).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sonnx.rules.registry import RULES as REGISTRY
from tools.site_check import CSS_RULES, EXTERNAL_PYTHON_NAMES, check_site, css_has, main

RULES = tuple(r.id for r in REGISTRY)
OPERATOR_RULES = tuple(r.id for r in REGISTRY if r.spec == "spec/operators.rst")
"""The rules the operator layer's page states (``main`` looks for them on ``operators.html``)."""
CSS = "\n".join(f"{sel} {{\n    {decl};\n}}" for sel, decl in CSS_RULES)
NOTEBOOK = (
    '<div class="cell_output docutils container"><div class="output text_html"><div class="sonnx-report">'
    '<p style="margin:0">model <code>m.onnx</code>: PROVED (exit code 0)</p><table style="border-collapse:collapse">'
    '<thead><tr><th style="text-align:left">rule</th><th>status</th></tr></thead><tbody></tbody></table>'
    '</div></div></div>'
)
"""The notebook page as myst-nb writes a report's output cell (the HTML of ``ModelReport._repr_html_``)."""


def _spec(rules: tuple[str, ...] = RULES, sidebar: bool = True, permalink_on_id: bool = True) -> str:
    sections = "".join(
        f'<section id="{r.lower()}"><span id="{r.lower()}-words"></span>'
        f'<h3>4.0.{k} {r} — a rule (error)<a class="headerlink" '
        f'href="#{r.lower() if permalink_on_id else r.lower() + "-words"}">¶</a></h3><p>text</p></section>'
        for k, r in enumerate(rules, 1)
    )
    side = "".join(f'<li><a href="#{r.lower()}">{r}</a></li>' for r in rules) if sidebar else ""
    return (
        '<html><head><link rel="stylesheet" href="_static/sonnx.css?v=1" /></head><body>'
        f'<div class="body">{sections}</div>'
        f'<div class="sphinxsidebar"><div><ul>{side}</ul></div></div></body></html>'
    )


def _site(tmp_path: Path, **pages: str) -> Path:
    root = tmp_path / "html"
    files = {
        "spec.html": _spec(),
        "operators.html": _spec(OPERATOR_RULES),
        "_static/sonnx.css": CSS,
        "traceability.json": "{}",
        "notebook.html": NOTEBOOK,
        "_generated/catalogue.html": (
            '<p><a class="reference external" href="../traceability.json">traceability.json</a> '
            '<a class="reference internal" href="../spec.html#graph-c1">4.0.1 GRAPH-C1 — a rule</a></p>'
            '<div class="highlight-text notranslate"><pre>usage: sonnx and or for</pre></div>'
            '<p><a href="https://example.org/x#y">out</a> <a href="#here">self</a><span id="here"></span></p>'
        ),
    }
    for name, text in pages.items():  # spec_html: spec.html; _generated__cli_html: _generated/cli.html
        files[name.replace("__", "/").replace("_html", ".html").replace("_css", ".css")] = text
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_sound_site_has_no_problem(tmp_path: Path) -> None:
    root = _site(tmp_path)
    assert check_site(root, RULES) == []
    assert main([str(root)]) == 0


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ('href="traceability.json"', "no such file"),  # the export linked beside the page, not at the root
        ('href="../spec.html#graph-c9"', "no anchor #graph-c9"),
        ('href="../nowhere.html"', "no such file"),
        ('src="../_static/missing.js"', "no such file"),
        ('href="../../outside.html"', "no such file"),
    ],
)
def test_a_link_to_a_missing_file_or_anchor_is_found(tmp_path: Path, link: str, problem: str) -> None:
    root = _site(tmp_path, _generated__page_html=f"<p><a {link}>x</a></p>")
    found = check_site(root, RULES)
    assert len(found) == 1 and problem in found[0] and found[0].startswith("_generated/page.html")
    assert main([str(root)]) == 1


def test_an_unresolved_cross_reference_is_found(tmp_path: Path) -> None:
    resolved = '<a class="reference internal" href="#x"><code class="xref py py-func">sonnx.check()</code></a>'
    unresolved = '<code class="xref py py-func docutils literal">sonnx.run()</code>'
    external = f'<code class="xref py py-class">{EXTERNAL_PYTHON_NAMES[0]}</code>'
    root = _site(tmp_path, api_html=f'<p id="x">{resolved} {unresolved} {external}</p>')
    assert check_site(root, RULES) == ["api.html: cross-reference 'sonnx.run()' is not a link"]


def test_help_text_highlighted_as_python_is_found(tmp_path: Path) -> None:
    python = '<div class="highlight-default notranslate"><pre><span class="ow">and</span></pre></div>'
    root = _site(tmp_path, _generated__cli_html=python)
    assert check_site(root, RULES) == [
        "_generated/cli.html: a literal block is highlighted as 'default', not shown as plain text"
    ]
    named = '<div class="highlight-python notranslate"><pre>import sonnx</pre></div>'
    assert check_site(_site(tmp_path / "b", api_html=named), RULES) == []  # a block that names its language
    assert check_site(_site(tmp_path / "c", _generated__cli_html=named), RULES) != []  # but not help text


def test_a_name_cut_short_is_found(tmp_path: Path) -> None:
    cut = '<a class="reference internal" href="#t">Termination and exactly-onc... (THM-TERMINATION)</a>'
    root = _site(tmp_path, cat_html=f'<p id="t">{cut}</p>')
    assert [p.split(":")[1].strip() for p in check_site(root, RULES)] == ["link text cut short"]


def test_a_rule_without_a_numbered_heading_linked_by_its_id_is_found(tmp_path: Path) -> None:
    as_term = '<dl id="graph-c1"><dt>GRAPH-C1 — a rule (error)</dt><dd>text</dd></dl>'
    others = _spec(tuple(r for r in RULES if r != "GRAPH-C1"))
    dl_spec = others.replace('<div class="body">', f'<div class="body">{as_term}')
    root = _site(tmp_path, spec_html=dl_spec)
    assert check_site(root, RULES) == [
        "spec.html: rule GRAPH-C1 has no heading anchored at #graph-c1 (its ID)"
    ]
    unnumbered = _spec().replace(f"4.0.{RULES.index('GRAPH-C1') + 1} GRAPH-C1", "GRAPH-C1")
    assert "is not numbered" in check_site(_site(tmp_path / "b", spec_html=unnumbered), RULES)[0]
    words = _site(tmp_path / "c", spec_html=_spec(permalink_on_id=False))
    assert "spec.html: the permalink of GRAPH-C1 is '#graph-c1-words', not #graph-c1" in check_site(words, RULES)
    no_side = _site(tmp_path / "d", spec_html=_spec(sidebar=False))
    assert check_site(no_side, RULES) == [f"spec.html: the sidebar does not list {r}" for r in RULES]


def test_the_stylesheet_must_be_loaded_and_hold_its_rules(tmp_path: Path) -> None:
    unloaded = _site(tmp_path, spec_html=_spec().replace("_static/sonnx.css", "_static/other.css"))
    assert check_site(unloaded, RULES)[-1] == "spec.html: the site's stylesheet _static/sonnx.css is not loaded"
    breaking = CSS.replace("white-space: nowrap", "word-break: break-word")
    found = check_site(_site(tmp_path / "b", _static__sonnx_css=breaking), RULES)
    assert found == ["_static/sonnx.css: no rule 'dl.field-list > dt { white-space: nowrap }'"]


def test_css_rules_are_read_by_selector_and_declaration() -> None:
    css = "/* dl.field-list > dt { white-space: nowrap } */\na, dl.field-list  >  dt {\n  white-space:nowrap; }"
    assert css_has(css, "dl.field-list > dt", "white-space: nowrap")
    assert not css_has(css.split("\n")[0], "dl.field-list > dt", "white-space: nowrap")  # a comment is no rule
    assert not css_has(css, "dl.field-list > dd", "white-space: nowrap")


def test_the_command_line_refuses_a_missing_directory(tmp_path: Path) -> None:
    assert main([str(tmp_path / "absent")]) == 2


def test_the_screenshot_target_says_when_no_browser_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools import site_screenshots

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CHROMIUM", raising=False)
    assert site_screenshots.chromium() is None
    assert site_screenshots.main([str(_site(tmp_path)), str(tmp_path / "shots")]) == 2
    assert "no Chromium binary found" in capsys.readouterr().err


def test_an_operator_layer_rule_is_looked_for_on_its_own_page(tmp_path: Path) -> None:
    assert OPERATOR_RULES  # the operator layer states at least one rule
    root = _site(tmp_path, operators_html=_spec(()))
    assert main([str(root)]) == 1
    found = check_site(root, (), OPERATOR_RULES)
    assert found and all(p.startswith("operators.html: ") for p in found)


def test_the_notebook_page_must_show_a_report_table(tmp_path: Path) -> None:
    assert check_site(_site(tmp_path), RULES) == []
    unexecuted = NOTEBOOK.split('<div class="sonnx-report">')[0]  # the code cell without its output
    assert check_site(_site(tmp_path / "b", notebook_html=unexecuted), RULES) == [
        "notebook.html: no report's table of verdicts is shown (was the notebook executed?)"
    ]
    text_only = NOTEBOOK.replace("<table", "<pre")  # the plain repr, not the table
    assert check_site(_site(tmp_path / "c", notebook_html=text_only), RULES) != []
    gone = _site(tmp_path / "d")
    (gone / "notebook.html").unlink()
    assert check_site(gone, RULES) == ["notebook.html: missing"]
