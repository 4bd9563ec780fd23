"""Batch d kernels (sequences, optionals, random draws, strings, images, training optimizers): unit tests.

The ONNX backend node cases of these operators run in tests/conformance; these tests cover what they leave out:
operators without node cases, version differences, refusals, edge cases and the documented random generator.
"""

from __future__ import annotations

import functools
import importlib
import io
import sys
from typing import Any

import numpy as np
import onnx
import onnx.backend.test.case.model as model_pkg
import pytest
from onnx import TensorProto, helper
from onnx.backend.test.case.test_case import TestCase

from sonnx.execution.backend import SonnxBackend
from sonnx.ops import MODULES, REGISTRY, Kernel, KernelRegistry
from sonnx.ops.values import EMPTY
from tests.common.backend_cases import NodeCase, all_node_cases, run_case

TRAINING = "ai.onnx.preview.training"


def _fn(operator: str, opset: int, domain: str = "") -> Any:
    kernel, _ = REGISTRY.lookup(domain, operator, opset)
    return kernel.fn


# -- sequences ------------------------------------------------------------------------------------------------


def _seq() -> list[np.ndarray]:
    return [np.array([1, 2], dtype=np.int64), np.array([3], dtype=np.int64), np.array([4, 5, 6], dtype=np.int64)]


def test_sequence_at_counts_negative_positions_from_the_back_and_refuses_out_of_range() -> None:
    at = _fn("SequenceAt", 11)
    np.testing.assert_array_equal(at(_seq(), np.array(-1, dtype=np.int32)), [4, 5, 6])
    np.testing.assert_array_equal(at(_seq(), np.array(-3, dtype=np.int64)), [1, 2])
    np.testing.assert_array_equal(at(_seq(), np.array([1], dtype=np.int64)), [3])
    for bad in (3, -4):
        with pytest.raises(ValueError, match=rf"position {bad} is outside \[-3, 2\]"):
            at(_seq(), np.array(bad, dtype=np.int64))
    with pytest.raises(ValueError, match="one integer"):
        at(_seq(), np.array(1.0, dtype=np.float32))


def test_sequence_insert_position_range_is_minus_n_to_n() -> None:
    insert = _fn("SequenceInsert", 11)
    t = np.array([9], dtype=np.int64)
    assert [a.tolist() for a in insert(_seq(), t)] == [[1, 2], [3], [4, 5, 6], [9]]
    assert [a.tolist() for a in insert(_seq(), t, np.array(3))] == [[1, 2], [3], [4, 5, 6], [9]]
    assert [a.tolist() for a in insert(_seq(), t, np.array(-1))] == [[1, 2], [3], [9], [4, 5, 6]]
    assert [a.tolist() for a in insert(_seq(), t, np.array(-3))] == [[9], [1, 2], [3], [4, 5, 6]]
    assert [a.tolist() for a in insert([], t)] == [[9]]
    with pytest.raises(ValueError, match="outside"):
        insert(_seq(), t, np.array(4))
    with pytest.raises(ValueError, match="cannot insert a float32 tensor into a sequence of int64"):
        insert(_seq(), np.zeros(1, dtype=np.float32))
    original = _seq()
    insert(original, t, np.array(0))
    assert len(original) == 3  # the input sequence is not changed


def test_sequence_erase_defaults_to_the_last_and_refuses_an_empty_sequence() -> None:
    erase = _fn("SequenceErase", 11)
    assert [a.tolist() for a in erase(_seq())] == [[1, 2], [3]]
    assert [a.tolist() for a in erase(_seq(), np.array(-3))] == [[3], [4, 5, 6]]
    assert [a.tolist() for a in erase(_seq(), np.array(1))] == [[1, 2], [4, 5, 6]]
    with pytest.raises(ValueError, match="empty sequence"):
        erase([])
    with pytest.raises(ValueError, match="outside"):
        erase(_seq(), np.array(3))


def test_sequence_construct_empty_and_length() -> None:
    seq = _fn("SequenceConstruct", 11)(np.zeros(2, np.float32), np.ones((1, 3), np.float32))
    assert len(seq) == 2 and seq[1].shape == (1, 3)
    with pytest.raises(ValueError, match="one element type"):
        _fn("SequenceConstruct", 11)(np.zeros(2, np.float32), np.zeros(2, np.float64))
    assert _fn("SequenceEmpty", 11)(dtype=TensorProto.INT64) == []
    n = _fn("SequenceLength", 11)(_seq())
    assert n.dtype == np.int64 and n.shape == () and int(n) == 3
    assert int(_fn("SequenceLength", 11)([])) == 0
    with pytest.raises(ValueError, match="must be a sequence"):
        _fn("SequenceLength", 11)(np.zeros(3))


def test_concat_from_sequence_concatenates_or_stacks() -> None:
    cat = _fn("ConcatFromSequence", 11)
    parts = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(6, 12, dtype=np.float32).reshape(2, 3)]
    assert cat(parts, axis=0).shape == (4, 3)
    np.testing.assert_array_equal(cat(parts, axis=-1), np.concatenate(parts, axis=1))
    assert cat(parts, axis=0, new_axis=1).shape == (2, 2, 3)
    assert cat(parts, axis=2, new_axis=1).shape == (2, 3, 2)  # new_axis admits axis = rank
    assert cat(parts, axis=-3, new_axis=1).shape == (2, 2, 3)
    with pytest.raises(ValueError, match=r"axis 2 is outside \[-2, 1\]"):
        cat(parts, axis=2)
    with pytest.raises(ValueError, match="empty sequence"):
        cat([], axis=0)
    with pytest.raises(ValueError, match="one shape"):
        cat([np.zeros(2), np.zeros(3)], axis=0, new_axis=1)


def test_split_to_sequence_scalar_split_leaves_a_shorter_last_part() -> None:
    split = _fn("SplitToSequence", 24)
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    parts = split(x, np.array(2, dtype=np.int64), axis=-1)
    assert [p.shape for p in parts] == [(2, 2), (2, 2), (2, 1)]
    np.testing.assert_array_equal(parts[2], [[4], [9]])
    parts = split(x, np.array([1, 4], dtype=np.int32), axis=1)
    assert [p.shape for p in parts] == [(2, 1), (2, 4)]
    assert [p.shape for p in split(x)] == [(1, 5), (1, 5)]
    assert [p.shape for p in split(x, axis=1, keepdims=0)] == [(2,)] * 5
    assert split(x, np.array(2), axis=1, keepdims=0)[0].shape == (2, 2)  # keepdims only without split
    assert split(np.zeros((0, 3), np.float32)) == []
    assert split(np.zeros((0, 3), np.float32), np.array(2)) == []
    with pytest.raises(ValueError, match="add up to dimension 5"):
        split(x, np.array([2, 2], dtype=np.int64), axis=1)
    with pytest.raises(ValueError, match="non-negative"):
        split(x, np.array([-1, 6], dtype=np.int64), axis=1)
    assert [p.shape for p in split(x, np.array([0, 5], dtype=np.int64), axis=1)] == [(2, 0), (2, 5)]
    with pytest.raises(ValueError, match="split must be positive"):
        split(x, np.array(0, dtype=np.int64), axis=1)
    assert _fn("SplitToSequence", 11) is split


# -- optionals --------------------------------------------------------------------------------------------------


def test_optional_get_and_has_element() -> None:
    x = np.arange(3, dtype=np.float32)
    for v in (15, 28):
        assert _fn("Optional", v)() is EMPTY
        assert _fn("Optional", v)(x) is x
        assert _fn("Optional", v)([]) == []  # an optional holding an empty sequence is not empty
    for v in (15, 18, 28):
        assert _fn("OptionalGetElement", v)(x) is x
        with pytest.raises(ValueError, match="empty optional"):
            _fn("OptionalGetElement", v)(EMPTY)
        has = _fn("OptionalHasElement", v)
        assert has(x).dtype == np.bool_ and has(x).shape == ()
        assert bool(has(x)) and bool(has([])) and not bool(has(EMPTY))
    assert not bool(_fn("OptionalHasElement", 18)())  # omitted input (version 18 on)


# -- SequenceMap -------------------------------------------------------------------------------------------------


def _sequence_map_model(n_extra_seq: bool) -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Shape", ["s"], ["shape"])],
        "body",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("shape", TensorProto.INT64, None)],
    )
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    second = helper.make_value_info("y", seq_t) if n_extra_seq else helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, [1])
    graph = helper.make_graph(
        [helper.make_node("SequenceMap", ["x", "y"], ["sums", "shapes"], body=body)],
        "g",
        [helper.make_value_info("x", seq_t), second],
        [helper.make_value_info("sums", seq_t),
         helper.make_value_info("shapes", helper.make_sequence_type_proto(
             helper.make_tensor_type_proto(TensorProto.INT64, None)))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_sequence_map_feeds_tensors_whole_and_sequences_by_position() -> None:
    xs = [np.ones(2, np.float32), np.arange(3, dtype=np.float32)]
    sums, shapes = SonnxBackend.prepare(_sequence_map_model(False)).run([xs, np.array([10], np.float32)])
    assert [s.tolist() for s in sums] == [[11, 11], [10, 11, 12]]
    assert [s.tolist() for s in shapes] == [[2], [3]]
    rep = SonnxBackend.prepare(_sequence_map_model(True))
    sums, _ = rep.run([xs, [np.array([1], np.float32), np.array([2], np.float32)]])
    assert [s.tolist() for s in sums] == [[2, 2], [2, 3, 4]]
    assert rep.run([[], []]) == ([], [])
    with pytest.raises(Exception, match="sequence of 1, the first input of 2"):
        rep.run([xs, [np.array([1], np.float32)]])


# -- onnx's own sequence model cases and the If/Loop sequence cases --------------------------------------------


@functools.cache
def _model_cases(module: str) -> tuple[TestCase, ...]:
    """The cases one onnx model-case module generates (run afresh, the package's list restored)."""
    saved = model_pkg._SimpleModelTestCases
    fresh: list[TestCase] = []
    model_pkg._SimpleModelTestCases = fresh
    try:
        name = f"{model_pkg.__name__}.{module}"
        if name in sys.modules:
            importlib.reload(sys.modules[name])
        else:
            importlib.import_module(name)
    finally:
        model_pkg._SimpleModelTestCases = saved
    return tuple(fresh)


@pytest.mark.parametrize("name", [f"test_sequence_model{k}" for k in range(1, 9)])
def test_onnx_sequence_model_cases(name: str) -> None:
    case = next(c for c in _model_cases("sequence") if c.name == name)
    run_case(NodeCase(name, frozenset(), case, 0))


def test_onnx_string_normalizer_model_cases() -> None:
    cases = _model_cases("stringnormalizer")
    assert cases
    for case in cases:
        run_case(NodeCase(case.name, frozenset(), case, 0))


def _not(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    return np.logical_not(x)


def test_loop16_seq_none_passes_given_a_not_kernel() -> None:
    """The case is refused in conformance only because Not has no kernel yet (another batch implements it)."""
    kernels = [k for m in MODULES for k in m.KERNELS]
    if ("", "Not", 1) not in REGISTRY:
        kernels.append(Kernel("Not", (1,), _not))
    case = next(c for c in all_node_cases() if c.name == "test_loop16_seq_none")
    run_case(NodeCase(case.name, frozenset(), case, 0), KernelRegistry(kernels))


# -- random generators ----------------------------------------------------------------------------------------


def test_random_normal_and_uniform_follow_the_documented_generator() -> None:
    y = _fn("RandomNormal", 22)(shape=[2, 3], mean=1.0, scale=2.0, seed=5.0)
    assert y.dtype == np.float32 and y.shape == (2, 3)
    np.testing.assert_array_equal(y, np.random.RandomState(5).normal(1.0, 2.0, (2, 3)).astype(np.float32))
    default = _fn("RandomNormal", 1)(shape=[4], dtype=TensorProto.DOUBLE)
    np.testing.assert_array_equal(default, np.random.RandomState(0).normal(0.0, 1.0, 4))  # seed 0 when absent
    u = _fn("RandomUniform", 1)(shape=[5], low=-1.0, high=3.0, seed=7.9)  # the seed is truncated
    np.testing.assert_array_equal(u, np.random.RandomState(7).uniform(-1.0, 3.0, 5).astype(np.float32))
    assert ((u >= -1) & (u < 3)).all()
    neg = _fn("RandomUniform", 22)(shape=[3], seed=-1.0)  # modulo 2**32
    np.testing.assert_array_equal(neg, np.random.RandomState(2**32 - 1).uniform(0, 1, 3).astype(np.float32))
    assert _fn("RandomUniform", 22)(shape=[0, 2]).shape == (0, 2)
    bf = _fn("RandomNormal", 22)(shape=[3], dtype=TensorProto.BFLOAT16)
    assert bf.dtype.name == "bfloat16"
    with pytest.raises(ValueError, match="floating type"):
        _fn("RandomNormal", 22)(shape=[3], dtype=TensorProto.INT32)
    with pytest.raises(ValueError, match="finite"):
        _fn("RandomNormal", 22)(shape=[3], seed=float("nan"))
    with pytest.raises(ValueError, match="negative dimension"):
        _fn("RandomUniform", 22)(shape=[-1])


def test_random_like_operators_take_shape_and_type_from_the_input() -> None:
    x = np.zeros((2, 2), dtype=np.float16)
    y = _fn("RandomUniformLike", 22)(x, seed=3.0)
    assert y.dtype == np.float16 and y.shape == (2, 2)
    np.testing.assert_array_equal(y, np.random.RandomState(3).uniform(0, 1, (2, 2)).astype(np.float16))
    z = _fn("RandomNormalLike", 1)(x, dtype=TensorProto.DOUBLE, mean=5.0)
    np.testing.assert_array_equal(z, np.random.RandomState(0).normal(5.0, 1.0, (2, 2)))
    assert _fn("RandomNormalLike", 22)(np.zeros(3, np.int64), dtype=TensorProto.FLOAT).dtype == np.float32
    with pytest.raises(ValueError, match="floating type"):
        _fn("RandomUniformLike", 22)(np.zeros(3, np.int64))
    # one operation draws the same values on every execution
    np.testing.assert_array_equal(_fn("RandomNormalLike", 22)(x), _fn("RandomNormalLike", 22)(x))


def test_bernoulli_draws_u_below_p_with_the_documented_generator() -> None:
    p = np.array([0.0, 1.0, 0.5, 0.25, 0.75, 0.5], dtype=np.float32)
    y = _fn("Bernoulli", 22)(p, seed=11.0)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, (np.random.RandomState(11).uniform(0, 1, 6) < p).astype(np.float32))
    assert y[0] == 0 and y[1] == 1
    assert _fn("Bernoulli", 15)(p, dtype=TensorProto.INT64).dtype == np.int64
    assert _fn("Bernoulli", 15)(p.astype(np.float64), dtype=TensorProto.BOOL).dtype == np.bool_
    big = _fn("Bernoulli", 22)(np.full(20000, 0.3))
    assert abs(big.mean() - 0.3) < 0.02
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        _fn("Bernoulli", 22)(np.array([1.5]))


def test_multinomial_samples_by_inverse_transform() -> None:
    logits = np.array([np.log([0.2, 0.5, 0.3]), [0.0, -np.inf, -np.inf]], dtype=np.float32)
    y = _fn("Multinomial", 7)(logits, sample_size=4, seed=2.0)
    assert y.dtype == np.int32 and y.shape == (2, 4)
    u = np.random.RandomState(2).uniform(0, 1, (2, 4))
    expected_row0 = np.where(u[0] < 0.2, 0, np.where(u[0] < 0.7, 1, 2))
    np.testing.assert_array_equal(y[0], expected_row0)
    np.testing.assert_array_equal(y[1], [0, 0, 0, 0])  # classes of probability 0 are never drawn
    many = _fn("Multinomial", 22)(logits[:1], sample_size=20000, dtype=TensorProto.INT64)
    assert many.dtype == np.int64
    np.testing.assert_allclose(np.bincount(many[0], minlength=3) / 20000, [0.2, 0.5, 0.3], atol=0.02)
    with pytest.raises(ValueError, match="INT32 or INT64"):
        _fn("Multinomial", 22)(logits, dtype=TensorProto.FLOAT)
    with pytest.raises(ValueError, match=r"\[batch, classes\]"):
        _fn("Multinomial", 22)(np.zeros(3, np.float32))


# -- Dropout ----------------------------------------------------------------------------------------------------


def test_dropout_training_masks_with_the_documented_generator_and_scales() -> None:
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    y, mask = _fn("Dropout", 22)(x, np.array(0.25, dtype=np.float32), np.array(True), seed=4)
    want = np.random.RandomState(4).uniform(0, 1, (3, 4)) >= 0.25
    np.testing.assert_array_equal(mask, want)
    assert y.dtype == np.float32 and mask.dtype == np.bool_
    np.testing.assert_array_equal(y, np.where(want, x * np.float32(1 / 0.75), 0).astype(np.float32))
    # no seed attribute: seed 0; ratio input omitted: 0.5
    _, m0 = _fn("Dropout", 13)(x, None, np.array(True))
    np.testing.assert_array_equal(m0, np.random.RandomState(0).uniform(0, 1, (3, 4)) >= 0.5)
    h, _ = _fn("Dropout", 12)(x.astype(np.float16), np.array(0.5, np.float16), np.array([True]))
    assert h.dtype == np.float16


def test_dropout_ratio_zero_or_no_training_is_exactly_the_identity() -> None:
    x = np.array([[-0.0, 1e-30, np.inf], [np.nan, -3.5, 7.25]], dtype=np.float64)
    for ratio, training in ((np.array(0.0, np.float32), np.array(True)), (np.array(0.9, np.float32), np.array(False)),
                            (None, None)):
        y, mask = _fn("Dropout", 22)(x, ratio, training, seed=1)
        assert y.dtype == x.dtype
        np.testing.assert_array_equal(y, x)
        assert np.signbit(y[0, 0]) and mask.dtype == np.bool_ and mask.all()
        assert y is not x
    y6, m6 = _fn("Dropout", 6)(x, is_test=0, ratio=0.0)
    np.testing.assert_array_equal(y6, x)
    assert m6.dtype == np.float64 and (m6 == 1).all()


def test_dropout_versions_1_and_6_train_unless_is_test() -> None:
    x = np.ones(8, dtype=np.float32)
    y, mask = _fn("Dropout", 1)(x)  # is_test = 0 by default: training, ratio 0.5, seed 0
    kept = np.random.RandomState(0).uniform(0, 1, 8) >= 0.5
    assert mask.dtype == np.float32
    np.testing.assert_array_equal(mask, kept.astype(np.float32))
    np.testing.assert_array_equal(y, np.where(kept, 2.0, 0.0).astype(np.float32))
    y, mask = _fn("Dropout", 6)(x, is_test=1)
    np.testing.assert_array_equal(y, x)
    # 7 and 10 have no mode: sonnx runs inference
    y, mask = _fn("Dropout", 7)(x, ratio=0.9)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.float32
    assert _fn("Dropout", 10)(x)[1].dtype == np.bool_
    with pytest.raises(ValueError, match=r"in \[0, 1\)"):
        _fn("Dropout", 22)(x, np.array(1.0, np.float32), np.array(True))
    with pytest.raises(ValueError, match="must be a scalar"):
        _fn("Dropout", 22)(x, np.array([0.1, 0.2], np.float32))


# -- strings -----------------------------------------------------------------------------------------------------


def _strings(*items: Any) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out


def test_string_concat_broadcasts_and_keeps_object_strings() -> None:
    z = _fn("StringConcat", 20)(_strings("a", "bc").reshape(2, 1), _strings("x", "", "é"))
    assert z.dtype == object and z.shape == (2, 3)
    assert z.tolist() == [["ax", "a", "aé"], ["bcx", "bc", "bcé"]]
    empty = _fn("StringConcat", 20)(np.empty((0,), dtype=object), _strings("x"))
    assert empty.shape == (0,) and empty.dtype == object


def test_regex_full_match_requires_the_whole_string() -> None:
    match = _fn("RegexFullMatch", 20)
    y = match(_strings("abc", "abcd", "", "ab"), pattern="ab.?")
    assert y.dtype == np.bool_ and y.tolist() == [True, False, False, True]
    assert match(np.array("a1", dtype=object), pattern=r"\w\d").shape == ()
    assert match(np.empty((2, 0), dtype=object), pattern="x").shape == (2, 0)
    with pytest.raises(ValueError, match="cannot compile"):
        match(_strings("a"), pattern="(")


def test_string_split_pads_and_counts() -> None:
    split = _fn("StringSplit", 20)
    y, z = split(_strings("a,b,,c", "", "d").reshape(3, 1), delimiter=",")
    assert y.shape == (3, 1, 4) and z.shape == (3, 1) and z.dtype == np.int64
    assert y.tolist() == [[["a", "b", "", "c"]], [["", "", "", ""]], [["d", "", "", ""]]]
    assert z.ravel().tolist() == [4, 1, 1]
    y, z = split(_strings("  a  b c ", "   "))
    assert y.tolist() == [["a", "b", "c"], ["", "", ""]] and z.tolist() == [3, 0]
    y, z = split(_strings("a-b-c"), delimiter="-", maxsplit=1)
    assert y.tolist() == [["a", "b-c"]] and z.tolist() == [2]
    y, z = split(np.empty((2, 0), dtype=object))
    assert y.shape == (2, 0, 0) and z.shape == (2, 0)


def test_string_normalizer_case_folding_and_empty_results() -> None:
    norm = _fn("StringNormalizer", 10)
    x = _strings("Straße", "STRASSE", "Keep")
    assert norm(x, stopwords=["strasse"], case_change_action="LOWER").tolist() == ["keep"]
    assert norm(x, stopwords=["strasse"], is_case_sensitive=1).tolist() == ["Straße", "STRASSE", "Keep"]
    gone = norm(_strings("a", "A").reshape(1, 2), stopwords=["a"])
    assert gone.shape == (1, 1) and gone.tolist() == [[""]]
    assert norm(_strings("x"), stopwords=["x"]).shape == (1,)
    assert norm(_strings("mIx"), case_change_action="UPPER").tolist() == ["MIX"]
    with pytest.raises(ValueError, match=r"\[C\] or \[1, C\]"):
        norm(_strings("a", "b").reshape(2, 1))
    with pytest.raises(ValueError, match="case_change_action"):
        norm(_strings("a"), case_change_action="TITLE")


def test_tf_idf_vectorizer_string_pool_and_weighted_modes() -> None:
    tfidf = _fn("TfIdfVectorizer", 9)
    x = _strings("a", "b", "a", "b", "c", "zz")
    attrs: dict[str, Any] = dict(
        min_gram_length=1, max_gram_length=2, max_skip_count=0, ngram_counts=[0, 2],
        ngram_indexes=[3, 0, 1], pool_strings=["a", "c", "a", "b"],
    )
    # unigrams a (2 times) -> column 3, c (once) -> column 0; bigram (a, b) twice -> column 1
    np.testing.assert_array_equal(tfidf(x, mode="TF", **attrs), np.array([1, 2, 0, 2], dtype=np.float32))
    w = [0.5, 2.0, 3.0]
    np.testing.assert_array_equal(tfidf(x, mode="IDF", weights=w, **attrs), [2.0, 3.0, 0, 0.5])
    np.testing.assert_array_equal(tfidf(x, mode="TFIDF", weights=w, **attrs), [2.0, 6.0, 0, 1.0])
    out = tfidf(x.reshape(2, 3), mode="TF", **attrs)
    assert out.dtype == np.float32 and out.shape == (2, 4)
    np.testing.assert_array_equal(out, [[0, 1, 0, 2], [1, 0, 0, 0]])
    # bigrams only, with gaps of 1 and 2 (max_skip_count 1)
    ints = np.array([[1, 2, 1, 2]], dtype=np.int64)
    got = tfidf(ints, mode="TF", min_gram_length=2, max_gram_length=2, max_skip_count=1, ngram_counts=[0, 0],
                ngram_indexes=[0, 1], pool_int64s=[1, 2, 1, 1])
    np.testing.assert_array_equal(got, [[2, 1]])  # (1,2) at gaps 1 (x2, positions 0-1, 2-3); (1,1) at gap 2
    with pytest.raises(ValueError, match="exactly one of"):
        tfidf(ints, mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0],
              ngram_indexes=[0])
    with pytest.raises(ValueError, match="string pool needs a matching input"):
        tfidf(ints, mode="TF", **attrs)


# -- ImageDecoder ------------------------------------------------------------------------------------------------


def _png(image: np.ndarray) -> np.ndarray:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG")
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def test_image_decoder_pixel_formats_and_undecodable_bytes() -> None:
    decode = _fn("ImageDecoder", 20)
    rgb = np.zeros((2, 3, 3), dtype=np.uint8)
    rgb[..., 0] = 200
    rgb[0, 0] = [10, 20, 30]
    data = _png(rgb)
    np.testing.assert_array_equal(decode(data), rgb)
    np.testing.assert_array_equal(decode(data, pixel_format="BGR"), rgb[..., ::-1])
    gray = decode(data, pixel_format="Grayscale")
    assert gray.shape == (2, 3, 1) and gray.dtype == np.uint8
    assert gray[0, 0, 0] == round((10 * 299 + 20 * 587 + 30 * 114) / 1000)
    bad = decode(np.array([1, 2, 3], dtype=np.uint8), pixel_format="Grayscale")
    assert bad.shape == (0, 0, 1) and bad.dtype == np.uint8
    with pytest.raises(ValueError, match="pixel_format"):
        decode(data, pixel_format="RGBA")


def test_image_decoder_without_pillow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ValueError, match=r"ImageDecoder needs Pillow: pip install 'sonnx\[images\]'"):
        _fn("ImageDecoder", 20)(np.zeros(4, dtype=np.uint8))


# -- training optimizers -----------------------------------------------------------------------------------------


def test_momentum_standard_and_nesterov_after_the_first_step() -> None:
    momentum = _fn("Momentum", 1, TRAINING)
    r, t = np.array(0.5, np.float32), np.array(3, np.int64)
    x, g, v = np.array([1.0], np.float32), np.array([2.0], np.float32), np.array([4.0], np.float32)
    attrs = dict(alpha=0.5, beta=0.25, norm_coefficient=0.1)
    x_new, v_new = momentum(r, t, x, g, v, mode="standard", **attrs)
    # g' = 0.1 + 2 = 2.1; v' = 0.5 * 4 + 0.25 * 2.1 = 2.525; x' = 1 - 0.5 * 2.525
    np.testing.assert_allclose(v_new, [2.525], rtol=1e-6)
    np.testing.assert_allclose(x_new, [1 - 0.5 * 2.525], rtol=1e-6)
    assert x_new.dtype == np.float32 and v_new.dtype == np.float32
    x_new, _ = momentum(r, t, x, g, v, mode="nesterov", **attrs)
    np.testing.assert_allclose(x_new, [1 - 0.5 * (2.1 + 0.5 * 2.525)], rtol=1e-6)
    _, v_first = momentum(r, np.array(0, np.int64), x, g, v, mode="standard", **attrs)
    np.testing.assert_allclose(v_first, [0.5 * 4 + 2.1], rtol=1e-6)  # beta is 1 at the first step
    with pytest.raises(ValueError, match="mode"):
        momentum(r, t, x, g, v, mode="heavy", **attrs)
    with pytest.raises(ValueError, match="3 groups"):
        momentum(r, t, x, g, mode="standard", **attrs)


def test_adam_bias_correction_and_post_regularization() -> None:
    adam = _fn("Adam", 1, TRAINING)
    r, t = np.array(0.1, np.float32), np.array(2, np.int64)
    x, g = np.array([1.0, -2.0]), np.array([0.5, 0.5])
    v, h = np.array([0.1, 0.2]), np.array([0.3, 0.4])
    x_new, v_new, h_new = adam(r, t, x, g, v, h, alpha=0.9, beta=0.99, epsilon=1e-8, norm_coefficient=0.0,
                               norm_coefficient_post=0.5)
    v_want = 0.9 * v + 0.1 * g
    h_want = 0.99 * h + 0.01 * g * g
    rate = 0.1 * np.sqrt(1 - 0.99**2) / (1 - 0.9**2)
    np.testing.assert_allclose(v_new, v_want)
    np.testing.assert_allclose(h_new, h_want)
    np.testing.assert_allclose(x_new, 0.5 * (x - rate * v_want / (np.sqrt(h_want) + 1e-8)))
    assert x_new.dtype == np.float64


def test_adagrad_decays_the_rate() -> None:
    adagrad = _fn("Adagrad", 1, TRAINING)
    x1, x2 = np.array([1.0], np.float32), np.array([2.0, 3.0], np.float32)
    outs = adagrad(np.array(1.0, np.float32), np.array(4, np.int64), x1, x2, np.array([1.0], np.float32),
                   np.array([1.0, 2.0], np.float32), np.array([3.0], np.float32), np.array([0.0, 5.0], np.float32),
                   decay_factor=0.25, epsilon=0.0)
    assert len(outs) == 4 and all(o.dtype == np.float32 for o in outs)
    # rate 1 / (1 + 4 * 0.25) = 0.5; H' = H + G**2; X' = X - rate * G / sqrt(H')
    np.testing.assert_allclose(outs[2], [4.0])
    np.testing.assert_allclose(outs[3], [1.0, 9.0])
    np.testing.assert_allclose(outs[0], [1.0 - 0.5 * 1.0 / 2.0])
    np.testing.assert_allclose(outs[1], [2.0 - 0.5, 3.0 - 0.5 * 2.0 / 3.0], rtol=1e-6)
