#!/usr/bin/env python3
"""tile_first_overwritten_by_simdgroup: the same inputs as its fixed twin."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tile_first_overwritten_by_simdgroup_fixed",
                            "reference.py"), run_name="__main__")
