#!/usr/bin/env python3
"""simd_sum_half_simdgroup: the same inputs (and reference outputs) as its fixed twin, simd_sum_half_simdgroup_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "simd_sum_half_simdgroup_fixed", "reference.py"),
               run_name="__main__")
