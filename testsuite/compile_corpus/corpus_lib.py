"""Shared by check_corpus.py (the ctest) and update_coverage.py (refreshes coverage.json)."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "coverage.json")


def corpus_files():
    return sorted(f for f in os.listdir(HERE) if f.endswith(".metal"))


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def matcher(item):
    """The item's evidence: a regular expression, or literal text that must not continue an identifier."""
    if item.get("regex"):
        return re.compile(item["grep"])
    text = item["grep"]
    word = text[:1].isalnum() or text[:1] == "_"
    return re.compile((r"(?<![A-Za-z0-9_])" if word else "") + re.escape(text))


def load_manifest():
    with open(MANIFEST, encoding="utf-8") as f:
        return json.load(f)


def save_manifest(manifest):
    with open(MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")


def compile_args(text):
    """Extra `mslsim compile` arguments from a `// corpus-args: ...` line at the top of a file."""
    m = re.search(r"^// corpus-args:(.*)$", text, re.M)
    return m.group(1).split() if m else []
