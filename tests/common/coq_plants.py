"""Bugs planted in copies of :mod:`sonnx.model.semantics`, and graph facts the coverage test counts.

The differential test against the runner extracted from Coq
(``tests/model/test_coq_runner.py``, spec section 3) must find every bug in
:data:`PLANTS`: otherwise agreement on the generated graphs would say
little about the semantics.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from sonnx.model import semantics as real_semantics
from sonnx.model.graph import Graph


def planted(name: str, replacements: Sequence[tuple[str, str]]) -> ModuleType:
    """A copy of :mod:`sonnx.model.semantics` with ``replacements`` applied (each must apply)."""
    source = Path(real_semantics.__file__).read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in source, f"the plant {name} no longer applies: {old!r} not found"
        source = source.replace(old, new)
    module = ModuleType(f"sonnx.model._planted_{name}")
    module.__package__ = "sonnx.model"
    sys.modules[module.__name__] = module
    exec(compile(source, f"<planted {name}>", "exec"), module.__dict__)
    return module


def has_cycle(graph: Graph) -> bool:
    """Whether some operation (transitively) requires a tensor it writes (GRAPH-ACYCLIC violated)."""
    ops = graph.operations
    writers: dict[str, set[int]] = {}
    for i, op in enumerate(ops):
        for n in op.output_mapping:
            if n:
                writers.setdefault(n, set()).add(i)
    after = {i: {j for n in op.required_inputs for j in writers.get(n, ())} for i, op in enumerate(ops)}
    colour = dict.fromkeys(range(len(ops)), 0)

    def visit(i: int) -> bool:
        colour[i] = 1
        for j in after[i]:
            if colour[j] == 1 or (colour[j] == 0 and visit(j)):
                return True
        colour[i] = 2
        return False

    return any(colour[i] == 0 and visit(i) for i in range(len(ops)))


# Bugs planted in copies of sonnx.model.semantics; the differential must find each.
PLANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "implicit_ignored_by_is_executable": (
        ("graph.operations[index].required_inputs", "[n for n in graph.operations[index].input_mapping if n]"),
    ),
    "implicit_ignored_by_run": (("required = o.required_inputs", "required = [n for n in o.input_mapping if n]"),),
    "run_does_not_record_a_firing": (("        fired.add(i)\n", ""),),
    "run_releases_one_input_early": (("if pending.missing[j] == 0 and", "if pending.missing[j] <= 1 and"),),
    "kernel_failure_swallowed": (
        (
            "    results = interpretation.apply(op, args, scope)\n",
            "    try:\n        results = interpretation.apply(op, args, scope)\n"
            "    except Exception:\n        return\n",
        ),
    ),
}


# Bugs of fire that only a failing run shows, and only where fire is compared step by step up to the failure:
# on a run that succeeds no kernel raises, so they change nothing there, and run does not call fire.
FAILURE_STEP_PLANTS: dict[str, tuple[tuple[str, str], ...]] = {
    # The ready operations whose inputs no unfired operation can still write are evaluated ahead (a
    # speculative warm-up): on a run that succeeds they later fire on the same arguments and succeed, but a
    # failing kernel raises during an earlier firing, before the run reaches it in file order.
    "fire_runs_ready_kernels_ahead": (
        (
            "    values = dict(state.values)\n    _fire_into(",
            "    ops = graph.operations\n"
            "    pending = {n for k, o in enumerate(ops) if k not in state.fired for n in o.output_mapping}\n"
            "    for ready in executable(graph, state):\n"
            "        if not pending & set(graph.operations[ready].required_inputs):\n"
            "            _fire_into(graph.operations[ready], dict(state.values), interpretation, FileOrder)\n"
            "    values = dict(state.values)\n    _fire_into(",
        ),
    ),
    # A failing kernel is recorded as a firing that wrote nothing.
    "fire_records_a_failure_as_fired": (
        (
            "    _fire_into(graph.operations[index], values, interpretation, FileOrder)\n",
            "    try:\n        _fire_into(graph.operations[index], values, interpretation, FileOrder)\n"
            "    except Exception:\n        return State(dict(state.values), state.fired | {index})\n",
        ),
    ),
}


# Bugs planted in the nested runs of copies of sonnx.model.semantics (spec 1.4, 3.6); the differential
# on graphs with nested graphs (tests/common/coq_nested_diff.py) must find each.
NESTED_PLANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "run_nested_ignores_the_outer_values": (
        (
            "state = initial_state(graph, bound, initial, self._values)",
            "state = initial_state(graph, bound, initial, {})",
        ),
    ),
    "run_nested_binds_inputs_in_reverse": (
        (
            "bound = dict(zip(graph.inputs, inputs, strict=True))",
            "bound = dict(zip(graph.inputs[::-1], inputs, strict=True))",
        ),
    ),
    "a_body_sees_enclosing_names_it_shadows": (
        ("values.update((n, outer[n]) for n in graph.captures if n in outer)", "values.update(outer)"),
    ),
    "run_nested_reverses_the_outputs": (
        ("        return outputs_of(graph, final)\n", "        return outputs_of(graph, final)[::-1]\n"),
    ),
}
