#!/usr/bin/env python3
"""barrier_per_simdgroup_branch: the same inputs (and reference outputs) as its fixed twin."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "barrier_per_simdgroup_branch_fixed",
                            "reference.py"), run_name="__main__")
