#!/usr/bin/env python3
# Writes the input x (8 x 1000 fp32, seeded) and the expected y = max(x * 1.5 + 0.25, 0).
import os
import numpy as np

x = np.random.default_rng(11).uniform(-4.0, 4.0, 8 * 1000).astype(np.float32)
os.makedirs("input", exist_ok=True)
os.makedirs("output", exist_ok=True)
x.tofile("input/input_x.bin")
y = np.maximum(x * np.float32(1.5) + np.float32(0.25), np.float32(0.0)).astype(np.float32)
y.tofile("output/golden.bin")
