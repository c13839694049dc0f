#!/usr/bin/env python3
"""broadcast_lane_out_of_range: the same inputs (and reference outputs) as its fixed twin, broadcast_lane_out_of_range_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "broadcast_lane_out_of_range_fixed", "reference.py"),
               run_name="__main__")
