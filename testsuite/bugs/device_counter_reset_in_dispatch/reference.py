#!/usr/bin/env python3
"""device_counter_reset_in_dispatch: the same inputs as its fixed twin, device_counter_reset_in_dispatch_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "device_counter_reset_in_dispatch_fixed",
                            "reference.py"), run_name="__main__")
