"""The module's surface: factory and call signatures, MLX's names, one factory object yielding
several kernels, the GIL released during a run."""

import threading
import time

import numpy as np
import pytest

import mslsim
from conftest import COPY_SOURCE, copy_kernel, generated


def test_factory_positional_and_keyword():
    a = np.arange(10, dtype=np.float32)
    by_position = mslsim.metal_kernel("pos", ["inp"], ["out"], COPY_SOURCE, "", True, False, None)
    by_keyword = mslsim.fast.metal_kernel(name="kw", input_names=["inp"], output_names=["out"],
                                          source=COPY_SOURCE, header="",
                                          ensure_row_contiguous=True, atomic_outputs=False,
                                          compile_options={"math_mode": "safe"})
    for kernel in (by_position, by_keyword):
        outs = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mslsim.float32],
                      grid=(10, 1, 1), threadgroup=(4, 1, 1), template=None, init_value=None,
                      verbose=False, stream=None)
        assert isinstance(outs, list) and len(outs) == 1
        np.testing.assert_array_equal(outs[0], a)
    assert mslsim.fast.metal_kernel is mslsim.metal_kernel


def test_kernel_object():
    kernel = mslsim.metal_kernel("obj", ("x", "y"), ["z"], "z[0] = x + y;", header="// h\n")
    assert isinstance(kernel, mslsim.MetalKernel)
    assert kernel.name == "obj" and kernel.input_names == ["x", "y"] and kernel.output_names == ["z"]
    assert kernel.source == "z[0] = x + y;" and kernel.header == "// h\n"
    (z,) = kernel(inputs=[np.float32(1), 2.5], output_shapes=[()], output_dtypes=["float32"],
                  grid=(1, 1, 1), threadgroup=(1, 1, 1))
    assert z.shape == () and z.dtype == np.float32 and z == 3.5


def test_dtype_attributes():
    sizes = {"bool_": 1, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "int8": 1, "int16": 2,
             "int32": 4, "int64": 8, "float16": 2, "float32": 4, "float64": 8, "bfloat16": 2,
             "complex64": 8}
    for name, size in sizes.items():
        d = getattr(mslsim, name)
        assert isinstance(d, mslsim.Dtype)
        assert d.name == name and d.size == size
        if name != "bfloat16":
            assert np.dtype(d) == np.dtype(name if name != "bool_" else "bool")
            assert d == np.dtype(d) and d == name
    assert mslsim.float32 != mslsim.float16 and mslsim.float32 != np.float16
    assert len({mslsim.float32, mslsim.float32, mslsim.int32}) == 2
    assert np.zeros(3, dtype=mslsim.float16).dtype == np.float16
    assert repr(mslsim.bfloat16) == "mslsim.bfloat16"


def test_one_factory_several_kernels(capfd):
    kernel = copy_kernel("many")
    for dtype, name in [(np.float32, "float"), (np.int8, "int8_t"), (np.float16, "float16_t")]:
        a = np.arange(12).astype(dtype)
        (out,) = kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[a.dtype],
                        grid=(12, 1, 1), threadgroup=(12, 1, 1), verbose=True)
        assert "[[kernel]] void custom_kernel_many_%s_%s(\n" % (name, name) in generated(capfd)
        np.testing.assert_array_equal(out, a)


def test_header_helpers():
    header = """
    template <typename T>
    T do_exp(T x) {
        return metal::precise::exp(x);
    }
    """
    source = """
        uint elem = thread_position_in_grid.x;
        out1[elem] = do_exp(a[elem]);
    """
    a = np.random.default_rng(3).normal(size=(2, 2)).astype(np.float32)
    kernel = mslsim.metal_kernel(name="helper", input_names=["a"], output_names=["out1"],
                                 header=header, source=source)
    (out,) = kernel(inputs=[a], grid=(4, 1, 1), threadgroup=(2, 1, 1), output_shapes=[(2, 2)],
                    output_dtypes=[mslsim.float32])
    np.testing.assert_allclose(out, np.exp(a.astype(np.float64)), rtol=1e-6)


def test_threads_per_threadgroup_attribute():
    kernel = mslsim.metal_kernel(name="test_fun", input_names=["a"], output_names=["out"],
                                 source="out[0] = threads_per_threadgroup.x;")
    (out,) = kernel(inputs=[np.zeros((1, 1), np.float32)], grid=(2, 1, 1), threadgroup=(2, 1, 1),
                    output_shapes=[(1, 1)], output_dtypes=[mslsim.uint32])
    assert out.dtype == np.uint32 and out.item() == 2


def test_same_name_different_sources():
    a = np.arange(32, dtype=np.float32)

    def run(source):
        kernel = mslsim.metal_kernel(name="dup_name", input_names=["inp"], output_names=["out"],
                                     source=source)
        return kernel(inputs=[a], grid=(32, 1, 1), threadgroup=(32, 1, 1),
                      output_shapes=[a.shape], output_dtypes=[a.dtype])[0]

    out_a = run("uint e = thread_position_in_grid.x; out[e] = inp[e] * 2.0f;")
    out_b = run("uint e = thread_position_in_grid.x; out[e] = inp[e] + 100.0f;")
    np.testing.assert_array_equal(out_a, a * 2)
    np.testing.assert_array_equal(out_b, a + 100)


def test_inputs_may_be_dropped_by_the_caller_during_the_call():
    # The temporaries made for Python scalars, lists and copies live until the kernel is done.
    kernel = mslsim.metal_kernel("temps", ["a", "b"], ["out"],
                                 "uint i = thread_position_in_grid.x; out[i] = a[i] + b;")
    (out,) = kernel(inputs=[list(range(100)), 0.5], output_shapes=[(100,)],
                    output_dtypes=[mslsim.float32], grid=(100, 1, 1), threadgroup=(32, 1, 1))
    np.testing.assert_array_equal(out, np.arange(100, dtype=np.float32) + np.float32(0.5))


def test_gil_is_released_while_a_kernel_runs():
    source = """
        uint i = thread_position_in_grid.x;
        float acc = inp[i];
        for (int k = 0; k < 300000; ++k) acc = acc * 0.999f + 0.001f;
        out[i] = acc;
    """
    a = np.zeros(1024, np.float32)
    kernel = mslsim.metal_kernel("slow", ["inp"], ["out"], source)

    def run():
        return kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mslsim.float32],
                      grid=(1024, 1, 1), threadgroup=(256, 1, 1))[0]

    run()  # compile outside the measurement
    ticks = [0]
    done = threading.Event()
    result = []

    def worker():
        result.append(run())
        done.set()

    thread = threading.Thread(target=worker)
    start = time.perf_counter()
    thread.start()
    while not done.is_set():
        ticks[0] += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    thread.join()
    assert result and np.isfinite(result[0]).all()
    if elapsed < 0.05:
        pytest.skip("kernel too fast (%.3f s) to observe the GIL" % elapsed)
    # With the GIL held for the whole run the main thread would get at most a tick or two.
    assert ticks[0] >= 10, (ticks[0], elapsed)


def test_concurrent_calls_from_threads():
    kernel = copy_kernel("threads")
    arrays = [np.arange(64, dtype=np.float32) * k for k in range(6)]
    results = [None] * len(arrays)

    def run(k):
        results[k] = kernel(inputs=[arrays[k]], output_shapes=[(64,)], output_dtypes=[mslsim.float32],
                            grid=(64, 1, 1), threadgroup=(32, 1, 1))[0]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, r in zip(arrays, results):
        np.testing.assert_array_equal(r, a)


def test_version_and_build_info():
    info = mslsim.build_info()
    assert mslsim.__version__ == info["version"]
    assert info["llvm"].startswith("16.")
    assert info["text"] == "mslsim %s (commit %s), LLVM/Clang %s" % (info["version"], info["commit"], info["llvm"])


def test_progress_callable_hears_the_dispatch(capsys):
    # A kernel that runs until its time limit (0.5 s): the callable hears how far it got about
    # every 100 ms; without `progress`, under pytest's capture (not a terminal), nothing is printed.
    spin = mslsim.metal_kernel(name="spin", input_names=["inp"], output_names=["out"],
                               source="volatile uint forever = 1; while (forever) {} out[0] = inp[0];")
    calls = []
    previous = mslsim.timeout_seconds
    mslsim.timeout_seconds = 0.5
    try:
        for progress in (lambda *a: calls.append(a), None):
            with pytest.raises(mslsim.KernelError, match="timeout"):
                spin(inputs=[np.zeros(1, np.float32)], output_shapes=[(1,)], output_dtypes=[np.float32],
                     grid=(1, 1, 1), threadgroup=(1, 1, 1), progress=progress)
    finally:
        mslsim.timeout_seconds = previous
    assert len(calls) >= 3, calls
    # Every 100 ms while it runs, then once at the end.
    assert calls[:-1] == [("dispatching", 0, 1)] * (len(calls) - 1), calls
    assert calls[-1][0] == "dispatching" and calls[-1][2] == 1, calls
    assert "\r" not in capsys.readouterr().err
