"""Translation validation on onnxruntime: the rewritten model must load and agree where the input model does.

The executor's bit-exact comparison (:mod:`.validate`) shows that a rewrite
keeps the model's meaning. A runtime may still refuse the rewritten file: a
constraint of its own that neither the ONNX text nor onnx.checker imposes
(onnxruntime refuses pooling padding not smaller than the kernel, say). When
onnxruntime is installed, both models are written to ONNX and run on the
normal input set:

* the input model refused: nothing to compare (reported, not a failure);
* the rewritten model refused where the input model ran: the rewrite fails;
* both ran: every output must agree within the cross-check tolerances
  (onnxruntime's kernels may round differently on the two graphs, so this
  half is not bit-exact).

Without onnxruntime the check says so and does not fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..differential.metrics import Tolerance, compare_arrays
from ..differential.oracles import run_contained
from ..loader.writer import to_proto
from ..model.graph import Model


@dataclass
class RuntimeCheck:
    """The onnxruntime half of the validation."""

    status: str
    """``agree``, ``differ``, ``rewritten refused``, ``input refused`` or ``not available``."""
    detail: str = ""
    version: str = ""
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status not in ("differ", "rewritten refused")

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "detail": self.detail, "version": self.version, "outputs": self.outputs}

    def line(self) -> str:
        head = f"onnxruntime check: {self.status}" + (f" ({self.version})" if self.version else "")
        return head + (f": {self.detail}" if self.detail else "")


def runtime_check(original: Model, rewritten: Model, feeds: Mapping[str, np.ndarray]) -> RuntimeCheck:
    """Run both models on onnxruntime (one thread, no graph optimisation) and compare; see the module doc."""
    before = run_contained("onnxruntime", to_proto(original), feeds)
    if before.status == "not available":
        return RuntimeCheck("not available", "onnxruntime is not installed; only the executor compared the models")
    if not before.ran:
        why = f"onnxruntime cannot run the input model: {before.message}"
        return RuntimeCheck("input refused", why, before.version or "")
    after = run_contained("onnxruntime", to_proto(rewritten), feeds)
    if not after.ran:
        return RuntimeCheck(
            "rewritten refused",
            f"onnxruntime runs the input model but not the rewritten one: {after.message}",
            after.version or "",
        )
    figures: dict[str, str] = {}
    bad = []
    for name, value in before.outputs.items():
        cmp = compare_arrays(value, after.outputs.get(name), Tolerance())
        figures[name] = cmp.summary()
        if not cmp.ok:
            bad.append(name)
    if bad:
        return RuntimeCheck("differ", f"outputs {', '.join(bad)} differ on onnxruntime", after.version or "", figures)
    return RuntimeCheck("agree", "", after.version or "", figures)
