#!/usr/bin/env python3
"""write_through_const_device: the same inputs (and reference outputs) as its fixed twin, write_through_const_device_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "write_through_const_device_fixed", "reference.py"),
               run_name="__main__")
