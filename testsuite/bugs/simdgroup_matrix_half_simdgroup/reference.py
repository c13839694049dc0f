#!/usr/bin/env python3
"""simdgroup_matrix_half_simdgroup: the same inputs as its fixed twin, simdgroup_matrix_half_simdgroup_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "simdgroup_matrix_half_simdgroup_fixed", "reference.py"),
               run_name="__main__")
