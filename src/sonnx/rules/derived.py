"""The checked model with the types onnx's inference derives from enforced facts only (spec 9.4), as the check gives it.

GRAPH-IF-BRANCHES needs the element types the branches produce, and
STRICT-BROADCAST the shapes of computed tensors. A declaration of the file is
not such a fact (no runtime holds an intermediate tensor to it), so both read
the model onnx's shape inference gives once the declarations no runtime
enforces are removed: its types rest on the main graph's inputs, initial
values, constants and onnx's schemas.

The rules never read a file for it. The layer that runs them gives the derived
types in the check context (:attr:`CheckConfig.derived_types
<sonnx.rules.base.CheckConfig.derived_types>`): the check of a file passes
those the loader derived from the very bytes it read, and a model held in
memory those of its file when the file still holds it, else of the bytes it is
written as (:mod:`sonnx.loader.derived`). They are asked for here once per
check, for both rules; with none given, there are none (the rules say
UNKNOWN). :func:`asks_for_derived` tells the check beforehand whether a rule
will ask, so that a check none of whose rules asks does not pay for the
inference.
"""

from __future__ import annotations

from ..base.caching import cached
from ..model.graph import Model
from ..model.structure import walk_scopes
from .base import PROFILE_STRICT, CheckContext

NOT_GIVEN = "the check was given no types derived by onnx's inference"


def derived_model(ctx: CheckContext) -> tuple[Model | None, str]:
    """The model with derived types, or None and why there is none (see the module text for which)."""

    def build() -> tuple[Model | None, str]:
        given = ctx.config.derived_types
        if given is None:
            return None, NOT_GIVEN
        found = given(ctx.model, ctx.config.read_weights)
        return found.model, found.why

    return cached(ctx.cache, ("rules.derived_model",), build)


def asks_for_derived(model: Model, profile: str) -> bool:
    """Whether checking ``model`` under ``profile`` may ask for its derived types: STRICT-BROADCAST (strict profile)
    always does, GRAPH-IF-BRANCHES only when some graph holds an ``If`` of the default domain."""
    if profile == PROFILE_STRICT:
        return True
    return any(op.operator == "If" and op.domain == "" for sc in walk_scopes(model.graph) for op in sc.graph.operations)
