#!/usr/bin/env python3
"""barrier_in_thread_dependent_loop: the same inputs (and reference outputs) as its fixed twin, barrier_in_thread_dependent_loop_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "barrier_in_thread_dependent_loop_fixed", "reference.py"),
               run_name="__main__")
