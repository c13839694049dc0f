#!/usr/bin/env python3
"""endless_loop_ushort_index: the same inputs (and reference outputs) as its fixed twin, endless_loop_ushort_index_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "endless_loop_ushort_index_fixed", "reference.py"),
               run_name="__main__")
