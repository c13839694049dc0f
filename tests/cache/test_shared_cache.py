#!/usr/bin/env python3
"""One compile cache filled by many processes at once (pytest-xdist workers, machines sharing a
directory): every run computes what numpy computes, every entry left is whole (its description
parses and names the SHA-256 of the object beside it, checked here with hashlib), no temporary file
is left, a second round is served from the cache, and a bounded cache stays under its bound.
Usage: test_shared_cache.py path/to/mslsim"""
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

MSLSIM = None
PROCESSES = 6
KERNELS = 8  # distinct sources; every process also runs the one they all share

SOURCE = """#include <metal_stdlib>
using namespace metal;
kernel void affine(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                   uint i [[thread_position_in_grid]]) {{
  y[i] = x[i] * {scale}.0f + {offset}.0f;
}}
"""


def source_for(n):
    """(scale, offset) of kernel n; n = -1 is the shared one."""
    return (3, 7) if n < 0 else (n + 2, n)


class SharedCache(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.x = np.linspace(-4, 4, 64, dtype=np.float32)
        np.save(os.path.join(cls.dir, "x.npy"), cls.x)
        for n in range(-1, KERNELS):
            scale, offset = source_for(n)
            with open(os.path.join(cls.dir, f"k{n}.metal"), "w") as f:
                f.write(SOURCE.format(scale=scale, offset=offset))

    def run_kernel(self, n, cache, tag, env_extra=None):
        out = os.path.join(self.dir, f"y-{tag}-{n}.npy")
        env = dict(os.environ, MSLSIM_CACHE_DIR=cache, **(env_extra or {}))
        p = subprocess.run([MSLSIM, "run", os.path.join(self.dir, f"k{n}.metal"), "--kernel", "affine",
                            "--grid", "64", "--threadgroup", "32", "--buffer", "0=" + os.path.join(self.dir, "x.npy"),
                            "--buffer", "1=zeros:float32:64", "--output", "1=" + out, "--timing"],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        scale, offset = source_for(n)
        np.testing.assert_array_equal(np.load(out), self.x * np.float32(scale) + np.float32(offset))
        return re.search(r"cached=(yes|no)", p.stderr).group(1)

    def round(self, cache, tag, env_extra=None):
        """PROCESSES workers at once, each the shared kernel then its own overlapping share."""
        jobs = [[-1] + [(w + j) % KERNELS for j in range(3)] for w in range(PROCESSES)]

        def worker(w):
            return [self.run_kernel(n, cache, f"{tag}{w}", env_extra) for n in jobs[w]]

        with concurrent.futures.ThreadPoolExecutor(PROCESSES) as pool:
            return [c for result in pool.map(worker, range(PROCESSES)) for c in result]

    def check_entries(self, cache):
        names = os.listdir(cache)
        self.assertEqual([n for n in names if n.startswith(".")], [], "temporary files left behind")
        descriptions = [n for n in names if n.endswith(".json")]
        self.assertGreater(len(descriptions), 0)
        for name in descriptions:
            with open(os.path.join(cache, name)) as f:
                entry = json.load(f)
            with open(os.path.join(cache, name[:-5] + ".o"), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), entry["object_sha256"], name)
        objects = {n[:-2] for n in names if n.endswith(".o")}
        self.assertEqual(objects, {n[:-5] for n in descriptions}, "an object without its description")

    def test_concurrent_processes_fill_one_cache(self):
        cache = os.path.join(self.dir, "shared")
        self.round(cache, "cold")
        self.check_entries(cache)
        # Each distinct compile is one entry however many processes made it: the listing and the
        # kernel's code per source.
        entries = len([n for n in os.listdir(cache) if n.endswith(".json")])
        self.assertLessEqual(entries, 2 * (KERNELS + 1))
        self.assertEqual(set(self.round(cache, "warm")), {"yes"})
        self.check_entries(cache)

    def test_a_bounded_cache_stays_under_its_bound(self):
        cache = os.path.join(self.dir, "bounded")
        bound = 400 * 1024
        self.round(cache, "bounded", {"MSLSIM_CACHE_SIZE": "400K"})
        self.check_entries(cache)
        size = sum(os.path.getsize(os.path.join(cache, n)) for n in os.listdir(cache))
        # Each process trims at its first store and after writing a sixteenth of the bound; the
        # last stores of the round may leave it above three quarters, never far above the bound.
        self.assertLessEqual(size, bound + bound // 2, f"{size} bytes in a cache bounded at {bound}")

    def test_a_size_that_is_not_one_is_refused(self):
        p = subprocess.run([MSLSIM, "run", os.path.join(self.dir, "k0.metal"), "--kernel", "affine", "--grid", "64",
                            "--threadgroup", "32",
                            "--buffer", "0=" + os.path.join(self.dir, "x.npy"), "--buffer", "1=zeros:float32:64"],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, MSLSIM_CACHE_DIR=os.path.join(self.dir, "refused"),
                                    MSLSIM_CACHE_SIZE="lots"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("MSLSIM_CACHE_SIZE=lots", p.stderr)


if __name__ == "__main__":
    MSLSIM = sys.argv.pop(1)
    unittest.main()
