#!/usr/bin/env python3
"""partial_last_tile_uninit: the same inputs (and reference outputs) as its fixed twin, partial_last_tile_uninit_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "partial_last_tile_uninit_fixed", "reference.py"),
               run_name="__main__")
