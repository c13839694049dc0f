#!/usr/bin/env python3
"""half_cas_word_past_the_end: the same inputs (and reference outputs) as its fixed twin."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "half_cas_word_past_the_end_fixed", "reference.py"),
               run_name="__main__")
