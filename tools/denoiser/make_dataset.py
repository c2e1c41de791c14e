#!/usr/bin/env python3
"""Renders the U-Net denoiser's training data with pkrt: for each scene, sequences of noisy EXRs (1 to 1024
samples per pixel, log-uniform, with their albedo and normal layers) and references of the same cameras
(4096 spp or more). Each sequence is rendered at --noisy-per-ref sample counts (one from each of as many
equal spans of log2(spp)) that share its reference, the costliest render. Needs a built pkrt
(build/pkrt) and, for sensible run times, a GPU.

Cameras: pkrt's `--camera-path orbit:DEGREES --frames N` turns the scene's camera about its up axis, frame
i at DEGREES*i/N; each sequence draws DEGREES and N at random, so the frames are different views and the
reference renders exactly the same ones. Frame i of a sequence uses seed + i (README.md: --frames).

Held out (never rendered here; the test set): DamagedHelmet, Dabrovic Sponza, ToyCar and GlamVelvetSofa.

Usage: make_dataset.py OUT_DIR [--pkrt build/pkrt] [--sequences 4] [--res 384x384] [--ref-spp 4096]
                       [--env-dir DIR | --skies 16] [--seed 1] [--jobs 4] [--only NAME,...] [--noisy-per-ref 3]
Half the sequences are lit by an environment map drawn at random: those of --env-dir, else --skies
procedural skies with a sun (make_envs.py, written to OUT_DIR/skies).
Writes OUT_DIR/<scene>_<k>/noisy_<spp>_%04d.exr and ref_%04d.exr, and OUT_DIR/manifest.json.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.join(ROOT, "..", "shared", "scenes")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import HELD_OUT  # noqa: E402  (the test set, by name: never rendered here)


def training_scenes():
    found = sorted(glob.glob(os.path.join(ROOT, "scenes", "*.json")))
    found += sorted(glob.glob(os.path.join(ROOT, "scenes", "bench", "*.json")))
    # Each glTF model once: its .gltf where it has one, else its .glb.
    for model in sorted(glob.glob(os.path.join(SHARED, "gltf", "*", ""))):
        files = sorted(glob.glob(os.path.join(model, "glTF", "*.gltf"))) or \
            sorted(glob.glob(os.path.join(model, "glTF-Binary", "*.glb")))
        found += files[:1]
    found += sorted(glob.glob(os.path.join(SHARED, "*", "*.obj")))
    # The furnace is a white test of energy conservation, not a picture worth learning.
    return [s for s in found if not any(h in s for h in HELD_OUT) and "furnace" not in s]


def render(pkrt, scene, out, spp, seed, frames, degrees, res, env):
    cmd = [pkrt, "render", scene, "-o", out, "--spp", str(spp), "--seed", str(seed), "--res", res,
           "--aov", "albedo,normal", "--frames", str(frames), "--camera-path", f"orbit:{degrees:.3f}", "-q"]
    if env:
        cmd += ["--env", env]
    subprocess.run(cmd, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--pkrt", default=os.path.join(ROOT, "build", "pkrt"))
    ap.add_argument("--sequences", type=int, default=4, help="sequences per scene")
    ap.add_argument("--res", default="384x384")
    ap.add_argument("--ref-spp", type=int, default=4096)
    ap.add_argument("--env-dir", help="environment maps (.hdr/.exr) to light scenes with, at random")
    ap.add_argument("--skies", type=int, default=16, help="procedural skies where no --env-dir is given (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4, help="renders at once (default 4)")
    ap.add_argument("--noisy-per-ref", type=int, default=3,
                    help="noisy sample counts per sequence (the reference costs more than all of them)")
    ap.add_argument("--only", help="scenes by file name without extension, comma-separated (default: all)")
    a = ap.parse_args()
    if a.ref_spp < 4096:
        sys.exit("make_dataset: references need at least 4096 samples per pixel")
    rng = random.Random(a.seed)
    env_dir = a.env_dir
    if not env_dir and a.skies > 0:
        env_dir = os.path.join(a.out_dir, "skies")
        if not os.path.isdir(env_dir):  # resumable: the same skies as the run before
            subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_envs.py"), env_dir,
                            "--count", str(a.skies), "--seed", str(a.seed)], check=True)
    envs = sorted(glob.glob(os.path.join(env_dir, "*.hdr")) + glob.glob(os.path.join(env_dir, "*.exr"))) if env_dir else []
    only = set(a.only.split(",")) if a.only else None
    # Every sequence's draws first, in one order, so the data set is the same whatever --jobs is.
    plan = []
    for scene in training_scenes():
        name = os.path.splitext(os.path.basename(scene))[0]
        if only is not None and name not in only:
            continue
        for k in range(a.sequences):
            frames, degrees = rng.randint(2, 6), rng.uniform(10.0, 360.0)
            n = max(1, a.noisy_per_ref)  # one count from each of n equal spans of log2(spp) in [0, 10]
            spps = sorted({max(1, min(1024, round(2 ** rng.uniform(10 * j / n, 10 * (j + 1) / n)))) for j in range(n)})
            env = rng.choice(envs) if envs and rng.random() < 0.5 else None
            seed = rng.randrange(1, 1 << 30)
            plan.append((scene, name, k, frames, degrees, spps, env, seed))

    def make(job):
        scene, name, k, frames, degrees, spps, env, seed = job
        folder = os.path.join(a.out_dir, f"{name}_{k}")
        os.makedirs(folder, exist_ok=True)
        noisy = [os.path.join(folder, f"noisy_{spp}_%04d.exr") for spp in spps]
        ref = os.path.join(folder, "ref_%04d.exr")
        if not os.path.exists(ref % (frames - 1)):  # resumable: a finished sequence is kept
            try:
                for j, (spp, path) in enumerate(zip(spps, noisy)):  # independent seeds, as the reference's
                    render(a.pkrt, scene, path, spp, seed + 7919 * j, frames, degrees, a.res, env)
                render(a.pkrt, scene, ref, a.ref_spp, seed + 1000003, frames, degrees, a.res, env)
            except subprocess.CalledProcessError as e:  # pkrt said why on stderr; the others go on
                print(f"make_dataset: warning: {name}_{k} left out (pkrt exit {e.returncode})", file=sys.stderr, flush=True)
                return []
        lit = f", lit by {os.path.basename(env)}" if env else ""
        print(f"{name}_{k}: {frames} frames at {','.join(map(str, spps))} spp{lit}", flush=True)
        return [{"scene": name, "noisy": path % i, "ref": ref % i, "spp": spp}
                for spp, path in zip(spps, noisy) for i in range(frames)]

    # Several renders at once: each spends seconds loading its scene and building its BVH on the CPU,
    # which the others' GPU work overlaps. The manifest is rewritten as sequences finish, so that a run
    # cut short (a device call's time limit) leaves every finished sequence usable.
    manifest = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for pairs in pool.map(make, plan):
            manifest += pairs
            with open(os.path.join(a.out_dir, "manifest.json.tmp"), "w") as f:
                json.dump(manifest, f, indent=1)
            os.replace(os.path.join(a.out_dir, "manifest.json.tmp"), os.path.join(a.out_dir, "manifest.json"))


if __name__ == "__main__":
    main()
