#!/usr/bin/env python3
"""Procedural environment maps for the denoiser's training data (no HDRI library can be fetched here):
skies of random colour and brightness over a ground, each with a small, very bright sun at a random
place, so that the training images hold what a learned denoiser must keep, sharp sun shadows and
highlights beside the soft light of the sky. Radiance .hdr files (flat RGBE scanlines), equirectangular,
+Y up; standard library only.

Usage: make_envs.py OUT_DIR [--count 16] [--size 256x128] [--seed 1]
"""
import argparse
import math
import os
import random
import struct


def rgbe(r, g, b):
    m = max(r, g, b)
    if m < 1e-32:
        return b"\0\0\0\0"
    mantissa, exponent = math.frexp(m)
    scale = mantissa * 256.0 / m
    return struct.pack("BBBB", int(r * scale), int(g * scale), int(b * scale), exponent + 128)


def sky(rng, width, height):
    """One map: rows from the top (+Y) down, each `width` (r, g, b) radiances."""
    zenith = [rng.uniform(0.05, 0.35), rng.uniform(0.15, 0.5), rng.uniform(0.4, 1.0)]
    horizon = [rng.uniform(0.6, 1.0)] * 3
    horizon[2] *= rng.uniform(0.8, 1.1)
    ground = [rng.uniform(0.05, 0.3) for _ in range(3)]
    brightness = 2.0 ** rng.uniform(-2.0, 2.0)
    elevation = math.radians(rng.uniform(3.0, 80.0))
    azimuth = rng.uniform(0.0, 2.0 * math.pi)
    sun_dir = (math.cos(elevation) * math.cos(azimuth), math.sin(elevation), math.cos(elevation) * math.sin(azimuth))
    radius = math.radians(rng.uniform(0.6, 3.0))  # wider than the real sun's 0.27 degrees, so a texel holds it
    sun_radiance = brightness * rng.uniform(2e2, 3e3) * (0.5 / math.degrees(radius)) ** 2
    sun_colour = [1.0, rng.uniform(0.8, 0.95), rng.uniform(0.6, 0.9)]
    rows = []
    for y in range(height):
        theta = math.pi * (y + 0.5) / height  # from +Y
        up = math.cos(theta)
        row = []
        for x in range(width):
            phi = 2.0 * math.pi * (x + 0.5) / width
            d = (math.sin(theta) * math.cos(phi), up, math.sin(theta) * math.sin(phi))
            if up >= 0.0:
                t = up ** 0.5
                c = [brightness * (h * (1 - t) + z * t) for h, z in zip(horizon, zenith)]
            else:
                c = [brightness * g for g in ground]
            cos_sun = sum(a * b for a, b in zip(d, sun_dir))
            if cos_sun > math.cos(radius):
                c = [v + sun_radiance * s for v, s in zip(c, sun_colour)]
            row.append(c)
        rows.append(row)
    return rows


def write_hdr(path, rows):
    height, width = len(rows), len(rows[0])
    with open(path, "wb") as f:
        f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + f"-Y {height} +X {width}\n".encode())
        for row in rows:
            f.write(b"".join(rgbe(*c) for c in row))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--size", default="256x128")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    width, height = map(int, a.size.split("x"))
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    for k in range(a.count):
        write_hdr(os.path.join(a.out_dir, f"sky_{k:02d}.hdr"), sky(rng, width, height))


if __name__ == "__main__":
    main()
