#!/usr/bin/env python3
"""builtins_3d_uint3: the expected built-in values of every thread, from the Metal rules in
testsuite/lib/metal_builtins.py (computed independently of the kernel)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from metal_builtins import write  # noqa: E402

if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else ".", grid=(13, 7, 5), tg=(8, 4, 2),
          dispatch="threads", ncomp=3)
