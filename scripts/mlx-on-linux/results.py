#!/usr/bin/env python3
"""Turns the XML report of MLX's C++ tests (doctest --reporters=xml) into a Markdown table: per test
file, the test cases passed, failed and skipped, then every failure with its first message. A
report cut short (the test binary crashed) is read as far as it goes, and the crash is said.

Usage: results.py tests.xml
"""
import collections
import html
import re
import sys


def main(path):
    text = open(path, errors="replace").read()
    files = collections.OrderedDict()
    failures = []
    for m in re.finditer(r"<TestCase\b([^>]*)>(.*?)</TestCase>", text, re.S):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        body = m.group(2)
        name = html.unescape(attrs.get("name", "?"))
        file = attrs.get("filename", "?").split("/")[-1]
        counts = files.setdefault(file, collections.Counter())
        if attrs.get("skipped") == "true":
            counts["skipped"] += 1
            continue
        result = re.search(r'<OverallResultsAsserts\b[^>]*test_case_success="(\w+)"', body)
        if result and result.group(1) == "true":
            counts["passed"] += 1
            continue
        counts["failed"] += 1
        message = ""
        exc = re.search(r"<Exception\b[^>]*>(.*?)</Exception>", body, re.S)
        expr = re.search(r'<Expression success="false"[^>]*>\s*<Original>(.*?)</Original>', body, re.S)
        if exc:
            message = "exception: " + html.unescape(exc.group(1)).strip()
        elif expr:
            message = "failed: " + html.unescape(expr.group(1)).strip()
        failures.append((file, name, " ".join(message.split())[:300]))
    started = re.findall(r'<TestCase\b[^>]*?(?<=\s)name="([^"]*)"', text)
    crashed = not re.search(r"<OverallResultsTestCases\b", text)
    total = collections.Counter()
    print("| test file | passed | failed | skipped |")
    print("|---|---|---|---|")
    for file, c in files.items():
        total.update(c)
        print(f"| {file} | {c['passed']} | {c['failed']} | {c['skipped']} |")
    print(f"| **all** | **{total['passed']}** | **{total['failed']}** | **{total['skipped']}** |")
    if crashed:
        last = html.unescape(started[-1]) if started else "?"
        print(f"\nThe test binary stopped before the end (a crash), in or after test case '{last}'.")
    if failures:
        print("\n| file | test case | first failure |")
        print("|---|---|---|")
        for file, name, message in failures:
            print(f"| {file} | {name} | {message.replace('|', '/')} |")


if __name__ == "__main__":
    main(sys.argv[1])
