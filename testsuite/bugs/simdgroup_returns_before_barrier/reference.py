#!/usr/bin/env python3
"""simdgroup_returns_before_barrier: the same inputs (and reference outputs) as its fixed twin."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "simdgroup_returns_before_barrier_fixed",
                            "reference.py"), run_name="__main__")
