#!/usr/bin/env python3
"""Appends to a deny-list the tests a run stopped for time (status `timeout` as their last record),
with the limit they ran past, so that later runs skip them: `write_deny.py RECORDS.jsonl DENY.txt`.
Tests already listed are left as they are."""
import sys

from run_cases import last_records


def main(records_path, deny_path):
    last = {name: r for (_, name), r in last_records(records_path).items()}
    listed = {l.split("  #")[0].strip() for l in open(deny_path) if l.strip() and not l.startswith("#")}
    with open(deny_path, "a") as out:
        for name, r in sorted(last.items()):
            if r["status"] == "timeout" and name not in listed:
                out.write(f"{name}  # longer than {r['message'].split()[-2]} s on a 2-core machine "
                          f"(stopped there, {r['file']})\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
