#!/usr/bin/env python3
"""uninit_threadgroup_argument_bins: the same inputs (and reference outputs) as its fixed twin, uninit_threadgroup_argument_bins_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "uninit_threadgroup_argument_bins_fixed", "reference.py"),
               run_name="__main__")
