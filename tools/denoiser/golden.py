#!/usr/bin/env python3
"""The golden output the C++ inference is checked against (issue #51): a small U-Net of fixed random
weights (rounded to fp16, as the file stores them, and loaded back so that PyTorch computes with exactly
the file's values) denoising a small fixed image, in float32 and float64 through unet.py, which is what
training optimises. The C++ CPU network must give the float64 image to float32 precision and the GPU's to
fp16 precision (tests/denoise/test_unet_golden.cpp).

    golden.py OUT_DIR        (needs torch; run where it is installed, e.g. the device machine)

Writes OUT_DIR/golden.pkrtunet (the weights) and OUT_DIR/golden.bin: the magic "PKRTGOLD", width and
height (uint32), then float32 planes, row by row from the top: colour R, G, B, albedo R, G, B, normal X,
Y, Z (the input), then the denoised R, G, B. The same weights as a residual network (its output added to
the input colour's curve value) as golden_residual.pkrtunet and golden_residual.bin.
"""
import math
import os
import struct
import sys

import torch

from unet import UNet, auto_exposure, export_weights, network_input, transfer_inverse
from weights_file import INPUT_ALBEDO, INPUT_COLOR, INPUT_NORMAL

WIDTH, HEIGHT = 40, 24  # not multiples of 16: the padding is part of what is checked
WIDTHS = [8, 8, 12, 16, 20, 24, 24, 28, 28, 24, 24, 16, 16, 16, 8, 3]
SCALE = 0.25


def image():
    """Colour with fireflies and a dark corner, albedo and normal with edges: smooth formulas, so that the
    C++ test does not depend on a random generator."""
    ys, xs = torch.meshgrid(torch.arange(HEIGHT, dtype=torch.float64), torch.arange(WIDTH, dtype=torch.float64),
                            indexing="ij")
    color = torch.stack([(torch.sin(0.37 * xs + 0.11 * ys) + 1.2) * (1 + 0.5 * c) for c in range(3)])
    color = color * torch.where(xs + ys < 8, 0.01, 1.0)
    color = color + torch.where((xs * 7 + ys * 13) % 29 == 0, 300.0, 0.0)
    albedo = torch.stack([torch.where(xs < WIDTH / 2, 0.8, 0.2) * (0.5 + 0.25 * c) + 0.0 * ys for c in range(3)])
    nz = torch.cos(0.05 * xs) * torch.where(ys < HEIGHT / 2, 1.0, -1.0)
    normal = torch.stack([torch.sin(0.05 * xs), 0.0 * ys, nz])
    return color, albedo, normal


def write_golden(out, name, residual):
    torch.manual_seed(51)
    model = UNet(INPUT_COLOR | INPUT_ALBEDO | INPUT_NORMAL, WIDTHS, residual)
    with torch.no_grad():
        for p in model.parameters():  # larger than the default init, so that every layer's output matters
            p.mul_(2.0)
            p.copy_(p.half().float())  # exactly the file's values
    weights = os.path.join(out, f"{name}.pkrtunet")
    export_weights(model, weights, SCALE)
    color, albedo, normal = image()
    exposure = auto_exposure(color.float())
    model = model.double()
    pad_h, pad_w = -HEIGHT % 16, -WIDTH % 16
    with torch.no_grad():
        x = network_input(color[None], albedo[None], normal[None], torch.tensor(exposure, dtype=torch.float64), SCALE)
        x = torch.nn.functional.pad(x, (0, pad_w, 0, pad_h))
        y = model(x)[:, :, :HEIGHT, :WIDTH]
        denoised = transfer_inverse(y, SCALE)[0] / exposure
    planes = torch.cat((color, albedo, normal, denoised)).float()
    with open(os.path.join(out, f"{name}.bin"), "wb") as f:
        f.write(b"PKRTGOLD" + struct.pack("<II", WIDTH, HEIGHT))
        f.write(struct.pack(f"<{planes.numel()}f", *planes.flatten().tolist()))
    print(f"{name}: exposure {exposure:.6g} ({math.log2(exposure):.3f} stops); output mean {denoised.mean().item():.6g}, "
          f"max {denoised.max().item():.6g}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    write_golden(sys.argv[1], "golden", False)
    write_golden(sys.argv[1], "golden_residual", True)


if __name__ == "__main__":
    main()
