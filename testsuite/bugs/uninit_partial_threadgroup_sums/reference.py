#!/usr/bin/env python3
"""uninit_partial_threadgroup_sums: the same inputs (and reference outputs) as its fixed twin, uninit_partial_threadgroup_sums_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "uninit_partial_threadgroup_sums_fixed", "reference.py"),
               run_name="__main__")
