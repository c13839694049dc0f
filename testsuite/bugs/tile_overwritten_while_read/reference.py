#!/usr/bin/env python3
"""tile_overwritten_while_read: the same inputs (and reference outputs) as its fixed twin, tile_overwritten_while_read_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tile_overwritten_while_read_fixed", "reference.py"),
               run_name="__main__")
