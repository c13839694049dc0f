"""numpy views as MLX array views: transposed, negative strides, broadcast (stride 0), offset
slices, unaligned or odd-strided memory; with ensure_row_contiguous=False (the kernel walks the
view through _shape/_strides/_ndim) and True (mslsim copies first)."""

import numpy as np
import pytest

import mslsim as mx
from conftest import generated

# 64-bit signed indexing, not the docs' `uint`: MLX's elem_to_loc computes in the type of its
# first argument, and with negative strides the offset from the first element is negative (in
# `uint` it wraps to a huge index, on a Mac too: see test_uint_indexing_of_negative_strides).
STRIDED = """
    uint elem = thread_position_in_grid.x;
    int64_t loc = elem_to_loc(int64_t(elem), inp_shape, inp_strides, inp_ndim);
    out[elem] = inp[loc] * 2 + 1;
"""

DOCS_STRIDED = """
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    out[elem] = inp[loc] * 2 + 1;
"""

CONTIGUOUS = """
    uint elem = thread_position_in_grid.x;
    out[elem] = inp[elem] * 2 + 1;
"""

# What the kernel sees: shape, strides (elements) and ndim of the bound array.
LAYOUT = """
    uint i = thread_position_in_grid.x;
    if (i < uint(inp_ndim)) {
        shape[i] = inp_shape[i];
        strides[i] = inp_strides[i];
    }
    if (i == 0) ndim[0] = inp_ndim;
"""


def views():
    base = np.arange(6 * 8, dtype=np.float32).reshape(6, 8) - 20
    cube = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    row = np.arange(8, dtype=np.float32)
    return {
        "transposed": base.T,
        "negative_rows": base[::-1],
        "negative_cols_step": base[:, ::-2],
        "both_negative": base[::-2, ::-3],
        "broadcast_rows": np.broadcast_to(row, (5, 8)),
        "broadcast_scalar": np.broadcast_to(np.float32(3.5), (4, 4)),
        "offset_rows": base[2:],  # row-contiguous, starts mid-allocation
        "offset_block": base[1:5, 2:7],
        "strided_slice": base[::2],
        "permuted_3d": cube.transpose(2, 0, 1),
        "sliced_3d": cube[1:, ::2, 3:0:-1],
        "column": base[:, 3],
    }


VIEWS = views()


def run(kernel, a):
    (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float32],
                    grid=(a.size, 1, 1), threadgroup=(64, 1, 1))
    return out


@pytest.mark.parametrize("view", list(VIEWS))
def test_view_without_copy(view):
    a = VIEWS[view]
    kernel = mx.metal_kernel("strided_view", ["inp"], ["out"], STRIDED, ensure_row_contiguous=False)
    out = run(kernel, a)
    assert out.flags.c_contiguous and out.shape == a.shape
    np.testing.assert_array_equal(out, a * 2 + 1)


def test_uint_indexing_of_negative_strides_is_caught():
    # The docs' kernel (uint elem, uint loc) reads far outside the array for a reversed view;
    # mslsim reports it instead of returning garbage.
    a = VIEWS["negative_rows"]
    kernel = mx.metal_kernel("docs_strided", ["inp"], ["out"], DOCS_STRIDED,
                             ensure_row_contiguous=False)
    with pytest.raises(mx.KernelError) as e:
        run(kernel, a)
    assert "out-of-bounds" in str(e.value) or "invalid-memory-access" in str(e.value)
    # Positive strides are fine with it.
    b = VIEWS["offset_block"]
    np.testing.assert_array_equal(run(kernel, b), b * 2 + 1)


@pytest.mark.parametrize("view", list(VIEWS))
def test_view_copied_to_row_contiguous(view):
    a = VIEWS[view]
    kernel = mx.metal_kernel("contiguous_view", ["inp"], ["out"], CONTIGUOUS)
    np.testing.assert_array_equal(run(kernel, a), a * 2 + 1)


def layout_seen(a, ensure_row_contiguous):
    kernel = mx.metal_kernel("layout", ["inp"], ["shape", "strides", "ndim"], LAYOUT,
                             ensure_row_contiguous=ensure_row_contiguous)
    shape, strides, ndim = kernel(
        inputs=[a], output_shapes=[(a.ndim,), (a.ndim,), (1,)],
        output_dtypes=[mx.int32, mx.int64, mx.int32], grid=(a.ndim, 1, 1),
        threadgroup=(32, 1, 1))
    return tuple(shape.tolist()), tuple(strides.tolist()), int(ndim[0])


@pytest.mark.parametrize("view", list(VIEWS))
def test_strides_are_numpy_strides_in_elements(view):
    a = VIEWS[view]
    shape, strides, ndim = layout_seen(a, ensure_row_contiguous=False)
    assert shape == a.shape
    assert ndim == a.ndim
    assert strides == tuple(s // a.itemsize for s in a.strides)


def row_major_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return tuple(strides)


@pytest.mark.parametrize("view", list(VIEWS))
def test_strides_after_ensure_row_contiguous(view):
    a = VIEWS[view]
    shape, strides, ndim = layout_seen(a, ensure_row_contiguous=True)
    assert shape == a.shape
    if a.flags.c_contiguous:
        # MLX binds row-contiguous views (even with an offset) as they are. numpy calls an array
        # with size-1 dimensions contiguous whatever their strides; compare the others only.
        assert all(s == n for s, n, d in zip(strides, (x // a.itemsize for x in a.strides), a.shape) if d > 1)
    else:
        assert strides == row_major_strides(a.shape)


def test_offset_view_is_bound_at_its_first_element():
    base = np.arange(40, dtype=np.int32)
    kernel = mx.metal_kernel("first", ["inp"], ["out"], "out[0] = inp[0]; out[1] = inp[3];")
    for start in (0, 1, 13, 30):
        (out,) = kernel(inputs=[base[start:]], output_shapes=[(2,)], output_dtypes=[mx.int32],
                        grid=(1, 1, 1), threadgroup=(1, 1, 1))
        np.testing.assert_array_equal(out, [start, start + 3])


def test_unaligned_and_odd_strides_are_copied():
    # numpy strides that are not whole elements (a field of a packed record) and unaligned data
    records = np.zeros(9, dtype=[("value", "<f4"), ("tag", "u1")])
    records["value"] = np.arange(9) * 1.5
    field = records["value"]
    assert field.strides[0] % field.itemsize != 0
    raw = np.zeros(9 * 4 + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.float32)
    unaligned[:] = np.arange(9) - 4.25
    assert not unaligned.flags.aligned
    kernel = mx.metal_kernel("odd", ["inp"], ["out"], STRIDED, ensure_row_contiguous=False)
    for a in (field, unaligned):
        np.testing.assert_array_equal(run(kernel, a), a * 2 + 1)


def test_big_endian_input():
    a = np.arange(12, dtype=">f4").reshape(3, 4)
    kernel = mx.metal_kernel("big_endian", ["inp"], ["out"], CONTIGUOUS)
    np.testing.assert_array_equal(run(kernel, a), a.astype(np.float32) * 2 + 1)


def test_empty_input_and_zero_grid():
    a = np.zeros((0, 4), dtype=np.float32)
    kernel = mx.metal_kernel("empty", ["inp"], ["out"], CONTIGUOUS)
    (out,) = kernel(inputs=[a], output_shapes=[(0, 4)], output_dtypes=[mx.float32],
                    grid=(0, 1, 1), threadgroup=(32, 1, 1))
    assert out.shape == (0, 4) and out.dtype == np.float32


def test_inputs_are_not_written_and_outputs_are_fresh():
    a = np.arange(16, dtype=np.float32)
    before = a.copy()
    kernel = mx.metal_kernel("fresh", ["inp"], ["out"], CONTIGUOUS)
    first = run(kernel, a)
    second = run(kernel, a)
    np.testing.assert_array_equal(a, before)
    assert not np.shares_memory(first, second) and not np.shares_memory(first, a)
    first[:] = 0  # outputs are writable numpy arrays
    np.testing.assert_array_equal(second, before * 2 + 1)


def test_three_dimensional_grid_and_nonuniform_threadgroups():
    source = """
        uint3 p = thread_position_in_grid;
        uint3 n = threads_per_grid;
        uint i = (p.z * n.y + p.y) * n.x + p.x;
        out[i] = inp[i] + threads_per_threadgroup.x * 1000;
    """
    a = np.arange(5 * 3 * 2, dtype=np.float32)
    kernel = mx.metal_kernel("grid3", ["inp"], ["out"], source)
    (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float32],
                    grid=(5, 3, 2), threadgroup=(4, 2, 2))
    # x threadgroups: 4 threads, then a non-uniform edge group of 1 (MLX: dispatchThreads).
    x = np.arange(a.size) % 5
    np.testing.assert_array_equal(out, a + np.where(x < 4, 4000, 1000))


def test_ndim_zero_input_gets_no_shape_parameters(capfd):
    source = "out[0] = inp * 2; (void)0; // inp_shape mentioned only here"
    kernel = mx.metal_kernel("scalar_shape", ["inp"], ["out"], source)
    (out,) = kernel(inputs=[np.float32(4.5)], output_shapes=[(1,)], output_dtypes=[mx.float32],
                    grid=(1, 1, 1), threadgroup=(1, 1, 1), verbose=True)
    src = generated(capfd)
    assert "const constant float& inp [[buffer(0)]],\n  device float* out [[buffer(1)]]) {" in src
    assert "inp_shape [[" not in src
    assert out[0] == 9.0
