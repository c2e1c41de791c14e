#!/usr/bin/env python3
"""The learned denoiser's quality on the held-out scenes (issue #51's record): relMSE against a reference
of at least 4096 samples per pixel, of the noisy image, the a-trous filter's and the U-Net's, at each
sample count. Runs the shipped `pkrt render` (its --reference and --stats measure the relMSE the same way
for every image), so it needs nothing but the standard library.

Usage: evaluate.py OUT_DIR --weights W [--pkrt build/pkrt] [--res 384x384] [--ref-spp 4096]
                   [--spp 4,16,64,256,1024] [--seed 7] [--only NAME,...]
Writes OUT_DIR/<scene>/ref.exr and ref.png (kept: a second run reuses them), noisy_<spp>.png (the
first count's), <denoiser>_<spp>.png and .json, and
OUT_DIR/table.md (also printed): one row per scene and sample count. Its last column, the U-Net's dark
bias, is the sum of its image's error over the reference's channels under 0.1 (where relMSE turns from
relative to absolute) divided by their sum: a network that brightens dark regions (session 32's did, by
11%) shows it there.
"""
import argparse
import json
import os
import subprocess
import sys

import exr

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.join(ROOT, "..", "shared", "scenes")
# make_dataset.py never renders these.
HELD_OUT = {
    "DamagedHelmet": os.path.join(SHARED, "gltf", "DamagedHelmet", "glTF-Binary", "DamagedHelmet.glb"),
    "dabrovic-sponza": os.path.join(ROOT, "scenes", "bench", "dabrovic-sponza.json"),
    "ToyCar": os.path.join(SHARED, "gltf", "ToyCar", "glTF", "ToyCar.gltf"),
    "GlamVelvetSofa": os.path.join(SHARED, "gltf", "GlamVelvetSofa", "glTF-Binary", "GlamVelvetSofa.glb"),
}


def render(a, scene, out, spp, seed, extra):
    cmd = [a.pkrt, "render", scene, "-o", out, "--spp", str(spp), "--seed", str(seed), "--res", a.res, "-q"] + extra
    subprocess.run(cmd, check=True)


def rel_mse(stats_path):
    with open(stats_path) as f:
        ref = json.load(f)["reference"]
    return ref["rel_mse"], ref.get("rel_mse_noisy")


def dark_bias(image_pfm, reference):
    """`reference`: exr.read's (width, height, planes) of the reference."""
    _, _, values, _ = exr.read_pfm(image_pfm)
    w, h, planes = reference
    err = total = 0.0
    for i in range(w * h):
        for k, c in enumerate("RGB"):
            r = planes[c][i]
            if r < 0.1:
                err += values[3 * i + k] - r
                total += r
    return err / total if total > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--weights", required=True, help="the U-Net's weight file")
    ap.add_argument("--pkrt", default=os.path.join(ROOT, "build", "pkrt"))
    ap.add_argument("--res", default="384x384")
    ap.add_argument("--ref-spp", type=int, default=4096)
    ap.add_argument("--spp", default="4,16,64,256,1024")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", help="held-out scenes by name, comma-separated (default: all)")
    a = ap.parse_args()
    if a.ref_spp < 4096:
        sys.exit("evaluate: references need at least 4096 samples per pixel")
    names = a.only.split(",") if a.only else list(HELD_OUT)
    rows = ["| scene | spp | noisy | a-trous | U-Net | U-Net / a-trous | U-Net / noisy | U-Net dark bias |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in names:
        scene = HELD_OUT[name]
        folder = os.path.join(a.out_dir, name)
        os.makedirs(folder, exist_ok=True)
        ref = os.path.join(folder, "ref.exr")
        if not os.path.exists(ref):  # one render: the PNG for the pictures, the EXR to measure against
            render(a, scene, os.path.join(folder, "ref.png"), a.ref_spp, a.seed + 1000003, ["--hdr", ref])
        reference = exr.read(ref)  # once: every count's dark bias measures against it
        counts = [int(s) for s in a.spp.split(",")]
        # The noisy image the denoisers are given at the first count (the same seed), for the pictures.
        render(a, scene, os.path.join(folder, f"noisy_{counts[0]}.png"), counts[0], a.seed, [])
        for spp in counts:
            measured = {}
            unet_pfm = os.path.join(folder, f"unet_{spp}.pfm")
            for kind, extra in (("atrous", ["--denoiser", "atrous"]),
                                ("unet", ["--denoiser", "unet", "--denoiser-weights", a.weights, "--hdr", unet_pfm])):
                stats = os.path.join(folder, f"{kind}_{spp}.json")
                render(a, scene, os.path.join(folder, f"{kind}_{spp}.png"), spp, a.seed,
                       ["--denoise", "--reference", ref, "--stats", stats] + extra)
                measured[kind] = rel_mse(stats)
            noisy = measured["atrous"][1]
            atrous, unet = measured["atrous"][0], measured["unet"][0]
            rows.append(f"| {name} | {spp} | {noisy:.3e} | {atrous:.3e} | {unet:.3e} | {unet / atrous:.3f} | "
                        f"{unet / noisy:.3f} | {100 * dark_bias(unet_pfm, reference):+.1f}% |")
            print(rows[-1], flush=True)
    with open(os.path.join(a.out_dir, "table.md"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
