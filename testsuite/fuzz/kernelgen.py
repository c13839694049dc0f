"""Random kernels whose result is deterministic by construction, in MSL and as an OpenCL C twin.

In the spirit of CLsmith (Lidbury et al., "Many-core compiler fuzzing", PLDI 2015): a program is a
tree of statements over 32-bit unsigned variables (wrap-around arithmetic, shifts masked to 0..31,
division and remainder by a value made odd), with uniform and non-uniform control flow, loops
with constant trip counts, threadgroup memory exchanges between barriers (only where every thread
of the threadgroup gets: never under a condition), vectors with swizzles, bit functions, and
device atomics whose results are never read (only the final sums and maxima, which do not depend
on the order). Every thread ends by storing a hash of its variables. The same tree prints as MSL
and as OpenCL C, so POCL is an independent reference; `Program.without(path)` drops one statement
for the reducer. Everything is a function of the seed.

Half the programs also use SIMD-group functions (MSL only: POCL's sub-groups are not 32 wide, so
those are compared between mslsim's execution paths): reductions, prefix sums and ballots over the
active lanes anywhere (their result is defined whatever the divergence), shuffles only where every
lane takes part and only from lanes that exist, with threadgroups of 48 (one full and one partial
SIMD-group) or 64.
"""
import random

GROUPS = 4       # threadgroups
COUNTERS = 8     # device atomics
COUNTER_OPS = ["add"] * 4 + ["max"] * 2 + ["min"] * 2
INPUTS = 97      # input words


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
        self.simd = self.r.random() < 0.5
        self.tg = self.r.choice([48, 64]) if self.simd else 64

    def var(self):
        return "v%d" % self.r.randrange(self.nvars)

    def leaf(self):
        r = self.r.random()
        if r < 0.45:
            return self.var()
        if r < 0.6:
            return self.r.choice(["lid", "gid", "tgid"])
        if r < 0.7 and self.loop_depth:
            return "i%d" % self.r.randrange(self.loop_depth)
        return "%du" % self.r.choice([0, 1, 2, 3, 7, 31, 255, 0xFFFF, 0x80000000, 0xFFFFFFFF,
                                        self.r.randrange(1 << 32)])

    def expr(self, depth=0):
        if depth > 2 or self.r.random() < 0.3:
            return self.leaf()
        a, b = self.expr(depth + 1), self.expr(depth + 1)
        op = self.r.randrange(12)
        if op < 5:
            return "(%s %s %s)" % (a, ["+", "-", "*", "^", "&"][op], b)
        if op == 5:
            return "(%s | %s)" % (a, b)
        if op == 6:
            return "(%s %s (%s & 31u))" % (a, self.r.choice(["<<", ">>"]), b)
        if op == 7:
            return "%s(%s, %s)" % (self.r.choice(["min", "max"]), a, b)
        if op == 8:
            return "(%s %s (%s | 1u))" % (a, self.r.choice(["/", "%"]), b)
        if op == 9:
            return "((%s %s %s) ? %s : %s)" % (a, self.r.choice(["<", ">", "==", "!="]), b,
                                              self.expr(depth + 1), self.expr(depth + 1))
        if op == 10:
            return "%s(%s)" % (self.r.choice(["popcount", "clz"]), a)
        return "(%s + %s * %du)" % (a, b, self.r.randrange(1, 1000))

    def block(self, uniform, depth, size):
        return [self.stmt(uniform, depth) for _ in range(size)]

    def stmt(self, uniform, depth):
        r = self.r.random()
        if depth < 2 and r < 0.15:
            return Stmt("if", cond="(%s %s %s)" % (self.expr(1), self.r.choice(["<", ">", "!="]), self.expr(1)),
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
        if self.simd and r < 0.5:
            kind = self.r.choice(["reduce", "prefix", "ballot"] + (["shuffle", "broadcast"] if uniform else []))
            # Lanes below 16 exist in every SIMD-group, the partial one of a 48-thread group too.
            return Stmt("simd", var=self.var(), op=kind, value=self.expr(1), lane=self.r.randrange(1, 16),
                        fn=self.r.choice(["sum", "max", "min", "and", "or", "xor", "product"]),
                        inclusive=self.r.random() < 0.5)
        if r < 0.52:
            # One operation per counter (0-3 add, 4-5 max, 6-7 min): mixed, the result would
            # depend on the order.
            counter = self.r.randrange(COUNTERS)
            return Stmt("atomic", op=COUNTER_OPS[counter], counter=counter, value=self.expr(1))
        if r < 0.62:
            return Stmt("vector", a=self.var(), b=self.var(), swizzle="".join(self.r.sample("xyzw", 4)),
                        k=self.r.randrange(1, 1 << 16))
        return Stmt("assign", var=self.var(), value=self.expr())


class Program:
    def __init__(self, seed):
        self.seed = seed
        g = Generator(seed)
        self.nvars = g.nvars
        self.simd = g.simd
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
            assert msl, "SIMD-group functions have no OpenCL twin"
            if s.op == "reduce":
                call = "simd_%s(%s)" % (s.fn, s.value)
            elif s.op == "prefix":
                fn = "sum" if s.fn not in ("product",) else "product"
                call = "simd_prefix_%s_%s(%s)" % ("inclusive" if s.inclusive else "exclusive", fn, s.value)
            elif s.op == "ballot":
                call = "uint(ulong(simd_ballot((%s) > 1000u)))" % s.value
            elif s.op == "shuffle":
                call = "simd_shuffle_xor(%s, ushort(%du))" % (s.value, s.lane)
            else:
                call = "simd_broadcast(%s, ushort(%du))" % (s.value, s.lane)
            lines.append("%s%s = %s + %s;" % (pad, s.var, s.var, call))
        elif s.kind == "vector":
            make = "uint4(%s, %s, %s ^ 1u, %s + 1u)" if msl else "(uint4)(%s, %s, %s ^ 1u, %s + 1u)"
            splat = "uint4(%du)" % s.k if msl else "(uint4)(%du)" % s.k
            lines.append("%s{" % pad)
            lines.append("%s  uint4 w = %s;" % (pad, make % (s.a, s.b, s.a, s.b)))
            lines.append("%s  w = w.%s * %s + w;" % (pad, s.swizzle, splat))
            lines.append("%s  %s = w.x ^ w.y ^ w.z ^ w.w;" % (pad, s.a))
            lines.append("%s}" % pad)
