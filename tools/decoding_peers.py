"""How the peers read one stored tensor: onnxruntime, onnx's reference evaluator and ``numpy_helper``.

Each reading puts the tensor as the only initializer of a model ``Identity(x) -> y`` and reads ``y``
back: onnxruntime with several sessions (one run each, every optimisation off; the output's own bytes, so
types the Python binding cannot convert are read too), the reference evaluator once, and
``onnx.numpy_helper.to_array`` directly. A reading is either the value's bits or the peer's
refusal. :func:`same` compares two readings bit for bit (NaN payloads and the sign of zero
included), which is what the decoder's differential test and ``tools/measure_decoding.py`` need.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 25
"""The Identity schema that admits every element type onnx 1.23 defines (2-bit, 4-bit, 6-bit and 8-bit floats)."""

IR = 13


@dataclass(frozen=True)
class Reading:
    """What one peer gives for the tensor: its bits on success, else ``error`` (its message, one line).

    ``bits`` is (shape, payload): the elements' bytes, packed for sub-byte types as ONNX stores them,
    or for strings their UTF-8 bytes; ``how`` says how the peer was asked when not plainly.
    """

    bits: tuple[tuple[int, ...], bytes | tuple[bytes, ...]] | None
    error: str | None
    how: str = ""

    def describe(self) -> str:
        if self.error is not None:
            return "refused"
        assert self.bits is not None
        payload = self.bits[1]
        shown = payload.hex()[:16] if isinstance(payload, bytes) else repr(payload)[:16]
        return f"reads {shown}" + (f" ({self.how})" if self.how else "")


def _fail(exc: BaseException | str) -> Reading:
    return Reading(None, " ".join(str(exc).split())[:200] or type(exc).__name__)


def _sub_byte(dt: np.dtype[Any]) -> int | None:
    """Storage bits of a sub-byte NumPy type (int4, float4, 2-bit, 6-bit), else None."""
    if dt.kind in "OSUcb" or dt.itemsize > 1:
        return None
    for info in (ml_dtypes.finfo, ml_dtypes.iinfo):
        try:
            bits = int(info(dt).bits)
        except Exception:
            continue
        return bits if bits < 8 else None
    return None


def bits_of_array(a: np.ndarray) -> tuple[tuple[int, ...], bytes | tuple[bytes, ...]]:
    """The shape and stored bits of an array (sub-byte elements packed low bits first)."""
    a = np.asarray(a)
    if a.dtype.kind in "OSU":
        return a.shape, tuple(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in a.reshape(-1))
    sub = _sub_byte(a.dtype)
    if sub is None:
        return a.shape, np.ascontiguousarray(a).tobytes()
    codes = np.ascontiguousarray(a).reshape(-1).view(np.uint8) & ((1 << sub) - 1)
    acc = 0
    for k, c in enumerate(codes.tolist()):
        acc |= c << (k * sub)
    return a.shape, acc.to_bytes((codes.size * sub + 7) // 8, "little")


def _ok(a: np.ndarray, how: str = "") -> Reading:
    return Reading(bits_of_array(a), None, how)


def identity_model(t: TensorProto, with_node: bool = True) -> onnx.ModelProto:
    """``Identity(x) -> y`` with ``t`` (named ``x``) as its only initializer (without the node: ``x`` is the output)."""
    t = TensorProto.FromString(t.SerializeToString())
    t.name = "x"
    out = helper.make_tensor_value_info("y" if with_node else "x", t.data_type, list(t.dims))
    nodes = [helper.make_node("Identity", ["x"], ["y"])] if with_node else []
    graph = helper.make_graph(nodes, "g", [], [out], [t])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR
    return model


def _ort_once(blob: bytes, t: TensorProto) -> tuple[tuple[int, ...], bytes | tuple[bytes, ...]]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(blob, options, providers=["CPUExecutionProvider"])
    value = session.run_with_ort_values(None, {})[0]
    shape = tuple(int(d) for d in value.shape())
    if t.data_type == TensorProto.STRING:
        return bits_of_array(np.asarray(value.numpy()))
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(t.data_type))
    sub = _sub_byte(dt)
    count = math.prod(shape)
    nbytes = (count * sub + 7) // 8 if sub is not None else count * dt.itemsize
    # the tensor's own bytes: the Python binding has no NumPy type for bfloat16, 4-bit or most 8-bit floats
    return shape, ctypes.string_at(value.data_ptr(), nbytes) if nbytes else b""


NO_KERNEL = ("NOT_IMPLEMENTED", "Type Error: Type")
"""onnxruntime's refusals that mean "no Identity kernel for this type", not "cannot read this tensor"."""


def read_ort(t: TensorProto, sessions: int = 2) -> Reading:
    """onnxruntime's reading over ``sessions`` fresh sessions; readings that differ are reported as an error.

    When onnxruntime has no Identity kernel for the element type, the tensor is read as the output of
    a model without operations (``how`` says so): that is still onnxruntime's reading of the stored bytes.
    """
    how = ""
    blob = identity_model(t).SerializeToString()
    seen: list[tuple[tuple[int, ...], bytes | tuple[bytes, ...]]] = []
    for _ in range(sessions):
        try:
            seen.append(_ort_once(blob, t))
        except Exception as exc:
            if seen or how or not any(k in str(exc) for k in NO_KERNEL):
                return _fail(exc)
            how = "no Identity kernel; read as a graph output"
            blob = identity_model(t, with_node=False).SerializeToString()
            try:
                seen.append(_ort_once(blob, t))
            except Exception as exc2:
                return Reading(None, " ".join(str(exc2).split())[:200], how)
    if any(s != seen[0] for s in seen[1:]):
        return _fail("sessions read different values")
    return Reading(seen[0], None, how)


def read_reference(t: TensorProto) -> Reading:
    """onnx's reference evaluator's reading."""
    from onnx.reference import ReferenceEvaluator

    try:
        outputs: Any = ReferenceEvaluator(identity_model(t)).run(None, {})
        return _ok(np.asarray(outputs[0]))
    except Exception as exc:
        return _fail(exc)


def read_numpy_helper(t: TensorProto) -> Reading:
    """``onnx.numpy_helper.to_array``'s reading (what sonnx used before its own decoder)."""
    try:
        return _ok(np.asarray(numpy_helper.to_array(t)))
    except Exception as exc:
        return _fail(exc)


def same(a: Reading, b: Reading) -> bool:
    """Both read, with the same shape and bits."""
    return a.bits is not None and a.bits == b.bits


def element_type_name(data_type: int) -> str:
    return str(TensorProto.DataType.Name(data_type))
