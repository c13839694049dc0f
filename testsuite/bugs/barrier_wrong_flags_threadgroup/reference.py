#!/usr/bin/env python3
"""barrier_wrong_flags_threadgroup: the same inputs (and reference outputs) as its fixed twin, barrier_wrong_flags_threadgroup_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "barrier_wrong_flags_threadgroup_fixed", "reference.py"),
               run_name="__main__")
