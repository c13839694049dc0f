"""Random kernels whose result is deterministic by construction, in MSL and as an OpenCL C twin,
with a reference result computed here.

In the spirit of CLsmith (Lidbury et al., "Many-core compiler fuzzing", PLDI 2015): a program is a
tree of statements over 32-bit unsigned variables (wrap-around arithmetic, shifts masked to 0..31,
division and remainder by a value made odd, integer edge values), with uniform and non-uniform
control flow, loops with constant trip counts, threadgroup memory exchanges between barriers (only
where every thread of the threadgroup gets: never under a condition), vectors with swizzles, bit
functions, float arithmetic (+, -, * on values that stay finite, bits folded back into the
variables: IEEE rounding makes it exact everywhere), and device atomics whose results are never
read (only the final sums and maxima, which do not depend on the order). Every thread ends by
storing a hash of its variables. The same tree prints as MSL and as OpenCL C, so POCL is an
independent reference; `Program.without(path)` drops one statement for the reducer. Everything is
a function of the seed.

Half the programs are MSL-only: SIMD-group functions (POCL's sub-groups are not 32 wide),
quad-group functions, half and bfloat arithmetic (OpenCL C has no bfloat). Reductions, prefix sums
and ballots run over the active lanes anywhere (their result is defined whatever the divergence),
shuffles only where every lane takes part and only from lanes that exist, with threadgroups of 48
(one full and one partial SIMD-group) or 64.

`Program.reference()` runs the program in Python, a threadgroup at a time with SIMT semantics
(statements over the set of active threads, a branch splitting it), with numpy's float32, float16
and a bfloat16 rounding of our own: the independent reference for every program, MSL-only ones
included.
"""
import random

import numpy as np

GROUPS = 4       # threadgroups
COUNTERS = 8     # device atomics
COUNTER_OPS = ["add"] * 4 + ["max"] * 2 + ["min"] * 2
INPUTS = 97      # input words
MASK = 0xFFFFFFFF
# Float constants that are exact in float, half and bfloat: their decimal text means the same
# number in C and in Python.
FLOAT_CONSTANTS = ["0.5", "0.25", "1.5", "-3.0", "0.125", "7.0", "-0.75", "2.0"]


class E:
    """An expression over uint: prints as C (MSL and OpenCL C alike) and evaluates in Python."""

    def __init__(self, op, *args):
        self.op, self.args = op, args

    def __str__(self):
        o, a = self.op, self.args
        if o in ("name", "lit"):
            return a[0] if o == "name" else "%du" % a[0]
        if o == "bin":
            return "(%s %s %s)" % (a[1], a[0], a[2])
        if o == "shift":
            return "(%s %s (%s & 31u))" % (a[1], a[0], a[2])
        if o == "call2":
            return "%s(%s, %s)" % a
        if o == "divmod":
            return "(%s %s (%s | 1u))" % (a[1], a[0], a[2])
        if o == "cmp":
            return "(%s %s %s)" % (a[1], a[0], a[2])
        if o == "select":
            return "(%s ? %s : %s)" % a
        if o == "call1":
            return "%s(%s)" % a
        if o == "madd":
            return "(%s + %s * %du)" % a
        raise ValueError(o)

    def eval(self, env):
        o, a = self.op, self.args
        if o == "name":
            return env[a[0]]
        if o == "lit":
            return a[0]
        if o == "bin":
            x, y = a[1].eval(env), a[2].eval(env)
            return {"+": x + y, "-": x - y, "*": x * y, "^": x ^ y, "&": x & y, "|": x | y}[a[0]] & MASK
        if o == "shift":
            x, y = a[1].eval(env), a[2].eval(env) & 31
            return (x << y) & MASK if a[0] == "<<" else x >> y
        if o == "call2":
            x, y = a[1].eval(env), a[2].eval(env)
            return min(x, y) if a[0] == "min" else max(x, y)
        if o == "divmod":
            x, y = a[1].eval(env), a[2].eval(env) | 1
            return x // y if a[0] == "/" else x % y
        if o == "cmp":
            x, y = a[1].eval(env), a[2].eval(env)
            return int({"<": x < y, ">": x > y, "==": x == y, "!=": x != y}[a[0]])
        if o == "select":
            return a[1].eval(env) if a[0].eval(env) else a[2].eval(env)
        if o == "call1":
            x = a[1].eval(env)
            return bin(x).count("1") if a[0] == "popcount" else 32 - x.bit_length()
        if o == "madd":
            return (a[0].eval(env) + a[1].eval(env) * a[2]) & MASK
        raise ValueError(o)


def name(text):
    return E("name", text)


class Stmt:
    """A statement: kind and fields; `body`/`orelse` hold child statements."""

    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)
        self.body = fields.get("body", [])
        self.orelse = fields.get("orelse", [])


class Generator:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.nvars = self.r.randint(2, 5)
        self.loop_depth = 0
        self.msl_only = self.r.random() < 0.5
        self.tg = self.r.choice([48, 64]) if self.msl_only else 64

    def var(self):
        return "v%d" % self.r.randrange(self.nvars)

    def leaf(self):
        r = self.r.random()
        if r < 0.45:
            return name(self.var())
        if r < 0.6:
            return name(self.r.choice(["lid", "gid", "tgid"]))
        if r < 0.7 and self.loop_depth:
            return name("i%d" % self.r.randrange(self.loop_depth))
        return E("lit", self.r.choice([0, 1, 2, 3, 7, 31, 255, 0xFFFF, 0x80000000, 0xFFFFFFFF,
                                       self.r.randrange(1 << 32)]))

    def expr(self, depth=0):
        if depth > 2 or self.r.random() < 0.3:
            return self.leaf()
        a, b = self.expr(depth + 1), self.expr(depth + 1)
        op = self.r.randrange(12)
        if op < 5:
            return E("bin", ["+", "-", "*", "^", "&"][op], a, b)
        if op == 5:
            return E("bin", "|", a, b)
        if op == 6:
            return E("shift", self.r.choice(["<<", ">>"]), a, b)
        if op == 7:
            return E("call2", self.r.choice(["min", "max"]), a, b)
        if op == 8:
            return E("divmod", self.r.choice(["/", "%"]), a, b)
        if op == 9:
            return E("select", E("cmp", self.r.choice(["<", ">", "==", "!="]), a, b),
                     self.expr(depth + 1), self.expr(depth + 1))
        if op == 10:
            return E("call1", self.r.choice(["popcount", "clz"]), a)
        return E("madd", a, b, self.r.randrange(1, 1000))

    def block(self, uniform, depth, size):
        return [self.stmt(uniform, depth) for _ in range(size)]

    def stmt(self, uniform, depth):
        r = self.r.random()
        if depth < 2 and r < 0.15:
            return Stmt("if", cond=E("cmp", self.r.choice(["<", ">", "!="]), self.expr(1), self.expr(1)),
                        body=self.block(False, depth + 1, self.r.randint(1, 3)),
                        orelse=self.block(False, depth + 1, self.r.randint(0, 2)))
        if depth < 2 and r < 0.27:
            self.loop_depth += 1
            s = Stmt("for", index="i%d" % (self.loop_depth - 1), count=self.r.randint(1, 4),
                     body=self.block(uniform, depth + 1, self.r.randint(1, 3)))
            self.loop_depth -= 1
            return s
        if uniform and r < 0.42:
            return Stmt("exchange", var=self.var(), offset=self.r.randrange(1, self.tg))
        if self.msl_only and r < 0.5:
            quad = self.r.random() < 0.3
            kind = self.r.choice(["reduce", "prefix"] + ([] if quad else ["ballot"]) +
                                 (["shuffle", "broadcast"] if uniform else []))
            # Lanes below 16 exist in every SIMD-group, the partial one of a 48-thread group too.
            return Stmt("simd", var=self.var(), op=kind, value=self.expr(1), quad=quad,
                        lane=self.r.randrange(1, 4 if quad else 16),
                        fn=self.r.choice(["sum", "max", "min", "and", "or", "xor", "product"]),
                        inclusive=self.r.random() < 0.5)
        if r < 0.52:
            # One operation per counter (0-3 add, 4-5 max, 6-7 min): mixed, the result would
            # depend on the order.
            counter = self.r.randrange(COUNTERS)
            return Stmt("atomic", op=COUNTER_OPS[counter], counter=counter, value=self.expr(1))
        if r < 0.58:
            return Stmt("vector", a=self.var(), b=self.var(), swizzle="".join(self.r.sample("xyzw", 4)),
                        k=self.r.randrange(1, 1 << 16))
        if r < 0.66:
            kinds = ["float"] + (["half", "bfloat"] if self.msl_only else [])
            return Stmt("float", type=self.r.choice(kinds), a=self.var(), b=self.var(), var=self.var(),
                        c1=self.r.choice(FLOAT_CONSTANTS), c2=self.r.choice(FLOAT_CONSTANTS),
                        op=self.r.choice(["+", "-", "*"]))
        return Stmt("assign", var=self.var(), value=self.expr())


# ---------------------------------------------------------------- the reference's number formats
def f32(x):
    return np.float32(x)


def bf16(x):
    """float32 -> bfloat16 (as float32), rounding to nearest even as MSL's bfloat(float) does."""
    bits = int(np.float32(x).view(np.uint32))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return np.uint32(bits).view(np.float32)


def bf16_bits(x):
    return int(np.float32(x).view(np.uint32)) >> 16


def reduce_values(fn, values, init=None):
    """A SIMD- or quad-group reduction of uint values (wrapping sums and products)."""
    if not values:
        return init
    acc = values[0]
    for v in values[1:]:
        acc = {"sum": acc + v, "product": acc * v, "max": max(acc, v), "min": min(acc, v),
               "and": acc & v, "or": acc | v, "xor": acc ^ v}[fn] & MASK
    return acc if init is None else {"sum": (init + acc) & MASK, "product": (init * acc) & MASK}[fn]


def float_stmt_value(s, a, b):
    """What a `float` statement folds into its variable, from the values of s.a and s.b."""
    c1, c2 = f32(float(s.c1)), f32(float(s.c2))
    with np.errstate(over="ignore", invalid="ignore"):
        if s.type == "float":
            f = f32(f32(a & 0xFFFFFF) * c1) + f32(f32(b >> 8) * c2)
            g = f32(a >> 20) + c2
            f = {"+": f + g, "-": f - g, "*": f * g}[s.op]
            return int(np.float32(f).view(np.uint32))
        if s.type == "half":
            h = np.float16(f32(a & 0xFFFF) * c1)
            g = np.float16(b & 0x3FF)
            h = {"+": h * np.float16(c2) + g, "-": h * np.float16(c2) - g, "*": h * np.float16(c2) * g}[s.op]
            return int(np.float16(h).view(np.uint16))
        x = bf16(f32(a) * c1)
        g = bf16(f32(b & 0xFF))
        y = bf16(x * bf16(c2))
        y = bf16({"+": y + g, "-": y - g, "*": y * g}[s.op])
        return bf16_bits(y)


class Program:
    def __init__(self, seed):
        self.seed = seed
        g = Generator(seed)
        self.nvars = g.nvars
        self.msl_only = g.msl_only
        self.tg = g.tg
        self.grid = g.tg * GROUPS
        self.body = g.block(True, 0, g.r.randint(4, 10))
        self.inputs = [g.r.randrange(1 << 32) for _ in range(INPUTS)]

    def statements(self):
        """Paths to every statement, depth first: tuples of (list, index) steps."""
        out = []

        def walk(block, prefix):
            for i, s in enumerate(block):
                out.append(prefix + ((id(block), i),))
                walk(s.body, prefix + ((id(block), i),))
                walk(s.orelse, prefix + ((id(block), i),))
        walk(self.body, ())
        return out

    def without(self, victim):
        """A copy of the program with the statement at path `victim` (from statements()) removed."""
        import copy
        other = copy.deepcopy(self)
        # Paths use ids of the original lists: map them through a parallel walk.
        mapping = {}

        def pair(a, b):
            mapping[id(a)] = b
            for s, t in zip(a, b):
                pair(s.body, t.body)
                pair(s.orelse, t.orelse)
        pair(self.body, other.body)
        block_id, index = victim[-1]
        del mapping[block_id][index]
        return other

    def size(self):
        return len(self.statements())

    # ---------------------------------------------------------------- the reference
    def reference(self):
        """(each thread's hash, the counters) as uint32 arrays, computed in Python."""
        out = np.zeros(self.grid, np.uint32)
        counters = [0] * COUNTERS
        for group in range(GROUPS):
            envs = []
            for lid in range(self.tg):
                gid = group * self.tg + lid
                env = {"lid": lid, "gid": gid, "tgid": group}
                for v in range(self.nvars):
                    env["v%d" % v] = self.inputs[(gid * (2 * v + 1) + 7 * v + 3) % INPUTS]
                envs.append(env)
            self._run(self.body, envs, list(range(self.tg)), counters)
            for lid, env in enumerate(envs):
                h = 0
                for v in range(self.nvars):
                    h ^= (env["v%d" % v] * ((2654435761 + 2 * v) & MASK)) & MASK
                out[group * self.tg + lid] = h
        return out, np.array(counters, np.uint32)

    def _run(self, block, envs, active, counters):
        for s in block:
            self._step(s, envs, active, counters)

    def _step(self, s, envs, active, counters):
        if s.kind == "assign":
            for t in active:
                envs[t][s.var] = s.value.eval(envs[t])
        elif s.kind == "if":
            taken = [t for t in active if s.cond.eval(envs[t])]
            self._run(s.body, envs, taken, counters)
            self._run(s.orelse, envs, [t for t in active if t not in taken], counters)
        elif s.kind == "for":
            for i in range(s.count):
                for t in active:
                    envs[t][s.index] = i
                self._run(s.body, envs, active, counters)
        elif s.kind == "exchange":
            tg = [envs[t][s.var] for t in range(self.tg)]
            for t in active:
                envs[t][s.var] ^= tg[(t + s.offset) % self.tg]
        elif s.kind == "atomic":
            for t in active:
                value = s.value.eval(envs[t])
                if s.op == "add":
                    counters[s.counter] = (counters[s.counter] + (value & 0xFFFF)) & MASK
                else:
                    counters[s.counter] = (max if s.op == "max" else min)(counters[s.counter], value)
        elif s.kind == "simd":
            width = 4 if s.quad else 32
            values = {t: s.value.eval(envs[t]) for t in active}
            results = {}
            for t in active:
                lane = t % 32
                peers = [u for u in active if u // width == t // width]  # active lanes of its group, in order
                if s.op == "reduce":
                    results[t] = reduce_values(s.fn, [values[u] for u in peers])
                elif s.op == "prefix":
                    product = s.fn == "product"
                    before = [values[u] for u in peers if u < t or (s.inclusive and u == t)]
                    results[t] = reduce_values("product" if product else "sum", before, 1 if product else 0)
                elif s.op == "ballot":
                    results[t] = sum(1 << (u % 32) for u in peers if values[u] > 1000) & MASK
                else:
                    base = t - t % width
                    source = base + ((t % width) ^ s.lane if s.op == "shuffle" else s.lane)
                    results[t] = values[source]
                del lane
            for t in active:
                envs[t][s.var] = (envs[t][s.var] + results[t]) & MASK
        elif s.kind == "vector":
            for t in active:
                e = envs[t]
                a, b = e[s.a], e[s.b]
                w = [a, b, a ^ 1, (b + 1) & MASK]
                pick = ["xyzw".index(c) for c in s.swizzle]
                w = [(w[pick[i]] * s.k + w[i]) & MASK for i in range(4)]
                e[s.a] = w[0] ^ w[1] ^ w[2] ^ w[3]
        elif s.kind == "float":
            for t in active:
                e = envs[t]
                e[s.var] ^= float_stmt_value(s, e[s.a], e[s.b])
        else:
            raise ValueError(s.kind)

    # ---------------------------------------------------------------- printing
    def emit(self, lang):
        msl = lang == "msl"
        lines = []
        if msl:
            lines += ["#include <metal_stdlib>", "using namespace metal;", "",
                      "// Generated by testsuite/fuzz/kernelgen.py, seed %d." % self.seed,
                      "kernel void k(device uint* out [[buffer(0)]], device atomic_uint* counters [[buffer(1)]],",
                      "              device const uint* in [[buffer(2)]], uint gid [[thread_position_in_grid]],",
                      "              uint lid [[thread_position_in_threadgroup]], uint tgid [[threadgroup_position_in_grid]]) {",
                      "  threadgroup uint tg[%d];" % self.tg]
        else:
            lines += ["// Generated by testsuite/fuzz/kernelgen.py, seed %d (the OpenCL C twin)." % self.seed,
                      "// OpenCL C may contract a * b + c into an fma; MSL (and mslsim) round each operation.",
                      "#pragma OPENCL FP_CONTRACT OFF",
                      "__kernel void k(__global uint* out, __global volatile uint* counters, __global const uint* in) {",
                      "  uint gid = get_global_id(0), lid = get_local_id(0), tgid = get_group_id(0);",
                      "  __local uint tg[%d];" % self.tg]
        for v in range(self.nvars):
            lines.append("  uint v%d = in[(gid * %du + %du) %% %du];" % (v, 2 * v + 1, 7 * v + 3, INPUTS))
        for s in self.body:
            self._emit(s, lines, 1, msl)
        mix = " ^ ".join("(v%d * %du)" % (v, 2654435761 + 2 * v) for v in range(self.nvars))
        lines.append("  out[gid] = %s;" % mix)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _emit(self, s, lines, depth, msl):
        pad = "  " * depth
        if s.kind == "assign":
            lines.append("%s%s = %s;" % (pad, s.var, s.value))
        elif s.kind == "if":
            lines.append("%sif %s {" % (pad, s.cond))
            for c in s.body:
                self._emit(c, lines, depth + 1, msl)
            if s.orelse:
                lines.append("%s} else {" % pad)
                for c in s.orelse:
                    self._emit(c, lines, depth + 1, msl)
            lines.append("%s}" % pad)
        elif s.kind == "for":
            lines.append("%sfor (uint %s = 0u; %s < %du; ++%s) {" % (pad, s.index, s.index, s.count, s.index))
            for c in s.body:
                self._emit(c, lines, depth + 1, msl)
            lines.append("%s}" % pad)
        elif s.kind == "exchange":
            barrier = "threadgroup_barrier(mem_flags::mem_threadgroup);" if msl else "barrier(CLK_LOCAL_MEM_FENCE);"
            lines.append("%stg[lid] = %s;" % (pad, s.var))
            lines.append(pad + barrier)
            lines.append("%s%s = %s ^ tg[(lid + %du) %% %du];" % (pad, s.var, s.var, s.offset, self.tg))
            lines.append(pad + barrier)
        elif s.kind == "atomic":
            value = "(%s) & 0xFFFFu" % s.value if s.op == "add" else s.value
            if msl:
                lines.append("%satomic_fetch_%s_explicit(&counters[%d], %s, memory_order_relaxed);"
                             % (pad, s.op, s.counter, value))
            else:
                lines.append("%satomic_%s(&counters[%d], %s);" % (pad, s.op, s.counter, value))
        elif s.kind == "simd":
            assert msl, "SIMD- and quad-group functions have no OpenCL twin"
            group = "quad" if s.quad else "simd"
            if s.op == "reduce":
                call = "%s_%s(%s)" % (group, s.fn, s.value)
            elif s.op == "prefix":
                fn = "sum" if s.fn not in ("product",) else "product"
                call = "%s_prefix_%s_%s(%s)" % (group, "inclusive" if s.inclusive else "exclusive", fn, s.value)
            elif s.op == "ballot":
                call = "uint(ulong(simd_ballot((%s) > 1000u)))" % s.value
            elif s.op == "shuffle":
                call = "%s_shuffle_xor(%s, ushort(%du))" % (group, s.value, s.lane)
            else:
                call = "%s_broadcast(%s, ushort(%du))" % (group, s.value, s.lane)
            lines.append("%s%s = %s + %s;" % (pad, s.var, s.var, call))
        elif s.kind == "float":
            bits = "as_type<uint>(%s)" if msl else "as_uint(%s)"
            c1, c2 = s.c1 + "f", s.c2 + "f"
            lines.append("%s{" % pad)
            if s.type == "float":
                cast = "float(%s)" if msl else "(float)(%s)"
                lines.append("%s  float f = %s * %s + %s * %s;"
                             % (pad, cast % (s.a + " & 0xFFFFFFu"), c1, cast % (s.b + " >> 8u"), c2))
                lines.append("%s  f = f %s (%s + %s);" % (pad, s.op, cast % (s.a + " >> 20u"), c2))
                lines.append("%s  %s = %s ^ %s;" % (pad, s.var, s.var, bits % "f"))
            elif s.type == "half":
                lines.append("%s  half h = half(float(%s & 0xFFFFu) * %s);" % (pad, s.a, c1))
                lines.append("%s  half g = half(%s & 0x3FFu);" % (pad, s.b))
                lines.append("%s  h = h * half(%s) %s g;" % (pad, c2, s.op))
                lines.append("%s  %s = %s ^ uint(as_type<ushort>(h));" % (pad, s.var, s.var))
            else:
                lines.append("%s  bfloat x = bfloat(float(%s) * %s);" % (pad, s.a, c1))
                lines.append("%s  bfloat g = bfloat(float(%s & 0xFFu));" % (pad, s.b))
                lines.append("%s  bfloat y = x * bfloat(%s);" % (pad, c2))
                lines.append("%s  y = y %s g;" % (pad, s.op))
                lines.append("%s  %s = %s ^ uint(as_type<ushort>(y));" % (pad, s.var, s.var))
            lines.append("%s}" % pad)
        elif s.kind == "vector":
            make = "uint4(%s, %s, %s ^ 1u, %s + 1u)" if msl else "(uint4)(%s, %s, %s ^ 1u, %s + 1u)"
            splat = "uint4(%du)" % s.k if msl else "(uint4)(%du)" % s.k
            lines.append("%s{" % pad)
            lines.append("%s  uint4 w = %s;" % (pad, make % (s.a, s.b, s.a, s.b)))
            lines.append("%s  w = w.%s * %s + w;" % (pad, s.swizzle, splat))
            lines.append("%s  %s = w.x ^ w.y ^ w.z ^ w.w;" % (pad, s.a))
            lines.append("%s}" % pad)
