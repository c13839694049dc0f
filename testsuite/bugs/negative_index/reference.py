#!/usr/bin/env python3
"""negative_index: the same inputs (and reference outputs) as its fixed twin, negative_index_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "negative_index_fixed", "reference.py"),
               run_name="__main__")
