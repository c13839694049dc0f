#!/usr/bin/env python3
"""device_swap_no_simd_barrier: the same inputs (and reference outputs) as its fixed twin, device_swap_no_simd_barrier_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "device_swap_no_simd_barrier_fixed", "reference.py"),
               run_name="__main__")
