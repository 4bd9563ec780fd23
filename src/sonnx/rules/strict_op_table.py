"""The working group's per-operator restrictions as data: one row per static check of STRICT-OP-RESTRICTIONS.

Spec rule STRICT-OP-RESTRICTIONS (spec/operators.rst, section 2). Each
:class:`Row` names the operator it applies to (default domain), the oldest
operator version it applies to, the kind of check and its arguments, and the
keys of the tagged statements of the working group's operator specifications
it implements (``src/sonnx/data/wg_operator_tags.json``, written
``<file>|<family>|<section>|<tag>``). The checks themselves are in
:mod:`sonnx.rules.strict_op_checks`; the rule loops over this table.

Kinds (``args`` is read according to ``check``):

* ``attr-eq`` ``(name, value)``: the attribute's value, as written or else the
  schema's default, equals ``value``;
* ``attr-min`` ``(name, bound)``: the attribute's value (each element of a
  list), as written or else the schema's default, is at least ``bound``;
* ``attr-above`` ``(name, bound)``: the same, strictly above ``bound``;
* ``attr-present`` ``(name,)``: the attribute is written;
* ``input-present`` ``(position,)``: the input position is given a tensor;
* ``rank`` ``(position, rank)``: the input has that rank;
* ``attr-len-spatial`` ``(name, factor)``: a written list attribute has
  ``factor`` entries per spatial axis of input 0 (its rank minus 2);
* ``conv-group`` ``()``: ``group`` is 1 or the channel count of input 0;
* ``pool-kernel-pads`` ``()``: on each spatial axis the dilated kernel
  (``dilations[i] * (kernel_shape[i] - 1) + 1``) is larger than both pads of
  that axis, so every window holds an element of the input;
* ``conv-kernel-w`` ``()``: a written ``kernel_shape`` equals the spatial
  dimensions of the weight ``W`` (input 1);
* ``slice-order`` ``(sign,)``: where a step has that sign, the start is on
  the same side of the end as the step goes (start <= end for +1, start >= end
  for -1);
* ``slice-start`` ``()``: each start is below the size of the axis it slices;
* ``slice-axes-all`` ``()``: the axes input is given and names as many axes as
  input 0 has.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Row(NamedTuple):
    """One static check of a working-group restriction or constraint."""

    id: str
    """A stable name for the row, shown in witnesses and in the coverage table."""
    operator: str
    check: str
    args: tuple[Any, ...]
    tags: tuple[str, ...]
    """Inventory keys of the statements the row implements (one key or several, for a restriction and its
    attribute constraint that state the same condition)."""
    since: int = 1
    """The oldest version of the operator (its schema's since-version) the row applies to."""


KINDS = (
    "attr-eq", "attr-present", "input-present", "rank", "attr-len-spatial", "conv-group", "slice-order",
    "slice-start", "slice-axes-all", "attr-min", "attr-above", "pool-kernel-pads", "conv-kernel-w",
)


def _k(file: str, family: str, section: str, *tags: str) -> tuple[str, ...]:
    return tuple(f"{file}|{family}|{section}|{t}" for t in tags)


_MP = "maxpool/maxpool.md"
_CV = "conv/conv.md"
_GM = "gemm/gemm.md"
_SL = "slice/slice.md"
_SLT = "type, itype, itype, itype, itype"
_AM = "argmax/argmax.md"
_BN = "batchnormalization/batch_normalization.md"
_CT = "constant/constant.md"
_MM = "matmul/matmul.md"


def _slice(*tags: str) -> tuple[str, ...]:
    """A Slice restriction, stated alike in both type families of the file."""
    return _k(_SL, "real", "Restrictions", *tags) + _k(_SL, _SLT, "Restrictions", *tags)


ROWS: tuple[Row, ...] = (
    Row("maxpool-2-spatial-axes", "MaxPool", "rank", (0, 4),
        _k(_MP, "real", "Restrictions", "R1") + _k(_MP, "real", "X: real", "C1")),
    Row("maxpool-auto-pad-notset", "MaxPool", "attr-eq", ("auto_pad", "NOTSET"),
        _k(_MP, "real", "Restrictions", "R3") + _k(_MP, "real", "auto_pad: string", "C2")),
    Row("maxpool-ceil-mode-0", "MaxPool", "attr-eq", ("ceil_mode", 0),
        _k(_MP, "real", "Restrictions", "R4") + _k(_MP, "real", "ceil_mode: int", "C2"), since=10),
    Row("maxpool-storage-order-0", "MaxPool", "attr-eq", ("storage_order", 0),
        _k(_MP, "real", "Restrictions", "R5") + _k(_MP, "real", "storage_order: int", "C1"), since=8),
    Row("maxpool-pads-length", "MaxPool", "attr-len-spatial", ("pads", 2),
        _k(_MP, "real", "pads: list of ints", "C1")),
    Row("maxpool-strides-length", "MaxPool", "attr-len-spatial", ("strides", 1),
        _k(_MP, "real", "strides: list of ints", "C2")),
    Row("maxpool-dilations-length", "MaxPool", "attr-len-spatial", ("dilations", 1),
        _k(_MP, "real", "dilations: list of ints", "C2"), since=10),
    Row("maxpool-kernel-length", "MaxPool", "attr-len-spatial", ("kernel_shape", 1),
        _k(_MP, "real", "kernel_shape: list of ints", "C2")),
    Row("maxpool-kernel-above-pads", "MaxPool", "pool-kernel-pads", (),
        _k(_MP, "real", "pads: list of ints", "C2") + _k(_MP, "real", "kernel_shape: list of ints", "C3")),
    Row("conv-2-spatial-axes", "Conv", "rank", (0, 4),
        _k(_CV, "real", "Restrictions", "R1") + _k(_CV, "real", "X: tensor of real", "C1")),
    Row("conv-auto-pad-notset", "Conv", "attr-eq", ("auto_pad", "NOTSET"),
        _k(_CV, "real", "Restrictions", "R2") + _k(_CV, "real", "auto_pad: string", "C2")),
    Row("conv-group-1-or-channels", "Conv", "conv-group", (),
        _k(_CV, "real", "Restrictions", "R3") + _k(_CV, "real", "group: int", "C3")),
    Row("conv-pads-length", "Conv", "attr-len-spatial", ("pads", 2), _k(_CV, "real", "pads: list of int", "C2")),
    Row("conv-dilations-length", "Conv", "attr-len-spatial", ("dilations", 1),
        _k(_CV, "real", "dilations: list of int", "C2")),
    Row("conv-kernel-matches-w", "Conv", "conv-kernel-w", (),
        _k(_CV, "real", "kernel_shape: list of int", "C2") + _k(_CV, "real", "W: tensor of real", "C3")),
    Row("gemm-a-rank-2", "Gemm", "rank", (0, 2), _k(_GM, "real", "Restrictions", "R1")),
    Row("gemm-b-rank-2", "Gemm", "rank", (1, 2), _k(_GM, "real", "Restrictions", "R1")),
    Row("gemm-alpha-1", "Gemm", "attr-eq", ("alpha", 1.0), _k(_GM, "real", "Restrictions", "R2")),
    Row("gemm-beta-1", "Gemm", "attr-eq", ("beta", 1.0), _k(_GM, "real", "Restrictions", "R2")),
    Row("gemm-transa-0", "Gemm", "attr-eq", ("transA", 0), _k(_GM, "real", "Restrictions", "R2")),
    Row("gemm-transb-0", "Gemm", "attr-eq", ("transB", 0), _k(_GM, "real", "Restrictions", "R2")),
    Row("gemm-c-present", "Gemm", "input-present", (2,), _k(_GM, "real", "Restrictions", "R4")),
    Row("softmax-axis-non-negative", "Softmax", "attr-min", ("axis", 0),
        _k("softmax/softmax.md", "real", "Restrictions", "R1") + _k("softmax/softmax.md", "real", "axis: int", "C1")),
    Row("concat-axis-non-negative", "Concat", "attr-min", ("axis", 0),
        _k("concat/concat.md", "int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float, double, "
           "bfloat16, string, bool", "Restrictions", "R1")
        + _k("concat/concat.md", "int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float, double, "
             "bfloat16, string, bool", "axis: int (required)", "C2")),
    Row("argmax-axis-non-negative", "ArgMax", "attr-min", ("axis", 0),
        _k(_AM, "real", "Restrictions", "R4") + _k(_AM, "real", "axis: int", "C1")),
    Row("batchnorm-inference-mode", "BatchNormalization", "attr-eq", ("training_mode", 0),
        _k(_BN, "real", "Restrictions", "R1") + _k(_BN, "float", "Restrictions", "R1")
        + _k(_BN, "real", "training_mode: int", "C1") + _k(_BN, "float", "training_mode: int", "C1"), since=14),
    Row("batchnorm-epsilon-positive", "BatchNormalization", "attr-above", ("epsilon", 0.0),
        _k(_BN, "real", "epsilon: float", "C1") + _k(_BN, "float", "epsilon: float", "C1")),
    Row("matmul-a-rank-2", "MatMul", "rank", (0, 2),
        _k(_MM, "real, real", "Restrictions", "R1") + _k(_MM, "int, int", "Restrictions", "R1")
        + _k(_MM, "float, float", "A: float", "C1") + _k(_MM, "int, int", "A: itype", "C1")),
    Row("matmul-b-rank-2", "MatMul", "rank", (1, 2),
        _k(_MM, "real, real", "Restrictions", "R1") + _k(_MM, "int, int", "Restrictions", "R1")
        + _k(_MM, "float, float", "B: float", "C1") + _k(_MM, "int, int", "B: itype", "C1")),
    Row("constant-value-set", "Constant", "attr-present", ("value",),
        _k(_CT, "real", "Restrictions", "R1") + _k(_CT, "float", "Restrictions", "R1")
        + _k(_CT, "int", "Restrictions", "R1")),
    Row("slice-axes-given", "Slice", "input-present", (3,), _slice("R1"), since=10),
    Row("slice-axes-all", "Slice", "slice-axes-all", (),
        _slice("R2") + _k(_SL, "real", "X: real tensor", "C1"), since=10),
    Row("slice-steps-given", "Slice", "input-present", (4,), _slice("R3"), since=10),
    Row("slice-positive-steps-ascend", "Slice", "slice-order", (1,), _slice("R6"), since=10),
    Row("slice-negative-steps-descend", "Slice", "slice-order", (-1,), _slice("R7"), since=10),
    Row("slice-start-below-dimension", "Slice", "slice-start", (), _slice("R8"), since=10),
)
"""Every static check of the rule, in the order witnesses list them."""

