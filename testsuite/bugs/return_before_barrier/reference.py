#!/usr/bin/env python3
"""return_before_barrier: the same inputs (and reference outputs) as its fixed twin, return_before_barrier_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "return_before_barrier_fixed", "reference.py"),
               run_name="__main__")
