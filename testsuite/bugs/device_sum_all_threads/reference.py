#!/usr/bin/env python3
"""device_sum_all_threads: the same inputs (and reference outputs) as its fixed twin, device_sum_all_threads_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "device_sum_all_threads_fixed", "reference.py"),
               run_name="__main__")
