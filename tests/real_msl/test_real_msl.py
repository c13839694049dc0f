#!/usr/bin/env python3
"""Patterns of real MSL (MLX, ggml, SPIR-V Cross) that mslsim once refused or ran wrongly, run and
checked against numpy. The kernels are ours (testsuite/compile_corpus/real_*.metal and this
directory), each reduced from a pattern of a real library. Usage: test_real_msl.py path/to/mslsim"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

MSLSIM = None
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "testsuite", "compile_corpus")


# The same answer under no checks, the default checks, and all checks with threads in another order.
EVERY_PATH = ([], ["--check", "none"], ["--check", "all"], ["--check", "all", "--schedule", "reverse"])


class RealMsl(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def run_kernel(self, source, kernel, grid, threadgroup, buffers, outputs, *extra, status=0):
        cmd = [MSLSIM, "run", source, "--kernel", kernel, "--grid", str(grid), "--threadgroup", str(threadgroup)]
        for index, spec in buffers.items():
            cmd += ["--buffer", f"{index}={spec}"]
        paths = {i: os.path.join(self.tmp.name, f"out{i}.npy") for i in outputs}
        for i, p in paths.items():
            cmd += ["--output", f"{i}={p}"]
        p = subprocess.run(cmd + list(extra), capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, status, p.stderr)
        return {i: np.load(p) for i, p in paths.items()} if status == 0 else p

    def test_glued_attributes_and_function_constants_with_index_expressions(self):
        src = os.path.join(CORPUS, "real_attributes_and_constants.metal")
        out = self.run_kernel(src, "glued_and_constants", 2, 64, {0: "zeros:float32:64"}, [0],
                              "--dispatch", "threadgroups", "--constant", "1200=3", "--constant", "1201=true")[0]
        # fc_op 3 + fc_bias 10 + 64 threads / 4 quad-groups; lanes beyond 32 land at tgpig*32+lane
        np.testing.assert_array_equal(out, np.full(64, 3 + 10 + 16, np.float32))
        # Unspecialised: zero and false.
        out = self.run_kernel(src, "glued_and_constants", 1, 32, {0: "zeros:float32:64"}, [0],
                              "--dispatch", "threadgroups")[0]
        np.testing.assert_array_equal(out[:32], np.full(32, 8, np.float32))

    def test_template_dependent_thread_limit_is_enforced(self):
        src = os.path.join(CORPUS, "real_attributes_and_constants.metal")
        out = self.run_kernel(src, "tiled_limit_float_2_4", 256, 256, {0: "zeros:float32:256"}, [0])[0]
        np.testing.assert_array_equal(out, np.full(256, 8, np.float32))
        p = self.run_kernel(src, "tiled_limit_float_2_4", 512, 512, {0: "zeros:float32:512"}, [], status=2)
        self.assertIn("more than the maximum of 256", p.stderr)

    def test_constant_tables_offsetof_and_volatile_buffers(self):
        src = os.path.join(CORPUS, "real_constant_address_space.metal")
        params = os.path.join(self.tmp.name, "params.npy")
        np.save(params, np.array([8, np.float32(0.5).view(np.int32)], np.int32))
        out = self.run_kernel(src, "constant_tables", 8, 8,
                              {0: "zeros:float32:8", 1: params, 2: "zeros:uint32:1", 3: "zeros:float32:4"}, [0, 2, 3])
        want = np.array([1, 2, 3, 4] * 2, np.float32) * 0.5 + 4  # offsetof(Params, scale) == 4
        want[0] += 20
        np.testing.assert_array_equal(out[0], want)
        self.assertEqual(out[2][0], 1)
        np.testing.assert_array_equal(out[3], np.full(4, 20, np.float32))

    def test_types_without_an_include(self):
        src = os.path.join(CORPUS, "real_types_without_include.metal")
        out = self.run_kernel(src, "builtin_types", 4, 4, {0: "zeros:float32:16"}, [0])[0].reshape(4, 4)
        np.testing.assert_array_equal(out[:, 0], np.arange(4, dtype=np.float32))
        np.testing.assert_array_equal(out[:, 3], np.full(4, 3, np.float32))

    def test_conversions_to_bfloat_braced_vectors_and_vector_limits(self):
        src = os.path.join(CORPUS, "real_conversions.metal")
        out = self.run_kernel(src, "conversions", 4, 4, {0: "zeros:bfloat16:4", 1: "zeros:uint8:4",
                                                           2: "zeros:uint32:16", 3: "zeros:float32:16"}, [0, 2, 3])
        # bfloat .npy files hold the bit patterns: 1.0 is 0x3f80.
        np.testing.assert_array_equal(out[0].view(np.uint16), np.full(4, 0x3F80, np.uint16))
        keys = out[2].reshape(4, 4)
        i = np.arange(4, dtype=np.uint32)
        np.testing.assert_array_equal(keys[:, 0], i)
        np.testing.assert_array_equal(keys[:, 2], i ^ 7 ^ 0x1BD11BDA)
        np.testing.assert_array_equal(keys[:, 3], np.zeros(4, np.uint32))  # filled with zero
        np.testing.assert_array_equal(out[3].reshape(4, 4), np.tile([2, 2, 1, 1], (4, 1)).astype(np.float32))

    def test_swizzle_deduced_by_a_template_and_a_user_sign_for_integers(self):
        src = os.path.join(os.path.join(CORPUS, "real_overloads_and_deduction.metal"))
        out = self.run_kernel(src, "deduction", 32, 32, {0: "zeros:uint64:64", 1: "zeros:int32:32",
                                                          2: "zeros:float32:32"}, [0, 1, 2])
        i = np.arange(32)
        pairs = out[0].reshape(32, 2)
        np.testing.assert_array_equal(pairs[:, 0], i ^ 1)
        np.testing.assert_array_equal(pairs[:, 1], (i ^ 1) + 1)
        np.testing.assert_array_equal(out[1], np.sign(i - 3))
        np.testing.assert_array_equal(out[2], np.sign(i - 3).astype(np.float32))

    def test_arrays_of_pointers_to_threadgroup_memory_are_private(self):
        src = os.path.join(HERE, "threadgroup_pointer_array.metal")
        for checks in EVERY_PATH:
            out = self.run_kernel(src, "private_pointer_array", 64, 64, {0: "zeros:float32:64"}, [0],
                                  "--threadgroup-memory", "0=256", *checks)[0]
            np.testing.assert_array_equal(out, np.arange(64, dtype=np.float32))

    def test_program_scope_constants_from_vector_constructors(self):
        src = os.path.join(HERE, "constant_vector_initialisers.metal")
        for checks in EVERY_PATH:
            out = self.run_kernel(src, "folded_constants", 6, 6, {0: "zeros:float32:6"}, [0], *checks)[0]
            np.testing.assert_array_equal(out, 8 + np.array([4, 5, 6, 4, 5, 6], np.float32) + 1 + 2)

    def test_dead_loads_through_a_disabled_argument_are_no_access(self):
        src = os.path.join(HERE, "disabled_argument_dead_read.metal")
        for checks in EVERY_PATH:
            out = self.run_kernel(src, "dead_read", 8, 8, {0: "iota:float32:8", 1: "zeros:float32:8"}, [1], *checks)[1]
            np.testing.assert_array_equal(out, np.arange(8, dtype=np.float32) * 2)

    def test_misaligned_vector_store_runs_as_on_apple_gpus(self):
        src = os.path.join(HERE, "misaligned_float4_store.metal")
        for checks in ("none", "bounds,sync", "all"):
            out = self.run_kernel(src, "rows", 32, 32, {0: "zeros:float32:64"}, [0],
                                  "--threadgroup-memory", "0=256", "--check", checks)[0]
            want = np.zeros(64, np.float32)
            for j in range(4):
                want[j * 7:j * 7 + 4] = np.arange(j * 8, j * 8 + 4)
            np.testing.assert_array_equal(out, want, err_msg=f"--check {checks}")

    def test_zero_threadgroup_memory_length_is_legal(self):
        src = os.path.join(HERE, "misaligned_float4_store.metal")
        out = self.run_kernel(src, "unused_shmem", 4, 4, {0: "zeros:float32:4"}, [0], "--threadgroup-memory", "0=0")[0]
        np.testing.assert_array_equal(out, np.full(4, 2, np.float32))
        p = self.run_kernel(src, "unused_shmem", 4, 4, {0: "zeros:float32:4"}, [], status=2)
        self.assertIn("has no size", p.stderr)

    def test_unsupported_framework_header_is_one_clear_error(self):
        src = os.path.join(self.tmp.name, "tensor_ops.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\n#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n"
                    "kernel void k(device float* o [[buffer(0)]]) { o[0] = 1; }\n")
        p = subprocess.run([MSLSIM, "compile", src], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("tensor_ops.metal:2:10: error: not supported: MetalPerformancePrimitives", p.stderr)
        self.assertEqual(p.stderr.count("error:"), 1, p.stderr)

    def test_compile_lists_a_library_without_code_and_filters_kernels(self):
        src = os.path.join(CORPUS, "real_attributes_and_constants.metal")
        p = subprocess.run([MSLSIM, "compile", src], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("kernel glued_and_constants", p.stdout)
        self.assertIn("max_total_threads_per_threadgroup: 256", p.stdout)
        self.assertRegex(p.stdout, r"1200\s+fc_op\s+short\s+not set")
        self.assertRegex(p.stdout, r"1201\s+fc_bias\s+bool\s+not set")
        p = subprocess.run([MSLSIM, "compile", src, "--kernel", "tiled_*"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("kernel glued_and_constants", p.stdout)
        self.assertIn("kernel tiled_limit_float_2_4", p.stdout)
        p = subprocess.run([MSLSIM, "compile", src, "--kernel", "nothing*"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no kernel matches --kernel nothing*", p.stderr)


if __name__ == "__main__":
    MSLSIM = sys.argv.pop(1)
    unittest.main()
