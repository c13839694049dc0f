#!/usr/bin/env python3
"""double_buffer_reused_early: the same inputs (and reference outputs) as its fixed twin, double_buffer_reused_early_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "double_buffer_reused_early_fixed", "reference.py"),
               run_name="__main__")
