"""mslsim.Library: whole .metal files from Python, with Metal's binding model (allocations bound at
offsets, aliases, untyped bytes for argument structs). Expected values come from numpy."""
import struct

import numpy as np
import pytest

import mslsim

SAXPY = """
#include <metal_stdlib>
using namespace metal;
struct Params { uint n; float a; };

kernel void saxpy(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                  constant Params& p [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  if (i < p.n) y[i] = p.a * x[i] + y[i];
}

kernel void scale(device float* y [[buffer(0)]], constant float& by [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
  y[i] *= by;
}

// As ggml's mul_mv kernels do: read a row past the end of `x`, inside the buffer it is packed in.
kernel void read_ahead(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  out[i] = x[i] + x[i + 4];
}

// As ggml's soft_max does: two bindings of one buffer compared by pointer.
kernel void same_buffer(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
                        device float* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  out[i] = a == b ? 1.0f : 0.0f;
}

constant bool doubled [[function_constant(0)]];
kernel void specialised(device float* y [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  y[i] = doubled ? 2.0f * i : float(i);
}
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    path = tmp_path_factory.mktemp("library") / "kernels.metal"
    path.write_text(SAXPY)
    return mslsim.Library(path)


def test_a_file_lists_its_kernels(library):
    assert library.kernel_names == ["saxpy", "scale", "read_ahead", "same_buffer", "specialised"]
    with pytest.raises(ValueError, match="no kernel 'sxapy'"):
        library.kernel("sxapy")


def test_arrays_are_updated_in_place_and_structs_are_bytes(library):
    rng = np.random.default_rng(1)
    x = rng.normal(size=100).astype(np.float32)
    y = rng.normal(size=100).astype(np.float32)
    want = 3.0 * x[:90] + y[:90]
    tail = y[90:].copy()
    library.kernel("saxpy")(buffers={0: x, 1: y, 2: struct.pack("<If", 90, 3.0)}, grid=(100,), threadgroup=(32,))
    np.testing.assert_allclose(y[:90], want, rtol=1e-6)
    np.testing.assert_array_equal(y[90:], tail)
    # The same struct as a numpy record.
    params = np.array([(100, 0.0)], dtype=[("n", "<u4"), ("a", "<f4")])
    library.kernel("saxpy")(buffers={0: x, 1: y, 2: params}, grid=(100,), threadgroup=(32,))
    np.testing.assert_allclose(y[:90], want, rtol=1e-6)


def test_scalars_and_views_bind_at_their_offset(library):
    y = np.arange(16, dtype=np.float32)
    library.kernel("scale")(buffers={0: y[8:], 1: 0.5}, grid=(8,), threadgroup=(8,))
    np.testing.assert_array_equal(y, np.concatenate([np.arange(8), np.arange(8, 16) * 0.5]).astype(np.float32))


def test_reading_past_a_view_inside_its_allocation_is_legal(library):
    packed = np.arange(12, dtype=np.float32)
    out = np.zeros(4, np.float32)
    library.kernel("read_ahead")(buffers={0: packed[:4], 1: out}, grid=(4,), threadgroup=(4,), check="all")
    np.testing.assert_array_equal(out, packed[:4] + packed[4:8])
    with pytest.raises(mslsim.KernelError, match="out-of-bounds"):
        library.kernel("read_ahead")(buffers={0: packed[6:10], 1: out}, grid=(4,), threadgroup=(4,))


def test_one_allocation_at_two_indices_and_byte_offsets(library):
    packed = np.arange(8, dtype=np.float32)
    out = np.zeros(2, np.float32)
    library.kernel("same_buffer")(buffers={0: packed, 1: packed, 2: out}, grid=(2,), threadgroup=(2,))
    np.testing.assert_array_equal(out, [1, 1])
    library.kernel("same_buffer")(buffers={0: packed, 1: (packed, 16), 2: out}, grid=(2,), threadgroup=(2,))
    np.testing.assert_array_equal(out, [0, 0])
    raw = np.zeros(64, np.uint8)
    raw[16:32] = np.arange(4, dtype=np.float32).view(np.uint8)
    out4 = np.zeros(4, np.float32)
    library.kernel("read_ahead")(buffers={0: (raw, 0), 1: out4}, grid=(4,), threadgroup=(4,))
    np.testing.assert_array_equal(out4, np.arange(4, dtype=np.float32))


def test_function_constants_specialise_the_library(tmp_path):
    for doubled, factor in [(True, 2), (False, 1)]:
        lib = mslsim.Library(source=SAXPY, name="kernels.metal", constants={0: doubled})
        y = np.zeros(4, np.float32)
        lib.kernel("specialised")(buffers={0: y}, grid=(4,), threadgroup=(4,))
        np.testing.assert_array_equal(y, np.arange(4, dtype=np.float32) * factor)


def test_mistakes_name_the_argument(library):
    y = np.zeros(4, np.int32)
    with pytest.raises(RuntimeError, match="buffer 0 \\(argument 'y' of kernel 'scale'.*int32"):
        library.kernel("scale")(buffers={0: y, 1: 1.0}, grid=(4,), threadgroup=(4,))
    with pytest.raises(ValueError, match="C-contiguous"):
        library.kernel("scale")(buffers={0: np.zeros(8, np.float32)[::2], 1: 1.0}, grid=(4,), threadgroup=(4,))
    with pytest.raises(RuntimeError, match="argument 'by'.*is not bound"):
        library.kernel("scale")(buffers={0: np.zeros(4, np.float32)}, grid=(4,), threadgroup=(4,))


def test_compile_errors_point_at_the_line():
    with pytest.raises(RuntimeError, match="broken.metal:2:.*undeclared identifier 'nope'"):
        mslsim.Library(source="#include <metal_stdlib>\nkernel void k(device float* y [[buffer(0)]]) { y[0] = nope; }\n",
                       name="broken.metal")


SHIFT = """
#include <metal_stdlib>
using namespace metal;
kernel void lib_shift(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  out[i] = a[i + 1];
}
"""


def test_suppressions_set_aside_a_known_bug_and_say_so_at_exit(tmp_path, monkeypatch):
    # The library's kernel reads one past the end of `a` (line 6): a finding that raises, unless a
    # rule of mslsim.suppressions matches it. At exit, the count and the unused rules.
    supp = tmp_path / "known.supp"
    supp.write_text("out-of-bounds kernel=lib_* at=source.metal:6   # a library's known bug\n"
                    "data-race kernel=other\n")
    lib = mslsim.Library(source=SHIFT, name="source.metal")
    a, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with pytest.raises(mslsim.KernelError):
        lib.kernel("lib_shift")(buffers={0: a, 1: out}, grid=(8,), threadgroup=(8,))
    monkeypatch.setattr(mslsim, "suppressions", str(supp))
    out[:] = 0
    lib.kernel("lib_shift")(buffers={0: a, 1: out}, grid=(8,), threadgroup=(8,))
    np.testing.assert_array_equal(out, np.append(a[1:], 0))  # the refused read gives zero
    summary = mslsim._summary_of_suppressions()
    assert "1 finding suppressed by %s" % supp in summary
    assert "unused suppression %s:2: data-race kernel=other" % supp in summary
    # A rule that cannot be read: ValueError naming its file and line, before anything runs.
    bad = tmp_path / "bad.supp"
    bad.write_text("out-of-bounds kernel\n")
    monkeypatch.setattr(mslsim, "suppressions", str(bad))
    with pytest.raises(ValueError, match=r"bad.supp:1: 'kernel' has no value"):
        lib.kernel("lib_shift")(buffers={0: a, 1: out}, grid=(8,), threadgroup=(8,))


def test_report_mode_prints_the_findings_and_keeps_the_results(monkeypatch, capsys):
    lib = mslsim.Library(source=SHIFT, name="source.metal")
    a, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    monkeypatch.setattr(mslsim, "findings", "report")
    lib.kernel("lib_shift")(buffers={0: a, 1: out}, grid=(8,), threadgroup=(8,))
    np.testing.assert_array_equal(out, np.append(a[1:], 0))
    err = capsys.readouterr().err
    assert "kernel lib_shift has errors (report mode, the results are kept)" in err
    assert "error [out-of-bounds]" in err and "source.metal:6" in err
    # metal_kernel calls too: the outputs come back.
    k = mslsim.metal_kernel(name="past", input_names=["a"], output_names=["out"],
                            source="uint i = thread_position_in_grid.x; out[i] = a[i + 1];")
    (got,) = k(inputs=[a], output_shapes=[(8,)], output_dtypes=[mslsim.float32], grid=(8, 1, 1),
               threadgroup=(8, 1, 1))
    np.testing.assert_array_equal(got, np.append(a[1:], 0))
    monkeypatch.setattr(mslsim, "findings", "fail")
    with pytest.raises(mslsim.KernelError):
        k(inputs=[a], output_shapes=[(8,)], output_dtypes=[mslsim.float32], grid=(8, 1, 1), threadgroup=(8, 1, 1))
    monkeypatch.setattr(mslsim, "findings", "quiet")
    with pytest.raises(ValueError, match="mslsim.findings must be 'fail' or 'report'"):
        lib.kernel("lib_shift")(buffers={0: a, 1: out}, grid=(8,), threadgroup=(8,))
