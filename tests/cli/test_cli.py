#!/usr/bin/env python3
"""The CLI's contract, as a table: each case is a command, its expected exit status, and text its
stderr must contain; output files are checked against numpy. Usage: test_cli.py path/to/mslsim"""
import os
import pty
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

MSLSIM = None

SCALE = r"""
#include <metal_stdlib>
using namespace metal;
kernel void scale(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                  constant uint& n [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  if (i >= n) return;
  y[i] = x[i] * 2.0f + 1.0f;
}
kernel void to_float(device const bfloat* x [[buffer(0)]], device float* y [[buffer(1)]],
                     uint i [[thread_position_in_grid]]) {
  y[i] = float(x[i]);
}
kernel void diverge(device float* y [[buffer(0)]], uint i [[thread_index_in_threadgroup]]) {
  if (i < 4) threadgroup_barrier(mem_flags::mem_threadgroup);
  else threadgroup_barrier(mem_flags::mem_device);
  y[i] = 1;
}
kernel void spin(device float* y [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  volatile uint forever = 1;
  while (forever) {}
  y[i] = 1;
}
"""

BROKEN = """#include <metal_stdlib>
kernel void k(device float* y [[buffer(0)]]) {
  y[0] = missing_name;
}
"""


class Cli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.metal = os.path.join(cls.dir, "scale.metal")
        with open(cls.metal, "w") as f:
            f.write(SCALE)
        cls.broken = os.path.join(cls.dir, "broken.metal")
        with open(cls.broken, "w") as f:
            f.write(BROKEN)
        cls.x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
        np.save(cls.path("x.npy"), cls.x)
        np.save(cls.path("ints.npy"), np.arange(12, dtype=np.int32))
        with open(cls.path("garbage.npy"), "wb") as f:
            f.write(b"not an npy file")

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name)

    def mslsim(self, *args):
        return subprocess.run([MSLSIM, *args], capture_output=True, text=True, timeout=120)

    def run_scale(self, *extra):
        return self.mslsim("run", self.metal, "--kernel", "scale", "--grid", "16", "--threadgroup", "8",
                           *extra)

    def assertFails(self, proc, status, *fragments):
        self.assertEqual(proc.returncode, status, proc.stderr)
        for fragment in fragments:
            self.assertIn(fragment, proc.stderr)
        # One clear message, not a crash dump.
        self.assertNotIn("Aborted", proc.stderr)
        self.assertNotIn("Stack dump", proc.stderr)

    def test_run_writes_outputs_with_the_input_shape(self):
        out = self.path("y.npy")
        p = self.run_scale("--buffer", "0=" + self.path("x.npy"), "--buffer", "1=" + self.path("x.npy"),
                           "--buffer", "2=scalar:uint32:12", "--output", "1=" + out)
        self.assertEqual(p.returncode, 0, p.stderr)
        y = np.load(out)
        self.assertEqual(y.shape, (3, 4))
        np.testing.assert_array_equal(y, self.x * 2 + 1)

    def test_bfloat16_is_read_as_u2_bit_patterns(self):
        values = np.array([1.0, -2.5, 3.140625, 65536.0], dtype=np.float32)
        bits = (values.view(np.uint32) >> 16).astype("<u2")
        np.save(self.path("bf.npy"), bits)
        out = self.path("bf_out.npy")
        p = self.mslsim("run", self.metal, "--kernel", "to_float", "--grid", "4", "--threadgroup", "4",
                        "--buffer", "0=" + self.path("bf.npy"), "--buffer", "1=zeros:float32:4",
                        "--output", "1=" + out)
        self.assertEqual(p.returncode, 0, p.stderr)
        np.testing.assert_array_equal(np.load(out), values)

    def test_unchecked_thread_loops_are_vectorised(self):
        # A structural check, not a timing: in an unchecked build the loop over a threadgroup's
        # threads is vectorised and libm calls go to libmvec (MSLSIM_DUMP_IR writes the JIT's IR).
        src = self.path("softcap.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void soft_cap(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],\n"
                    "                     constant uint& n [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
                    "  if (i >= n) return;\n  y[i] = 5.0f * tanh(x[i] / 5.0f);\n}\n")
        ir = self.path("softcap.ll")
        out = self.path("softcap.npy")
        env = dict(os.environ, MSLSIM_DUMP_IR=ir, MSLSIM_CACHE_DIR="off")
        p = subprocess.run([MSLSIM, "run", src, "--kernel", "soft_cap", "--grid", "1000", "--threadgroup", "256",
                            "--buffer", "0=iota:float32:1000", "--buffer", "1=zeros:float32:1000",
                            "--buffer", "2=scalar:uint32:1000", "--output", "1=" + out, "--check", "none"],
                           capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        np.testing.assert_allclose(np.load(out), 5 * np.tanh(np.arange(1000) / 5.0), rtol=2e-6, atol=1e-6)
        with open(ir) as f:
            text = f.read()
        loop = text[text.index("define void @__mslsim_loop.soft_cap"):]
        loop = loop[:loop.index("\n}\n")]
        self.assertRegex(loop, r"call <(4|8|16) x float> @_ZGV[bde]N(4|8|16)v_tanhf")

    def test_timing_line(self):
        p = self.run_scale("--buffer", "0=iota:float32:16", "--buffer", "1=zeros:float32:16",
                           "--buffer", "2=scalar:uint32:16", "--repeat", "3", "--timing")
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"timing: compile_ms=[0-9.]+ dispatch_ms_median=[0-9.]+ dispatch_ms_min=[0-9.]+ repeats=3 "
                      r"dispatch_cpu_ms=([0-9.]+) waiting_cpu_ms=([0-9.]+) progress_cpu_ms=([0-9.]+)", p.stderr)
        self.assertIsNotNone(m, p.stderr)
        process, waiting, ticker = map(float, m.groups())
        # The process's CPU time includes the waiting thread's; without a progress line (stderr is
        # a pipe here) no thread redraws it.
        self.assertGreater(process, 0)
        self.assertGreaterEqual(process, waiting)
        self.assertEqual(ticker, 0)

    def test_compile_lists_kernels_and_bindings(self):
        p = self.mslsim("compile", self.metal)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("kernel scale", p.stdout)
        self.assertRegex(p.stdout, r"buffer\(2\)\s+n\s+constant\s+constant uint&")
        self.assertRegex(p.stdout, r"thread_position_in_grid\s+i\s+thread\s+uint")

    def test_compile_generates_code_at_the_tier_asked(self):
        # The quick tier's code and the optimised tier's; adaptive is a dispatch-time choice.
        for tier in ("quick", "optimised"):
            p = self.mslsim("compile", self.metal, "--kernel", "scale", "--tier", tier)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("kernel scale", p.stdout)
        p = self.mslsim("compile", self.metal, "--kernel", "scale", "--tier", "adaptive")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--tier: compile makes code at one tier: optimised or quick", p.stderr)

    def test_user_headers_are_rewritten_and_macros_defined(self):
        inc = self.path("inc")
        os.makedirs(inc, exist_ok=True)
        with open(os.path.join(inc, "helpers.h"), "w") as f:
            f.write("#pragma once\n"
                    "template <typename T> kernel void from_header(device T* y [[buffer(0)]],\n"
                    "    uint i [[thread_position_in_grid]]) { y[i] = T(SCALE * float(i)); }\n"
                    "template [[host_name(\"from_header_f\")]] kernel void from_header<float>(device float*, uint);\n")
        main = self.path("uses_header.metal")
        with open(main, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n#include \"helpers.h\"\n")
        out = self.path("hdr.npy")
        p = self.mslsim("run", main, "-I", inc, "-D", "SCALE=3.0f", "--kernel", "from_header_f",
                        "--grid", "5", "--threadgroup", "4", "--buffer", "0=zeros:float32:5", "--output", "0=" + out)
        self.assertEqual(p.returncode, 0, p.stderr)
        np.testing.assert_array_equal(np.load(out), np.arange(5, dtype=np.float32) * 3)
        # Without the macro, the error points into the header.
        p = self.mslsim("compile", main, "-I", inc)
        self.assertFails(p, 2, "helpers.h:3:", "undeclared identifier 'SCALE'")

    def write_spec(self, name, spec):
        import json
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(spec, f)
        return path

    def myexp_spec(self, **extra):
        a = np.linspace(-2, 2, 64, dtype=np.float16).reshape(4, 16)
        np.save(self.path("a16.npy"), a)
        spec = {"name": "myexp", "input_names": ["inp"], "output_names": ["out"],
                "source": "\n    uint elem = thread_position_in_grid.x;\n    T tmp = inp[elem];\n"
                          "    out[elem] = metal::exp(tmp);\n",
                "template": [["T", "float32"]], "grid": [64, 1, 1], "threadgroup": [256, 1, 1],
                "inputs": ["a16.npy"], "output_shapes": [[4, 16]], "output_dtypes": ["float16"],
                "outputs": ["myexp_out.npy"]}
        spec.update(extra)
        return a, self.write_spec("myexp.json", spec)

    def test_mlx_spec_runs_the_docs_exp_kernel(self):
        a, spec = self.myexp_spec()
        p = self.mslsim("run", spec)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = np.load(self.path("myexp_out.npy"))
        self.assertEqual(out.dtype, np.float16)
        np.testing.assert_allclose(out.astype(np.float32), np.exp(a.astype(np.float32)), rtol=1e-3)

    def test_mlx_spec_with_error_exitcode_0_reports_and_writes_its_outputs(self):
        a, spec = self.myexp_spec(source="uint i = thread_position_in_grid.x; out[i] = metal::exp(inp[i + 1]);")
        p = self.mslsim("run", spec)
        self.assertFails(p, 1, "error [out-of-bounds]")
        p = self.mslsim("run", spec, "--error-exitcode", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("has errors (report mode, the outputs are kept)", p.stderr)
        out = np.load(self.path("myexp_out.npy")).astype(np.float32)
        want = np.exp(np.append(a.astype(np.float32).ravel()[1:], 0)).reshape(4, 16)  # the read past the end: 0
        np.testing.assert_allclose(out, want, rtol=1e-3)

    def test_mlx_spec_print_source_is_mlxs_text(self):
        _, spec = self.myexp_spec()
        p = self.mslsim("run", spec, "--print-source")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[1],
                         "[[kernel]] void custom_kernel_myexp__float_float16_t_float16_t(")

    def test_mlx_spec_errors_use_mlxs_words(self):
        _, spec = self.myexp_spec(output_dtypes=[])
        p = self.mslsim("run", spec)
        self.assertFails(p, 2, "[metal_kernel] Expected `output_dtypes` to have size 1 but got size 0.")
        _, spec = self.myexp_spec(source="out[0] = nope;")
        p = self.mslsim("run", spec)
        self.assertFails(p, 2, "[metal::Device] Unable to build metal library from source",
                         "source:1:10: error: use of undeclared identifier 'nope'")
        _, spec = self.myexp_spec(inputs=[{"scalar": "x"}])
        p = self.mslsim("run", spec)
        self.assertFails(p, 2, "'inputs'[0]: 'scalar' must be a number or a boolean, not a string")

    def test_checks_report_a_race_with_both_lines_as_text_and_json(self):
        import json
        src = self.path("race.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void shift(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],\n"
                    "                  uint i [[thread_index_in_threadgroup]]) {\n"
                    "  threadgroup float slots[64];\n"
                    "  slots[i] = in[i];\n"
                    "  out[i] = slots[(i + 32) % 64];\n"
                    "}\n")
        report = self.path("race.json")
        args = ["run", src, "--kernel", "shift", "--grid", "64", "--threadgroup", "64",
                "--buffer", "0=iota:float32:64", "--buffer", "1=zeros:float32:64"]
        # Default checks (bounds, sync) do not look for races.
        self.assertEqual(self.mslsim(*args).returncode, 0)
        p = self.mslsim(*args, "--check", "races", "--report-json", report)
        self.assertFails(p, 1, "error [data-race]", "threadgroup variable 'slots'", "race.metal:6:",
                         "race.metal:7:", "hint: add threadgroup_barrier(mem_flags::mem_threadgroup)")
        with open(report) as f:
            r = json.load(f)
        self.assertEqual(r["summary"]["errors"], 1)
        d = r["diagnostics"][0]
        self.assertEqual((d["kind"], d["memory"], d["location"]["variable"]), ("data-race", "threadgroup", "slots"))
        self.assertEqual(sorted(a["line"] for a in d["accesses"]), [6, 7])
        self.assertEqual(self.mslsim(*args, "--check", "races", "--error-exitcode", "7").returncode, 7)

    def test_suppressions_set_aside_the_findings_their_rules_match(self):
        src = self.path("library_bug.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void lib_shift(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],\n"
                    "                      uint i [[thread_position_in_grid]]) {\n"
                    "  out[i] = a[i + 1];\n"
                    "  out[i] += a[i + 2];\n"
                    "}\n")
        args = ["run", src, "--kernel", "lib_shift", "--grid", "8", "--threadgroup", "8",
                "--buffer", "0=iota:float32:8", "--buffer", "1=zeros:float32:8",
                "--output", "1=" + self.path("shifted.npy")]
        supp = self.path("library.supp")
        # The library's bug at line 5 is known; line 6 is not, and a rule for another kernel
        # matches nothing.
        with open(supp, "w") as f:
            f.write("# a library's known bug\n"
                    "out-of-bounds kernel=lib_* at=library_bug.metal:5   # reads one past the end\n"
                    "\n"
                    "data-race kernel=other\n")
        p = self.mslsim(*args, "--suppressions", supp)
        self.assertFails(p, 1, "error [out-of-bounds]", "library_bug.metal:6:",
                         "mslsim: 1 finding suppressed by " + supp,
                         "unused suppression " + supp + ":4: data-race kernel=other")
        self.assertNotIn("library_bug.metal:5:", p.stderr)
        # Both lines set aside: the run succeeds, and its results are the kernel's (the refused
        # reads give zero), as numpy computes them.
        with open(supp, "w") as f:
            f.write("out-of-bounds kernel=lib_shift at=library_bug.metal\n")
        p = self.mslsim(*args, "--suppressions", supp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mslsim: 3 findings suppressed by " + supp, p.stderr)
        a = np.append(np.arange(8, dtype=np.float32), [0, 0])
        np.testing.assert_array_equal(np.load(self.path("shifted.npy")), a[1:9] + a[2:10])
        # A rule that cannot be read is refused before anything runs, naming its file and line.
        with open(supp, "w") as f:
            f.write("# fine\nout-of-bounds at=library_bug.metal:five\n")
        self.assertFails(self.mslsim(*args, "--suppressions", supp), 2,
                         supp + ":2: 'five' is not a line number")
        self.assertFails(self.mslsim(*args, "--suppressions", self.path("missing.supp")), 2,
                         "cannot open suppressions file")

    def test_bounds_are_exact_per_buffer(self):
        src = self.path("oob.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void next(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],\n"
                    "                 device float* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
                    "  out[i] = a[i + 1] + b[i];\n"
                    "}\n")
        p = self.mslsim("run", src, "--kernel", "next", "--grid", "8", "--threadgroup", "8",
                        "--buffer", "0=iota:float32:8", "--buffer", "1=iota:float32:8", "--buffer", "2=zeros:float32:8")
        self.assertFails(p, 1, "error [out-of-bounds]", "buffer 0 (argument 'a')[8]", "4 bytes past the end",
                         "oob.metal:5:12")
        p = self.mslsim("run", src, "--kernel", "next", "--grid", "8", "--threadgroup", "8", "--check", "none",
                        "--buffer", "0=iota:float32:8", "--buffer", "1=iota:float32:8", "--buffer", "2=zeros:float32:8")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_generated_sources_report_the_files_their_line_directives_name(self):
        # MLX's JIT kernels are headers pasted into one string, each after `#line 1 "its path"`
        # (and preprocessor output uses `# N "file"` markers): findings name those files and
        # lines, with the pasted line's text, as Metal's compiler would; also from the cache.
        src = self.path("generated.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    '#line 40 "kernels/gather.h"\n'
                    "template <typename T> void gather(device const T* a, device T* out, uint i) {\n"
                    "  out[i] = a[i + 1];\n"
                    "}\n"
                    '# 7 "kernels/entry.metal"\n'
                    "kernel void next(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],\n"
                    "                 uint i [[thread_position_in_grid]]) { gather(a, out, i); }\n")
        env = dict(os.environ, MSLSIM_CACHE_DIR=self.path("generated-cache"))
        for _ in range(2):
            p = subprocess.run([MSLSIM, "run", src, "--kernel", "next", "--grid", "8", "--threadgroup", "8",
                                "--buffer", "0=iota:float32:8", "--buffer", "1=zeros:float32:8"],
                               capture_output=True, text=True, env=env, timeout=120)
            self.assertFails(p, 1, "buffer 0 (argument 'a')[8]", "at kernels/gather.h:41:12",
                             "  out[i] = a[i + 1];\n")
            self.assertNotIn("unknown location", p.stderr)

    def test_a_pointer_read_back_from_memory_names_the_buffer_it_left(self):
        # A pointer kept in memory and loaded back (MLX's loaders keep theirs in structs) is tied
        # to no argument; past a buffer's end, the report names that buffer all the same.
        src = self.path("nearbuf.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void k(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],\n"
                    "              constant uint& pick [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
                    "  thread const device float* rows[2] = {a, a + 4};\n"
                    "  out[i] = rows[pick & 1][i + 4];\n"
                    "}\n")
        p = self.mslsim("run", src, "--kernel", "k", "--grid", "8", "--threadgroup", "8", "--buffer",
                        "0=iota:float32:8", "--buffer", "1=zeros:float32:8", "--buffer", "2=scalar:uint32:1")
        self.assertFails(p, 1, "error [out-of-bounds]", "in no buffer",
                         "it is 4 bytes past the end of buffer 0 (argument 'a') (32 bytes)", "nearbuf.metal:6:")

    def test_buffers_are_allocations_bound_at_offsets(self):
        # One packed allocation holds a float32 tensor, a half tensor and padding, as ggml packs
        # tensors into one MTLBuffer: `@J+BYTES` binds it again at an offset, `@J` aliases it.
        src = self.path("packed.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void packed(device const float* a [[buffer(0)]], device const half* h [[buffer(1)]],\n"
                    "                   device float* out [[buffer(2)]], device const float* same [[buffer(3)]],\n"
                    "                   uint i [[thread_position_in_grid]]) {\n"
                    "  out[i] = a[i] + float(h[i]) + (a == same ? 100.0f : 0.0f) + a[i + READ_AHEAD];\n"
                    "}\n")
        packed = np.zeros(64, np.uint8)
        packed[:16] = np.arange(4, dtype=np.float32).view(np.uint8)
        packed[16:24] = np.array([1, 2, 3, 4], np.float16).view(np.uint8)
        packed[24:40] = np.full(4, 7, np.float32).view(np.uint8)
        np.save(self.path("packed.npy"), packed)
        out = self.path("packed_out.npy")
        args = ["run", src, "--kernel", "packed", "--grid", "4", "--threadgroup", "4",
                "--buffer", "0=" + self.path("packed.npy"), "--buffer", "1=@0+16", "--buffer", "2=zeros:float32:4",
                "--buffer", "3=@0"]
        # Reading past the view of `a` but inside the allocation is legal, as on Metal.
        p = self.mslsim(*args, "-D", "READ_AHEAD=6", "--check", "all", "--output", "2=" + out)
        self.assertEqual(p.returncode, 0, p.stderr)
        np.testing.assert_array_equal(np.load(out), np.arange(4) + np.arange(1, 5) + 100 + 7)
        # Past the allocation is not.
        p = self.mslsim(*args, "-D", "READ_AHEAD=14")
        self.assertFails(p, 1, "error [out-of-bounds]", "4 bytes past the end of buffer 0", "packed.metal:6:")
        p = self.mslsim(*args[:-1], "3=@5", "-D", "READ_AHEAD=0")
        self.assertFails(p, 2, "--buffer 3=@5: buffer 5 is not given")
        p = self.mslsim(*[a if a != "1=@0+16" else "1=@0+100" for a in args], "-D", "READ_AHEAD=0")
        self.assertFails(p, 2, "offset 100 is past the end of its allocation (64 bytes)")
        p = self.mslsim(*args, "-D", "READ_AHEAD=0", "--output", "1=" + out)
        self.assertFails(p, 2, "buffer 1 is a view of buffer 0; write that allocation")

    def test_compile_cache_reuses_code_and_notices_changed_headers(self):
        cache = self.path("cache")
        inc = self.path("cinc")
        os.makedirs(inc, exist_ok=True)
        header = os.path.join(inc, "value.h")
        main = self.path("cached.metal")
        with open(main, "w") as f:
            f.write('#include <metal_stdlib>\n#include "value.h"\n'
                    "kernel void k(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) { o[i] = VALUE; }\n")
        env = dict(os.environ, MSLSIM_CACHE_DIR=cache)

        def run():
            out = self.path("cached.npy")
            p = subprocess.run([MSLSIM, "run", main, "-I", inc, "--kernel", "k", "--grid", "4", "--threadgroup", "4",
                                "--buffer", "0=zeros:float32:4", "--output", "0=" + out, "--timing"],
                               capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            return np.load(out)[0], float(re.search(r"compile_ms=([0-9.]+)", p.stderr).group(1))

        with open(header, "w") as f:
            f.write("#define VALUE 1.0f\n")
        first, cold_ms = run()
        self.assertTrue(any(name.endswith(".o") for name in os.listdir(cache)))
        second, _ = run()
        self.assertEqual((first, second), (1.0, 1.0))
        with open(header, "w") as f:
            f.write("#define VALUE 2.0f\n")
        third, _ = run()
        self.assertEqual(third, 2.0)  # the header changed: the cached entry is not used

    def test_function_constants_are_compile_time_values(self):
        src = self.path("fc.metal")
        with open(src, "w") as f:
            f.write("""#include <metal_stdlib>
using namespace metal;
constant bool has_bias [[function_constant(0)]];
constant int width [[function_constant(1)]];
constant float scale [[function_constant(2)]];
template <int N> float sum_n(device const float* x, uint base) {
  float s = 0;
  for (int j = 0; j < N; ++j) s += x[base + j];
  return s;
}
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
  float v = sum_n<width>(x, i) * (is_function_constant_defined(scale) ? scale : 1.0f);
  if (has_bias) v += 100.0f;
  out[i] = v;
}
""")
        x = np.arange(8, dtype=np.float32)

        def run(*constants):
            out = self.path("fc.npy")
            p = self.mslsim("run", src, "--kernel", "k", "--grid", "4", "--threadgroup", "4",
                            "--buffer", "0=iota:float32:8", "--buffer", "1=zeros:float32:4",
                            "--output", "1=" + out, *constants)
            self.assertEqual(p.returncode, 0, p.stderr)
            return np.load(out)

        got = run("--constant", "0=true", "--constant", "1=3", "--constant", "2=0.5")
        want = np.array([x[i:i + 3].sum() * 0.5 + 100 for i in range(4)], dtype=np.float32)
        np.testing.assert_array_equal(got, want)
        got = run("--constant", "1=2")  # has_bias and scale unset: false and not defined
        np.testing.assert_array_equal(got, np.array([x[i:i + 2].sum() for i in range(4)], dtype=np.float32))
        p = self.mslsim("run", src, "--kernel", "k", "--grid", "1", "--threadgroup", "1", "--constant", "1=x")
        self.assertFails(p, 2, "--constant 1=x: VALUE must be a number, true or false")

    def test_unknown_kernel(self):
        p = self.mslsim("run", self.metal, "--kernel", "nope", "--grid", "1", "--threadgroup", "1")
        self.assertFails(p, 2, "no kernel named 'nope'", "scale")

    def test_missing_npy(self):
        p = self.run_scale("--buffer", "0=" + self.path("absent.npy"))
        self.assertFails(p, 2, "absent.npy: cannot open file")

    def test_malformed_npy(self):
        p = self.run_scale("--buffer", "0=" + self.path("garbage.npy"))
        self.assertFails(p, 2, "garbage.npy: not a valid .npy file")

    def test_dtype_mismatch_names_the_argument(self):
        p = self.run_scale("--buffer", "0=" + self.path("ints.npy"), "--buffer", "1=zeros:float32:16",
                           "--buffer", "2=scalar:uint32:12")
        self.assertFails(p, 2, "buffer 0 (argument 'x' of kernel 'scale'", "int32")

    def test_unbound_buffer_names_the_argument(self):
        p = self.run_scale("--buffer", "0=iota:float32:16", "--buffer", "1=zeros:float32:16")
        self.assertFails(p, 2, "buffer 2 (argument 'n' of kernel 'scale', constant uint&) is not bound")

    def read_terminal(self, args, env=None):
        """Runs mslsim with stderr on a pseudo-terminal; returns (status, what the terminal got)."""
        leader, follower = pty.openpty()
        p = subprocess.Popen([MSLSIM, *args], stdout=subprocess.DEVNULL, stderr=follower, env=env)
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        p.wait(timeout=300)
        os.close(leader)
        return p.returncode, seen.decode(errors="replace")

    def test_progress_line_counts_findings_and_obeys_progress_and_quiet(self):
        # A thread writes out of bounds, then spins until the time limit: the live line counts the
        # finding; --progress draws it on a pipe too, --quiet nowhere.
        path = os.path.join(self.tmp.name, "oob_then_spin.metal")
        with open(path, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void k(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
                    "  o[i + 8] = 1.0f;\n  while (true) {}\n}\n")
        args = ["run", path, "--kernel", "k", "--grid", "1", "--threadgroup", "1",
                "--buffer", "0=zeros:float32:4", "--timeout", "1.5"]
        status, text = self.read_terminal(args)
        self.assertEqual(status, 1, text)
        self.assertIn("0 of 1 threadgroups, 0/s, 1 finding so far", text)
        piped = self.mslsim(*args, "--progress")
        self.assertEqual(piped.returncode, 1, piped.stderr)
        self.assertIn("\x1b[Kmslsim: dispatching k: 0 of 1 threadgroups", piped.stderr)  # text mode: \r is \n
        status, text = self.read_terminal(args + ["--quiet"])
        self.assertEqual(status, 1, text)
        self.assertNotIn("threadgroups,", text)
        self.assertEqual(self.mslsim(*args, "--progress", "--quiet").returncode, 2)

    def test_progress_counts_the_kernels_whose_code_is_done(self):
        # 400 kernels compiled from an empty cache: the line says how many have their code.
        path = os.path.join(self.tmp.name, "many_kernels.metal")
        with open(path, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n")
            for k in range(400):
                f.write("kernel void k%d(device float* o [[buffer(0)]], uint i [[thread_position_in_grid]]) "
                        "{ o[i] = metal::exp(o[i] * %d.0f) + metal::tanh(o[i]); }\n" % (k, k))
        env = dict(os.environ, MSLSIM_CACHE_DIR=os.path.join(self.tmp.name, "cold-cache-many-kernels"))
        status, text = self.read_terminal(["compile", path, "--kernel", "*"], env)
        self.assertEqual(status, 0, text)
        self.assertIn("many_kernels.metal: generating code for 400 kernels", text)
        self.assertRegex(text, r"generating code for 400 kernels: [0-9]+ of 400 done \([0-9.]+ s\)")

    def test_progress_line_on_a_terminal_only(self):
        # A dispatch that lasts 1.5 s (an endless loop stopped by the time limit): on a terminal,
        # a live line says what runs and how far it got, erased before the report; on a pipe,
        # nothing of it.
        args = ["run", self.metal, "--kernel", "spin", "--grid", "2", "--threadgroup", "2",
                "--buffer", "0=zeros:float32:2", "--timeout", "1.5"]
        status, text = self.read_terminal(args)
        self.assertEqual(status, 1, text)
        self.assertIn("\r\x1b[Kmslsim: dispatching spin: 0 of 1 threadgroups, 0/s", text)
        self.assertIn("\r\x1b[Kerror [timeout]", text)  # the line is erased before the report
        piped = self.mslsim(*args)
        self.assertEqual(piped.returncode, 1, piped.stderr)
        self.assertNotIn("\r", piped.stderr)
        self.assertNotIn("threadgroups,", piped.stderr)

    def test_version_names_the_build(self):
        p = self.mslsim("--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.fullmatch(r"mslsim (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,}|unknown)\), LLVM/Clang (16\.\d+\.\d+)\n",
                         p.stdout)
        self.assertTrue(m, p.stdout)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
        if head.returncode == 0:  # built from this clone: the commit is its HEAD
            self.assertTrue(head.stdout.startswith(m.group(2)), (m.group(2), head.stdout))

    def test_a_buffer_the_kernel_never_reads_may_stay_unbound(self):
        # As on Metal (MLX leaves gemv's bias unbound without axpby): the bias is read only when
        # the function constant is true. Also in a kernel with a SIMD-group function, whose
        # optimised build holds its vector lanes alone (unchecked, `bias` counted as read once).
        src = self.path("bias.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "constant bool has_bias [[function_constant(0)]];\n"
                    "kernel void k(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],\n"
                    "              device const float* bias [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
                    "  float v = x[i] * 2.0f;\n  if (has_bias) v += bias[i];\n  y[i] = v;\n}\n"
                    "kernel void lanes(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],\n"
                    "                  device const float* bias [[buffer(2)]], uint i [[thread_position_in_grid]]) {\n"
                    "  float v = simd_sum(x[i]);\n  if (has_bias) v += bias[i];\n  y[i] = v;\n}\n")
        out = self.path("bias_out.npy")
        expected = {"k": 2 * np.arange(32, dtype=np.float32), "lanes": np.full(32, 496, np.float32)}
        for kernel in ("k", "lanes"):
            for checks in ("none", "bounds,sync", "all"):
                p = self.mslsim("run", src, "--kernel", kernel, "--grid", "32", "--threadgroup", "32",
                                "--buffer", "0=iota:float32:32", "--buffer", "1=zeros:float32:32",
                                "--constant", "0=false", "--check", checks, "--output", "1=" + out)
                self.assertEqual(p.returncode, 0, (kernel, checks, p.stderr))
                np.testing.assert_array_equal(np.load(out), expected[kernel])
        p = self.mslsim("run", src, "--kernel", "k", "--grid", "4", "--threadgroup", "4",
                        "--buffer", "0=iota:float32:4", "--buffer", "1=zeros:float32:4", "--constant", "0=true")
        self.assertFails(p, 2, "buffer 2 (argument 'bias' of kernel 'k', const device float*) is not bound")

    def test_too_small_constant_reference(self):
        p = self.run_scale("--buffer", "0=iota:float32:16", "--buffer", "1=zeros:float32:16",
                           "--buffer", "2=zeros:uint32:0")
        self.assertFails(p, 2, "argument 'n'", "less than one 'uint'")

    def test_bad_grid(self):
        p = self.mslsim("run", self.metal, "--kernel", "scale", "--grid", "4,x", "--threadgroup", "1")
        self.assertFails(p, 2, "--grid '4,x'")

    def test_oversized_threadgroup(self):
        p = self.mslsim("run", self.metal, "--kernel", "scale", "--grid", "2048", "--threadgroup", "2048",
                        "--buffer", "0=iota:float32:16", "--buffer", "1=zeros:float32:16",
                        "--buffer", "2=scalar:uint32:16")
        self.assertFails(p, 2, "more than the maximum of 1024")  # refused: nothing ran

    def test_grid_beyond_the_race_checks_thread_numbers_is_refused(self):
        # 2^32-1 x 64 threads: more than the race check's shadow can number (2^37), refused
        # before anything runs, under the race check only.
        grid = ["--grid", "4294967295,64", "--threadgroup", "1024", "--buffer", "0=iota:float32:16",
                "--buffer", "1=zeros:float32:16", "--buffer", "2=scalar:uint32:16"]
        p = self.mslsim("run", self.metal, "--kernel", "scale", *grid, "--check", "races")
        self.assertFails(p, 2, "[check-limit]", "kernel 'scale'", "2^37 threads")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_a_write_after_reads_of_two_simdgroups_is_a_data_race_whatever_the_order(self):
        # Every thread reads t[0]; thread 5 (SIMD-group 0) then writes it, with no barrier. In
        # each of these thread orders a thread of SIMD-group 1 reads before thread 5 writes, so the
        # write is a read-write data race (an error), not only a lockstep hazard with a reader of
        # its own SIMD-group. random:5 runs a SIMD-group 0 thread first and a SIMD-group 1 thread
        # second: the checker hears of that second read late (the executor holds it back while the
        # two reads settle the word), and must still blame it.
        src = self.path("shared_read.metal")
        with open(src, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                    "kernel void k(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {\n"
                    "  threadgroup float t[1];\n  if (lid == 0) t[0] = 1.0f;\n"
                    "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                    "  float v = t[0];\n  if (lid == 5) t[0] = v + 1.0f;\n  out[lid] = v;\n}\n")
        for seed in range(1, 11):
            p = self.mslsim("run", src, "--kernel", "k", "--grid", "64", "--threadgroup", "64", "--check", "races",
                            "--schedule", f"random:{seed}", "--buffer", "0=zeros:float32:64")
            self.assertFails(p, 1, "error [data-race]: read-write race on threadgroup variable 't'[0]",
                             "shared_read.metal:7:", "shared_read.metal:8:")

    def test_compile_error_points_at_the_users_line(self):
        p = self.mslsim("run", self.broken, "--kernel", "k", "--grid", "1", "--threadgroup", "1")
        self.assertFails(p, 2, self.broken + ":3:10: error: use of undeclared identifier 'missing_name'",
                         "y[0] = missing_name;")

    def test_barrier_divergence_exits_1_and_names_both_lines(self):
        p = self.mslsim("run", self.metal, "--kernel", "diverge", "--grid", "8", "--threadgroup", "8",
                        "--buffer", "0=zeros:float32:8")
        self.assertFails(p, 1, "barrier-divergence", "scale.metal:14:14", "scale.metal:15:8")

    def test_endless_loop_is_stopped_by_the_timeout(self):
        p = self.mslsim("run", self.metal, "--kernel", "spin", "--grid", "2", "--threadgroup", "2",
                        "--buffer", "0=zeros:float32:2", "--timeout", "0.5")
        self.assertFails(p, 1, "did not finish within")


if __name__ == "__main__":
    MSLSIM = sys.argv.pop(1)
    unittest.main(verbosity=2)
