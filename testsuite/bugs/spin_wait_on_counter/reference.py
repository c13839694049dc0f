#!/usr/bin/env python3
"""spin_wait_on_counter: the same inputs (and reference outputs) as its fixed twin, spin_wait_on_counter_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spin_wait_on_counter_fixed", "reference.py"),
               run_name="__main__")
