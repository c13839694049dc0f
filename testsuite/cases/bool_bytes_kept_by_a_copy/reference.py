#!/usr/bin/env python3
"""bool_bytes_kept_by_a_copy: every byte 0-255, copied as bools, comes back as it was (numpy's view
semantics, which MLX's tests expect of Apple's GPUs)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    b = np.arange(256, dtype=np.uint8)
    np.save(os.path.join(outdir, "bytes.npy"), b)
    np.save(os.path.join(outdir, "expected_1.npy"), b.copy())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
