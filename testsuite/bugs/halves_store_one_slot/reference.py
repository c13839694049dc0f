#!/usr/bin/env python3
"""halves_store_one_slot: the same inputs (and reference outputs) as its fixed twin, halves_store_one_slot_fixed."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "halves_store_one_slot_fixed", "reference.py"),
               run_name="__main__")
