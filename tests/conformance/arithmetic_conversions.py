#!/usr/bin/python3
"""Conformance of half and bfloat as arithmetic types: the result type and value of every expression
form with every scalar type, against the usual arithmetic conversions of the MSL specification.

Usage: /usr/bin/python3 tests/conformance/arithmetic_conversions.py PATH_TO_MSLSIM [--verbose]
Exit status 1 on any failure.

The rules (MSL §2.23 "Implicit Type Conversions", §3.1; msl-inventory.md §2.1): half and bfloat rank
below float and above every integer type, and neither converts implicitly to the other. So with F one
of them and O another scalar type, `F op O` and `O op F` (+ - * /), the comparisons, and `c ? F : O`
are computed in F when O is F, bool or an integer (the integer is converted to F first, rounded
once), and in float when O is float; F op= O is F = F op O converted back to F; an integer passes
implicitly to a parameter of type F and is returned implicitly from a function returning F; a
vector of F with a scalar integer or F computes element-wise in F; F converts implicitly to the
integer types (truncating) and to float (exactly). Ill-formed: any operator mixing half and
bfloat, and implicit conversions to bfloat from float or half. (The specification also says
bfloat converts implicitly only to float; Apple's compiler converts it to every arithmetic type,
and MLX's kernels rely on that, so mslsim does too; a conditional with a half and a bfloat arm is
then half, where the specification would refuse it.)

Each well-formed row is one block of a kernel that builds its operands from runtime buffers (so
nothing folds), writes the result as float (exact for every result type here) and a code for
decltype of the expression. The reference computes each row exactly with Python fractions and
rounds once to the result type (tests/conformance/fp.py). Each ill-formed row is a kernel of its own
that `mslsim compile` must refuse.
"""
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fp  # noqa: E402

INTEGERS = ["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"]
# Codes for decltype(expression), as the kernel's type_code<T>() numbers them.
CODES = {t: k for k, t in enumerate(INTEGERS + ["half", "bfloat", "float"], start=1)}
FMT = {"half": fp.HALF, "bfloat": fp.BFLOAT, "float": fp.FLOAT}

# Operand values: F values (exact in both half and bfloat) and, per other type, values that need
# rounding in F (257 is not a bfloat, 2049 not a half), negative ones where the type has them.
F_VALUES = [Fraction(3, 2), Fraction(-5, 4), Fraction(1), Fraction(96)]
O_VALUES = {
    "bool": [0, 1], "char": [-7, 100], "uchar": [3, 255], "short": [-300, 257], "ushort": [2049, 7],
    "int": [257, -2049, 100003], "uint": [65537, 9], "long": [-123457, 3], "ulong": [1000001, 5],
    "float": [Fraction(1, 3), Fraction(-257, 1), Fraction(3, 1024)],
}


def rounded(q, t):
    """q converted to type t (round to nearest even for the floating types)."""
    if q is None:
        return None
    if t in FMT:
        r = fp.round_fraction(q, FMT[t])
        return None if r in (float("inf"), float("-inf")) else Fraction(r)   # overflows are left out
    return q


def result_type(f, o):
    return "float" if o == "float" else f


def apply(op, a, b):
    if a is None or b is None:
        return None
    return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b != 0 else None,
            "<": Fraction(int(a < b)), "==": Fraction(int(a == b))}[op]


class Row:
    """One expression: `setup` declares its operands from the buffers (fv[ROW]: the F operand,
    ov[ROW]: a float or F operand, iv[ROW]: an integer one), `expr` is the expression, `ref` its
    exact value and `code` the type code of decltype(expr); `store` is what of `r` is written."""

    def __init__(self, text, setup, expr, ref, code, operands, store="r"):
        self.text, self.setup, self.expr, self.ref, self.code = text, setup, expr, ref, code
        self.operands, self.store = operands, store


def rows():
    out = []
    for f in ("half", "bfloat"):
        for o in INTEGERS + ["float", f]:
            ovals = O_VALUES.get(o, F_VALUES)
            t = result_type(f, o)
            source = "ov" if o in FMT else "iv"
            # Each O value with one F value in turn (a cross product would only repeat the rules).
            for n, b in enumerate(ovals):
                for a in [F_VALUES[n % len(F_VALUES)]]:
                    bo = rounded(Fraction(b), o) if o in FMT else Fraction(int(b) != 0 if o == "bool" else b)
                    at, bt = rounded(a, t), rounded(bo, t)   # the operands in the computation type
                    operands = (float(a), float(bo) if o in FMT else 0.0, int(bo) if o not in FMT else 0)
                    setup = f"{f} a = {f}(fv[ROW]); {o} b = {o}({source}[ROW]);"

                    def add(text, expr, ref, code, extra=""):
                        if ref is not None and at is not None and bt is not None:
                            out.append(Row(text, setup + extra, expr, ref, code, operands))
                    pair = f"{f}({float(a)}), {o}({float(bo)})"
                    for op in ("+", "-", "*", "/"):
                        if not (op == "/" and bt == 0):
                            add(f"a {op} b for {pair}", f"a {op} b", rounded(apply(op, at, bt), t), CODES[t])
                    add(f"b - a for {pair}", "b - a", rounded(apply("-", bt, at), t), CODES[t])
                    for op in ("<", "=="):
                        add(f"a {op} b for {pair}", f"a {op} b", apply(op, at, bt), CODES["bool"])
                    add(f"true ? a : b for {pair}", "fv[ROW] == fv[ROW] ? a : b", at, CODES[t])
                    add(f"false ? a : b for {pair}", "fv[ROW] != fv[ROW] ? a : b", bt, CODES[t])
                    # Compound assignment: the value converted back to F; the expression is an F lvalue.
                    for op in ("+",):
                        add(f"x {op}= b with x = a for {pair}", f"(x {op}= b)", rounded(apply(op, at, bt), f),
                            CODES[f], extra=f" {f} x = a;")
            if o in INTEGERS and o != "bool":
                for b in ovals:
                    setup = f"{o} b = {o}(iv[ROW]);"
                    operands = (0.0, 0.0, int(b))
                    if rounded(Fraction(b), f) is None:
                        continue
                    out.append(Row(f"{o}({b}) passed to a {f} parameter", setup, f"identity_{f}(b)",
                                   rounded(Fraction(b), f), CODES[f], operands))
                    out.append(Row(f"{o}({b}) returned from a function returning {f}", setup,
                                   f"returned_{f}<{o}>(b)", rounded(Fraction(b), f), CODES[f], operands))
        # Implicit conversions from F to integers and float, as Apple's compiler makes them for bfloat
        # too (MLX's sort assigns a bfloat to a uint, its reductions pass one to a bool): the value
        # truncated toward zero, or exact.
        for target in ("int", "uint", "bool", "float"):
            for a in (Fraction(7, 2), Fraction(0)):
                ref = Fraction(int(a) if target != "bool" else int(a != 0)) if target != "float" else a
                out.append(Row(f"{target} t = {f}({float(a)})", f"{f} a = {f}(fv[ROW]); {target} t = a;", "t",
                               ref, CODES[target], (float(a), 0.0, 0)))
        # Vectors: element-wise in F with an integer scalar, an F scalar and an F vector.
        a0 = F_VALUES[0]
        for b in (257, 2049, -3):
            setup = f"vec<{f}, 4> a = vec<{f}, 4>({f}(fv[ROW]), 1, 2, 3); int b = int(iv[ROW]);"
            for op in ("+", "*"):
                out.append(Row(f"{f}4({float(a0)}, 1, 2, 3) {op} int({b})", setup, f"a {op} b",
                               rounded(apply(op, a0, rounded(Fraction(b), f)), f), 400 + CODES[f],
                               (float(a0), 0.0, b), store="r[0]"))
        third = rounded(Fraction(1, 3), f)
        setup = f"vec<{f}, 4> a = vec<{f}, 4>({f}(fv[ROW]), 1, 2, 3); {f} b = {f}(ov[ROW]);"
        out.append(Row(f"{f}4 * {f}", setup, "a * b", rounded(a0 * third, f), 400 + CODES[f],
                       (float(a0), float(third), 0), store="r[0]"))
        out.append(Row(f"{f}4 < {f}4", setup, f"a < vec<{f}, 4>(b)", Fraction(int(a0 < third)), 400 + CODES["bool"],
                       (float(a0), float(third), 0), store="r[0]"))
    return out


# What the specification and Apple's compiler refuse. (Not enforced: implicit conversions from
# bfloat to types other than float, which Apple's compiler makes and MLX relies on.)
ILL_FORMED = [
    ("bfloat + half", "bfloat a = bfloat(x); half b = half(x); out[0] = float(a + b);"),
    ("half * bfloat", "bfloat a = bfloat(x); half b = half(x); out[0] = float(b * a);"),
    ("bfloat < half", "bfloat a = bfloat(x); half b = half(x); out[0] = a < b;"),
    ("bfloat from float, implicitly", "bfloat a = x; out[0] = float(a);"),
    ("bfloat from half, implicitly", "half h = half(x); bfloat a = h; out[0] = float(a);"),
]

PRELUDE = """#include <metal_stdlib>
using namespace metal;
template <class T> struct type_code;
""" + "".join(f"template <> struct type_code<{t}> {{ static constexpr uint value = {c}; }};\n" for t, c in CODES.items()) + \
    "".join(f"template <> struct type_code<vec<{t}, 4>> {{ static constexpr uint value = 400 + {c}; }};\n"
            for t, c in CODES.items() if t != "float" or True) + """
template <class T> struct type_code<thread T&> : type_code<T> {};  // x op= b: an lvalue of x's type
half identity_half(half x) { return x; }
bfloat identity_bfloat(bfloat x) { return x; }
template <class I> half returned_half(I i) { return i; }
template <class I> bfloat returned_bfloat(I i) { return i; }
"""


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mslsim, verbose = sys.argv[1], "--verbose" in sys.argv
    table = rows()
    failures = []
    with tempfile.TemporaryDirectory(prefix="mslsim-conversions-") as tmp:
        env = dict(os.environ, MSLSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        fv = np.zeros(len(table), np.float32)
        ov = np.zeros(len(table), np.float32)
        iv = np.zeros(len(table), np.int64)
        body = []
        for k, row in enumerate(table):
            setup = row.setup.replace("ROW", str(k))
            expr = row.expr.replace("ROW", str(k))
            body.append(f"  case {k}: {{ {setup} code[{k}] = type_code<decltype({expr})>::value; auto r = {expr}; "
                        f"out[{k}] = float({row.store}); break; }}")
        # The operands of each row, in the buffers its setup reads.
        for k, row in enumerate(table):
            fv[k], ov[k], iv[k] = row.operands
        source = os.path.join(tmp, "conversions.metal")
        with open(source, "w") as f:
            f.write(PRELUDE)
            f.write("kernel void table(device const float* fv [[buffer(0)]], device const float* ov [[buffer(1)]],\n"
                    "                  device const long* iv [[buffer(2)]], device float* out [[buffer(3)]],\n"
                    "                  device uint* code [[buffer(4)]], uint i [[thread_position_in_grid]]) {\n"
                    "  switch (i) {\n" + "\n".join(body) + "\n  }\n}\n")
        paths = {}
        for name, array in (("fv", fv), ("ov", ov), ("iv", iv)):
            paths[name] = os.path.join(tmp, name + ".npy")
            np.save(paths[name], array)
        outputs = [os.path.join(tmp, "out.npy"), os.path.join(tmp, "code.npy")]
        n = len(table)
        cmd = [mslsim, "run", source, "--kernel", "table", "--grid", str(n), "--threadgroup", "32", "--check", "none",
               "--buffer", "0=" + paths["fv"], "--buffer", "1=" + paths["ov"], "--buffer", "2=" + paths["iv"],
               "--buffer", f"3=zeros:float32:{n}", "--buffer", f"4=zeros:uint32:{n}",
               "--output", "3=" + outputs[0], "--output", "4=" + outputs[1]]
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if run.returncode != 0:
            print(run.stderr[-4000:])
            print("FAIL: the table's kernel did not run (exit %d)" % run.returncode)
            return 1
        got, codes = np.load(outputs[0]), np.load(outputs[1])
        for k, row in enumerate(table):
            want = float(row.ref)
            if codes[k] != row.code:
                failures.append(f"{row.text}: type code {codes[k]}, expected {row.code}")
            elif not (got[k] == np.float32(want)):
                failures.append(f"{row.text}: {got[k]!r}, expected {want!r}")
            elif verbose:
                print(f"ok  {row.text} = {want!r}")
        # Ill-formed forms: each must be refused before anything runs.
        for name, statement in ILL_FORMED:
            path = os.path.join(tmp, "ill_formed.metal")
            with open(path, "w") as f:
                f.write("#include <metal_stdlib>\nusing namespace metal;\n"
                        "kernel void k(device float* out [[buffer(0)]], constant float& x [[buffer(1)]]) {\n"
                        f"  {statement}\n}}\n")
            r = subprocess.run([mslsim, "compile", path], capture_output=True, text=True, env=env, timeout=300)
            if r.returncode != 2 or "error" not in r.stderr:
                failures.append(f"ill-formed '{name}' was accepted (exit {r.returncode})")
            elif verbose:
                print(f"ok  ill-formed: {name}: {r.stderr.splitlines()[0]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(table)} expression rows, {len(ILL_FORMED)} ill-formed forms: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
