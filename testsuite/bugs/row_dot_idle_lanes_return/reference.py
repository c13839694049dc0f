#!/usr/bin/env python3
"""row_dot_idle_lanes_return: the same inputs (and reference outputs) as its fixed twin, row_dot_idle_lanes_return_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "row_dot_idle_lanes_return_fixed", "reference.py"),
               run_name="__main__")
