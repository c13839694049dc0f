#!/usr/bin/env python3
"""k: out[i] = i / 2."""
import os
import sys
import numpy as np

if __name__ == "__main__":
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    np.save(os.path.join(outdir, "expected_0.npy"), (np.arange(96) * 0.5).astype("<f4"))
