"""MLX's documented metal_kernel examples (docs/src/dev/custom_metal_kernels.rst and the contract's
§4 worked examples), run through mslsim as an MLX user would, checked against numpy."""

import numpy as np
import pytest

import mslsim
import mslsim as mx  # the point: MLX code with `mx` replaced
from conftest import bf16_to_f32, generated, verbose_block

# --------------------------------------------------------------------------------------------
# §4.1: the simple exp example

EXP_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T tmp = inp[elem];
    out[elem] = metal::exp(tmp);
"""

EXP_GENERATED = """template <typename T>
[[kernel]] void custom_kernel_myexp__float_float16_t_float16_t(
  const device float16_t* inp [[buffer(0)]],
  device float16_t* out [[buffer(1)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {

    uint elem = thread_position_in_grid.x;
    T tmp = inp[elem];
    out[elem] = metal::exp(tmp);

}

template [[host_name("custom_kernel_myexp__float_float16_t_float16_t")]] [[kernel]] decltype(custom_kernel_myexp__float_float16_t_float16_t<float>) custom_kernel_myexp__float_float16_t_float16_t<float>;
"""


def exp_elementwise(kernel, a, verbose=False):
    outputs = kernel(
        inputs=[a],
        template=[("T", mx.float32)],
        grid=(a.size, 1, 1),
        threadgroup=(256, 1, 1),
        output_shapes=[a.shape],
        output_dtypes=[a.dtype],
        verbose=verbose,
    )
    return outputs[0]


def test_exp_docs_example(rng):
    kernel = mx.fast.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                  source=EXP_SOURCE)
    a = rng.normal(size=(4, 16)).astype(np.float16)
    b = exp_elementwise(kernel, a)
    assert isinstance(b, np.ndarray) and b.dtype == np.float16 and b.shape == (4, 16)
    assert b.flags.c_contiguous
    # T = float: exp in float32, rounded once to half.
    np.testing.assert_array_equal(b, np.exp(a.astype(np.float32)).astype(np.float16))


def test_exp_verbose_prints_mlx_source_byte_for_byte(rng, capfd):
    kernel = mx.fast.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                  source=EXP_SOURCE)
    a = rng.normal(size=(4, 16)).astype(np.float16)
    exp_elementwise(kernel, a, verbose=True)
    out, err = capfd.readouterr()
    assert out == verbose_block("myexp", EXP_GENERATED)
    # No verbose, no output.
    exp_elementwise(kernel, a)
    assert capfd.readouterr().out == ""


# --------------------------------------------------------------------------------------------
# §4.2: shapes/strides with ensure_row_contiguous=False on a strided view

STRIDED_SOURCE = """
    uint elem = thread_position_in_grid.x;
    // Utils from `mlx/backend/metal/kernels/utils.h` are automatically included
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = inp[loc];
    // Output arrays are always row contiguous
    out[elem] = metal::exp(tmp);
"""

STRIDED_SIGNATURE = """template <typename T>
[[kernel]] void custom_kernel_myexp_strided__float_float16_t_float16_t(
  const device float16_t* inp [[buffer(0)]],
  const constant int* inp_shape [[buffer(1)]],
  const constant int64_t* inp_strides [[buffer(2)]],
  const constant int& inp_ndim [[buffer(3)]],
  device float16_t* out [[buffer(4)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
"""


@pytest.mark.parametrize("ensure_row_contiguous", [False, True])
def test_strided_exp_docs_example(rng, capfd, ensure_row_contiguous):
    kernel = mx.fast.metal_kernel(name="myexp_strided", input_names=["inp"],
                                  output_names=["out"], source=STRIDED_SOURCE,
                                  ensure_row_contiguous=ensure_row_contiguous)
    base = rng.normal(size=(4, 16)).astype(np.float16)
    a = base[::2]  # make non-contiguous
    assert not a.flags.c_contiguous
    b = exp_elementwise(kernel, a, verbose=True)
    assert generated(capfd).startswith(STRIDED_SIGNATURE)
    np.testing.assert_array_equal(b, np.exp(a.astype(np.float32)).astype(np.float16))


def test_exp_contiguous_kernel_on_strided_view_with_copy(rng):
    # The simple kernel indexes inp[elem]: correct only because ensure_row_contiguous copies.
    kernel = mx.fast.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                  source=EXP_SOURCE)
    a = rng.normal(size=(4, 16)).astype(np.float16)[::2]
    b = exp_elementwise(kernel, a)
    np.testing.assert_array_equal(b, np.exp(a.astype(np.float32)).astype(np.float16))


# --------------------------------------------------------------------------------------------
# §4.3: MLX's test_custom_kernel_args: scalars, small arrays as `constant`, three template kinds,
# two outputs

ARGS_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T tmp = a[0];
    if (e) {
        out1[elem] = a[1] + b[2] + c[3] + d + f;
    } else {
        out1[elem] = 1;
    }
    out2[elem] = a[1] + b[2] + c[1] - d;
"""

ARGS_NAME = "custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t"
ARGS_SIGNATURE = """template <bool e, int f, typename T>
[[kernel]] void %s(
  const device float* a [[buffer(0)]],
  const constant int32_t* b [[buffer(1)]],
  const constant bfloat16_t* c [[buffer(2)]],
  const constant float& d [[buffer(3)]],
  device float* out1 [[buffer(4)]],
  device int32_t* out2 [[buffer(5)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
""" % ARGS_NAME
ARGS_INSTANTIATION = (
    "\ntemplate [[host_name(\"%s\")]] [[kernel]] decltype(%s<1, 3, float16_t>) %s<1, 3, float16_t>;\n"
    % (ARGS_NAME, ARGS_NAME, ARGS_NAME))


@pytest.mark.parametrize("e", [True, False])
def test_custom_kernel_args(rng, capfd, e):
    a = rng.normal(size=(3, 6)).astype(np.float32)
    c = mx.to_bfloat16(rng.normal(size=(2, 2)))
    kernel = mx.fast.metal_kernel(name="arg_test", input_names=["a", "b", "c", "d"],
                                  output_names=["out1", "out2"], source=ARGS_SOURCE)
    out = kernel(
        inputs=[a, mx.array([3, 4, 5]), c, 7.3],
        template=[("e", e), ("f", 3), ("T", mx.float16)],
        grid=(6, 1, 1),
        threadgroup=(2, 1, 1),
        output_shapes=[(3, 2), (3, 2)],
        output_dtypes=[mx.float32, mx.int32],
        verbose=True,
    )
    source = generated(capfd)
    if e:
        assert source.startswith(ARGS_SIGNATURE)
        assert source.endswith(ARGS_INSTANTIATION)
    else:
        assert "template <bool e, int f, typename T>\n" in source
        assert "<0, 3, float16_t>" in source

    f32 = np.float32
    c_values = bf16_to_f32(c.bits).ravel()
    d = f32(7.3)
    if e:
        expected1 = f32(f32(f32(f32(a.ravel()[1] + f32(5)) + c_values[3]) + d) + f32(3))
    else:
        expected1 = f32(1)
    expected2 = np.int32(f32(f32(f32(a.ravel()[1] + f32(5)) + c_values[1]) - d))  # truncation
    assert out[0].dtype == np.float32 and out[0].shape == (3, 2)
    assert out[1].dtype == np.int32 and out[1].shape == (3, 2)
    np.testing.assert_allclose(out[0], np.full((3, 2), expected1), rtol=1e-6)
    np.testing.assert_array_equal(out[1], np.full((3, 2), expected2, dtype=np.int32))


# --------------------------------------------------------------------------------------------
# §4.4: atomic outputs + init_value

ATOMIC_SOURCE = """
    uint elem = thread_position_in_grid.x;
    T v = inp[elem];
    if (thread_index_in_simdgroup == 0) {
        atomic_fetch_add_explicit(&total[0], v, memory_order_relaxed);
    }
"""

ATOMIC_GENERATED = """template <typename T>
[[kernel]] void custom_kernel_atomic_sum__float_float_float(
  const device float* inp [[buffer(0)]],
  device atomic<float>* total [[buffer(1)]],
  uint thread_index_in_simdgroup [[thread_index_in_simdgroup]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
%s
}

template [[host_name("custom_kernel_atomic_sum__float_float_float")]] [[kernel]] decltype(custom_kernel_atomic_sum__float_float_float<float>) custom_kernel_atomic_sum__float_float_float<float>;
""" % ATOMIC_SOURCE


@pytest.mark.parametrize("init", [0, 10.5])
def test_atomic_sum_with_init_value(rng, capfd, init):
    kernel = mx.fast.metal_kernel(name="atomic_sum", input_names=["inp"], output_names=["total"],
                                  source=ATOMIC_SOURCE, atomic_outputs=True)
    inp = rng.integers(-50, 50, size=1024).astype(np.float32)  # integers: order-independent sums
    (total,) = kernel(inputs=[inp], template=[("T", mx.float32)], output_shapes=[(1,)],
                      output_dtypes=[mx.float32], grid=(1024, 1, 1), threadgroup=(256, 1, 1),
                      init_value=init, verbose=True)
    assert generated(capfd) == ATOMIC_GENERATED
    assert total.shape == (1,) and total.dtype == np.float32
    assert total[0] == np.float32(init) + inp[::32].sum()


# --------------------------------------------------------------------------------------------
# The docs' grid_sample, forward and VJP (custom_metal_kernels.rst)

GRID_SAMPLE_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C * 2;
    float ix = ((grid[grid_idx] + 1) * W - 1) / 2;
    float iy = ((grid[grid_idx + 1] + 1) * H - 1) / 2;

    int ix_nw = floor(ix);
    int iy_nw = floor(iy);

    int ix_ne = ix_nw + 1;
    int iy_ne = iy_nw;

    int ix_sw = ix_nw;
    int iy_sw = iy_nw + 1;

    int ix_se = ix_nw + 1;
    int iy_se = iy_nw + 1;

    T nw = (ix_se - ix)    * (iy_se - iy);
    T ne = (ix    - ix_sw) * (iy_sw - iy);
    T sw = (ix_ne - ix)    * (iy    - iy_ne);
    T se = (ix    - ix_nw) * (iy    - iy_nw);

    int batch_idx = elem / C / gH / gW * b_stride;
    int channel_idx = elem % C;
    int base_idx = batch_idx + channel_idx;

    T I_nw = x[base_idx + iy_nw * h_stride + ix_nw * w_stride];
    T I_ne = x[base_idx + iy_ne * h_stride + ix_ne * w_stride];
    T I_sw = x[base_idx + iy_sw * h_stride + ix_sw * w_stride];
    T I_se = x[base_idx + iy_se * h_stride + ix_se * w_stride];

    I_nw = iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1 ? I_nw : 0;
    I_ne = iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1 ? I_ne : 0;
    I_sw = iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1 ? I_sw : 0;
    I_se = iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1 ? I_se : 0;

    out[elem] = nw * I_nw + ne * I_ne + sw * I_sw + se * I_se;
"""

GRID_SAMPLE_GRAD_SOURCE = """
    uint elem = thread_position_in_grid.x;
    int H = x_shape[1];
    int W = x_shape[2];
    int C = x_shape[3];
    // Pad C to the nearest larger simdgroup size multiple
    int C_padded = ceildiv(C, threads_per_simdgroup) * threads_per_simdgroup;

    int gH = grid_shape[1];
    int gW = grid_shape[2];

    int w_stride = C;
    int h_stride = W * w_stride;
    int b_stride = H * h_stride;

    uint grid_idx = elem / C_padded * 2;
    float ix = ((grid[grid_idx] + 1) * W - 1) / 2;
    float iy = ((grid[grid_idx + 1] + 1) * H - 1) / 2;

    int ix_nw = floor(ix);
    int iy_nw = floor(iy);

    int ix_ne = ix_nw + 1;
    int iy_ne = iy_nw;

    int ix_sw = ix_nw;
    int iy_sw = iy_nw + 1;

    int ix_se = ix_nw + 1;
    int iy_se = iy_nw + 1;

    T nw = (ix_se - ix)    * (iy_se - iy);
    T ne = (ix    - ix_sw) * (iy_sw - iy);
    T sw = (ix_ne - ix)    * (iy    - iy_ne);
    T se = (ix    - ix_nw) * (iy    - iy_nw);

    int batch_idx = elem / C_padded / gH / gW * b_stride;
    int channel_idx = elem % C_padded;
    int base_idx = batch_idx + channel_idx;

    T gix = T(0);
    T giy = T(0);
    if (channel_idx < C) {
        int cot_index = elem / C_padded * C + channel_idx;
        T cot = cotangent[cot_index];
        if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1) {
            int offset = base_idx + iy_nw * h_stride + ix_nw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], nw * cot, memory_order_relaxed);

            T I_nw = x[offset];
            gix -= I_nw * (iy_se - iy) * cot;
            giy -= I_nw * (ix_se - ix) * cot;
        }
        if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1) {
            int offset = base_idx + iy_ne * h_stride + ix_ne * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], ne * cot, memory_order_relaxed);

            T I_ne = x[offset];
            gix += I_ne * (iy_sw - iy) * cot;
            giy -= I_ne * (ix - ix_sw) * cot;
        }
        if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1) {
            int offset = base_idx + iy_sw * h_stride + ix_sw * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], sw * cot, memory_order_relaxed);

            T I_sw = x[offset];
            gix -= I_sw * (iy - iy_ne) * cot;
            giy += I_sw * (ix_ne - ix) * cot;
        }
        if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1) {
            int offset = base_idx + iy_se * h_stride + ix_se * w_stride;
            atomic_fetch_add_explicit(&x_grad[offset], se * cot, memory_order_relaxed);

            T I_se = x[offset];
            gix += I_se * (iy - iy_nw) * cot;
            giy += I_se * (ix - ix_nw) * cot;
        }
    }

    T gix_mult = W / 2;
    T giy_mult = H / 2;

    // Reduce across each simdgroup first.
    // This is much faster than relying purely on atomics.
    gix = simd_sum(gix);
    giy = simd_sum(giy);

    if (thread_index_in_simdgroup == 0) {
        atomic_fetch_add_explicit(&grid_grad[grid_idx], gix * gix_mult, memory_order_relaxed);
        atomic_fetch_add_explicit(&grid_grad[grid_idx + 1], giy * giy_mult, memory_order_relaxed);
    }
"""

GRID_SAMPLE_GRAD_SIGNATURE = """template <typename T>
[[kernel]] void custom_kernel_grid_sample_grad__float_float_float_float_float_float(
  const device float* x [[buffer(0)]],
  const constant int* x_shape [[buffer(1)]],
  const device float* grid [[buffer(2)]],
  const constant int* grid_shape [[buffer(3)]],
  const device float* cotangent [[buffer(4)]],
  device atomic<float>* x_grad [[buffer(5)]],
  device atomic<float>* grid_grad [[buffer(6)]],
  uint thread_index_in_simdgroup [[thread_index_in_simdgroup]],
  uint3 thread_position_in_grid [[thread_position_in_grid]],
  uint threads_per_simdgroup [[threads_per_simdgroup]]) {
"""


def bilinear_corners(x, grid):
    """The docs' grid_sample_ref, in numpy (float64): corner indices, weights, validity."""
    N, H, W, _ = x.shape
    gx = grid[..., 0].astype(np.float64)
    gy = grid[..., 1].astype(np.float64)
    ix = ((gx + 1) * W - 1) / 2
    iy = ((gy + 1) * H - 1) / 2
    ix_nw = np.floor(ix).astype(np.int64)
    iy_nw = np.floor(iy).astype(np.int64)
    corners = {
        "nw": (iy_nw, ix_nw, (ix_nw + 1 - ix) * (iy_nw + 1 - iy)),
        "ne": (iy_nw, ix_nw + 1, (ix - ix_nw) * (iy_nw + 1 - iy)),
        "sw": (iy_nw + 1, ix_nw, (ix_nw + 1 - ix) * (iy - iy_nw)),
        "se": (iy_nw + 1, ix_nw + 1, (ix - ix_nw) * (iy - iy_nw)),
    }
    return ix, iy, ix_nw, iy_nw, corners


def grid_sample_ref(x, grid):
    N, H, W, C = x.shape
    corners = bilinear_corners(x, grid)[4]
    out = np.zeros(grid.shape[:3] + (C,))
    b = np.arange(N)[:, None, None]
    for iy_k, ix_k, w_k in corners.values():
        valid = (iy_k >= 0) & (iy_k <= H - 1) & (ix_k >= 0) & (ix_k <= W - 1)
        values = x[b, np.clip(iy_k, 0, H - 1), np.clip(ix_k, 0, W - 1), :].astype(np.float64)
        out += (w_k * valid)[..., None] * values
    return out


def grid_sample_vjp_ref(x, grid, cotangent):
    """Derivatives of the bilinear sample: d/dx scatters weight*cot; d/dgrid uses the corner
    weights' derivatives times W/2, H/2 (integer halves, as the docs' kernel computes them)."""
    N, H, W, C = x.shape
    ix, iy, ix_nw, iy_nw, corners = bilinear_corners(x, grid)
    cot = cotangent.astype(np.float64)
    x_grad = np.zeros(x.shape)
    gix = np.zeros(grid.shape[:3])
    giy = np.zeros(grid.shape[:3])
    # d weight / d ix and d weight / d iy for nw, ne, sw, se
    dwx = {"nw": -(iy_nw + 1 - iy), "ne": iy_nw + 1 - iy, "sw": -(iy - iy_nw), "se": iy - iy_nw}
    dwy = {"nw": -(ix_nw + 1 - ix), "ne": -(ix - ix_nw), "sw": ix_nw + 1 - ix, "se": ix - ix_nw}
    b = np.broadcast_to(np.arange(N)[:, None, None], grid.shape[:3])
    for key, (iy_k, ix_k, w_k) in corners.items():
        valid = (iy_k >= 0) & (iy_k <= H - 1) & (ix_k >= 0) & (ix_k <= W - 1)
        yy, xx = np.clip(iy_k, 0, H - 1), np.clip(ix_k, 0, W - 1)
        values = x[b, yy, xx, :].astype(np.float64)
        np.add.at(x_grad, (b[valid], yy[valid], xx[valid]), (w_k[..., None] * cot)[valid])
        contribution = (values * cot).sum(axis=-1) * valid
        gix += dwx[key] * contribution
        giy += dwy[key] * contribution
    grid_grad = np.stack([gix * (W // 2), giy * (H // 2)], axis=-1)
    return x_grad, grid_grad


def make_grid_sample_inputs(rng):
    x = rng.normal(size=(2, 6, 8, 5)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, size=(2, 4, 3, 2)).astype(np.float32)
    return x, grid


def test_grid_sample_forward(rng):
    kernel = mx.fast.metal_kernel(name="grid_sample", input_names=["x", "grid"],
                                  output_names=["out"], source=GRID_SAMPLE_SOURCE)
    x, grid = make_grid_sample_inputs(rng)
    B, _, _, C = x.shape
    _, gN, gM, D = grid.shape
    out_shape = (B, gN, gM, C)
    call = dict(
        inputs=[x, grid],
        template=[("T", x.dtype)],
        output_shapes=[out_shape],
        output_dtypes=[x.dtype],
        grid=(np.prod(out_shape), 1, 1),
        threadgroup=(256, 1, 1),
    )
    # The docs' kernel loads all four corners before masking the ones outside the image: on a GPU
    # those reads return garbage that is then discarded; mslsim's default bounds check reports
    # them (a real out-of-bounds read of x, silent on a Mac).
    with pytest.raises(mslsim.KernelError, match=r"out-of-bounds.*argument 'x'"):
        kernel(**call)
    # Without the bounds check the masked result is what the docs' reference computes.
    outputs = kernel(**call, check="sync")
    np.testing.assert_allclose(outputs[0], grid_sample_ref(x, grid), rtol=1e-4, atol=1e-5)
    with mslsim.checks("none"):
        np.testing.assert_allclose(kernel(**call)[0], outputs[0])


def test_grid_sample_vjp_atomic_outputs(rng, capfd):
    kernel = mx.fast.metal_kernel(name="grid_sample_grad",
                                  input_names=["x", "grid", "cotangent"],
                                  output_names=["x_grad", "grid_grad"],
                                  source=GRID_SAMPLE_GRAD_SOURCE, atomic_outputs=True)
    x, grid = make_grid_sample_inputs(rng)
    B, _, _, C = x.shape
    _, gN, gM, D = grid.shape
    cotangent = rng.normal(size=(B, gN, gM, C)).astype(np.float32)
    simdgroup_size = 32
    C_padded = (C + simdgroup_size - 1) // simdgroup_size * simdgroup_size
    grid_size = B * gN * gM * C_padded
    outputs = kernel(
        inputs=[x, grid, cotangent],
        template=[("T", x.dtype)],
        output_shapes=[x.shape, grid.shape],
        output_dtypes=[x.dtype, x.dtype],
        grid=(grid_size, 1, 1),
        threadgroup=(256, 1, 1),
        init_value=0,
        verbose=True,
    )
    assert generated(capfd).startswith(GRID_SAMPLE_GRAD_SIGNATURE)
    x_grad, grid_grad = grid_sample_vjp_ref(x, grid, cotangent)
    assert outputs[0].shape == x.shape and outputs[1].shape == grid.shape
    np.testing.assert_allclose(outputs[0], x_grad, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outputs[1], grid_grad, rtol=1e-4, atol=1e-4)
