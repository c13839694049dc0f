#!/usr/bin/env python3
"""Hostile kernels against the host boundary (docs/security.md). Each *.metal file here says in its
header comment how to run it and what must happen:

    // run: ARGS               mslsim run FILE --kernel k ARGS (the default checks)
    // run-also: ARGS          the same again with these ARGS added (each must meet every expectation)
    // expect-exit: N          the exit status (2: refused before running, 1: a finding)
    // expect-stderr: TEXT     text the error output contains
    // reject-stderr: TEXT     text it must not contain (the lines of a file that was not to be read)
    // expect-output: I = V..  buffer I afterwards, values separated by spaces, `V*N` repeats V

Every run happens in a new empty working directory; whatever the kernel tried, the run must end
with the expected status (never a signal or a hang), and must leave no file behind (the kernels
that try to create one name it `mslsim-pwned`).

The same attacks then go through the Python module, in this process (each file through
mslsim.Library, and kernel bodies through metal_kernel): each must raise the expected error, and
the process's environment and working directory must be as they were.

    run_security.py MSLSIM [--python-path DIR]
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(path):
    spec = {"runs": [], "exit": None, "stderr": [], "reject": [], "outputs": {}}
    with open(path) as f:
        for line in f:
            m = re.match(r"//\s*(run|run-also|expect-exit|expect-stderr|reject-stderr|expect-output):\s*(.*)$", line.rstrip("\n"))
            if not m:
                continue
            key, value = m.groups()
            if key == "run":
                spec["runs"].insert(0, shlex.split(value))
            elif key == "run-also":
                spec["runs"].append(shlex.split(value))
            elif key == "expect-exit":
                spec["exit"] = int(value)
            elif key == "expect-stderr":
                spec["stderr"].append(value)
            elif key == "reject-stderr":
                spec["reject"].append(value)
            else:
                index, values = value.split("=", 1)
                expanded = []
                for v in values.split():
                    n = 1
                    if "*" in v:
                        v, n = v.split("*")
                    expanded += [float(v)] * int(n)
                spec["outputs"][int(index)] = expanded
    base = spec["runs"][0]
    spec["runs"] = [base] + [base + extra for extra in spec["runs"][1:]]
    return spec


def run_cli(mslsim, path, spec):
    failures = []
    for args in spec["runs"]:
        with tempfile.TemporaryDirectory(prefix="mslsim-security-") as cwd:
            outputs = {i: os.path.join(cwd, "out%d.npy" % i) for i in spec["outputs"]}
            cmd = [mslsim, "run", path, "--kernel", "k", "--timeout", "60"] + args
            for i, p in outputs.items():
                cmd += ["--output", "%d=%s" % (i, p)]
            where = " ".join(args)
            try:
                p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=300)
            except subprocess.TimeoutExpired:
                failures.append("[%s] did not end within 300 s" % where)
                continue
            if p.returncode < 0:
                failures.append("[%s] killed by signal %d" % (where, -p.returncode))
            elif spec["exit"] is not None and p.returncode != spec["exit"]:
                failures.append("[%s] exit %d, expected %d" % (where, p.returncode, spec["exit"]))
            for text in spec["stderr"]:
                if text not in p.stderr:
                    failures.append("[%s] stderr lacks %r" % (where, text))
            for text in spec["reject"]:
                if text in p.stderr or text in p.stdout:
                    failures.append("[%s] output contains %r" % (where, text))
            for i, want in spec["outputs"].items():
                if not os.path.exists(outputs[i]):
                    failures.append("[%s] no output %d" % (where, i))
                    continue
                got = np.load(outputs[i]).astype(np.float64).ravel().tolist()
                if got != want:
                    failures.append("[%s] output %d is %s, expected %s" % (where, i, got, want))
            left = sorted(set(os.listdir(cwd)) - {os.path.basename(o) for o in outputs.values()})
            if left:
                failures.append("[%s] left files behind: %s" % (where, left))
            if failures and p.stderr:
                failures.append("stderr was:\n" + p.stderr.strip())
    return failures


# The Python module: (name, header, body, exception type name, text in the message).
PYTHON_CASES = [
    ("system() declared in the header", 'extern "C" int system(const char*);',
     'if (thread_position_in_grid.x == 0) out[0] = system("touch mslsim-pwned");',
     "RuntimeError", "call to 'system', which is declared but not defined"),
    ("setenv() declared in the header", 'extern "C" int setenv(const char*, const char*, int);',
     'out[0] = setenv("MSLSIM_PWNED", "1", 1);', "RuntimeError", "call to 'setenv'"),
    ("environ read from the body", 'extern "C" char** environ;', "out[0] = environ[0][0];",
     "RuntimeError", "use of 'environ'"),
    ("a host header included", "#include <stdlib.h>", "out[0] = 1;", "RuntimeError",
     "host headers (C and C++ libraries, the system's) are not available to kernels"),
    ("inline assembly in the body", "", '__asm__ volatile("syscall"); out[0] = 1;', "RuntimeError",
     "inline assembly, which MSL does not have"),
    ("recursion until the stack ends",
     "int depth(device float* sink, int n) {\n"
     "  thread int local[64];\n"
     "  for (int i = 0; i < 64; ++i) local[i] = n + i;\n"
     "  sink[1] = local[n & 63];\n"
     "  return n <= 0 ? 0 : depth(sink, n - 1) + local[(n * 7) & 63];\n"
     "}", "out[0] = depth(out, 100000000);", "KernelError", "error [stack-overflow]"),
    ("a private array walked into the stack", "",
     "thread float local[4] = {0, 1, 2, 3};\n"
     "for (uint j = 4; j < 4096; ++j) local[j] = 1.0f;\n"
     "out[thread_position_in_grid.x] = local[0];",
     "KernelError", "thread-private array local (16 bytes)"),
]


def numpy_buffer(spec):
    """A `--buffer` spec of the hostile kernels (zeros:DTYPE:COUNT, scalar:DTYPE:VALUE) as numpy."""
    kind, dtype, value = spec.split(":")
    if kind == "zeros":
        return np.zeros(int(value), dtype)
    return np.array(float(value)).astype(dtype)[()]


def run_library(mslsim, path, spec):
    """The same kernel through mslsim.Library (whole .metal files from Python): the error or
    finding the CLI gives, as RuntimeError / KernelError, and no file left behind."""
    args = spec["runs"][0]
    buffers = {}
    for flag, value in zip(args, args[1:]):
        if flag == "--buffer":
            index, buffer_spec = value.split("=", 1)
            buffers[int(index)] = numpy_buffer(buffer_spec)
    grid = tuple(int(v) for v in args[args.index("--grid") + 1].split(","))
    threadgroup = tuple(int(v) for v in args[args.index("--threadgroup") + 1].split(","))
    text = spec["stderr"][0].split(": error: ")[-1].split("error [")[-1]
    with tempfile.TemporaryDirectory(prefix="mslsim-security-") as cwd:
        before = os.getcwd()
        os.chdir(cwd)
        try:
            options = {"check": args[args.index("--check") + 1]} if "--check" in args else {}
            mslsim.Library(path).kernel("k")(buffers=buffers, grid=grid, threadgroup=threadgroup, **options)
            failure = "no error"
        except Exception as e:
            # Refused before running: RuntimeError (compile, binding) or ValueError (dispatch limits).
            wanted = mslsim.KernelError if spec["exit"] == 1 else (RuntimeError, ValueError)
            failure = None if isinstance(e, wanted) and text in str(e) else "%s: %s" % (type(e).__name__, e)
        finally:
            os.chdir(before)
            left = os.listdir(cwd)
    if left:
        failure = (failure or "") + " left files behind: %s" % left
    return failure


def run_python(path_dir):
    sys.path.insert(0, path_dir)
    import mslsim  # noqa: E402
    failures = []
    for f in sorted(os.listdir(HERE)):
        if not f.endswith(".metal") or f == "huge_buffer.metal":  # a 4 EB numpy array is numpy's to refuse
            continue
        environment = dict(os.environ)
        failure = run_library(mslsim, os.path.join(HERE, f), parse(os.path.join(HERE, f)))
        if failure:
            failures.append("Library(%s): %s" % (f, failure))
        if dict(os.environ) != environment:
            failures.append("Library(%s): the environment changed" % f)
    for name, header, body, error_type, text in PYTHON_CASES:
        environment = dict(os.environ)
        with tempfile.TemporaryDirectory(prefix="mslsim-security-") as cwd:
            before = os.getcwd()
            os.chdir(cwd)
            try:
                kernel = mslsim.metal_kernel(name="hostile", input_names=["inp"], output_names=["out"],
                                             source=body, header=header)
                kernel(inputs=[np.zeros(4, np.float32)], output_shapes=[(4,)], output_dtypes=[np.float32],
                       grid=(1, 1, 1), threadgroup=(1, 1, 1))
                failures.append("%s: no error" % name)
            except Exception as e:  # the type is checked below
                kind = type(e).__name__
                if kind != error_type and not (error_type == "RuntimeError" and isinstance(e, RuntimeError)):
                    failures.append("%s: %s, expected %s: %s" % (name, kind, error_type, e))
                elif text not in str(e):
                    failures.append("%s: message lacks %r:\n%s" % (name, text, e))
            finally:
                os.chdir(before)
                left = os.listdir(cwd)
            if left:
                failures.append("%s: left files behind: %s" % (name, left))
        if dict(os.environ) != environment:
            failures.append("%s: the environment changed" % name)
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mslsim")
    ap.add_argument("--python-path", help="directory holding the mslsim Python package (skipped without)")
    opts = ap.parse_args()
    mslsim = os.path.abspath(opts.mslsim)
    failed = 0
    for f in sorted(os.listdir(HERE)):
        if not f.endswith(".metal"):
            continue
        failures = run_cli(mslsim, os.path.join(HERE, f), parse(os.path.join(HERE, f)))
        print("%-36s %s" % (f, "FAIL" if failures else "ok"))
        for line in "\n".join(failures).splitlines():
            print("    " + line)
        failed += bool(failures)
    if opts.python_path:
        failures = run_python(opts.python_path)
        print("%-36s %s" % ("python module (%d + the files)" % len(PYTHON_CASES), "FAIL" if failures else "ok"))
        for line in "\n".join(failures).splitlines():
            print("    " + line)
        failed += bool(failures)
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
