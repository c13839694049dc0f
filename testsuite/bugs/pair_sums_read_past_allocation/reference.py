#!/usr/bin/env python3
"""pair_sums_read_past_allocation: the same inputs as its fixed twin, pair_sums_read_past_allocation_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pair_sums_read_past_allocation_fixed", "reference.py"),
               run_name="__main__")
