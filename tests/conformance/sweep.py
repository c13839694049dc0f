"""What the conformance runners share: their command line, the verdict on one case, and the closing
list of problems that decides the exit status."""
import argparse
import os
import tempfile
import time


def arguments(name, filter_help, types=None):
    """Parses `RUNNER PATH_TO_MSLSIM [--filter TEXT] [--verbose] [--keep DIR]`, and `--types T,...`
    where the sweep names its element types in `types` (one ctest test per group of types, so that
    they run side by side); returns the options (`types` a list, empty for all), the directory for
    generated kernels and buffers, and the start time."""
    ap = argparse.ArgumentParser()
    ap.add_argument("mslsim")
    ap.add_argument("--filter", default="", help=filter_help)
    if types:
        ap.add_argument("--types", default="", help="only these element types, comma-separated: " + ", ".join(types))
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--keep", help="write the generated kernels and buffers here")
    opt = ap.parse_args()
    if types:
        opt.types = [t for t in opt.types.split(",") if t]
        unknown = [t for t in opt.types if t not in types]
        if unknown:
            ap.error(f"--types: unknown element type(s) {', '.join(unknown)} (known: {', '.join(types)})")
    tmp = opt.keep or tempfile.mkdtemp(prefix=f"mslsim-{name}-")
    os.makedirs(tmp, exist_ok=True)
    return opt, tmp, time.time()


def judge(problems, label, checked, failed, detail, xfail):
    """The case's status: ok, FAIL, or for a known failure XFAIL, and XPASS when it passes after all
    (a stale mark: an error). A case that checked nothing fails. Problems are appended."""
    bad = failed > 0 or checked == 0
    if xfail:
        if not bad:
            problems.append(f"{label}: marked as a known failure ({xfail}) but passes")
        return "XFAIL" if bad else "XPASS"
    if bad:
        problems.append(f"{label}: {failed}/{checked} wrong: {'; '.join(detail[:3])}")
    return "FAIL" if bad else "ok"


def finish(problems):
    """Prints the problems; the exit status: 1 if there are any."""
    if not problems:
        return 0
    print(f"\n{len(problems)} problem(s):")
    for p in problems:
        print("  " + p)
    return 1
