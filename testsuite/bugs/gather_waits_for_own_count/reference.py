#!/usr/bin/env python3
"""gather_waits_for_own_count: the same inputs as its fixed twin, gather_waits_for_own_count_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gather_waits_for_own_count_fixed", "reference.py"),
               run_name="__main__")
