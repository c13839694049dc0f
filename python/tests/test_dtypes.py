"""Dtypes: every MLX dtype through a kernel, float16 and bfloat16 in and out, the bfloat16
wrapper, Python scalars and lists with MLX's conversion rules, the constant/device threshold,
templates of all three kinds and init_value."""

import numpy as np
import pytest

import mslsim as mx
from conftest import bf16_reference_bits, bf16_to_f32, copy_kernel, generated

NUMPY_DTYPES = {
    "bool_": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "complex64": np.complex64,
}
MSL_NAMES = {
    "bool_": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
    "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
    "uint64": "uint64_t", "float16": "float16_t", "float32": "float", "complex64": "complex64_t",
    "bfloat16": "bfloat16_t",
}


def sample(name, rng, n=40):
    if name == "bool_":
        return rng.integers(0, 2, n).astype(np.bool_)
    t = NUMPY_DTYPES[name]
    if name == "complex64":
        return (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(t)
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        return rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    return rng.normal(size=n).astype(t) * 100


@pytest.mark.parametrize("name", list(NUMPY_DTYPES))
def test_copy_every_dtype(name, rng, capfd):
    a = sample(name, rng)
    (out,) = copy_kernel().__call__(inputs=[a], output_shapes=[a.shape],
                                    output_dtypes=[getattr(mx, name)], grid=(a.size, 1, 1),
                                    threadgroup=(32, 1, 1), verbose=True)
    src = generated(capfd)
    t = MSL_NAMES[name]
    assert "  const device %s* inp [[buffer(0)]],\n  device %s* out [[buffer(1)]]," % (t, t) in src
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("spelling", [
    np.float16, np.dtype("float16"), "float16", mx.float16, np.zeros(1, np.float16).dtype])
def test_output_dtype_spellings(spelling):
    a = np.linspace(-3, 3, 12).astype(np.float16)
    (out,) = copy_kernel().__call__(inputs=[a], output_shapes=[a.shape], output_dtypes=[spelling],
                                    grid=(a.size, 1, 1), threadgroup=(32, 1, 1))
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, a)


def test_float16_arithmetic_in_half():
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = inp[i] * half(3) + half(0.5);
    """
    a = np.linspace(-10, 10, 64).astype(np.float16)
    kernel = mx.metal_kernel("half_math", ["inp"], ["out"], source)
    (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float16],
                    grid=(64, 1, 1), threadgroup=(64, 1, 1))
    expected = (a * np.float16(3)).astype(np.float16) + np.float16(0.5)
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------------------------
# bfloat16


def test_bfloat16_round_trip_of_every_bit_pattern():
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    b = mx.bfloat16_array(bits)
    values = b.to_float32()
    np.testing.assert_array_equal(values.view(np.uint32), bits.astype(np.uint32) << 16)
    np.testing.assert_array_equal(np.asarray(b).view(np.uint32), bits.astype(np.uint32) << 16)
    np.testing.assert_array_equal(mx.to_bfloat16(values).bits, bits)


def test_to_bfloat16_rounds_to_nearest_even(rng):
    one = 0x3F800000
    cases = np.array([one, one + 0x8000, one + 0x18000, one + 0x8001, one + 0x7FFF,
                      0x7F7FFFFF, 0x00008000, 0x80018000], dtype=np.uint32).view(np.float32)
    expected = [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0x3F80, 0x7F80, 0x0000, 0x8002]
    np.testing.assert_array_equal(mx.to_bfloat16(cases).bits, np.array(expected, np.uint16))
    x = rng.normal(size=(7, 9)) * 1e3
    b = mx.to_bfloat16(x)
    assert b.shape == (7, 9) and b.dtype == mx.bfloat16
    np.testing.assert_array_equal(b.bits, bf16_reference_bits(x.astype(np.float32)))
    nan = mx.to_bfloat16(np.array([np.nan, -np.inf, np.inf], dtype=np.float32))
    assert np.isnan(nan.to_float32()[0]) and list(nan.to_float32()[1:]) == [-np.inf, np.inf]


def test_bfloat16_in_and_out(rng, capfd):
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = inp[i] * bfloat16_t(2.0f);
        as_float[i] = float(inp[i]);
    """
    x = rng.normal(size=(4, 8)).astype(np.float32)
    b = mx.to_bfloat16(x)
    kernel = mx.metal_kernel("bf16", ["inp"], ["out", "as_float"], source)
    out, as_float = kernel(inputs=[b], output_shapes=[b.shape, b.shape],
                           output_dtypes=[mx.bfloat16, np.float32], grid=(b.size, 1, 1),
                           threadgroup=(32, 1, 1), verbose=True)
    assert "  const device bfloat16_t* inp [[buffer(0)]],\n  device bfloat16_t* out" in generated(capfd)
    assert isinstance(out, mx.bfloat16_array) and out.shape == (4, 8)
    values = bf16_to_f32(bf16_reference_bits(x))
    np.testing.assert_array_equal(as_float, values)
    np.testing.assert_array_equal(out.bits, bf16_reference_bits(values * 2))  # exact: *2


def test_bfloat16_output_from_float_input_rounds_like_numpy_reference(rng):
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = bfloat16_t(inp[i]);
    """
    x = (rng.normal(size=256) * 300).astype(np.float32)
    kernel = mx.metal_kernel("to_bf16", ["inp"], ["out"], source)
    (out,) = kernel(inputs=[x], output_shapes=[x.shape], output_dtypes=["bfloat16"],
                    grid=(256, 1, 1), threadgroup=(64, 1, 1))
    np.testing.assert_array_equal(out.bits, bf16_reference_bits(x))


def test_bfloat16_views(rng):
    source = """
        uint elem = thread_position_in_grid.x;
        uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
        out[elem] = float(inp[loc]);
    """
    b = mx.to_bfloat16(rng.normal(size=(6, 5)))
    kernel = mx.metal_kernel("bf16_view", ["inp"], ["out"], source, ensure_row_contiguous=False)
    for view in (b.T, b[1:5:2], b[:, 3]):
        (out,) = kernel(inputs=[view], output_shapes=[view.shape], output_dtypes=[mx.float32],
                        grid=(view.size, 1, 1), threadgroup=(32, 1, 1))
        np.testing.assert_array_equal(out, bf16_to_f32(view.bits))


def test_bfloat16_template_and_init_value():
    source = """
        uint i = thread_position_in_grid.x;
        if (i == 0) out[0] = T(1.5f);
    """
    kernel = mx.metal_kernel("bf16_init", ["inp"], ["out"], source)
    (out,) = kernel(inputs=[np.zeros(4, np.float32)], output_shapes=[(4,)],
                    output_dtypes=[mx.bfloat16], template=[("T", mx.bfloat16)],
                    init_value=0.3, grid=(4, 1, 1), threadgroup=(4, 1, 1))
    expected = bf16_reference_bits(np.array([1.5, 0.3, 0.3, 0.3], np.float32))
    np.testing.assert_array_equal(out.bits, expected)


# --------------------------------------------------------------------------------------------
# Python scalars, lists, numpy float64 (MLX's conversion rules, contract §1.2)

SCALARS = """
    out[0] = float(flag) + float(small) + float(big / 1000000000) + x + z.real + z.imag;
"""


def test_python_scalars(capfd):
    kernel = mx.metal_kernel("scalars", ["flag", "small", "big", "x", "z"], ["out"], SCALARS)
    (out,) = kernel(inputs=[True, -7, 5 * 10 ** 9, 0.25, complex(1.5, -0.5)],
                    output_shapes=[(1,)], output_dtypes=[mx.float32], grid=(1, 1, 1),
                    threadgroup=(1, 1, 1), verbose=True)
    src = generated(capfd)
    assert ("[[kernel]] void custom_kernel_scalars_bools_int32_ts_int64_ts_floats_complex64_ts_float(\n"
            "  const constant bool& flag [[buffer(0)]],\n"
            "  const constant int32_t& small [[buffer(1)]],\n"
            "  const constant int64_t& big [[buffer(2)]],\n"
            "  const constant float& x [[buffer(3)]],\n"
            "  const constant complex64_t& z [[buffer(4)]],\n") in src
    assert out[0] == np.float32(1 - 7 + 5 + 0.25 + 1.5 - 0.5)


def test_numpy_scalars_keep_their_dtype(capfd):
    kernel = mx.metal_kernel("np_scalars", ["a", "b", "c"], ["out"],
                             "out[0] = float(a) + float(b) + float(c);")
    (out,) = kernel(inputs=[np.float16(1.5), np.int64(2), np.float64(0.25)], output_shapes=[(1,)],
                    output_dtypes=[mx.float32], grid=(1, 1, 1), threadgroup=(1, 1, 1), verbose=True)
    src = generated(capfd)
    assert "custom_kernel_np_scalars_float16_ts_int64_ts_floats_float(" in src
    assert out[0] == 3.75


def test_lists_and_float64_arrays_follow_mx_array(capfd):
    source = """
        uint i = thread_position_in_grid.x;
        out[i] = float(ints[i % 3]) + floats[i] + wide[i];
    """
    kernel = mx.metal_kernel("lists", ["ints", "floats", "wide"], ["out"], source)
    wide = np.linspace(0, 1, 8)  # float64 -> float32, as mx.array(numpy float64) does
    (out,) = kernel(inputs=[[3, 4, 5], [0.5] * 8, wide], output_shapes=[(8,)],
                    output_dtypes=[mx.float32], grid=(8, 1, 1), threadgroup=(8, 1, 1),
                    verbose=True)
    src = generated(capfd)
    assert "  const constant int32_t* ints [[buffer(0)]],\n" in src  # 3 < 8 elements: constant
    assert "  const device float* floats [[buffer(1)]],\n" in src  # 8 elements: device
    assert "  const device float* wide [[buffer(2)]],\n" in src
    expected = np.array([3, 4, 5] * 3, np.float32)[:8] + np.float32(0.5) + wide.astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("n,location", [(1, "constant"), (7, "constant"), (8, "device")])
def test_constant_threshold(n, location, capfd):
    a = np.arange(n, dtype=np.int16)
    copy_kernel("threshold").__call__(inputs=[a], output_shapes=[a.shape],
                                      output_dtypes=[a.dtype], grid=(n, 1, 1),
                                      threadgroup=(32, 1, 1), verbose=True)
    suffix = "c" if n < 8 else ""
    src = generated(capfd)
    assert "custom_kernel_threshold_int16_t%s_int16_t(\n  const %s int16_t* inp" % (suffix, location) in src


def test_mx_array_helper():
    assert mx.array(1.5).dtype == np.float32 and mx.array(1.5).shape == ()
    assert mx.array([1, 2]).dtype == np.int32
    assert mx.array([1, 2 ** 40]).dtype == np.int64
    assert mx.array([True, False]).dtype == np.bool_
    assert mx.array(np.zeros(3)).dtype == np.float32
    assert mx.array([1j]).dtype == np.complex64
    assert mx.array([1, 2], dtype=mx.float16).dtype == np.float16
    b = mx.array([1.0, 2.0], dtype=mx.bfloat16)
    assert isinstance(b, mx.bfloat16_array)
    np.testing.assert_array_equal(b.bits, np.array([0x3F80, 0x4000], np.uint16))


# --------------------------------------------------------------------------------------------
# templates: int, bool and dtype, in the caller's order


def test_templates_of_all_kinds(capfd):
    source = """
        uint i = thread_position_in_grid.x;
        thread T buffer[N];
        for (int k = 0; k < N; ++k) buffer[k] = T(inp[i] + k);
        T total = 0;
        for (int k = 0; k < N; ++k) total += buffer[k];
        out[i] = negate ? -total : total;
    """
    a = np.arange(16, dtype=np.float32)
    kernel = mx.metal_kernel("templates", ["inp"], ["out"], source)
    for negate, n, t in [(False, 3, mx.float32), (True, 5, np.int32), (True, 4, "float16")]:
        (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float32],
                        template=[("negate", negate), ("N", n), ("T", t)],
                        grid=(16, 1, 1), threadgroup=(16, 1, 1), verbose=True)
        src = generated(capfd)
        assert src.startswith("template <bool negate, int N, typename T>\n")
        tname = {mx.float32: "float", np.int32: "int32_t", "float16": "float16_t"}[t]
        assert "<%d, %d, %s>;\n" % (negate, n, tname) in src
        assert "custom_kernel_templates__%d_%d_%s_float_float(" % (negate, n, tname) in src
        expected = (a[:, None] + np.arange(n)).sum(axis=1)
        np.testing.assert_array_equal(out, -expected if negate else expected)


def test_bool_template_is_not_an_int(capfd):
    kernel = mx.metal_kernel("flag", ["inp"], ["out"], "out[0] = B ? 1 : 2;")
    for value, declared in [(True, "bool"), (1, "int")]:
        (out,) = kernel(inputs=[np.zeros(1, np.float32)], output_shapes=[(1,)],
                        output_dtypes=[mx.int32], template=[("B", value)], grid=(1, 1, 1),
                        threadgroup=(1, 1, 1), verbose=True)
        assert generated(capfd).startswith("template <%s B>\n" % declared)
        assert out[0] == 1


# --------------------------------------------------------------------------------------------
# init_value


@pytest.mark.parametrize("dtype,value", [(np.float32, -2.5), (np.int32, 3.0), (np.float16, 0.1),
                                         (np.uint8, 7), (np.bool_, 1.0)])
def test_init_value_fills_every_output(dtype, value):
    source = "if (thread_position_in_grid.x == 0) { first[1] = 0; }"
    kernel = mx.metal_kernel("init", ["inp"], ["first", "second"], source)
    first, second = kernel(inputs=[np.zeros(2, np.float32)], output_shapes=[(2, 3), (5,)],
                           output_dtypes=[dtype, dtype], init_value=value, grid=(1, 1, 1),
                           threadgroup=(1, 1, 1))
    fill = np.array(np.float32(value)).astype(dtype)
    expected = np.full((2, 3), fill, dtype=dtype)
    expected.flat[1] = 0
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second, np.full(5, fill, dtype=dtype))
