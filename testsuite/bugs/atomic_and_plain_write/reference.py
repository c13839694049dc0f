#!/usr/bin/env python3
"""atomic_and_plain_write: the same inputs (and reference outputs) as its fixed twin, atomic_and_plain_write_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "atomic_and_plain_write_fixed", "reference.py"),
               run_name="__main__")
