"""The executable mathematical model of SONNX graphs (spec/graph.rst).

Immutable types (:mod:`.graph`), the execution semantics as pure functions
(:mod:`.semantics`), the symbolic value domain (:mod:`.symbolic`), and
structural indices shared by the rules (:mod:`.index` per graph, :mod:`.structure` across scopes).
"""

from __future__ import annotations

from .graph import (
    Attribute,
    Dim,
    ExternalLocation,
    Function,
    Graph,
    InitialValue,
    Model,
    Operation,
    Tensor,
    TensorType,
    make_graph,
    make_operation,
)
from .semantics import (
    FileOrder,
    Interpretation,
    LastReadyOrder,
    Scheduler,
    SeededRandomOrder,
    State,
    evaluate,
    executable,
    fire,
    initial_state,
    is_executable,
    outputs_of,
    run,
)

__all__ = [
    "Attribute",
    "Dim",
    "ExternalLocation",
    "FileOrder",
    "Function",
    "Graph",
    "InitialValue",
    "Interpretation",
    "LastReadyOrder",
    "Model",
    "Operation",
    "Scheduler",
    "SeededRandomOrder",
    "State",
    "Tensor",
    "TensorType",
    "evaluate",
    "executable",
    "fire",
    "initial_state",
    "is_executable",
    "make_graph",
    "make_operation",
    "outputs_of",
    "run",
]
