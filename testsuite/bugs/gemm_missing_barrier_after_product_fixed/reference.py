#!/usr/bin/env python3
"""gemm_missing_barrier_after_product_fixed: the same inputs and reference as
gemm_missing_barrier_after_load_fixed (both compute C = A @ B for the same sizes)."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "gemm_missing_barrier_after_load_fixed", "reference.py"),
               run_name="__main__")
