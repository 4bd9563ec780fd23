"""The ``sonnx-example`` directive: a command of the tutorial, run while the site is built.

``.. sonnx-example:: sonnx-check examples/cnn_block.onnx`` with ``:exit: N`` and, as content, the output the
surrounding text relies on (``...`` elides lines or text; ``tools/doc_examples.py`` defines the pattern). The
page shows the command's real output and exit code. When the exit code differs from ``:exit:`` or the output
does not fit the content, the build warns, which ``-W`` makes an error: the text beside an example cannot
go on describing an output the tool no longer gives. ``tests/spec/test_doc_examples.py`` checks the same
directives without a build.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from tools.doc_examples import Example, mismatch, prepare, run

LOG = logging.getLogger(__name__)


class SonnxExample(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"exit": directives.nonnegative_int}  # noqa: RUF012 (docutils' own class attribute)

    def run(self) -> list[nodes.Node]:
        if "exit" not in self.options:
            raise self.error("sonnx-example needs the option :exit: N")
        example = Example(self.env.docname, self.lineno, self.arguments[0], self.options["exit"],
                          tuple(self.content) or None)
        with tempfile.TemporaryDirectory(prefix="sonnx-example-") as tmp:
            prepare(Path(tmp))
            code, out = run(example, Path(tmp))
        if code != example.exit_code:
            LOG.warning("sonnx-example %r exits with %d, the text says %d", example.command, code,
                        example.exit_code, location=(self.env.docname, self.lineno))
        if example.shown is not None and (line := mismatch(example.shown, out)) is not None:
            LOG.warning("sonnx-example %r: its output no longer fits the line %r the text shows",
                        example.command, line, location=(self.env.docname, self.lineno))
        text = f"$ {example.command}\n{out}(exit code {code})"
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("sonnx-example", SonnxExample)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
