#!/usr/bin/env python3
"""ctest corpus.compile: every kernel of the compile-only corpus compiles with `mslsim compile` and
lists at least one kernel, and coverage.json still tells the truth: every P0/P1 inventory item is
listed, each covered item names files that exist and actually contain its evidence ("grep"), and
the items that are not supported say why (they are printed).

    check_corpus.py MSLSIM [FILE.metal ...]
"""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import corpus_lib  # noqa: E402


def compile_one(mslsim, name):
    text = corpus_lib.read(name)
    cmd = [mslsim, "compile", os.path.join(corpus_lib.HERE, name)] + corpus_lib.compile_args(text)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    kernels = [l for l in p.stdout.splitlines() if l.startswith("kernel ")]
    if p.returncode != 0:
        return name, "mslsim compile exited with %d:\n%s" % (p.returncode, p.stdout)
    if not kernels:
        return name, "no kernels listed:\n" + p.stdout
    return name, None


def check_manifest(files):
    problems = []
    manifest = corpus_lib.load_manifest()
    texts = {f: corpus_lib.read(f) for f in files}
    ids = set()
    covered = missing = 0
    for item in manifest["items"]:
        iid = item.get("id")
        if not iid or iid in ids:
            problems.append("item without an id or listed twice: %r" % iid)
            continue
        ids.add(iid)
        if item.get("priority") not in ("P0", "P1"):
            problems.append("%s: priority must be P0 or P1" % iid)
        if "missing" in item:
            if not item["missing"].strip():
                problems.append("%s: missing without a reason" % iid)
            missing += 1
            continue
        if not item.get("files"):
            problems.append("%s: no corpus file listed (add a kernel, or \"missing\": reason)" % iid)
            continue
        rx = corpus_lib.matcher(item)
        for f in item["files"]:
            if f not in texts:
                problems.append("%s: listed file %s is not in the corpus" % (iid, f))
            elif not rx.search(texts[f]):
                problems.append("%s: %s does not contain %r" % (iid, f, item["grep"]))
        covered += 1
    for required in manifest.get("required_sections", []):
        if not any(i.get("section") == required for i in manifest["items"]):
            problems.append("no item of inventory section %s" % required)
    return manifest, covered, missing, problems


def main():
    mslsim = sys.argv[1]
    files = corpus_lib.corpus_files()
    chosen = [os.path.basename(f) for f in sys.argv[2:]] or files
    failures = []
    with ThreadPoolExecutor(max_workers=int(os.environ.get("CORPUS_JOBS", "1"))) as pool:
        for name, error in pool.map(lambda n: compile_one(mslsim, n), chosen):
            if error:
                failures.append("%s: %s" % (name, error))
    manifest, covered, missing, problems = check_manifest(files)
    p0 = sum(1 for i in manifest["items"] if i["priority"] == "P0")
    print("corpus: %d kernel files, %d compiled, %d failed" % (len(chosen), len(chosen) - len(failures), len(failures)))
    print("inventory items: %d (P0 %d, P1 %d): %d covered by the corpus, %d missing"
          % (len(manifest["items"]), p0, len(manifest["items"]) - p0, covered, missing))
    for item in manifest["items"]:
        if "missing" in item:
            print("  missing [%s %s] %s: %s" % (item["priority"], item["section"], item["id"], item["missing"]))
    for f in failures:
        print("FAIL " + f)
    for p in problems:
        print("MANIFEST " + p)
    return 1 if failures or problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
