#!/usr/bin/env python3
"""write_write_different_values: the same inputs (and reference outputs) as its fixed twin, write_write_different_values_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "write_write_different_values_fixed", "reference.py"),
               run_name="__main__")
