#!/usr/bin/env python3
# Writes x (16384 fp32, seeded) to <output>/input/input_x.bin and y = 3 * x to <output>/output/golden.bin.
import argparse
import os
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--output", default=".")
args = parser.parse_args()
x = np.random.default_rng(5).uniform(-4.0, 4.0, 16384).astype(np.float32)
os.makedirs(os.path.join(args.output, "input"), exist_ok=True)
os.makedirs(os.path.join(args.output, "output"), exist_ok=True)
x.tofile(os.path.join(args.output, "input", "input_x.bin"))
(x * np.float32(3.0)).astype(np.float32).tofile(os.path.join(args.output, "output", "golden.bin"))
