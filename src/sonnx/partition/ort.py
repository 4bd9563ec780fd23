"""onnxruntime's node-to-provider assignment, converted to a partition.

onnxruntime (1.31.1 here) records which execution provider runs which nodes
when the session option ``session.record_ep_graph_assignment_info`` is
``"1"``; ``InferenceSession.get_provider_graph_assignment_info()`` then
returns one entry per assigned subgraph, each with ``ep_name`` and
``get_nodes()`` (node ``name``, ``op_type``, ``domain``).

What the conversion does, and what it cannot know:

* each entry becomes one subgraph: ``device`` is the provider name, ``id``
  is ``<provider>_<k>`` (k counts that provider's entries in the order
  onnxruntime lists them), ``nodes`` are the seed-003 names (first outputs)
  of the model's operations with those node names;
* a node name onnxruntime reports that no operation of the file carries (a
  node made by an onnxruntime graph optimization, say) is written
  ``ort:<name>``, a name no operation has, so the check reports it as a node
  that is not in the model (kept bare, it could collide with the first
  output of another operation);
* onnxruntime does not report subgraph inputs and outputs; they are computed
  from the model for the listed nodes, so for such a partition the checks of
  inputs and outputs hold by construction, and the checks that carry
  information are the cover, the acyclicity of the fused graph and the rules
  on each subgraph.

onnxruntime is imported only when this module is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base.errors import InputError, SonnxError
from ..loader.sandbox import Failure, contained, runtime_memory_budget
from ..model.graph import Model
from .schema import Partition, Subgraph
from .structure import NodeIndex

Assignment = list[tuple[str, list[str]]]
UNRESOLVED = "ort:"
"""Prefix of a node name onnxruntime reports that no operation of the model carries."""


class OrtError(SonnxError):
    """onnxruntime is missing, lacks the assignment API, or refused the model."""


def ort_assignment(
    path: str, providers: Sequence[str] = ("CPUExecutionProvider",), optimization: str = "disable"
) -> Assignment:
    """(provider, node names) per subgraph onnxruntime assigned, for the model file at ``path``.

    ``optimization`` is ``disable`` (``ORT_DISABLE_ALL``: the nodes are the
    file's nodes) or ``all`` (``ORT_ENABLE_ALL``: onnxruntime may fuse nodes first).
    """
    try:
        import onnxruntime  # noqa: F401  (imported once here, not again in the child)
    except ImportError as exc:
        raise OrtError(f"onnxruntime is not installed ({exc})") from None
    if optimization not in ("disable", "all"):
        raise InputError(f"optimization {optimization!r}: expected disable or all")
    outcome = contained(  # a crash of onnxruntime ends the child only
        _assignment, path, tuple(providers), optimization, memory_budget=runtime_memory_budget()
    )
    if isinstance(outcome, Failure):
        raise OrtError(f"onnxruntime {outcome.reason} on {path} (it ran in a child process)")
    if isinstance(outcome, str):
        raise OrtError(outcome)
    return outcome


def _assignment(path: str, providers: tuple[str, ...], optimization: str) -> Assignment | str:
    """In a child process: the assignment, or why there is none (one line)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    levels = {"disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL, "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
    so.graph_optimization_level = levels[optimization]
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    try:
        sess = ort.InferenceSession(path, so, providers=list(providers))
    except Exception as exc:  # onnxruntime raises its own exception types
        return f"onnxruntime refused {path}: {' '.join(str(exc).split())}"
    if not hasattr(sess, "get_provider_graph_assignment_info"):
        return f"onnxruntime {ort.__version__} has no get_provider_graph_assignment_info()"
    out: Assignment = []
    for entry in sess.get_provider_graph_assignment_info():
        nodes: Any = entry.get_nodes()
        out.append((str(entry.ep_name), [str(n.name) for n in nodes]))
    return out


def partition_from_assignment(model: Model, assignment: Assignment, source: str = "") -> Partition:
    """The assignment as a partition of ``model`` (see the module docstring for what is computed)."""
    ix = NodeIndex(model)
    by_name: dict[str, int] = {}
    for j, op in enumerate(model.graph.operations):
        if op.name and op.name not in by_name:
            by_name[op.name] = j
    count: dict[str, int] = {}
    subs: list[Subgraph] = []
    for ep, names in assignment:
        k = count.get(ep, 0)
        count[ep] = k + 1
        members = [by_name[n] for n in names if n in by_name]
        keys = [ix.keys[by_name[n]] if n in by_name else f"{UNRESOLVED}{n}" for n in names]
        inputs, consts = ix.split_inputs(ix.true_inputs(members))
        subs.append(
            Subgraph(f"{ep}_{k}", tuple(inputs), tuple(ix.true_outputs(members)), tuple(keys), tuple(consts), ep)
        )
    return Partition(tuple(subs), source or model.source)
