"""The sequence-model kernels (recurrent networks, attention, spectral operators): behaviour the backend cases miss.

ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor. Here:
version differences, refusals, sequence lengths, layouts, activation parameters, streaming with carried
state, dtypes of the results, and naive per-element references for small shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from sonnx.ops.base import Kernel, KernelRegistry
from sonnx.ops.catalog_sequence_models import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)
RNG = np.random.default_rng(20240611)


def _fn(operator: str, opset: int, domain: str = "") -> Any:
    kernel, _ = REGISTRY.lookup(domain, operator, opset)
    assert isinstance(kernel, Kernel)
    return kernel.fn


def _rand(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# ------------------------------------------------------------------------------------------- recurrent


def _naive_recurrence(
    x: np.ndarray,
    lens: np.ndarray,
    h0: np.ndarray,
    backwards: bool,
    cell: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """One direction, one batch entry at a time, time steps in a plain loop."""
    seq, batch = x.shape[:2]
    y = np.zeros((seq, batch, h0.shape[-1]))
    last = h0.copy()
    for b in range(batch):
        h = h0[b]
        order = range(lens[b] - 1, -1, -1) if backwards else range(lens[b])
        for t in order:
            h = cell(x[t, b], h)
            y[t, b] = h
        last[b] = h
    return y, last


def test_rnn_bidirectional_with_sequence_lens_matches_a_naive_loop() -> None:
    seq, batch, inp, hid = 4, 3, 2, 5
    x = _rand(seq, batch, inp)
    w, r, b = _rand(2, hid, inp), _rand(2, hid, hid), _rand(2, 2 * hid)
    h0 = _rand(2, batch, hid)
    lens = np.array([4, 2, 0], dtype=np.int32)
    y, y_h = _fn("RNN", 22)(x, w, r, b, lens, h0, direction="bidirectional", hidden_size=hid)
    assert y.shape == (seq, 2, batch, hid) and y_h.shape == (2, batch, hid)
    for d in range(2):
        def cell(xt: np.ndarray, h: np.ndarray, d: int = d) -> np.ndarray:
            return np.tanh(xt @ w[d].T + h @ r[d].T + b[d, :hid] + b[d, hid:])

        ny, nh = _naive_recurrence(x, lens, h0[d], d == 1, cell)
        np.testing.assert_allclose(y[:, d], ny, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(y_h[d], nh, rtol=1e-12, atol=1e-12)
    # an empty sequence keeps its initial state and has no outputs
    np.testing.assert_array_equal(y_h[:, 2], h0[:, 2])
    np.testing.assert_array_equal(y[:, :, 2], 0)


def test_gru_reverse_with_sequence_lens_and_linear_before_reset_matches_a_naive_loop() -> None:
    seq, batch, inp, hid = 5, 2, 3, 4
    x = _rand(seq, batch, inp)
    w, r, b = _rand(1, 3 * hid, inp), _rand(1, 3 * hid, hid), _rand(1, 6 * hid)
    lens = np.array([3, 5], dtype=np.int32)
    wz, wr, wh = np.split(w[0], 3)
    rz, rr, rh = np.split(r[0], 3)
    wbz, wbr, wbh, rbz, rbr, rbh = np.split(b[0], 6)
    for lbr in (0, 1):
        y, y_h = _fn("GRU", 14)(x, w, r, b, lens, None, direction="reverse", linear_before_reset=lbr)

        def cell(xt: np.ndarray, h: np.ndarray, lbr: int = lbr) -> np.ndarray:
            z = _sigmoid(xt @ wz.T + h @ rz.T + wbz + rbz)
            rt = _sigmoid(xt @ wr.T + h @ rr.T + wbr + rbr)
            if lbr:
                hh = np.tanh(xt @ wh.T + rt * (h @ rh.T + rbh) + wbh)
            else:
                hh = np.tanh(xt @ wh.T + (rt * h) @ rh.T + rbh + wbh)
            return (1 - z) * hh + z * h

        ny, nh = _naive_recurrence(x, lens, np.zeros((batch, hid)), True, cell)
        np.testing.assert_allclose(y[:, 0], ny, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(y_h[0], nh, rtol=1e-12, atol=1e-12)


def test_lstm_peepholes_input_forget_and_clip_match_a_naive_loop() -> None:
    seq, batch, inp, hid = 3, 2, 3, 2
    x = 3 * _rand(seq, batch, inp)
    w, r, b = _rand(1, 4 * hid, inp), _rand(1, 4 * hid, hid), _rand(1, 8 * hid)
    p = _rand(1, 3 * hid)
    h0, c0 = _rand(1, batch, hid), _rand(1, batch, hid)
    clip = 0.7
    y, y_h, y_c = _fn("LSTM", 14)(x, w, r, b, None, h0, c0, p, input_forget=1, clip=clip)
    pi, po, _ = np.split(p[0], 3)
    bias = b[0, : 4 * hid] + b[0, 4 * hid :]

    def bounded(v: np.ndarray) -> np.ndarray:
        return np.clip(v, -clip, clip)

    h, c = h0[0], c0[0]
    for t in range(seq):
        g = x[t] @ w[0].T + h @ r[0].T + bias
        gi, go, _, gc = np.split(g, 4, axis=-1)
        i = _sigmoid(bounded(gi + pi * c))
        c = (1 - i) * c + i * np.tanh(bounded(gc))
        o = _sigmoid(bounded(go + po * c))
        h = o * np.tanh(c)
        np.testing.assert_allclose(y[t, 0], h, rtol=1e-12)
    np.testing.assert_allclose(y_h[0], h, rtol=1e-12)
    np.testing.assert_allclose(y_c[0], c, rtol=1e-12)


def test_layout_1_is_the_batch_major_view_of_layout_0() -> None:
    seq, batch, inp, hid = 4, 3, 2, 3
    x = _rand(seq, batch, inp)
    w, r = _rand(2, 4 * hid, inp), _rand(2, 4 * hid, hid)
    h0, c0 = _rand(2, batch, hid), _rand(2, batch, hid)
    lstm = _fn("LSTM", 22)
    y0, h_0, c_0 = lstm(x, w, r, None, None, h0, c0, direction="bidirectional")
    y1, h_1, c_1 = lstm(np.swapaxes(x, 0, 1), w, r, None, None, np.swapaxes(h0, 0, 1), np.swapaxes(c0, 0, 1),
                        direction="bidirectional", layout=1)
    np.testing.assert_array_equal(y1, np.transpose(y0, (2, 0, 1, 3)))
    np.testing.assert_array_equal(h_1, np.swapaxes(h_0, 0, 1))
    np.testing.assert_array_equal(c_1, np.swapaxes(c_0, 0, 1))


def test_activation_parameters_go_in_order_to_the_functions_that_take_them() -> None:
    seq, batch, inp, hid = 2, 1, 2, 2
    x = _rand(seq, batch, inp)
    w, r = _rand(1, 3 * hid, inp), _rand(1, 3 * hid, hid)
    y, _ = _fn("GRU", 7)(x, w, r, activations=["HardSigmoid", "ScaledTanh"], activation_alpha=[0.3, 2.0],
                         activation_beta=[0.4, 0.5])
    wz, wr, wh = np.split(w[0], 3)
    rz, rr, rh = np.split(r[0], 3)
    h = np.zeros((batch, hid))
    for t in range(seq):
        z = np.clip(0.3 * (x[t] @ wz.T + h @ rz.T) + 0.4, 0, 1)
        rt = np.clip(0.3 * (x[t] @ wr.T + h @ rr.T) + 0.4, 0, 1)
        hh = 2.0 * np.tanh(0.5 * (x[t] @ wh.T + (rt * h) @ rh.T))
        h = (1 - z) * hh + z * h
        np.testing.assert_allclose(y[t, 0], h, rtol=1e-12)


def test_rnn_activation_names_are_case_insensitive_and_defaults_fill_missing_parameters() -> None:
    x = _rand(1, 1, 2)
    w, r = _rand(1, 2, 2), _rand(1, 2, 2)
    y, _ = _fn("RNN", 14)(x, w, r, activations=["leakyrelu"])
    pre = x[0] @ w[0].T
    np.testing.assert_allclose(y[0, 0], np.where(pre >= 0, pre, 0.01 * pre), rtol=1e-12)
    with pytest.raises(ValueError, match="unknown activation"):
        _fn("RNN", 14)(x, w, r, activations=["Swish"])


def test_gru_1_reads_its_misspelt_default_direction_as_forward_and_later_versions_refuse_it() -> None:
    x = _rand(2, 1, 2)
    w, r = _rand(1, 6, 2), _rand(1, 6, 2)
    y1, h1 = _fn("GRU", 1)(x, w, r, direction="foward")
    y3, h3 = _fn("GRU", 3)(x, w, r)
    np.testing.assert_array_equal(h1, h3)
    np.testing.assert_array_equal(y1, y3)
    with pytest.raises(ValueError, match="direction"):
        _fn("GRU", 3)(x, w, r, direction="foward")


def test_recurrent_refusals() -> None:
    x = _rand(3, 2, 2)
    w, r = _rand(1, 4, 2), _rand(1, 4, 4)
    rnn = _fn("RNN", 14)
    with pytest.raises(ValueError, match="sequence_lens"):
        rnn(x, w, r, None, np.array([4, 1], dtype=np.int32))
    with pytest.raises(ValueError, match="hidden_size"):
        rnn(x, w, r, hidden_size=3)
    with pytest.raises(ValueError, match="W has shape"):
        rnn(x, _rand(2, 4, 2), r)
    with pytest.raises(ValueError, match="layout"):
        rnn(x, w, r, layout=2)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, ml_dtypes.bfloat16])
def test_recurrent_results_keep_the_input_type(dtype: Any) -> None:
    x = _rand(2, 1, 2).astype(dtype)
    w, r = _rand(1, 8, 2).astype(dtype), _rand(1, 8, 2).astype(dtype)
    outs = _fn("LSTM", 22)(x, w, r)
    assert [o.dtype for o in outs] == [np.dtype(dtype)] * 3


# ------------------------------------------------------------------------------------------- spectral


def test_dft_17_axis_attribute_and_20_axis_input_have_different_defaults() -> None:
    x = _rand(2, 3, 4, 1, dtype=np.float32)
    old = _fn("DFT", 17)(x)  # axis attribute default 1
    new = _fn("DFT", 20)(x)  # axis input default -2, i.e. axis 2
    want_old = np.fft.fft(x[..., 0].astype(np.float64), axis=1)
    want_new = np.fft.fft(x[..., 0].astype(np.float64), axis=2)
    np.testing.assert_allclose(old[..., 0] + 1j * old[..., 1], want_old, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(new[..., 0] + 1j * new[..., 1], want_new, rtol=1e-5, atol=1e-5)
    same = _fn("DFT", 20)(x, None, np.array(1, dtype=np.int64))
    np.testing.assert_array_equal(same, old)


def test_dft_length_pads_or_cuts_and_the_inverse_round_trips() -> None:
    z = _rand(1, 5, 2)
    dft = _fn("DFT", 20)
    longer = dft(z, np.array(8), np.array(1))
    want = np.fft.fft(z[..., 0] + 1j * z[..., 1], n=8, axis=1)
    np.testing.assert_allclose(longer[..., 0] + 1j * longer[..., 1], want, rtol=1e-12, atol=1e-12)
    shorter = dft(z, np.array([3]), np.array(-2))
    assert shorter.shape == (1, 3, 2)
    back = dft(dft(z, None, np.array(1)), None, np.array(1), inverse=1)
    np.testing.assert_allclose(back, z, rtol=1e-12, atol=1e-12)


def test_dft_onesided_rfft_and_irfft_with_an_odd_length() -> None:
    x = _rand(2, 7, 1)
    dft = _fn("DFT", 20)
    half = dft(x, None, np.array(1), onesided=1)
    assert half.shape == (2, 4, 2)
    full = dft(half, np.array(7), np.array(1), onesided=1, inverse=1)
    assert full.shape == (2, 7, 1)
    np.testing.assert_allclose(full, x, rtol=1e-12, atol=1e-12)
    default = dft(half, None, np.array(1), onesided=1, inverse=1)  # 2 * (4 - 1) = 6 points
    assert default.shape == (2, 6, 1)


def test_dft_refusals() -> None:
    dft = _fn("DFT", 20)
    with pytest.raises(ValueError, match="axis"):
        dft(_rand(2, 4, 1), None, np.array(-1))
    with pytest.raises(ValueError, match="real input"):
        dft(_rand(2, 4, 2), None, np.array(1), onesided=1)
    with pytest.raises(ValueError, match="complex input"):
        dft(_rand(2, 4, 1), None, np.array(1), onesided=1, inverse=1)
    with pytest.raises(ValueError, match="1 \\(real\\) or 2"):
        dft(_rand(2, 4, 3), None, np.array(1))
    with pytest.raises(ValueError, match="positive"):
        dft(_rand(2, 4, 1), np.array(0), np.array(1))


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_dft_results_keep_the_input_type(dtype: Any) -> None:
    assert _fn("DFT", 20)(_rand(1, 4, 1, dtype=dtype)).dtype == dtype


def test_stft_of_a_complex_signal_two_sided_and_its_defaults() -> None:
    z = _rand(2, 10, 2)
    out = _fn("STFT", 17)(z, np.array(3), None, np.array(4), onesided=0)
    assert out.shape == (2, 3, 4, 2)
    zc = z[..., 0] + 1j * z[..., 1]
    want = np.fft.fft(zc[:, 6:10], axis=-1)
    np.testing.assert_allclose(out[:, 2, :, 0] + 1j * out[:, 2, :, 1], want, rtol=1e-12, atol=1e-12)
    whole = _fn("STFT", 17)(z[..., :1], np.array(1))  # frame_length = signal length: one frame, 6 bins
    assert whole.shape == (2, 1, 6, 2)


def test_stft_refusals() -> None:
    stft = _fn("STFT", 17)
    with pytest.raises(ValueError, match="real signal"):
        stft(_rand(1, 8, 2), np.array(2), None, np.array(4))
    with pytest.raises(ValueError, match="window has 3 points"):
        stft(_rand(1, 8, 1), np.array(2), np.ones(3), np.array(4))
    with pytest.raises(ValueError, match="frame_length"):
        stft(_rand(1, 8, 1), np.array(2), None, np.array(9))


def test_windows_periodic_symmetric_types_and_degenerate_sizes() -> None:
    hann = _fn("HannWindow", 17)
    np.testing.assert_allclose(hann(np.array(4)), [0.0, 0.5, 1.0, 0.5], atol=1e-7)
    np.testing.assert_allclose(hann(np.array(5), periodic=0), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7)
    assert hann(np.array(4), output_datatype=11).dtype == np.float64
    np.testing.assert_array_equal(hann(np.array(4), output_datatype=7), [0, 0, 1, 0])  # INT64, truncated
    assert hann(np.array(0)).shape == (0,)
    np.testing.assert_array_equal(hann(np.array(1), periodic=0), [1.0])
    np.testing.assert_allclose(_fn("HammingWindow", 17)(np.array(2)), [4 / 46, 1.0], rtol=1e-6)
    np.testing.assert_allclose(_fn("BlackmanWindow", 17)(np.array(2)), [0.0, 1.0], atol=1e-7)
    with pytest.raises(ValueError, match="negative"):
        hann(np.array(-1))


def _naive_mel(bands: int, length: int, rate: int, low: float, high: float) -> np.ndarray:
    def to_mel(f: float) -> float:
        return float(2595 * np.log10(1 + f / 700))

    step = (to_mel(high) - to_mel(low)) / (bands + 2)
    points = [int(np.floor((length + 1) * 700 * (10 ** ((to_mel(low) + i * step) / 2595) - 1) / rate))
              for i in range(bands + 2)]
    out = np.zeros((length // 2 + 1, bands))
    for i in range(bands):
        left, centre, right = points[i : i + 3]
        for j in range(length // 2 + 1):
            if j == centre:
                out[j, i] = 1.0
            elif left <= j < centre:
                out[j, i] = (j - left) / (centre - left)
            elif centre < j < right:
                out[j, i] = (right - j) / (right - centre)
    return out


def test_mel_weight_matrix_matches_the_triangles_and_honours_output_datatype() -> None:
    got = _fn("MelWeightMatrix", 17)(np.array(6), np.array(64), np.array(16000), np.float32(100.0),
                                     np.float32(6000.0), output_datatype=11)
    assert got.dtype == np.float64 and got.shape == (33, 6)
    np.testing.assert_allclose(got, _naive_mel(6, 64, 16000, 100.0, 6000.0), rtol=1e-12)
    assert np.all(got.max(axis=0) == 1.0)


# ------------------------------------------------------------------------------------------- attention


def _naive_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, allowed: np.ndarray, scale: float) -> np.ndarray:
    """q [Hq, L, D], k/v [Hkv, S, D]; one query at a time."""
    hq, length = q.shape[:2]
    group = hq // k.shape[0]
    y = np.zeros((hq, length, v.shape[-1]))
    for h in range(hq):
        for i in range(length):
            keys = np.flatnonzero(allowed[i])
            if keys.size == 0:
                continue
            s = np.array([scale * q[h, i] @ k[h // group, j] for j in keys])
            p = np.exp(s - s.max())
            y[h, i] = (p / p.sum()) @ v[h // group, keys]
    return y


def test_attention_gqa_causal_with_past_matches_a_naive_loop() -> None:
    q = _rand(1, 6, 3, 4)
    k, v = _rand(1, 2, 2, 4), _rand(1, 2, 2, 5)
    pk, pv = _rand(1, 2, 4, 4), _rand(1, 2, 4, 5)
    y, present_k, present_v, _ = _fn("Attention", 23)(q, k, v, None, pk, pv, is_causal=1)
    np.testing.assert_array_equal(present_k, np.concatenate((pk, k), axis=2))
    np.testing.assert_array_equal(present_v, np.concatenate((pv, v), axis=2))
    allowed = np.arange(6)[None, :] <= np.arange(3)[:, None] + 4  # bottom-right: offset = past length
    want = _naive_attention(q[0], present_k[0], present_v[0], allowed, 0.5)
    np.testing.assert_allclose(y[0], want, rtol=1e-12)


def test_attention_3d_inputs_split_heads_from_the_hidden_axis() -> None:
    q4, k4, v4 = _rand(2, 2, 3, 4), _rand(2, 1, 5, 4), _rand(2, 1, 5, 3)
    pack = lambda t: np.transpose(t, (0, 2, 1, 3)).reshape(t.shape[0], t.shape[2], -1)  # noqa: E731
    y4 = _fn("Attention", 24)(q4, k4, v4)[0]
    y3 = _fn("Attention", 24)(pack(q4), pack(k4), pack(v4), q_num_heads=2, kv_num_heads=1)[0]
    assert y3.shape == (2, 3, 6)
    np.testing.assert_allclose(y3, pack(y4), rtol=1e-12)
    with pytest.raises(ValueError, match="q_num_heads"):
        _fn("Attention", 24)(pack(q4), k4, v4)


def test_attention_bool_and_float_masks_agree_and_a_fully_masked_row_is_zero() -> None:
    q, k, v = _rand(1, 2, 3, 4), _rand(1, 2, 4, 4), _rand(1, 2, 4, 4)
    keep = np.array([[True, False, True, True], [False, False, False, False], [True, True, True, True]])
    by_bool = _fn("Attention", 23)(q, k, v, keep, qk_matmul_output_mode=3)
    by_float = _fn("Attention", 23)(q, k, v, np.where(keep, 0.0, -np.inf), qk_matmul_output_mode=3)
    np.testing.assert_array_equal(by_bool[0], by_float[0])
    np.testing.assert_array_equal(by_bool[0][:, :, 1], 0)
    np.testing.assert_array_equal(by_bool[3][:, :, 1], 0)
    np.testing.assert_allclose(by_bool[3][:, :, [0, 2]].sum(axis=-1), 1, rtol=1e-12)


def test_attention_short_mask_is_padded_from_24_but_refused_by_23() -> None:
    q, k, v = _rand(1, 1, 2, 4), _rand(1, 1, 5, 4), _rand(1, 1, 5, 4)
    short = np.zeros((2, 3))
    y24 = _fn("Attention", 24)(q, k, v, short)[0]
    full = np.concatenate((short, np.full((2, 2), -np.inf)), axis=1)
    np.testing.assert_allclose(y24, _fn("Attention", 24)(q, k, v, full)[0], rtol=1e-12)
    with pytest.raises(ValueError, match="last dimension is 3"):
        _fn("Attention", 23)(q, k, v, short)


def test_attention_nonpad_offset_and_window_from_25() -> None:
    q, k, v = _rand(2, 1, 2, 4), _rand(2, 1, 6, 4), _rand(2, 1, 6, 4)
    lens = np.array([4, 6], dtype=np.int64)
    y = _fn("Attention", 25)(q, k, v, None, None, None, lens, is_causal=1, left_window_size=1)[0]
    for b in range(2):
        pos = lens[b] - 2 + np.arange(2)[:, None]  # offset = nonpad - Sq
        j = np.arange(6)[None, :]
        allowed = (j <= pos) & (j >= pos - 1) & (j < lens[b])
        np.testing.assert_allclose(y[b], _naive_attention(q[b], k[b], v[b], allowed, 0.5), rtol=1e-12)
    # version 24 has no window attributes: the same call there ignores them
    y24 = _fn("Attention", 24)(q, k, v, None, None, None, lens, is_causal=1, left_window_size=1)[0]
    assert not np.allclose(y24, y)


def test_attention_qk_matmul_output_modes_and_refusals() -> None:
    q, k, v = _rand(1, 1, 2, 4), _rand(1, 1, 3, 4), _rand(1, 1, 3, 4)
    mask = _rand(2, 3)
    attn = _fn("Attention", 23)
    raw = attn(q, k, v, mask, softcap=1.5, qk_matmul_output_mode=0)[3]
    np.testing.assert_allclose(raw, 0.5 * q @ np.swapaxes(k, -1, -2), rtol=1e-12)
    capped = attn(q, k, v, mask, softcap=1.5, qk_matmul_output_mode=1)[3]
    np.testing.assert_allclose(capped, 1.5 * np.tanh(raw / 1.5), rtol=1e-12)
    biased = attn(q, k, v, mask, softcap=1.5, qk_matmul_output_mode=2)[3]
    np.testing.assert_allclose(biased, capped + mask, rtol=1e-12)
    with pytest.raises(ValueError, match="qk_matmul_output_mode"):
        attn(q, k, v, qk_matmul_output_mode=4)
    with pytest.raises(ValueError, match="together"):
        attn(q, k, v, None, _rand(1, 1, 1, 4))
    with pytest.raises(ValueError, match="does not divide"):
        attn(_rand(1, 3, 2, 4), _rand(1, 2, 3, 4), _rand(1, 2, 3, 4))


def test_attention_softmax_precision_and_bfloat16_results() -> None:
    q, k, v = (_rand(1, 1, 2, 4, dtype=np.float16) for _ in range(3))
    y, _, _, probs = _fn("Attention", 24)(q, k, v, softmax_precision=1, qk_matmul_output_mode=3)
    assert y.dtype == np.float16 and probs.dtype == np.float16
    qb = q.astype(ml_dtypes.bfloat16)
    assert _fn("Attention", 25)(qb, qb, qb)[0].dtype == ml_dtypes.bfloat16
    with pytest.raises(ValueError, match="softmax_precision"):
        _fn("Attention", 24)(q, k, v, softmax_precision=7)


def test_flex_attention_runs_its_modifier_subgraphs_through_the_scope() -> None:
    class Scope:
        def __init__(self) -> None:
            self.seen: list[tuple[str, np.dtype]] = []

        def run_nested(self, graph: str, inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
            (x,) = inputs
            self.seen.append((graph, x.dtype))
            if graph == "mask-second-query":
                x = x.copy()
                x[:, :, 1, :] = -np.inf
                return (x,)
            return (x * 2,)

    q, k, v = _rand(1, 4, 2, 4, dtype=np.float16), _rand(1, 2, 3, 4, dtype=np.float16), _rand(1, 2, 3, 4,
                                                                                               dtype=np.float16)
    scope = Scope()
    y = _fn("FlexAttention", 1, "ai.onnx.preview")(q, k, v, scope=scope, score_mod="mask-second-query",
                                                   prob_mod="double")
    assert y.dtype == np.float16
    assert scope.seen == [("mask-second-query", np.float32), ("double", np.float32)]
    np.testing.assert_array_equal(y[:, :, 1], 0)
    allowed = np.ones((2, 3), dtype=bool)
    want = 2 * _naive_attention(q[0].astype(np.float64), k[0].astype(np.float64), v[0].astype(np.float64), allowed,
                                0.5)
    np.testing.assert_allclose(y[0, :, 0], want[:, 0], rtol=5e-3, atol=5e-3)


# ------------------------------------------------------------------------------------------- the rest


def test_rotary_embedding_3d_equals_4d_and_leaves_the_unrotated_tail() -> None:
    x4 = _rand(2, 3, 5, 6)
    pos = RNG.integers(0, 9, size=(2, 5))
    cos, sin = _rand(9, 2), _rand(9, 2)
    rope = _fn("RotaryEmbedding", 23)
    y4 = rope(x4, cos, sin, pos, rotary_embedding_dim=4, interleaved=1)
    x3 = np.transpose(x4, (0, 2, 1, 3)).reshape(2, 5, 18)
    y3 = rope(x3, cos, sin, pos, rotary_embedding_dim=4, interleaved=1, num_heads=3)
    np.testing.assert_allclose(y3, np.transpose(y4, (0, 2, 1, 3)).reshape(2, 5, 18), rtol=1e-12)
    np.testing.assert_array_equal(y4[..., 4:], x4[..., 4:])
    c, s = cos[pos][:, None, :, 0], sin[pos][:, None, :, 0]  # pair 0 = features 0 and 1
    np.testing.assert_allclose(y4[..., 0], c * x4[..., 0] - s * x4[..., 1], rtol=1e-12)
    with pytest.raises(ValueError, match="position_ids must lie"):
        rope(x4, cos, sin, pos + 9, rotary_embedding_dim=4)


def test_swiglu() -> None:
    a, b = _rand(3, 4), _rand(3, 4)
    np.testing.assert_allclose(_fn("SwiGLU", 28)(a, b, alpha=2.0), a * _sigmoid(2 * a) * b, rtol=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        _fn("SwiGLU", 28)(a, b[:1])


def test_causal_conv_streams_through_its_carried_state() -> None:
    x, w, bias = _rand(2, 3, 7), _rand(3, 1, 4), _rand(3)
    conv = _fn("CausalConvWithState", 27)
    y, state = conv(x, w, bias, activation="silu")
    y1, s1 = conv(x[:, :, :2], w, bias, activation="silu")
    y2, s2 = conv(x[:, :, 2:], w, bias, s1, activation="silu")
    np.testing.assert_allclose(np.concatenate((y1, y2), axis=2), y, rtol=1e-12)
    np.testing.assert_array_equal(s2, state)
    np.testing.assert_array_equal(state, x[:, :, -3:])
    np.testing.assert_array_equal(s1, np.concatenate((np.zeros((2, 3, 1)), x[:, :, :2]), axis=2))
    y_one, s_one = conv(x, w[:, :, :1])
    np.testing.assert_allclose(y_one, x * w[None, :, 0, :1], rtol=1e-12)
    assert s_one.shape == (2, 3, 0)
    with pytest.raises(ValueError, match="activation"):
        conv(x, w, activation="relu")


def test_linear_attention_streams_and_per_head_decay_equals_a_uniform_per_feature_decay() -> None:
    b, t, hq, hkv, dk, dv = 2, 4, 4, 2, 3, 2
    q, k, v = _rand(b, t, hq * dk, dtype=np.float32), _rand(b, t, hkv * dk, dtype=np.float32), _rand(
        b, t, hkv * dv, dtype=np.float32)
    head_decay = -np.abs(_rand(b, t, hkv, dtype=np.float32))
    beta = RNG.random((b, t, 1)).astype(np.float32)
    la = _fn("LinearAttention", 27)
    kw = {"q_num_heads": hq, "kv_num_heads": hkv}
    out, state = la(q, k, v, None, head_decay, beta, **kw)
    assert out.shape == (b, t, hq * dv) and state.shape == (b, hkv, dk, dv)
    o1, s1 = la(q[:, :1], k[:, :1], v[:, :1], None, head_decay[:, :1], beta[:, :1], **kw)
    o2, s2 = la(q[:, 1:], k[:, 1:], v[:, 1:], s1, head_decay[:, 1:], beta[:, 1:], **kw)
    np.testing.assert_allclose(np.concatenate((o1, o2), axis=1), out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2, state, rtol=1e-5, atol=1e-6)
    per_feature = np.repeat(head_decay, dk, axis=2)
    out_f, state_f = la(q, k, v, None, per_feature, beta, **kw)
    np.testing.assert_allclose(out_f, out, rtol=1e-6)
    np.testing.assert_allclose(state_f, state, rtol=1e-6)
    # linear rule, one token, no past: S = k v^T, o = scale * q . S
    o_lin, s_lin = la(q[:, :1], k[:, :1], v[:, :1], update_rule="linear", scale=0.5, **kw)
    k0 = k[0, 0, :dk]
    v0 = v[0, 0, :dv]
    np.testing.assert_allclose(s_lin[0, 0], np.outer(k0, v0), rtol=1e-6)
    np.testing.assert_allclose(o_lin[0, 0, :dv], 0.5 * q[0, 0, :dk] @ np.outer(k0, v0), rtol=1e-5)
    with pytest.raises(ValueError, match="needs the decay"):
        la(q, k, v, **kw)
    with pytest.raises(ValueError, match="multiple"):
        la(q, k, v, update_rule="linear", q_num_heads=3, kv_num_heads=2)


def test_linear_attention_state_type_follows_the_past_state() -> None:
    q = _rand(1, 2, 4, dtype=np.float16)
    la = _fn("LinearAttention", 27)
    out, state = la(q, q, q, update_rule="linear", q_num_heads=1, kv_num_heads=1)
    assert out.dtype == np.float16 and state.dtype == np.float16
    _, state32 = la(q, q, q, np.zeros((1, 1, 4, 4), np.float32), update_rule="linear", q_num_heads=1,
                    kv_num_heads=1)
    assert state32.dtype == np.float32


def test_attention_refuses_a_mask_that_would_widen_the_batch() -> None:
    q, k, v = _rand(1, 1, 2, 4), _rand(1, 1, 3, 4), _rand(1, 1, 3, 4)
    with pytest.raises(ValueError, match="does not broadcast"):
        _fn("Attention", 23)(q, k, v, np.zeros((2, 1, 2, 3)))
