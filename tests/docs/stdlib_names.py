#!/usr/bin/env python3
"""The public names of mslsim's MSL standard library, read from its own headers.

Clang 16 (the compiler mslsim embeds) parses frontend/include/metal/metal_stdlib, <simd/simd.h>
and the MLX preamble exactly as mslsim's front end does (prelude force-included, C++17,
freestanding) and dumps the AST as JSON; this script walks the declarations and lists, per
header, the functions and the types it declares. Names starting with `_` are internal.

Usage: stdlib_names.py SOURCE_DIR [BUILD_DIR]   prints the Markdown list that docs/reference.md
holds between its `stdlib-names` markers (run_doc_examples.py checks that they agree).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

FUNCTION_KINDS = {"FunctionDecl", "FunctionTemplateDecl"}
TYPE_KINDS = {"CXXRecordDecl", "ClassTemplateDecl", "TypedefDecl", "TypeAliasDecl",
              "TypeAliasTemplateDecl", "EnumDecl"}
# (title, main file relative to frontend/include/metal, headers whose declarations are listed)
UNITS = [
    ("`<metal_stdlib>`", "metal_stdlib", None),
    ("`<simd/simd.h>`", "simd/simd.h", {"simd/simd.h"}),
    ("MLX preamble (`mx.fast.metal_kernel` sources only)", "__mslsim/mlx_preamble.h",
     {"__mslsim/mlx_preamble.h"}),
]


def find_clang(build_dir):
    """The Clang the build was configured with (LLVM_DIR in CMakeCache.txt), else clang-16."""
    if build_dir:
        cache = os.path.join(build_dir, "CMakeCache.txt")
        if os.path.exists(cache):
            with open(cache) as f:
                for line in f:
                    m = re.match(r"LLVM_DIR:PATH=(.*)", line.strip())
                    if m:
                        candidate = os.path.normpath(os.path.join(m.group(1), "../../../bin/clang"))
                        if os.access(candidate, os.X_OK):
                            return candidate
    for name in ("clang-16", "/usr/lib/llvm-16/bin/clang"):
        path = shutil.which(name) or (name if os.access(name, os.X_OK) else None)
        if path:
            return path
    raise SystemExit("stdlib_names.py: Clang 16 not found (looked at the build's LLVM_DIR and clang-16)")


def dump(clang, root, main):
    args = [clang, "-cc1", "-x", "c++", "-std=c++17", "-triple", "x86_64-unknown-linux-gnu",
            "-fdeclspec", "-ffreestanding", "-nostdsysteminc", "-nobuiltininc", "-isystem", root,
            "-include", os.path.join(root, "__mslsim/prelude.h"), "-Wno-ignored-attributes",
            "-Wno-pragma-once-outside-header", "-fsyntax-only", "-ast-dump=json", main]
    p = subprocess.run(args, cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("stdlib_names.py: clang failed on %s:\n%s" % (main, p.stderr[-4000:]))
    return json.loads(p.stdout)


class Walker:
    """Walks the JSON AST in dump order, tracking the current file (Clang writes a location's file
    only when it differs from the previous location written)."""

    def __init__(self, root):
        self.root = root
        self.file = None
        self.found = collections.defaultdict(lambda: (set(), set()))  # header -> (functions, types)

    def see(self, loc):
        if not isinstance(loc, dict):
            return
        if "spellingLoc" in loc or "expansionLoc" in loc:
            self.see(loc.get("spellingLoc"))
            self.see(loc.get("expansionLoc"))
            return
        if "file" in loc:
            self.file = loc["file"]

    def header_of(self, loc):
        """The header a declaration's location is in (macro expansions: where expanded)."""
        if isinstance(loc, dict) and "expansionLoc" in loc:
            loc = loc["expansionLoc"]
        path = loc.get("file") if isinstance(loc, dict) and "file" in loc else self.file
        path = os.path.normpath(os.path.join(self.root, path or ""))
        return os.path.relpath(path, self.root)

    def walk(self, node, scope):
        for d in node.get("inner", []) or []:
            loc = d.get("loc")
            header = self.header_of(loc)
            self.see(loc)
            rng = d.get("range") or {}
            self.see(rng.get("begin"))
            self.see(rng.get("end"))
            kind, name = d.get("kind"), d.get("name", "")
            if kind == "NamespaceDecl":
                self.walk(d, scope + [name])
                continue
            self.track(d)
            if d.get("isImplicit") or not name or name.startswith("_") or name.startswith("operator"):
                continue
            if scope and scope[0] not in ("metal", "simd", "mlx"):
                continue
            qualified = "::".join(scope + [name])
            functions, types = self.found[header]
            if kind in FUNCTION_KINDS:
                functions.add(qualified)
            elif kind in TYPE_KINDS:
                types.add(qualified)
            elif kind == "UsingDecl" and len(scope) > 1:  # metal::fast::exp = metal::exp
                functions.add("::".join(scope + [name.split("::")[-1]]))

    def track(self, node):
        for c in node.get("inner", []) or []:
            self.see(c.get("loc"))
            rng = c.get("range") or {}
            self.see(rng.get("begin"))
            self.see(rng.get("end"))
            self.track(c)


def collect(source_dir, build_dir=None):
    root = os.path.abspath(os.path.join(source_dir, "frontend/include/metal"))
    clang = find_clang(build_dir)
    result = []
    for title, main, only in UNITS:
        walker = Walker(root)
        walker.walk(dump(clang, root, main), [])
        headers = {h: v for h, v in walker.found.items()
                   if (only is None or h in only) and h.endswith((".h", ".inc")) and (v[0] or v[1])}
        result.append((title, headers))
    return result


def collapse(names):
    """`metal::fast::exp, metal::precise::exp` and the rest as compact groups: names in the same
    namespace are listed together, unqualified."""
    groups = collections.OrderedDict()
    for q in sorted(names, key=lambda s: (s.count("::"), s)):
        ns, _, name = q.rpartition("::")
        groups.setdefault(ns, []).append(name)
    return groups


def markdown(source_dir, build_dir=None):
    lines = ["<!-- generated by tests/docs/stdlib_names.py from frontend/include/metal; do not edit -->"]
    for title, headers in collect(source_dir, build_dir):
        lines.append("")
        lines.append("#### " + title)
        for header in sorted(headers):
            functions, types = headers[header]
            lines.append("")
            lines.append("`%s`" % header)
            for label, names in (("functions", functions), ("types", types)):
                if not names:
                    continue
                # fast:: and precise:: re-export metal:: math names: say so once, not twice.
                for ns, members in collapse(names).items():
                    prefix = (ns + "::") if ns else ""
                    lines.append("* %s %s(%d): %s" % (label, "in `%s` " % ns if ns else "", len(members),
                                                       ", ".join("`%s`" % m for m in members)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.stdout.write(markdown(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
