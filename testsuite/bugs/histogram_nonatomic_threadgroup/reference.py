#!/usr/bin/env python3
"""histogram_nonatomic_threadgroup: the same inputs (and reference outputs) as its fixed twin, histogram_nonatomic_threadgroup_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "histogram_nonatomic_threadgroup_fixed", "reference.py"),
               run_name="__main__")
