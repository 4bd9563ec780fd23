"""Ask the installed peers what they do, instead of assuming a version's behaviour.

A test about a peer's limit (onnxruntime refusing an IR version or an opset,
an optimisation that folds a node, an API that exists) calls one of these
first and asserts sonnx's consequence for either answer. Versions move under
the lock file only when it is refreshed; ``make test-latest`` runs the suite
against the newest releases, and these questions keep it meaningful there.
"""

from __future__ import annotations

from typing import Any

import onnx


def onnxruntime() -> Any:
    import onnxruntime as ort

    return ort


def ort_refusal(proto: onnx.ModelProto) -> str | None:
    """None when the installed onnxruntime loads ``proto`` (one thread, no optimisation); else its message."""
    ort = onnxruntime()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    try:
        ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        return str(exc) or type(exc).__name__
    return None


def ort_has_assignment_info() -> bool:
    """Whether the installed onnxruntime reports its node-to-provider assignment."""
    return hasattr(onnxruntime().InferenceSession, "get_provider_graph_assignment_info")
