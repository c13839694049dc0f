"""Number formats for the conformance sweeps: float, half and bfloat as numpy data, correctly rounded
conversions from float64 (bfloat16 written here with uint32 bit manipulation), ULP distances as the
MSL specification defines them (MSL4 §8.4), and exact rounding of integers and fractions.

All values are carried as float64: every float, half and bfloat value is exactly a float64.
"""
from fractions import Fraction

import numpy as np


class Fmt:
    def __init__(self, name, p, emin, emax, store):
        self.name = name        # MSL type name
        self.p = p              # significand bits, including the implicit one
        self.emin = emin        # exponent of the smallest normal number
        self.emax = emax        # exponent of the largest finite number
        self.store = store      # numpy dtype of a buffer element
        self.max = float((2 - 2.0 ** (1 - p)) * 2.0 ** emax)
        self.min_normal = 2.0 ** emin
        self.min_sub = 2.0 ** (emin - p + 1)

    def __repr__(self):
        return self.name


FLOAT = Fmt("float", 24, -126, 127, np.float32)
HALF = Fmt("half", 11, -14, 15, np.float16)
BFLOAT = Fmt("bfloat", 8, -126, 127, np.uint16)   # bit patterns, as mslsim's .npy files hold them
FMTS = {"float": FLOAT, "half": HALF, "bfloat": BFLOAT}


# ---------------------------------------------------------------- bfloat16, bit exact
def f32_to_bf16_bits(x):
    """float32 values -> bfloat16 bit patterns, round to nearest even; NaN stays a (quiet) NaN."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = np.where(nan, (u >> 16) | 0x40, r)
    return r.astype(np.uint16)


def bf16_bits_to_f64(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f64_to_f32_round_to_odd(x):
    """float64 -> float32 rounding to odd (sticky): then rounding to any format of at most 22 bits
    to nearest even gives the correctly rounded result (no double-rounding error)."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
    bits = f.view(np.uint32).copy()
    inexact = np.isfinite(f) & (f.astype(np.float64) != x) & np.isfinite(x)
    even = (bits & 1) == 0
    fix = inexact & even
    # Move one step away from zero if the exact value is larger in magnitude, else towards zero.
    up = np.abs(x) > np.abs(f.astype(np.float64))
    bits = np.where(fix & up, bits + 1, np.where(fix & ~up, bits - 1, bits)).astype(np.uint32)
    return bits.view(np.float32)


def f64_to_bf16_bits(x):
    return f32_to_bf16_bits(f64_to_f32_round_to_odd(x))


# ---------------------------------------------------------------- conversions
def round64(x, fmt):
    """Correctly rounded (nearest even) value of float64 x in fmt, as float64."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt is FLOAT:
            return x.astype(np.float32).astype(np.float64)
        if fmt is HALF:
            return x.astype(np.float16).astype(np.float64)
        return bf16_bits_to_f64(f64_to_bf16_bits(x))


def encode(x, fmt):
    """float64 values (rounded to fmt) -> buffer elements."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt is BFLOAT:
            return f64_to_bf16_bits(x)
        return x.astype(fmt.store)


def decode(a, fmt):
    if fmt is BFLOAT:
        return bf16_bits_to_f64(a)
    return np.asarray(a).astype(np.float64)


def all_values(fmt):
    """Every bit pattern of a 16-bit format, decoded (exhaustive sweeps)."""
    bits = np.arange(65536, dtype=np.uint16)
    if fmt is HALF:
        return bits.view(np.float16).astype(np.float64)
    return bf16_bits_to_f64(bits)


# ---------------------------------------------------------------- ULPs (MSL4 §8.4)
def ulp(x, fmt):
    """ulp(x): the gap between the two finite fmt numbers around |x| (the binade's spacing; the
    subnormal spacing below the smallest normal; the top binade's spacing beyond the largest)."""
    a = np.minimum(np.abs(np.asarray(x, np.float64)), fmt.max)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, e = np.frexp(a)
    e = np.maximum(e - 1, fmt.emin)
    return np.ldexp(1.0, e - (fmt.p - 1))


def ulp_error(got, ref, fmt):
    """|got - ref| in ulp(ref). An infinite result counts as 2^(emax+1), the value the next binade
    would start at, and a reference beyond the format's range is clamped there too, so overflow to
    infinity is exact when the true value rounds to infinity."""
    top = 2.0 ** (fmt.emax + 1)
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    g = np.where(np.isinf(got), np.sign(got) * top, got)
    r = np.clip(ref, -top, top)
    with np.errstate(invalid="ignore"):
        return np.abs(g - r) / ulp(r, fmt)


def midpoint_ambiguous(ref, fmt, rel=2.0 ** -20):
    """True where ref lies so close to a midpoint between two fmt numbers that a float64 reference
    cannot decide the correct rounding; returns (ambiguous, the other candidate)."""
    ref = np.asarray(ref, np.float64)
    r = round64(ref, fmt)
    u = ulp(r, fmt)
    with np.errstate(invalid="ignore"):
        d = ref - r
        near = np.isfinite(ref) & (np.abs(np.abs(d) - u / 2) < u * rel)
        other = r + np.sign(d) * u
    return near, other


# ---------------------------------------------------------------- exact rounding
def round_fraction(q, fmt):
    """A Fraction (or int) correctly rounded to nearest even in fmt; returns a Python float
    (inf on overflow, signed zero kept for q == 0 only as +0)."""
    q = Fraction(q)
    if q == 0:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    # now 2^e <= a < 2^(e+1)
    e = max(e, fmt.emin)
    scale = Fraction(2) ** (e - (fmt.p - 1))      # the spacing at this exponent
    m = a / scale
    n = m.numerator // m.denominator
    rem = m - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    v = Fraction(n) * scale
    if v > Fraction(fmt.max) or (v == 2 ** (fmt.emax + 1)):
        r = float("inf")
    else:
        r = float(v)
    return -r if neg else r


def exact_fma(a, b, c, fmt):
    """Correctly rounded a*b+c for arrays of fmt values (exact: TwoSum + round to odd in float64;
    the product of two values of at most 24 bits is exact in float64)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)       # TwoSum: s + e == p + c exactly (finite, no overflow)
        bits = s.view(np.uint64).copy()
        fix = np.isfinite(s) & np.isfinite(e) & (e != 0) & ((bits & 1) == 0)
        up = np.sign(e) == np.sign(s)
        up = np.where(s == 0, True, up)
        odd = np.where(fix & up, bits + 1, np.where(fix & ~up, bits - 1, bits)).view(np.float64)
        # s == 0 with e != 0 cannot happen (TwoSum of a sum that cancels exactly has e == 0).
        odd = np.where(np.isfinite(s), odd, s)
        return round64(odd, fmt)
