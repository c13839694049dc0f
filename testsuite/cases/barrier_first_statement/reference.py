#!/usr/bin/env python3
"""k: out[tg] = 5 + tg for 3 threadgroups."""
import os
import sys
import numpy as np

if __name__ == "__main__":
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    np.save(os.path.join(outdir, "expected_0.npy"), (5.0 + np.arange(3)).astype("<f4"))
