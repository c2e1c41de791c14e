#!/usr/bin/env python3
"""Which adaptive sampling rule pays, and which stays unbiased (issue 52), measured on real renders before
any of it is built into the GPU's rounds.

Every pixel's samples are nested: a render of N spp holds the first N samples of each pixel of a render
of 2N with the same seed (kernels/path_stages.h). So `pkrt render` at 2, 4, ..., MAX spp gives each
pixel's running mean after every doubling, and any rule whose tiles double their samples round by round
can be replayed exactly from those images, for several seeds, against a reference render. Rules (8x8
tiles, each judged with a one-pixel halo as kernels/adaptive.h does; every tile starts at --min-spp):

  uniform     every pixel N spp
  stop        a tile doubles while any pixel of its halo is above the error E (today's rule, with doubling
              rounds); the image is the plain mean of each pixel's samples
  prop-mean   after --pilot-spp samples everywhere, samples in proportion to the tile's estimated error
              per sample: the tile's plan is
              n = s * mean(s) / T (s: the RMS relative error over its halo times sqrt(its samples), T the
              target mean relMSE), rounded up to a power of two; tiles double until they reach their plan,
              which is made again after every round; the plain mean
  prop-wtd    the same samples, but each round's mean is weighed by a weight fixed before the round's
              samples exist: w_k = (1 - W) n_k / (P - N), with W the weight given so far, N the samples so
              far, n_k the round's and P the plan as it stood before the round (the last round takes what
              is left, so the weights sum to 1). Each round's mean is of fresh samples, independent of its
              weight, so the estimate is unbiased whatever the plans; when no plan changes it is the plain
              mean. The pilot's weight comes from the plans of the tile's eight neighbours alone
              (independent of its own samples), and leaves room for at least one more round

For each rule and a sweep of its parameter: mean samples per pixel and mean relMSE (against the
reference, averaged over the seeds); the samples each needs for the relMSE uniform sampling reaches at
--at spp, against uniform's (the gain); and the bias: per 32x32 block, the mean of the seeds' estimates
against the reference in standard errors of that mean (|z| > 3 in more than about 0.3% of blocks, or a
systematic sign, is bias).

Standard library only. Usage:
  allocation_study.py SCENE [--pkrt build/pkrt] [--res 128x72] [--seeds 8] [--max-spp 2048]
                      [--min-spp 16] [--pilot-spp 64] [--ref-spp 32768] [--at 256] [--cache DIR] [--margins 1,2/0]
                      [-- PKRT_ARGS...]
"""
import array
import math
import os
import subprocess
import sys

from noise_gain import read_pfm, scene_arguments  # rows from the bottom: the order does not matter, every image shares it

TILE = 8
BLOCK = 32


def render(a, extra, spp, seed, path):
    if not os.path.exists(path):
        subprocess.run([a.pkrt, "render", a.scene, "--res", a.res, "--spp", str(spp), "--seed", str(seed), "-q",
                        "-o", path + ".tmp.pfm"] + extra, check=True)
        os.replace(path + ".tmp.pfm", path)
    return read_pfm(path)


def rel_err2(img, ref, p):
    """relMSE of pixel p as pkrt weighs it: mean over channels of (I - R)^2 / (R^2 + 0.01)."""
    e = 0.0
    for c in range(3):
        d = img[3 * p + c] - ref[3 * p + c]
        e += d * d / (ref[3 * p + c] ** 2 + 0.01)
    return e / 3.0


def half_err2(levels, j, p):
    """kernels/adaptive.h's pixel_error^2 at 2^j samples: the running mean against the first half's."""
    full, half = levels[j], levels[j - 1]
    e = 0.0
    for c in range(3):
        i = full[3 * p + c]
        d = i - half[3 * p + c]
        e += d * d / (i * i + 0.01)
    return e / 3.0


class Tiles:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.tx, self.ty = (w + TILE - 1) // TILE, (h + TILE - 1) // TILE
        self.pixels, self.halo, self.ring = [], [], []
        for ty in range(self.ty):
            for tx in range(self.tx):
                x0, y0 = tx * TILE, ty * TILE
                own = [y * w + x for y in range(y0, min(y0 + TILE, h)) for x in range(x0, min(x0 + TILE, w))]
                halo = [y * w + x for y in range(max(y0 - 1, 0), min(y0 + TILE + 1, h))
                        for x in range(max(x0 - 1, 0), min(x0 + TILE + 1, w))]
                ring = [ny * self.tx + nx for ny in range(max(ty - 1, 0), min(ty + 2, self.ty))
                        for nx in range(max(tx - 1, 0), min(tx + 2, self.tx)) if (nx, ny) != (tx, ty)]
                self.pixels.append(own)
                self.halo.append(halo)
                self.ring.append(ring)


def pow2_at_least(x, lo, hi):
    n = lo
    while n < x and n < hi:
        n *= 2
    return n


def run_stop(t, levels, j0, jmax, e):
    """Today's rule with doubling rounds: returns each tile's final level."""
    final = [None] * len(t.pixels)
    j = [j0] * len(t.pixels)
    active = set(range(len(t.pixels)))
    while active:
        nxt = set()
        for k in active:
            if j[k] < jmax and any(half_err2(levels, j[k], p) > e * e for p in t.halo[k]):
                j[k] += 1
                nxt.add(k)
            else:
                final[k] = j[k]
        active = nxt
    return final


def tile_s(t, levels, j, k):
    """The tile's relative error per sample: RMS of pixel_error over its halo, times sqrt(samples)."""
    e2 = sum(half_err2(levels, j, p) for p in t.halo[k]) / len(t.halo[k])
    return math.sqrt(e2 * (1 << j))


def plans(t, levels, jt, target, j0, jmax, use_ring=False):
    """Each tile's plan (a level) from the tiles' current levels: n = s * mean(s) / T."""
    s = [tile_s(t, levels, jt[k], k) for k in range(len(t.pixels))]
    if use_ring:
        s = [sum(s[r] for r in t.ring[k]) / max(len(t.ring[k]), 1) for k in range(len(s))]
    weights = [len(px) for px in t.pixels]
    mean_s = sum(si * wi for si, wi in zip(s, weights)) / sum(weights)
    out = []
    for si in s:
        n = pow2_at_least(si * mean_s / target, 1 << j0, 1 << jmax)
        out.append(int(math.log2(n)))
    return out


def run_prop(t, levels, j0, jmax, target, margin=0, pilot_margin=None):
    """Proportional allocation with doubling rounds: per tile, its final level and its rounds' weights
    (predictable: each fixed before the round's samples). margin: the weights of every round but the
    last are those of a plan 2^margin times the plan (capped at the maximum), so that early rounds weigh
    less when the plan grows later, and the last round takes more when it does not; pilot_margin: the
    pilot's own (default: margin)."""
    pilot_margin = margin if pilot_margin is None else pilot_margin
    ntiles = len(t.pixels)
    jt = [j0] * ntiles
    ring_plan = plans(t, levels, jt, target, j0, jmax, use_ring=True)
    # Round 0 (samples 0 .. 2^j0) leaves room for at least one more round: estimates at a few samples
    # miss rare bright paths, so no tile is finished by them.
    weights = [[(1 << j0) / (1 << min(max(ring_plan[k], j0 + 1) + pilot_margin, max(jmax, j0 + 1)))]
               for k in range(ntiles)]
    used = [w[0] for w in weights]
    while True:
        plan = plans(t, levels, jt, target, j0, jmax)
        moved = False
        for k in range(ntiles):
            if used[k] >= 1.0 - 1e-12:
                continue  # the weights are spent: this tile is done
            j = jt[k]
            # The tile's plan, never below the round it now takes (at least one more doubling while
            # weight is left), nor above the maximum.
            p = max(plan[k], j + 1)
            left = 1.0 - used[k]
            # Doubling: the round adds 2^j samples of the 2^p - 2^j the plan has left; the last takes the rest.
            pw = min(p + margin, jmax)
            w = left if p == j + 1 or j + 1 >= jmax else left * (1 << j) / ((1 << pw) - (1 << j))
            weights[k].append(w)
            used[k] += w
            jt[k] = j + 1
            moved = True
        if not moved:
            break
    return jt, weights


def estimate_mean(t, levels, final):
    img = array.array("f", bytes(4 * 3 * t.w * t.h))
    for k, px in enumerate(t.pixels):
        lv = levels[final[k]]
        for p in px:
            for c in range(3):
                img[3 * p + c] = lv[3 * p + c]
    return img


def estimate_weighted(t, levels, j0, weights):
    img = array.array("f", bytes(4 * 3 * t.w * t.h))
    for k, px in enumerate(t.pixels):
        ws = weights[k]
        for p in px:
            for c in range(3):
                v = ws[0] * levels[j0][3 * p + c]
                for r, w in enumerate(ws[1:]):
                    j = j0 + r  # the round doubles level j to j + 1: its samples' mean is 2 C[j+1] - C[j]
                    v += w * (2.0 * levels[j + 1][3 * p + c] - levels[j][3 * p + c])
                img[3 * p + c] = v
    return img


def mean_spp(t, final):
    total = sum((1 << final[k]) * len(px) for k, px in enumerate(t.pixels))
    return total / (t.w * t.h)


def rel_mse(img, ref, n):
    return sum(rel_err2(img, ref, p) for p in range(n)) / n


def block_z(images, ref, w, h):
    """Per 32x32 block: (mean over images of the block's mean - the reference's) / its standard error."""
    zs = []
    for by in range(0, h - BLOCK + 1, BLOCK):
        for bx in range(0, w - BLOCK + 1, BLOCK):
            px = [y * w + x for y in range(by, by + BLOCK) for x in range(bx, bx + BLOCK)]
            vals = [sum(img[3 * p + c] for p in px for c in range(3)) / (3 * len(px)) for img in images]
            r = sum(ref[3 * p + c] for p in px for c in range(3)) / (3 * len(px))
            m = sum(vals) / len(vals)
            sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
            # A block of sky alone has no noise: its images differ from the reference by float rounding.
            se = max(sd / math.sqrt(len(vals)), 1e-5 * abs(r), 1e-12)
            zs.append((m - r) / se)
    return zs


def interpolate_spp(curve, target):
    """Samples at which a (spp, relMSE) curve crosses `target` (log-log between its points)."""
    pts = sorted(curve)
    for (s0, e0), (s1, e1) in zip(pts, pts[1:]):
        if (e0 - target) * (e1 - target) <= 0 and e0 != e1:
            f = (math.log(target) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp(math.log(s0) + f * (math.log(s1) - math.log(s0)))
    return float("nan")


def main():
    ap, argv, extra = scene_arguments(__doc__)
    ap.add_argument("--res", default="128x72")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--max-spp", type=int, default=2048)
    ap.add_argument("--min-spp", type=int, default=16)
    ap.add_argument("--ref-spp", type=int, default=32768)
    ap.add_argument("--pilot-spp", type=int, default=64,
                    help="prop: every tile's samples before the first plan (estimates at fewer miss rare paths)")
    ap.add_argument("--at", type=int, default=256, help="compare at the relMSE uniform sampling reaches here")
    ap.add_argument("--cache", default=None, help="keep the renders here (a second run reuses them)")
    ap.add_argument("--rules", default="stop,prop", help="the rules to replay (uniform always)")
    ap.add_argument("--margins", default="", help="prop-wtd+m: weights as if each plan were 2^m times larger "
                    "(comma-separated m > 0; P/R: the pilot's margin P, the rounds' R)")
    a = ap.parse_args(argv)
    a.margins = [m for m in a.margins.split(",") if m]
    cache = a.cache or os.path.join("/tmp", "allocation_study", os.path.basename(a.scene) + "_" + a.res)
    os.makedirs(cache, exist_ok=True)
    jmax, j0 = int(math.log2(a.max_spp)), int(math.log2(a.min_spp))
    jp = max(j0, int(math.log2(a.pilot_spp)))
    w, h, ref = render(a, extra, a.ref_spp, 999331, os.path.join(cache, f"ref_{a.ref_spp}.pfm"))
    t = Tiles(w, h)
    n = w * h
    runs = []
    for s in range(a.seeds):
        levels = [None] + [render(a, extra, 1 << j, 1001 + s, os.path.join(cache, f"s{s}_{1 << j}.pfm"))[2]
                           for j in range(1, jmax + 1)]
        runs.append(levels)
        print(f"seed {s}: rendered", file=sys.stderr, flush=True)

    curves = {}
    uniform = [(1 << j, sum(rel_mse(lv[j], ref, n) for lv in runs) / len(runs)) for j in range(j0, jmax + 1)]
    curves["uniform"] = uniform
    target = dict(uniform).get(a.at)
    print(f"{os.path.basename(a.scene)} {a.res}, {a.seeds} seeds, reference {a.ref_spp} spp; uniform relMSE at "
          f"{a.at} spp: {target:.3e}")
    # Uniform sampling is unbiased: its blocks' z say how far the test itself can be trusted at each count
    # (a heavy tail, rarely sampled, puts most means below the true one and shrinks their spread).
    for j in range(j0, jmax + 1):
        zs = block_z([lv[j] for lv in runs], ref, w, h)
        print(f"  uniform   {1 << j:9d}: relMSE {dict(uniform)[1 << j]:.3e}, blocks |z|>3: "
              f"{sum(abs(z) > 3 for z in zs)}/{len(zs)}, mean z {sum(zs) / max(len(zs), 1):+.2f}")
    bias = {}
    for name, params in (("stop", [0.3, 0.2, 0.14, 0.1, 0.07, 0.05, 0.035, 0.025]),
                         ("prop", [v * target for v in (2, 1, 0.5, 0.25, 0.125, 0.0625, 0.03, 0.015)])):
        if name not in a.rules.split(","):
            continue
        for prm in params:
            rows = {"mean": [], "wtd": []}
            for levels in runs:
                if name == "stop":
                    final = run_stop(t, levels, j0, jmax, prm)
                    rows["mean"].append((mean_spp(t, final), estimate_mean(t, levels, final)))
                else:
                    final, weights = run_prop(t, levels, jp, jmax, prm)
                    rows["mean"].append((mean_spp(t, final), estimate_mean(t, levels, final)))
                    rows["wtd"].append((mean_spp(t, final), estimate_weighted(t, levels, jp, weights)))
                    for m in a.margins:  # the same samples, other weights: "m" or "pilot margin/rounds' margin"
                        pm, rm = (int(v) for v in m.split("/")) if "/" in m else (int(m), int(m))
                        final_m, weights_m = run_prop(t, levels, jp, jmax, prm, rm, pm)
                        rows.setdefault(f"wtd+{m}", []).append(
                            (mean_spp(t, final_m), estimate_weighted(t, levels, jp, weights_m)))
            for est, got in rows.items():
                if not got:
                    continue
                label = "stop" if name == "stop" else f"prop-{est}"
                spp = sum(g[0] for g in got) / len(got)
                err = sum(rel_mse(g[1], ref, n) for g in got) / len(got)
                zs = block_z([g[1] for g in got], ref, w, h)
                curves.setdefault(label, []).append((spp, err))
                bias.setdefault(label, []).append((prm, spp, err, zs))
                mz = sum(zs) / len(zs) if zs else 0.0
                print(f"  {label:9s} {prm:9.3g}: {spp:8.1f} spp, relMSE {err:.3e}, blocks |z|>3: "
                      f"{sum(abs(z) > 3 for z in zs)}/{len(zs)}, mean z {mz:+.2f}", flush=True)
    print(f"\nsamples for relMSE {target:.3e} (uniform's at {a.at} spp), and the gain over uniform:")
    u = interpolate_spp(uniform, target)
    for label, curve in curves.items():
        s = interpolate_spp(curve, target)
        print(f"  {label:9s} {s:8.1f} spp  gain {u / s:.2f}")


if __name__ == "__main__":
    main()
