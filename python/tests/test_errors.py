"""Contract §7: MLX's validation, exception types and texts, in MLX's order."""

import numpy as np
import pytest

import mslsim as mx
from conftest import copy_kernel

A = np.arange(8, dtype=np.float32)


def call(kernel, **overrides):
    args = dict(inputs=[A], output_shapes=[A.shape], output_dtypes=[mx.float32], grid=(8, 1, 1),
                threadgroup=(8, 1, 1))
    args.update(overrides)
    return kernel(**args)


# --------------------------------------------------------------------------------------------
# factory


def test_at_least_one_output():
    with pytest.raises(ValueError) as e:
        mx.metal_kernel(name="k", input_names=["a"], output_names=[], source="")
    assert str(e.value) == "[metal_kernel] Must specify at least one output."


def test_compile_options_must_be_a_dict():
    with pytest.raises(ValueError) as e:
        mx.metal_kernel("k", ["inp"], ["out"], "out[0] = inp[0];", compile_options="fast")
    assert str(e.value) == "[metal_kernel] Expected `compile_options` to be a dict."


def test_unknown_compile_option():
    with pytest.raises(ValueError) as e:
        mx.metal_kernel("k", ["inp"], ["out"], "out[0] = inp[0];", compile_options={"unknown": "value"})
    assert str(e.value) == "[metal_kernel] Unknown compile option `unknown`."


@pytest.mark.parametrize("mode", ["precise", "FAST", 1])
def test_bad_math_mode(mode):
    with pytest.raises(ValueError) as e:
        mx.metal_kernel("k", ["inp"], ["out"], "out[0] = inp[0];", compile_options={"math_mode": mode})
    assert str(e.value) == "[metal_kernel] Expected math_mode to be 'safe', 'relaxed', or 'fast'."


def test_compile_options_are_checked_before_outputs():
    with pytest.raises(ValueError) as e:
        mx.metal_kernel("k", ["inp"], [], "", compile_options=[])
    assert str(e.value) == "[metal_kernel] Expected `compile_options` to be a dict."


def test_math_modes_reach_the_compiler():
    # MLX's test_custom_metal_kernel_math_mode: __FAST_MATH__ only in fast mode.
    source = """
        uint elem = thread_position_in_grid.x;
        #if defined(__FAST_MATH__) && __FAST_MATH__
        out[elem] = 1.0f;
        #else
        out[elem] = 0.0f;
        #endif
    """
    a = np.zeros((4,), dtype=np.float32)
    for mode, expected in [(None, 0), ("safe", 0), ("relaxed", 0), ("fast", 1)]:
        options = None if mode is None else {"math_mode": mode}
        kernel = mx.metal_kernel("math_mode", ["inp"], ["out"], source, compile_options=options)
        (out,) = kernel(inputs=[a], grid=(4, 1, 1), threadgroup=(4, 1, 1), output_shapes=[a.shape],
                        output_dtypes=[a.dtype])
        np.testing.assert_array_equal(out, np.full(4, expected, np.float32))


# --------------------------------------------------------------------------------------------
# call


def test_call_is_keyword_only():
    kernel = copy_kernel()
    with pytest.raises(TypeError):
        kernel([A], [A.shape], [mx.float32], (8, 1, 1), (8, 1, 1))
    with pytest.raises(TypeError):
        kernel(inputs=[A], output_shapes=[A.shape], output_dtypes=[mx.float32], grid=(8, 1, 1))
    with pytest.raises(TypeError):
        call(kernel, bogus=1)


@pytest.mark.parametrize("value", [1.5, "notadtype", None, (1, 2), [mx.float32], object()])
def test_invalid_template_argument(value):
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), template=[("T", value)])
    assert str(e.value) == ("[metal_kernel] Invalid template argument. Must be `mlx.core.Dtype`, "
                            "`int` or `bool`.")


@pytest.mark.parametrize("what,overrides,expected,got", [
    ("inputs", dict(inputs=[A, A]), 1, 2),
    ("inputs", dict(inputs=[]), 1, 0),
    ("output_shapes", dict(output_shapes=[]), 1, 0),
    ("output_shapes", dict(output_shapes=[(8,), (8,)]), 1, 2),
    ("output_dtypes", dict(output_dtypes=[mx.float32] * 3), 1, 3),
])
def test_size_mismatch(what, overrides, expected, got):
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), **overrides)
    assert str(e.value) == "[metal_kernel] Expected `%s` to have size %d but got size %d.\n" % (
        what, expected, got)


def test_template_is_checked_before_sizes():
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), inputs=[], template=[("T", 2.5)])
    assert "Invalid template argument" in str(e.value)


@pytest.mark.parametrize("stream", [mx.cpu, "cpu", mx.default_stream(mx.cpu), mx.new_stream(mx.cpu),
                                    mx.Device(mx.DeviceType.cpu)])
def test_cpu_stream(stream):
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), stream=stream)
    assert str(e.value) == "[metal_kernel] Only supports the GPU."


@pytest.mark.parametrize("stream", [None, mx.gpu, "gpu", mx.default_stream(mx.gpu),
                                    mx.new_stream(mx.gpu), mx.default_device()])
def test_gpu_streams_run(stream):
    (out,) = call(copy_kernel(), stream=stream)
    np.testing.assert_array_equal(out, A)


def test_sizes_are_checked_before_the_stream():
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), inputs=[], stream=mx.cpu)
    assert str(e.value).startswith("[metal_kernel] Expected `inputs` to have size 1")


def test_nothing_printed_when_the_call_is_rejected(capfd):
    with pytest.raises(ValueError):
        call(copy_kernel(), stream=mx.cpu, verbose=True)
    assert capfd.readouterr().out == ""


# --------------------------------------------------------------------------------------------
# "eval" time: threadgroup size, compile errors, kernel bugs


@pytest.mark.parametrize("threadgroup,n", [((2048, 1, 1), 2048), ((32, 32, 2), 2048), ((1025, 1, 1), 1025)])
def test_threadgroup_too_large(threadgroup, n):
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), threadgroup=threadgroup)
    assert str(e.value) == ("Thread group size (%d) is greater than  the maximum allowed threads per "
                            "threadgroup (1024)." % n)


def test_threadgroup_of_1024_is_fine():
    (out,) = call(copy_kernel(), threadgroup=(1024, 1, 1))
    np.testing.assert_array_equal(out, A)


def test_compile_error():
    kernel = mx.metal_kernel("broken", ["inp"], ["out"], "out[0] = inp[0] +;")
    with pytest.raises(RuntimeError) as e:
        call(kernel)
    assert not isinstance(e.value, mx.KernelError)
    assert str(e.value).startswith("[metal::Device] Unable to build metal library from source\n")


def test_shape_of_a_scalar_input_is_a_compile_error():
    # A 0-d input never gets _shape, even if the body uses it (contract §3.4).
    kernel = mx.metal_kernel("scalar_shape", ["inp"], ["out"], "out[0] = inp_shape[0];")
    with pytest.raises(RuntimeError) as e:
        kernel(inputs=[2.0], output_shapes=[(1,)], output_dtypes=[mx.int32], grid=(1, 1, 1),
               threadgroup=(1, 1, 1))
    assert str(e.value).startswith("[metal::Device] Unable to build metal library from source\n")
    assert "inp_shape" in str(e.value)


def test_writing_an_input_is_a_compile_error():
    kernel = mx.metal_kernel("write_input", ["inp"], ["out"], "inp[0] = 1; out[0] = 0;")
    with pytest.raises(RuntimeError) as e:
        call(kernel)
    assert str(e.value).startswith("[metal::Device] Unable to build metal library from source\n")


def test_mlx_generator_quirk_is_reproduced():
    # Two outputs, a _shape buffer and no attribute: MLX closes the parameter list twice (§3.8).
    kernel = mx.metal_kernel("quirk", ["a"], ["out1", "out2"], "out1[0] = a_shape[0]; out2[0] = 0;")
    with pytest.raises(RuntimeError) as e:
        kernel(inputs=[A], output_shapes=[(1,), (1,)], output_dtypes=[mx.int32, mx.int32],
               grid=(1, 1, 1), threadgroup=(1, 1, 1))
    assert str(e.value).startswith("[metal::Device] Unable to build metal library from source\n")


def test_kernel_error_for_a_wild_write():
    assert issubclass(mx.KernelError, RuntimeError)
    kernel = mx.metal_kernel("wild", ["inp"], ["out"],
                             "uint i = thread_position_in_grid.x; out[i + (1 << 26)] = inp[i];")
    with pytest.raises(mx.KernelError) as e:
        call(kernel)
    assert "custom_kernel_wild" in str(e.value)


@pytest.mark.parametrize("offset", [1, 100])
def test_kernel_error_for_out_of_bounds_write_carries_a_structured_report(offset):
    # The checked build refuses the write before it happens, so this runs in-process safely.
    a = np.arange(8, dtype=np.float32)
    kernel = mx.metal_kernel("oob", ["inp"], ["out"],
                             "uint i = thread_position_in_grid.x;\nout[i + %d] = inp[i];" % offset)
    with pytest.raises(mx.KernelError) as e:
        kernel(inputs=[a], output_shapes=[a.shape], output_dtypes=[mx.float32], grid=(8, 1, 1),
               threadgroup=(8, 1, 1))
    assert str(e.value).startswith("[mslsim] kernel custom_kernel_oob_float_float failed:")
    report = e.value.report
    assert report["kernel"] == "custom_kernel_oob_float_float"
    assert report["summary"]["errors"] == 1
    d = report["diagnostics"][0]
    assert (d["kind"], d["memory"], d["location"]["argument"]) == ("out-of-bounds", "device", "out")
    assert d["location"]["element"] == 8 if offset == 1 else 100
    # The access is named by its line in the kernel body (line 2 of `source`).
    assert (d["accesses"][0]["file"], d["accesses"][0]["line"]) == ("source", 2)
    assert d["count"] == min(offset, 8)


def test_kernel_keeps_working_after_errors():
    kernel = copy_kernel()
    for bad in (dict(threadgroup=(4096, 1, 1)), dict(stream="cpu"), dict(inputs=[])):
        with pytest.raises(ValueError):
            call(kernel, **bad)
    (out,) = call(kernel)
    np.testing.assert_array_equal(out, A)


# --------------------------------------------------------------------------------------------
# argument types (nanobind's TypeErrors in MLX)


@pytest.mark.parametrize("overrides", [
    dict(grid=(8, 1)), dict(grid=8), dict(threadgroup=(1.5, 1, 1)),
    dict(output_shapes=[8]), dict(output_dtypes=[object()]),
])
def test_argument_types(overrides):
    with pytest.raises(TypeError):
        call(copy_kernel(), **overrides)


def test_factory_argument_types():
    with pytest.raises(TypeError):
        mx.metal_kernel("k", "inp", ["out"], "")
    with pytest.raises(TypeError):
        mx.metal_kernel("k", ["inp"], ["out"], None)
    with pytest.raises(TypeError):
        mx.metal_kernel(name="k", input_names=["inp"], output_names=["out"])


def test_unsupported_numpy_dtype():
    with pytest.raises(ValueError) as e:
        call(copy_kernel(), inputs=[np.array(["a", "b"])])
    assert str(e.value) == "Cannot convert numpy array to mlx array."
