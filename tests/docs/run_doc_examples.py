#!/usr/bin/env python3
"""Runs the examples of the user guide, so the docs cannot rot.

Usage: run_doc_examples.py DOCS_DIR BUILD_DIR SOURCE_DIR [--only NAME.md] [--update-stdlib] [-v]

Every Markdown file of DOCS_DIR is scanned for fenced code blocks whose info string marks them:

  ```LANG file=NAME        write the block to NAME in the document's scratch directory
  ```sh run                run with bash -e -o pipefail (`exit=N`: the status must be N;
                           `xfail=REASON`: a known bug, the block must fail until it is fixed)
  ```python run            run with /usr/bin/python3 (`file=NAME` also keeps it as NAME)
  ```cpp run file=NAME     the same as `file=`: C++ is built by a following `sh run` block
  ```text expect           every line must appear, in order, in the output (stdout and stderr
                           together) of the preceding `run` block; `...` inside a line matches
                           anything, a line that is only `...` elides lines

Blocks run in document order, each document in a fresh scratch directory, with PATH starting
with BUILD_DIR/bin (and a `python3` that is /usr/bin/python3), PYTHONPATH=BUILD_DIR/python,
MSLSIM_PREFIX=an installed tree (`cmake --install BUILD_DIR`, done once), MSLSIM_SOURCE=SOURCE_DIR,
MSLSIM_CACHE_DIR in the scratch directory and MSLSIM_CHECK unset.

docs/reference.md also holds the list of the MSL standard library's public names between
`<!-- stdlib-names:begin -->` and `<!-- stdlib-names:end -->`: it is regenerated from the headers
(tests/docs/stdlib_names.py) and must be identical (--update-stdlib rewrites it).

Prints one line per document with the number of blocks run; exits 1 on the first failing block
of any document, showing the block and its output.
"""
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import stdlib_names  # noqa: E402

FENCE = re.compile(r"^(`{3,})(.*)$")
BEGIN, END = "<!-- stdlib-names:begin -->", "<!-- stdlib-names:end -->"
BLOCK_TIMEOUT = 300


class Block:
    def __init__(self, doc, line, lang, words, attrs, text):
        self.doc, self.line, self.lang, self.words, self.attrs, self.text = doc, line, lang, words, attrs, text

    def where(self):
        return "%s:%d (```%s %s)" % (self.doc, self.line, self.lang,
                                      " ".join(sorted(self.words) + ["%s=%s" % kv for kv in self.attrs.items()]))


def parse(path):
    """The fenced blocks of a Markdown file that carry `run`, `expect` or `file=`."""
    blocks = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        start = i + 1
        j = start
        while j < len(lines) and lines[j].rstrip() != fence:
            j += 1
        text = "\n".join(lines[start:j]) + "\n"
        tokens = shlex.split(info) if info else []
        lang = tokens[0] if tokens else ""
        words = {t for t in tokens[1:] if "=" not in t}
        attrs = dict(t.split("=", 1) for t in tokens[1:] if "=" in t)
        if "run" in words or "expect" in words or "file" in attrs:
            blocks.append(Block(os.path.basename(path), start, lang, words, attrs, text))
        i = j + 1
    return blocks


def matches(expected, actual):
    """Each expected line, in order, equals an actual line (trailing blanks ignored); `...` in a
    line matches any text, a line that is only `...` any number of lines."""
    got = [l.rstrip() for l in actual.split("\n")]
    pos = 0
    for want in expected.rstrip("\n").split("\n"):
        want = want.rstrip()
        if want.strip() == "...":
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")) + r"\Z")
        while pos < len(got) and not pattern.match(got[pos]):
            pos += 1
        if pos == len(got):
            return "expected line not found (in order): %r" % want
        pos += 1
    return None


def run_block(block, cwd, env):
    if block.lang in ("sh", "bash", "console"):
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.text]
    elif block.lang == "python":
        name = block.attrs.get("file", ".block_%d.py" % block.line)
        cmd = ["/usr/bin/python3", name]
    else:
        raise RuntimeError("%s: cannot run a %r block" % (block.where(), block.lang))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=BLOCK_TIMEOUT)
    return p.returncode, p.stdout


def fail(block, why, output=None):
    sys.stdout.write("FAILED %s: %s\n--- block\n%s" % (block.where(), why, block.text))
    if output is not None:
        sys.stdout.write("--- output\n%s%s" % (output, "" if output.endswith("\n") else "\n"))
    sys.stdout.write("---\n")


def run_doc(path, env, scratch_root):
    blocks = parse(path)
    if not blocks:
        return None
    cwd = tempfile.mkdtemp(prefix=os.path.basename(path)[:-3] + ".", dir=scratch_root)
    started = time.time()
    ran = xfailed = 0
    # Attach each expect block to the run block before it.
    steps = []
    for block in blocks:
        if "expect" in block.words:
            if not steps or "run" not in steps[-1][0].words:
                fail(block, "an expect block must follow a run block")
                return False
            steps[-1][1].append(block)
        else:
            steps.append((block, []))
    for block, expects in steps:
        if "file" in block.attrs:
            target = os.path.join(cwd, block.attrs["file"])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(block.text)
        elif block.lang == "python" and "run" in block.words:
            with open(os.path.join(cwd, ".block_%d.py" % block.line), "w") as f:
                f.write(block.text)
        if "run" not in block.words:
            continue
        try:
            status, output = run_block(block, cwd, env)
        except subprocess.TimeoutExpired:
            status, output = None, "timed out after %d s\n" % BLOCK_TIMEOUT
        ran += 1
        want = int(block.attrs.get("exit", "0"))
        why = None
        if status != want:
            why = "exit status %s, expected %d" % (status, want)
        for expect in expects:
            why = why or matches(expect.text, output)
            if why and "expected line" in why:
                why += "\n--- expected\n" + expect.text.rstrip("\n")
        # `xfail=REASON`: a known problem of the tool; the block must fail (and is counted) until
        # it is fixed, then the marker (and the note in the text) must go.
        if "xfail" in block.attrs:
            if why is None:
                fail(block, "passed, but it is marked xfail=%s: remove the marker and the note"
                     % block.attrs["xfail"], output)
                return False
            xfailed += 1
            continue
        if why:
            fail(block, why, output)
            return False
    print("%s: %d blocks run (%.1f s)%s" % (os.path.basename(path), ran, time.time() - started,
                                            ", %d expected to fail (xfail)" % xfailed if xfailed else ""))
    return True


def check_stdlib_list(docs_dir, build_dir, source_dir, update):
    path = os.path.join(docs_dir, "reference.md")
    if not os.path.exists(path):
        return True
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        print("FAILED reference.md: no %s ... %s section" % (BEGIN, END))
        return False
    head, rest = text.split(BEGIN, 1)
    committed, tail = rest.split(END, 1)
    generated = "\n" + stdlib_names.markdown(source_dir, build_dir)
    if committed == generated:
        print("reference.md: the standard library list matches frontend/include/metal")
        return True
    if update:
        with open(path, "w") as f:
            f.write(head + BEGIN + generated + END + tail)
        print("reference.md: standard library list rewritten")
        return True
    diff = difflib.unified_diff(committed.splitlines(True), generated.splitlines(True),
                                "reference.md (committed)", "frontend/include/metal (generated)")
    print("FAILED reference.md: the standard library list differs from the headers "
          "(rerun with --update-stdlib):")
    sys.stdout.writelines(diff)
    return False


def main(argv):
    args = [a for a in argv if not a.startswith("-")]
    flags = [a for a in argv if a.startswith("-")]
    only = None
    if "--only" in argv:
        only = argv[argv.index("--only") + 1]
        args.remove(only)
    if len(args) != 3:
        raise SystemExit(__doc__)
    docs_dir, build_dir, source_dir = (os.path.abspath(a) for a in args)
    started = time.time()
    scratch_root = tempfile.mkdtemp(prefix="mslsim-docs.")
    ok = True
    try:
        prefix = os.path.join(scratch_root, "prefix")
        p = subprocess.run(["cmake", "--install", build_dir, "--prefix", prefix],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("FAILED: cmake --install %s:\n%s%s" % (build_dir, p.stdout, p.stderr))
            return 1
        shim = os.path.join(scratch_root, "shim")
        os.makedirs(shim)
        os.symlink("/usr/bin/python3", os.path.join(shim, "python3"))
        env = dict(os.environ)
        env.pop("MSLSIM_CHECK", None)
        env.update({
            "PATH": os.pathsep.join([os.path.join(build_dir, "bin"), shim, env.get("PATH", "/usr/bin:/bin")]),
            "PYTHONPATH": os.path.join(build_dir, "python"),
            "MSLSIM_PREFIX": prefix,
            "MSLSIM_SOURCE": source_dir,
            "MSLSIM_CACHE_DIR": os.path.join(scratch_root, "cache"),  # hermetic compile cache
            "PYTHONDONTWRITEBYTECODE": "1",
        })
        for name in sorted(os.listdir(docs_dir)):
            if not name.endswith(".md") or (only and name != only):
                continue
            if run_doc(os.path.join(docs_dir, name), env, scratch_root) is False:
                ok = False
        if not only or only == "reference.md":
            ok = check_stdlib_list(docs_dir, build_dir, source_dir, "--update-stdlib" in flags) and ok
    finally:
        if ok or "-k" not in flags:
            shutil.rmtree(scratch_root, ignore_errors=True)
        else:
            print("scratch directories kept in " + scratch_root)
    print("%s in %.1f s" % ("all documentation examples passed" if ok else "FAILED", time.time() - started))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
