#!/usr/bin/env python3
"""builtins_3d_threadgroups: the expected built-in values of every thread, from the Metal rules in
testsuite/lib/metal_builtins.py (computed independently of the kernel)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from metal_builtins import write  # noqa: E402

if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else ".", grid=(3, 2, 2), tg=(5, 3, 4),
          dispatch="threadgroups", ncomp=3)
