#!/usr/bin/env python3
"""threadgroup_counter_plain_reset: the same inputs as its fixed twin, threadgroup_counter_plain_reset_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "threadgroup_counter_plain_reset_fixed",
                            "reference.py"), run_name="__main__")
