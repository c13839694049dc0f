#!/usr/bin/env python3
"""half_pairs_overlap: the same inputs (and reference outputs) as its fixed twin, half_pairs_overlap_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "half_pairs_overlap_fixed", "reference.py"),
               run_name="__main__")
