#!/usr/bin/env python3
"""constant_table_row_past_end: the case checks the finding only (the read past the table has no
defined value to compare outputs with); the data directory is made empty."""
import os
import sys

os.makedirs(sys.argv[1], exist_ok=True)
