#!/usr/bin/env python3
"""threadgroup_array_overflow: the same inputs (and reference outputs) as its fixed twin, threadgroup_array_overflow_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "threadgroup_array_overflow_fixed", "reference.py"),
               run_name="__main__")
