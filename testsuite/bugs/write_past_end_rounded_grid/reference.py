#!/usr/bin/env python3
"""write_past_end_rounded_grid: the same inputs (and reference outputs) as its fixed twin, write_past_end_rounded_grid_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "write_past_end_rounded_grid_fixed", "reference.py"),
               run_name="__main__")
