#!/usr/bin/env python3
"""Refreshes the "files" of every item in coverage.json from the corpus: each item lists the corpus
files whose text matches its "grep" (see corpus_lib.matcher). Items marked "missing" keep their
reason. Prints the items no file uses, so they can get a kernel or a "missing" reason.

    python3 testsuite/compile_corpus/update_coverage.py
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import corpus_lib  # noqa: E402


def main():
    manifest = corpus_lib.load_manifest()
    texts = {f: corpus_lib.read(f) for f in corpus_lib.corpus_files()}
    unused = []
    for item in manifest["items"]:
        if "missing" in item:
            continue
        rx = corpus_lib.matcher(item)
        item["files"] = [f for f, t in texts.items() if rx.search(t)]
        if not item["files"]:
            unused.append(item["id"])
    corpus_lib.save_manifest(manifest)
    for u in unused:
        print("no corpus file uses:", u)
    return 1 if unused else 0


if __name__ == "__main__":
    raise SystemExit(main())
