#!/usr/bin/env python3
"""read_past_end: the same inputs (and reference outputs) as its fixed twin, read_past_end_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "read_past_end_fixed", "reference.py"),
               run_name="__main__")
