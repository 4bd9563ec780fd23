"""Dropout removal (inference only): readers of Dropout's output read its input.

Theorem ``rewrite_dropout``: in inference mode Dropout is the identity on
its data output. The seed's claim ("Dropout has no effect in inference")
needs the model to be in inference mode, which the model itself decides:

* opsets 1 and 6: attribute ``is_test`` must be 1 (its default 0 is training);
* opsets 7 and 10: the mode belongs to the runtime; inference is assumed;
* opset 12 on: input ``training_mode`` absent, or a constant initializer that
  is false (a graph input could be fed ``true``: refused; so is a value stored
  in an encoding the runtimes read differently, spec reading A13);
* the optional ``mask`` output is not read by anything and is not a graph
  output (the removal would leave its readers without a producer).
"""

from __future__ import annotations

from ..base.errors import NonCanonicalValueError
from ..model.graph import Model, Operation
from .base import BypassPass, ai_onnx_opset, captured_names, constant_array, readers, standard_form


class DropoutRemoval(
    BypassPass, name="dropout", title="Dropout removal (inference)", operators=("Dropout",), theorem="rewrite_dropout"
):
    def precondition(self, model: Model, op: Operation) -> str | None:
        g = model.graph
        why = standard_form(op, "a data output", first_input="data input")
        if why is not None:
            return why
        opset = ai_onnx_opset(model)
        if opset < 7:
            a = op.attribute("is_test")
            if a is None or int(a.value) != 1:
                return "is_test is not 1: the Dropout runs in training mode (opsets 1-6)"
        if opset >= 12 and len(op.input_mapping) > 2 and op.input_mapping[2]:
            try:
                mode = constant_array(g, op.input_mapping[2])
            except NonCanonicalValueError as e:  # read differently by the runtimes: it could be true
                return f"training_mode {op.input_mapping[2]!r} cannot be read: {e.one_line()}"
            if mode is None:
                return f"training_mode {op.input_mapping[2]!r} is not a constant initializer (it could be true)"
            if mode.size != 1 or bool(mode.reshape(())):
                return "training_mode is true: the Dropout drops elements at random"
        if len(op.output_mapping) > 1 and op.output_mapping[1]:
            mask = op.output_mapping[1]
            if readers(g, mask) or mask in g.outputs or mask in captured_names(g):
                return f"the mask output {mask!r} is used"
        return None
