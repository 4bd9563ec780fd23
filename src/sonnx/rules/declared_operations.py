"""The user's operator declarations against the model: which operations they cover, and where the model breaks them.

A declaration (:mod:`.declarations`) is a premise the check takes on trust,
so before any rule rests on it the check confirms that the model does not
contradict it where the model's own facts can be read:

* an operation of a declared operator that writes more input or output
  positions than the declared ``max`` (fewer than the declared positions is
  GRAPH-ARITY's own violation, left to that rule);
* an input of such an operation whose element type holds at run time
  (:mod:`.premises`: a graph input's declared type, a stored value, an
  operation's typed output) and is not among the declared ``types``.

Either makes the file unusable for this model: a one-line
:class:`~sonnx.base.errors.UsageError` (exit 2), since a verdict resting on
a statement the model refutes would be worthless. Outputs' declared types
are not compared: no fact enforced at run time gives a custom operation's
output type (a ``value_info`` entry is a declaration no runtime enforces,
spec/graph.rst §9.4).

:func:`rules_resting` names the rules whose verdicts rest on the
declarations (GRAPH-R2, GRAPH-DETERMINISM, GRAPH-ARITY and GRAPH-ATTRIBUTES) when some
operation of the model is covered; their verdicts carry the assumption.
"""

from __future__ import annotations

from onnx import TensorProto

from ..base.errors import UsageError
from ..model.graph import Model
from ..model.structure import scopes
from .base import CheckContext
from .declarations import FLAG, Declaration, Declarations
from .graph_arity import ID as ARITY_ID
from .graph_arity import written_scopes
from .graph_attributes import ID as ATTRIBUTES_ID
from .graph_determinism import ID as DETERMINISM_ID
from .graph_r2 import ID as R2_ID
from .graph_r2 import established

RESTING_RULES = (R2_ID, DETERMINISM_ID, ARITY_ID, ATTRIBUTES_ID)
"""The rules that read a declaration where no ONNX schema exists (both engines)."""


def uses(model: Model, decls: Declarations) -> dict[Declaration, int]:
    """How many operations of the file (every graph and function body as written) each declaration covers."""
    out: dict[Declaration, int] = {}
    for sc in written_scopes(model):
        for op in sc.graph.operations:
            d = decls.find(op.domain, op.operator, sc.imports)
            if d is not None:
                out[d] = out.get(d, 0) + 1
    return out


def unused(model: Model, decls: Declarations) -> list[str]:
    """A warning line per declaration that covers no operation of the model (reported, not an error)."""
    used = uses(model, decls)
    return [f"{FLAG}: {d.shown} is declared but no operation of the model uses it" for d in decls.entries
            if d not in used]


def _type_name(code: int) -> str:
    try:
        return str(TensorProto.DataType.Name(code)).lower()
    except ValueError:
        return f"type {code}"


def contradictions(model: Model, decls: Declarations) -> list[str]:
    """Each place where the model refutes a declaration (see the module text), in graph order."""
    found: list[str] = []
    for sc in written_scopes(model):
        for op in sc.graph.operations:
            d = decls.find(op.domain, op.operator, sc.imports)
            if d is None:
                continue
            sides = (("input", op.input_mapping, d.inputs), ("output", op.output_mapping, d.outputs))
            for side, mapping, decl in sides:
                if decl.maximum is not None and len(mapping) > decl.maximum:
                    found.append(f"{op.label} in {sc.path} writes {len(mapping)} {side} positions, more than the "
                                 f"{decl.maximum} declared for {d.shown}")
    ctx = CheckContext(model)
    for i, inlined in enumerate(scopes(ctx)):
        for op in inlined.graph.operations:
            d = decls.find(op.domain, op.operator, model.opset_imports)
            if d is None or d.inputs.types is None:
                continue
            for k, name in enumerate(op.input_mapping):
                if not name:
                    continue
                t = established(ctx, i, name).elem_type
                if t and t not in d.inputs.types:
                    found.append(f"input {k} {name!r} of {op.label} in {inlined.path} is of type {_type_name(t)} "
                                 f"at run time, which the declaration of {d.shown} does not allow")
    return found


def check_declarations(model: Model, decls: Declarations) -> None:
    """Raise the one-line error of the first contradiction (:func:`contradictions`), if any."""
    found = contradictions(model, decls)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UsageError(f"{FLAG} {decls.path}: the model contradicts the declarations: {found[0]}{more}")


def rules_resting(model: Model, decls: Declarations | None) -> tuple[str, ...]:
    """The rules whose verdicts rest on ``decls`` for this model: none unless some operation is covered."""
    used = {} if decls is None else uses(model, decls)
    if not used:
        return ()
    if any(d.attributes is not None for d in used):
        return RESTING_RULES
    return tuple(r for r in RESTING_RULES if r != ATTRIBUTES_ID)  # no attribute definitions declared: not read
