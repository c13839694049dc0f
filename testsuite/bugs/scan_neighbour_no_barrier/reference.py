#!/usr/bin/env python3
"""scan_neighbour_no_barrier: the same inputs (and reference outputs) as its fixed twin, scan_neighbour_no_barrier_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scan_neighbour_no_barrier_fixed", "reference.py"),
               run_name="__main__")
