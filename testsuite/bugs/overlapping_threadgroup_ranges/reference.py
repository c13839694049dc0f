#!/usr/bin/env python3
"""overlapping_threadgroup_ranges: the same inputs (and reference outputs) as its fixed twin, overlapping_threadgroup_ranges_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "overlapping_threadgroup_ranges_fixed", "reference.py"),
               run_name="__main__")
