#!/usr/bin/env python3
"""float4_rows_at_float_offsets: the same inputs (and reference outputs) as its fixed twin."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "float4_rows_at_float_offsets_fixed", "reference.py"),
               run_name="__main__")
