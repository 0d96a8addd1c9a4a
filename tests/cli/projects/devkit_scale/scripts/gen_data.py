#!/usr/bin/env python3
# Writes the input x (16 x 1024 fp32, seeded) and the expected y = 3 * x into the current folder.
import os
import numpy as np

x = np.random.default_rng(7).uniform(-4.0, 4.0, 16 * 1024).astype(np.float32)
os.makedirs("input", exist_ok=True)
os.makedirs("output", exist_ok=True)
x.tofile("input/input_x.bin")
(x * np.float32(3.0)).astype(np.float32).tofile("output/golden.bin")
