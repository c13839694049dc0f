#!/usr/bin/env python3
"""gemm_missing_barrier_after_load: the same inputs (and reference outputs) as its fixed twin, gemm_missing_barrier_after_load_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gemm_missing_barrier_after_load_fixed", "reference.py"),
               run_name="__main__")
