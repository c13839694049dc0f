#!/usr/bin/env python3
"""window_read_straddles_end: the same inputs as its fixed twin, window_read_straddles_end_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "window_read_straddles_end_fixed",
                            "reference.py"), run_name="__main__")
