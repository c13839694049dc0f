#!/usr/bin/env python3
"""shuffle_from_inactive_lane: the same inputs (and reference outputs) as its fixed twin, shuffle_from_inactive_lane_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shuffle_from_inactive_lane_fixed", "reference.py"),
               run_name="__main__")
