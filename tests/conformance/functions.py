"""The conformance table: every function of the MSL standard library's math, common, integer,
relational and geometric lists (shared/reference/msl-inventory.md §3.1-3.5) and the scalar
conversions (§2.9, §3.7), with its reference, its input domain and the error bound the
Metal Shading Language Specification (version 4, "MSL4") allows, in ULP, with the table it comes from.

Bounds (class Bound):
  CR            correctly rounded: the result must equal the float64 reference rounded once to the
                result type (sign of zero included). "0 ulp" rows of the spec are the same check.
  ulp(n)        |result - reference| <= n ulp(reference)  (MSL4 §8.4 definition of ulp)
  absolute(e)   |result - reference| <= e
  formula(f)    the spec says "implemented as f": the result may be as far from the exact value as f
                evaluated in float32 (numpy, one rounding per operation) is, plus 4 ulp for the
                component functions' own errors; where f itself is not finite the result is undefined
  exact         integer/boolean results and bit patterns: equal.

Spec tables: Table 8.1 (float, precise; also metal:: here, since mslsim's default math mode is safe,
fast math off, as MLX's), Table 8.2 (float, metal::fast::), Table 8.3 (half). The spec gives no
function bounds for bfloat (Table 8.4 covers + - * / only); bfloat functions are computed in float
and rounded once (as MLX's bf16_math.h does), and are held here to the half table's bound for the
same function. A function with no row in a table gets a bound marked "(no spec row: ...)" saying
what we require instead. fast:: values with NaN or infinite inputs or results are not checked, nor
signs of zero (MSL4 §8.1: "If fast math is enabled the behavior of handling NaN or INF (as inputs or
outputs) is undefined"; §8.4: reassociation "may change or ignore the sign of zero").

xfail: a case known to fail, with the reason; the runner reports XFAIL, and an XFAIL that passes is
an error (remove the mark).
"""
import math

import numpy as np

from fp import BFLOAT, FLOAT, HALF

T81 = "MSL4 Table 8.1"
T82 = "MSL4 Table 8.2"
T83 = "MSL4 Table 8.3"


class Bound:
    def __init__(self, kind, n=0.0, src="", fn=None, note=""):
        self.kind, self.n, self.src, self.fn, self.note = kind, n, src, fn, note

    def describe(self):
        if self.kind == "cr":
            s = "correctly rounded (0.5 ulp)"
        elif self.kind == "exact":
            s = "exact (0 ulp)"
        elif self.kind == "ulp":
            s = f"<= {self.n:g} ulp"
        elif self.kind == "abs":
            s = f"abs err <= {self.n:g}"
        elif self.kind == "ulpfn":
            s = self.note
        elif self.kind == "formula":
            s = f"as {self.note} (+4 ulp)"
        else:
            s = self.kind
        return f"{s} [{self.src}]" if self.src else s


def CR(src):
    return Bound("cr", 0.5, src)


def ZERO(src):              # the spec's "0 ulp": an exact result
    return Bound("cr", 0.0, src)


def ULP(n, src):
    return Bound("ulp", n, src)


def ABS(e, src):
    return Bound("abs", e, src)


def FORMULA(note, fn, src=T82):
    return Bound("formula", 0, src, fn, note)


def ULPFN(note, fn, src):
    return Bound("ulpfn", 0, src, fn, note)


UNDEF = Bound("undefined", 0, T82)

# ---------------------------------------------------------------- references (float64)
f32 = np.float32


def _pi_reduce(x):
    """x mod 2, exactly (fmod is exact), in [0, 2) for the sign-symmetric pi functions."""
    return np.fmod(x, 2.0)


def sinpi(x):
    r = _pi_reduce(x)
    with np.errstate(invalid="ignore"):
        v = np.sin(np.pi * r)
        v = np.where(r == np.round(r), np.copysign(0.0, x), v)          # integers: ±0 (C23)
        v = np.where(np.abs(r) == 0.5, np.sign(r), v)
        v = np.where(np.abs(r) == 1.5, -np.sign(r), v)
    return np.where(np.isinf(x), np.nan, v)


def cospi(x):
    r = np.abs(_pi_reduce(x))
    with np.errstate(invalid="ignore"):
        v = np.cos(np.pi * r)
        v = np.where((r == 0.5) | (r == 1.5), 0.0, v)
        v = np.where(r == 1.0, -1.0, np.where(r == 0.0, 1.0, v))
    return np.where(np.isinf(x), np.nan, v)


def tanpi(x):
    r = np.fmod(x, 1.0)                                               # tan has period pi
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.tan(np.pi * r)
        v = np.where(np.abs(r) == 0.5, np.inf * np.sign(r), v)
        v = np.where(np.abs(r) == 0.25, np.sign(r), v)
        v = np.where(r == 0.0, np.copysign(0.0, x), v)
    return np.where(np.isinf(x), np.nan, v)


def rsqrt(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def round_half_away(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def fdim(x, y):
    with np.errstate(invalid="ignore"):
        r = np.where(x > y, x - y, 0.0)
    return np.where(np.isnan(x) | np.isnan(y), np.nan, r)


def fmedian3(x, y, z):
    a = np.stack([x, y, z])
    # middle value ignoring NaN; two NaN -> the other; three -> NaN. With one NaN the spec allows
    # either of the other two values: the checker accepts both (see 'alt' in the table).
    s = np.sort(a, axis=0)          # NaN sorts last
    n = np.isnan(a).sum(axis=0)
    r = np.where(n == 0, s[1], np.where(n == 1, s[0], np.where(n == 2, s[0], np.nan)))
    return r


def fmedian3_alt(x, y, z):
    a = np.stack([x, y, z])
    s = np.sort(a, axis=0)
    n = np.isnan(a).sum(axis=0)
    return np.where(n == 1, s[1], fmedian3(x, y, z))


def fmod(x, y):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.fmod(x, y)


def fract(x, fmt):
    below_one = 1.0 - 2.0 ** -fmt.p
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x), np.nan, np.minimum(x - np.floor(x), below_one))


def _np(f):
    def g(*a):
        with np.errstate(all="ignore"):
            return f(*a)
    return g


def nextafter_ref(fmt):
    def f(x, y):
        if fmt is FLOAT:
            r = np.nextafter(x.astype(np.float32), y.astype(np.float32)).astype(np.float64)
            return np.where(x == y, y, r)       # "if x equals y, return y" (MSL4 Table 6.4)
        if fmt is HALF:
            r = np.nextafter(x.astype(np.float16), y.astype(np.float16)).astype(np.float64)
            return np.where(x == y, y, r)
        from fp import f64_to_bf16_bits, bf16_bits_to_f64
        b = f64_to_bf16_bits(x).astype(np.int32)
        mag = b & 0x7FFF
        neg = (b & 0x8000) != 0
        toward_up = y > x
        step_mag_up = np.where(neg, ~toward_up, toward_up)
        nb = np.where(step_mag_up, b + 1, b - 1)
        zero = mag == 0
        nb = np.where(zero, np.where(y > 0, 1, 0x8001), nb)
        r = bf16_bits_to_f64(nb.astype(np.uint16))
        r = np.where(x == y, y, r)
        return np.where(np.isnan(x) | np.isnan(y), np.nan, r)
    return f


# ---------------------------------------------------------------- fast:: formulas (float32, numpy)
def _f(fn):
    def g(*a):
        with np.errstate(all="ignore"):
            return np.asarray(fn(*[np.asarray(v, np.float32) for v in a]), np.float32).astype(np.float64)
    return g


L2_10 = f32(math.log2(10.0))
LG10_2 = f32(math.log10(2.0))
PI32 = f32(math.pi)
fast_formulas = {
    "acosh": ("log(x + sqrt(x*x - 1.0))", _f(lambda x: np.log(x + np.sqrt(x * x - f32(1))))),
    "asinh": ("log(x + sqrt(x*x + 1.0))", _f(lambda x: np.log(x + np.sqrt(x * x + f32(1))))),
    # The spec prints 0.5*(log(1.0 + x)/(1.0 - x)); the parenthesis is evidently misplaced (that is
    # not atanh); the formula meant is 0.5*log((1.0 + x)/(1.0 - x)).
    "atanh": ("0.5*log((1.0 + x)/(1.0 - x))", _f(lambda x: f32(0.5) * np.log((f32(1) + x) / (f32(1) - x)))),
    "cosh": ("0.5*(exp(x) + exp(-x))", _f(lambda x: f32(0.5) * (np.exp(x) + np.exp(-x)))),
    "sinh": ("0.5*(exp(x) - exp(-x))", _f(lambda x: f32(0.5) * (np.exp(x) - np.exp(-x)))),
    "exp10": ("exp2(x*log2(10))", _f(lambda x: np.exp2(x * L2_10))),
    "log10": ("log2(x)*log10(2)", _f(lambda x: np.log2(x) * LG10_2)),
    "pow": ("exp2(y*log2(x))", _f(lambda x, y: np.exp2(y * np.log2(x)))),
    "powr": ("exp2(y*log2(x))", _f(lambda x, y: np.exp2(y * np.log2(x)))),
    "sqrt": ("x*rsqrt(x)", _f(lambda x: x * (f32(1) / np.sqrt(x)))),
    "tan": ("sin(x)*(1.0/cos(x))", _f(lambda x: np.sin(x) * (f32(1) / np.cos(x)))),
    "tanh": ("(t-1.0)/(t+1.0), t = exp(2.0*x)", _f(lambda x: (np.exp(f32(2) * x) - f32(1)) / (np.exp(f32(2) * x) + f32(1)))),
    "tanpi": ("tan(x*pi)", _f(lambda x: np.tan(x * PI32))),
    "atan2": ("atan(y/x) (+-pi for x < 0)",
              _f(lambda y, x: np.where(x > 0, np.arctan(y / x),
                                       np.where(y > 0, np.arctan(y / x) + PI32, np.arctan(y / x) - PI32)))),
}


def fast(name):
    note, fn = fast_formulas[name]
    return FORMULA(note, fn)


def exp_fast_bound(xs, ref, fmt):
    return 3 + np.floor(np.abs(2 * xs[0]))


def log_fast_bound(absolute, ulps):
    def f(xs, ref, fmt):
        from fp import ulp
        x = xs[0]
        return np.where((x >= 0.5) & (x <= 2), absolute / ulp(ref, fmt), ulps)
    return f


# ---------------------------------------------------------------- math (§3.1, MSL4 §6.5)
class Math:
    """One math function. args: 'f' a floating argument, 'i' an int argument (ldexp's exponent).
    precise: Table 8.1 bound (also metal::); fast: Table 8.2 bound or None (not tested in fast::);
    half: Table 8.3 bound (also used for bfloat unless bfloat= is given). dom: input domain name
    (runner.DOMAINS); fast_dom(xs) -> mask of inputs where Table 8.2's bound applies.
    skip(xs) -> mask of inputs whose result the spec leaves undefined."""

    def __init__(self, name, args, ref, precise, fast=None, half=None, bfloat=None, dom="any",
                 fast_dom=None, skip=None, outs=("f",), body=None, refs=None, zero_sign=True,
                 alt=None, namespaces=("metal", "precise", "fast"), xfail=None, vec=True):
        self.name, self.args, self.ref = name, args, ref
        self.bounds = {"precise": precise, "fast": fast, "half": half,
                       "bfloat": bfloat if bfloat is not None else half}
        self.dom, self.fast_dom, self.skip = dom, fast_dom, skip
        self.outs, self.body, self.refs = outs, body, refs
        self.zero_sign, self.alt, self.namespaces = zero_sign, alt, namespaces
        self.xfail = xfail or {}
        self.vec = vec


def in_range(lo, hi):
    return lambda xs: (xs[0] >= lo) & (xs[0] <= hi)


def nonfinite_any(xs):
    m = np.zeros(xs[0].shape, bool)
    for x in xs:
        m |= ~np.isfinite(x)
    return m


MATH = [
    Math("acos", "f", _np(np.arccos), ULP(4, T81), ULP(5, T82), ULP(1, T83), dom="unit",
         fast_dom=in_range(-1, 1)),
    Math("acosh", "f", _np(np.arccosh), ULP(4, T81), fast("acosh"), ULP(1, T83), dom="acosh"),
    Math("asin", "f", _np(np.arcsin), ULP(4, T81), ULP(5, T82), ULP(1, T83), dom="unit",
         fast_dom=lambda xs: (np.abs(xs[0]) <= 1) & (np.abs(xs[0]) >= 2.0 ** -125)),
    Math("asinh", "f", _np(np.arcsinh), ULP(4, T81), fast("asinh"), ULP(1, T83), dom="any"),
    Math("atan", "f", _np(np.arctan), ULP(5, T81), ULP(5, T82), ULP(1, T83), dom="any"),
    Math("atanh", "f", _np(np.arctanh), ULP(5, T81), fast("atanh"), ULP(1, T83), dom="atanh"),
    Math("ceil", "f", _np(np.ceil), CR(T81), CR(T82), CR(T83)),
    Math("cos", "f", _np(np.cos), ULP(4, T81), ABS(2.0 ** -13, T82), ULP(1, T83), dom="trig",
         fast_dom=in_range(-math.pi, math.pi)),
    Math("cosh", "f", _np(np.cosh), ULP(4, T81), fast("cosh"), ULP(1, T83), dom="hyper"),
    Math("cospi", "f", cospi, ULP(4, T81), ABS(2.0 ** -13, T82), ULP(1, T83), dom="pi",
         fast_dom=in_range(-1, 1), zero_sign="input"),
    Math("exp", "f", _np(np.exp), ULP(4, T81), ULPFN("<= 3+floor(|2x|) ulp", exp_fast_bound, T82),
         ULP(1, T83), dom="exp"),
    Math("exp2", "f", _np(np.exp2), ULP(4, T81), ULPFN("<= 3+floor(|2x|) ulp", exp_fast_bound, T82),
         ULP(1, T83), dom="exp2"),
    Math("exp10", "f", _np(lambda x: np.power(10.0, x)), ULP(4, T81), fast("exp10"), ULP(1, T83),
         dom="exp10"),
    Math("fabs", "f", np.abs, ZERO(T81), ZERO(T82), ZERO(T83)),
    Math("abs", "f", np.abs, ZERO(T81 + " (fabs)"), ZERO(T82 + " (fabs)"), ZERO(T83 + " (fabs)")),
    Math("floor", "f", _np(np.floor), CR(T81), CR(T82), CR(T83)),
    Math("fract", "f", None, CR(T81), CR(T82), CR(T83),
         skip=lambda xs: np.isinf(xs[0])),   # fract(±inf): the spec gives no value
    Math("log", "f", _np(np.log), ULP(4, T81),
         ULPFN("abs err <= 2^-21 on [0.5,2], else <= 3 ulp", log_fast_bound(2.0 ** -21, 3), T82),
         ULP(1, T83), dom="log", fast_dom=lambda xs: xs[0] > 0),
    Math("log2", "f", _np(np.log2), ULP(4, T81),
         ULPFN("abs err <= 2^-22 on [0.5,2], else <= 2 ulp", log_fast_bound(2.0 ** -22, 2), T82),
         ULP(1, T83), dom="log", fast_dom=lambda xs: xs[0] > 0),
    Math("log10", "f", _np(np.log10), ULP(4, T81), fast("log10"), ULP(1, T83), dom="log",
         fast_dom=lambda xs: xs[0] > 0),
    Math("rint", "f", _np(np.rint), CR(T81), CR(T82), CR(T83)),
    Math("round", "f", _np(round_half_away), CR(T81), CR(T82), CR(T83)),
    Math("rsqrt", "f", rsqrt, CR(T81), ULP(2, T82), CR(T83), dom="pos"),
    Math("sin", "f", _np(np.sin), ULP(4, T81), ABS(2.0 ** -13, T82), ULP(1, T83), dom="trig",
         fast_dom=in_range(-math.pi, math.pi)),
    Math("sinh", "f", _np(np.sinh), ULP(4, T81), fast("sinh"), ULP(1, T83), dom="hyper"),
    Math("sinpi", "f", sinpi, ULP(4, T81), ABS(2.0 ** -13, T82), ULP(1, T83), dom="pi",
         fast_dom=in_range(-1, 1), zero_sign="input"),
    Math("sqrt", "f", _np(np.sqrt), CR(T81), fast("sqrt"), CR(T83), dom="pos"),
    Math("tan", "f", _np(np.tan), ULP(6, T81), fast("tan"), ULP(1, T83), dom="trig"),
    Math("tanh", "f", _np(np.tanh), ULP(5, T81), fast("tanh"), ULP(1, T83), dom="hyper"),
    # The spec does not say which infinity tanpi returns at half-integers: either is accepted;
    # signs of zero (C23 has rules for sinpi/cospi/tanpi of integers) only for ±0 arguments.
    Math("tanpi", "f", tanpi, ULP(6, T81), fast("tanpi"), ULP(1, T83), dom="pi", zero_sign="input",
         alt=lambda x: np.where(np.isinf(tanpi(x)), -tanpi(x), tanpi(x))),
    Math("trunc", "f", _np(np.trunc), CR(T81), CR(T82), CR(T83)),
    # two arguments
    Math("atan2", "ff", _np(np.arctan2), ULP(6, T81), fast("atan2"), ULP(1, T83), dom="pairs",
         fast_dom=lambda xs: (xs[0] != 0) & (xs[1] != 0)),
    Math("copysign", "ff", np.copysign, ZERO(T81), ZERO(T82), ZERO(T83), dom="pairs"),
    Math("divide", "ff", _np(lambda x, y: x / y), CR(T81 + " (x/y)"), ULP(2.5, T82 + " (x/y)"),
         CR(T83 + " (x/y)"), dom="pairs",
         fast_dom=lambda xs: (np.abs(xs[1]) >= 2.0 ** -126) & (np.abs(xs[1]) <= 2.0 ** 126)),
    Math("fdim", "ff", fdim, CR(T81), CR(T82), CR(T83), dom="pairs"),
    # fmax/fmin/max/min: 0 ulp; max(+0,-0) may return either zero (IEEE 754 maxNum).
    Math("fmax", "ff", np.fmax, ZERO(T81), ZERO(T82), ZERO(T83), dom="pairs", zero_sign=False),
    Math("fmin", "ff", np.fmin, ZERO(T81), ZERO(T82), ZERO(T83), dom="pairs", zero_sign=False),
    Math("max", "ff", np.fmax, ZERO(T81 + " (fmax)"), ZERO(T82 + " (fmax)"), ZERO(T83 + " (fmax)"),
         dom="pairs", zero_sign=False),
    Math("min", "ff", np.fmin, ZERO(T81 + " (fmin)"), ZERO(T82 + " (fmin)"), ZERO(T83 + " (fmin)"),
         dom="pairs", zero_sign=False),
    Math("fmod", "ff", fmod, ZERO(T81), UNDEF, ZERO(T83), dom="pairs"),
    Math("nextafter", "ff", None, ZERO(T81), None, ZERO(T83), dom="pairs",
         namespaces=("metal", "precise")),
    Math("pow", "ff", _np(np.power), ULP(16, T81), fast("pow"),
         ULP(1, "no Table 8.3 row: float result rounded once"), dom="pow",
         fast_dom=lambda xs: (xs[0] > 0)),
    # powr is pow restricted to x >= 0; special cases where C's pow and IEEE's powr differ
    # (x = 1 with y = ±inf, x = 0 with y = 0, x = inf with y = 0) are left out: the spec is silent.
    Math("powr", "ff", _np(np.power), ULP(16, T81), fast("powr"),
         ULP(1, "no Table 8.3 row: float result rounded once"), dom="powr",
         skip=lambda xs: (xs[0] < 0) | ((xs[0] == 1) & np.isinf(xs[1])) | ((xs[0] == 0) & (xs[1] == 0))
         | (np.isinf(xs[0]) & (xs[1] == 0)),
         fast_dom=lambda xs: (xs[0] > 0)),
    # three arguments
    Math("fma", "fff", None, CR(T81), CR(T82), CR(T83), dom="fma"),
    Math("fmax3", "fff", _np(lambda x, y, z: np.fmax(x, np.fmax(y, z))), ZERO("MSL4 Table 6.4: fmax(x,fmax(y,z))"),
         ZERO("MSL4 Table 6.4"), ZERO("MSL4 Table 6.4"), dom="triples", zero_sign=False,
         namespaces=("metal",)),
    Math("fmin3", "fff", _np(lambda x, y, z: np.fmin(x, np.fmin(y, z))), ZERO("MSL4 Table 6.4: fmin(x,fmin(y,z))"),
         ZERO("MSL4 Table 6.4"), ZERO("MSL4 Table 6.4"), dom="triples", zero_sign=False,
         namespaces=("metal",)),
    Math("fmedian3", "fff", fmedian3, ZERO("MSL4 Table 6.4 (NaN = missing data)"), None,
         ZERO("MSL4 Table 6.4"), dom="triples", zero_sign=False, alt=fmedian3_alt, namespaces=("metal",)),
    Math("max3", "fff", _np(lambda x, y, z: np.fmax(x, np.fmax(y, z))), ZERO("MSL4 Table 6.4 (fmax3)"),
         None, ZERO("MSL4 Table 6.4"), dom="triples", zero_sign=False, namespaces=("metal",)),
    Math("min3", "fff", _np(lambda x, y, z: np.fmin(x, np.fmin(y, z))), ZERO("MSL4 Table 6.4 (fmin3)"),
         None, ZERO("MSL4 Table 6.4"), dom="triples", zero_sign=False, namespaces=("metal",)),
    Math("median3", "fff", fmedian3, ZERO("MSL4 Table 6.4 (fmedian3)"), None, ZERO("MSL4 Table 6.4"),
         dom="triples", zero_sign=False, alt=fmedian3_alt, namespaces=("metal",)),
    # several results / integer arguments
    Math("frexp", "f", None, ZERO(T81), ZERO(T82), ZERO(T83), outs=("f", "int"),
         body="r0 = {ns}frexp(a0, r1);",
         skip=lambda xs: ~np.isfinite(xs[0])),      # exponent of inf/NaN: unspecified
    Math("ilogb", "f", None, ZERO(T81), ZERO(T82), ZERO(T83), outs=("int",),
         skip=lambda xs: ~np.isfinite(xs[0]) | (xs[0] == 0)),   # FP_ILOGB0/NAN: not defined in MSL
    Math("ldexp", "fi", None, CR(T81), CR(T82), CR(T83), dom="ldexp"),
    Math("modf", "f", None, ZERO(T81), ZERO(T82), ZERO(T83), outs=("f", "f"),
         body="r0 = {ns}modf(a0, r1);"),
    Math("sincos", "f", None, ULP(4, T81 + " (sin, cos)"), ABS(2.0 ** -13, T82 + " (sin, cos)"),
         ULP(1, T83 + " (sin, cos)"), outs=("f", "f"), dom="trig",
         body="r0 = {ns}sincos(a0, r1);", fast_dom=in_range(-math.pi, math.pi)),
]


def math_refs(m, fmt):
    """Reference functions, one per result, for Math m in format fmt."""
    if m.name == "fract":
        return [lambda x: fract(x, fmt)]
    if m.name == "nextafter":
        return [nextafter_ref(fmt)]
    if m.name == "fma":
        from fp import exact_fma
        return [lambda a, b, c: exact_fma(a, b, c, fmt)]
    if m.name == "frexp":
        return [lambda x: np.frexp(x)[0], lambda x: np.frexp(x)[1].astype(np.float64)]
    if m.name == "ilogb":
        return [lambda x: (np.frexp(x)[1] - 1).astype(np.float64)]
    if m.name == "ldexp":
        return [_np(lambda x, k: np.ldexp(x, k.astype(np.int64)))]
    if m.name == "modf":
        return [_np(lambda x: np.where(np.isinf(x), np.copysign(0.0, x), np.modf(x)[0])),
                _np(lambda x: np.modf(x)[1])]
    if m.name == "sincos":
        return [_np(np.sin), _np(np.cos)]
    return [m.ref]


# ---------------------------------------------------------------- common (§3.2, MSL4 §6.2)
# The spec gives no ULP rows for these; where Table 6.1 defines the result by a formula, the result
# must be within that formula's own error (evaluated in float32/float16, one rounding per operation)
# of the exact value, plus 1 ulp; clamp, saturate, sign and step are exact.
def _in_fmt(fn, fmt):
    dt = np.float16 if fmt is HALF else np.float32

    def g(*a):
        with np.errstate(all="ignore"):
            r = np.asarray(fn(*[np.asarray(v).astype(dt) for v in a], dt), dt).astype(np.float64)
        if fmt is BFLOAT:
            from fp import round64
            r = round64(r, fmt)
        return r
    return g


def _mix(x, y, a, dt=None):
    return x + (y - x) * a


def _mix2(x, y, a, dt):
    return (dt(1) - a) * x + a * y


def _smooth(e0, e1, x, dt):
    t = np.clip((x - e0) / (e1 - e0), dt(0), dt(1))
    return t * t * (dt(3) - dt(2) * t)


class Common:
    def __init__(self, name, args, ref, bound, dom, formulas=(), skip=None, namespaces=("metal",),
                 zero_sign=True, xfail=None):
        self.name, self.args, self.ref, self.bound, self.dom = name, args, ref, bound, dom
        self.formulas, self.skip, self.namespaces, self.zero_sign = formulas, skip, namespaces, zero_sign
        self.xfail = xfail or {}


def sign_ref(x):
    return np.where(np.isnan(x), 0.0, np.where(x > 0, 1.0, np.where(x < 0, -1.0, x)))


T61 = "MSL4 Table 6.1"
COMMON = [
    Common("clamp", "fff", lambda x, lo, hi: np.fmin(np.fmax(x, lo), hi), ZERO(T61 + ": fmin(fmax(x,lo),hi)"),
           "clamp", namespaces=("metal", "precise", "fast"), zero_sign=False),
    Common("saturate", "f", lambda x: np.fmin(np.fmax(x, 0.0), 1.0), ZERO(T61 + ": clamp to [0,1]"), "any",
           namespaces=("metal", "precise", "fast"), zero_sign=False),
    Common("sign", "f", sign_ref, ZERO(T61), "any"),
    Common("step", "ff", lambda e, x: np.where(x < e, 0.0, 1.0), ZERO(T61), "pairs",
           skip=lambda xs: np.isnan(xs[0]) | np.isnan(xs[1])),
    Common("mix", "fff", lambda x, y, a: x + (y - x) * a,
           Bound("formula", 0, T61 + ": x+(y-x)*a or (1-a)*x+a*y", None, "x+(y-x)*a or (1-a)*x+a*y"),
           "mix", formulas=(_mix, _mix2)),
    Common("smoothstep", "fff", lambda e0, e1, x: _smooth(e0, e1, x, float),
           Bound("formula", 0, T61 + ": t*t*(3-2*t)", None, "t=clamp((x-e0)/(e1-e0),0,1); t*t*(3-2t)"),
           "smooth", formulas=(_smooth,)),
]

# ---------------------------------------------------------------- relational (§3.4, MSL4 §6.4)
RELATIONAL_UNARY = {
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "isnormal": None,        # needs the format: |x| >= smallest normal, finite
    "signbit": np.signbit,
}
RELATIONAL_BINARY = {
    "isordered": lambda x, y: ~np.isnan(x) & ~np.isnan(y),
    "isunordered": lambda x, y: np.isnan(x) | np.isnan(y),
}

# ---------------------------------------------------------------- integer (§3.3, MSL4 §6.3)
# Every integer function is exact: references are Python integers.
INT_TYPES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"]
INT_BITS = {"char": 8, "uchar": 8, "short": 16, "ushort": 16, "int": 32, "uint": 32, "long": 64, "ulong": 64}
INT_NP = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
          "uint": np.uint32, "long": np.int64, "ulong": np.uint64, "bool": np.uint8}


def int_range(t):
    b = INT_BITS[t]
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if not t.startswith("u") else (0, (1 << b) - 1)


def wrap(v, t):
    b = INT_BITS[t]
    v &= (1 << b) - 1
    if not t.startswith("u") and v >= 1 << (b - 1):
        v -= 1 << b
    return v


def sat(v, t):
    lo, hi = int_range(t)
    return max(lo, min(hi, v))


def _clz(x, t):
    b = INT_BITS[t]
    u = x & ((1 << b) - 1)
    return b - u.bit_length()


def _ctz(x, t):
    b = INT_BITS[t]
    u = x & ((1 << b) - 1)
    return b if u == 0 else (u & -u).bit_length() - 1


def _rev(x, t):
    b = INT_BITS[t]
    u = x & ((1 << b) - 1)
    return wrap(int(format(u, f"0{b}b")[::-1], 2), t)


def _rot(x, i, t):
    b = INT_BITS[t]
    u = x & ((1 << b) - 1)
    k = (i & ((1 << b) - 1)) % b
    return wrap(((u << k) | (u >> (b - k))) & ((1 << b) - 1), t)


def _mulhi(x, y, t):
    return wrap((x * y) >> INT_BITS[t], t)


def _extract(x, off, bits, t):
    b = INT_BITS[t]
    if bits == 0:
        return 0
    u = (x & ((1 << b) - 1)) >> off
    u &= (1 << bits) - 1
    if not t.startswith("u") and (u >> (bits - 1)) & 1:
        u -= 1 << bits
    return wrap(u, t)


def _insert(base, ins, off, bits, t):
    b = INT_BITS[t]
    if bits == 0:
        return base
    mask = ((1 << bits) - 1) << off
    u = ((base & ((1 << b) - 1)) & ~mask) | ((ins << off) & mask)
    return wrap(u, t)


def _median3(x, y, z):
    return sorted([x, y, z])[1]


def _mul24(x, y, t):
    return wrap(x * y, t)


class Int:
    """An integer function: ref(*python ints, t) -> int; args: 'T' an element of the type, 'o'/'b'
    offset/bit count (uint), 'c' a 24-bit-range value (mul24/mad24). ret: 'T' or 'U' (unsigned)."""

    def __init__(self, name, args, ref, types=INT_TYPES, ret="T", src="MSL4 Table 6.2", xfail=None):
        self.name, self.args, self.ref, self.types, self.ret, self.src = name, args, ref, types, ret, src
        self.xfail = xfail or {}


T32 = ["int", "uint"]
INTEGER = [
    Int("abs", "T", lambda x, t: wrap(abs(x), t)),
    Int("absdiff", "TT", lambda x, y, t: abs(x - y), ret="U"),
    Int("addsat", "TT", lambda x, y, t: sat(x + y, t)),
    Int("clamp", "TTT", lambda x, lo, hi, t: min(max(x, lo), hi)),
    Int("clz", "T", _clz),
    Int("ctz", "T", _ctz),
    Int("extract_bits", "Tob", _extract),
    Int("hadd", "TT", lambda x, y, t: (x + y) >> 1),
    Int("insert_bits", "TTob", _insert),
    Int("mad24", "ccT", lambda x, y, z, t: wrap(x * y + z, t), types=T32),
    Int("madhi", "TTT", lambda x, y, z, t: wrap(_mulhi(x, y, t) + z, t)),
    Int("madsat", "TTT", lambda x, y, z, t: sat(x * y + z, t)),
    Int("max", "TT", lambda x, y, t: max(x, y)),
    Int("max3", "TTT", lambda x, y, z, t: max(x, y, z)),
    Int("median3", "TTT", lambda x, y, z, t: _median3(x, y, z)),
    Int("min", "TT", lambda x, y, t: min(x, y)),
    Int("min3", "TTT", lambda x, y, z, t: min(x, y, z)),
    Int("mul24", "cc", _mul24, types=T32),
    Int("mulhi", "TT", _mulhi),
    Int("popcount", "T", lambda x, t: bin(x & ((1 << INT_BITS[t]) - 1)).count("1")),
    Int("reverse_bits", "T", _rev),
    Int("rhadd", "TT", lambda x, y, t: (x + y + 1) >> 1),
    Int("rotate", "TT", _rot),
    Int("subsat", "TT", lambda x, y, t: sat(x - y, t)),
]

# ---------------------------------------------------------------- geometric (§3.5, MSL4 §6.8)
# No ULP rows in the spec: the result must be within the error of the spec's own formula (Table
# 6.11) evaluated in the element type (one rounding per operation), plus 1 ulp.
T611 = "MSL4 Table 6.11 formula"
GEOMETRIC = ["dot", "cross", "length", "length_squared", "distance", "distance_squared", "normalize",
             "faceforward", "reflect", "refract"]
GEOMETRIC_FASTPRECISE = ["length", "distance", "normalize"]   # MSL4 §6.8: fast/precise variants

# ---------------------------------------------------------------- conversions (§2.9, §3.7, MSL4 §8.6)
CONV_TYPES = ["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "bfloat",
              "float"]
# Known failures: {(case key): reason}. The runner reports them as XFAIL; one that passes is an error.
XFAIL = {}
