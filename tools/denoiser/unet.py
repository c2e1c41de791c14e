"""The U-Net of pkrt's learned denoiser (issue #51) in PyTorch, its input transform, and the weight file's
exporter. render/denoise/unet.h describes the network and render/denoise/unet_weights.h the file;
weights_file.py holds the layer order, skips and widths for the Python side. This file must stay layer for
layer what the C++ computes: ReLU after every layer but the last, zero padding, 2x2 max pool, nearest 2x
upsampling, the upsampled tensor before the skip in each concatenation, the log curve and the
auto-exposure."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from weights_file import (INPUT_ALBEDO, INPUT_COLOR, INPUT_NORMAL, LAYER_NAMES, MAX_INPUT, OUTPUT_CURVE,
                          OUTPUT_RESIDUAL, WIDTHS, decode, encode, in_widths)


class UNet(nn.Module):
    def __init__(self, inputs=INPUT_COLOR | INPUT_ALBEDO | INPUT_NORMAL, widths=WIDTHS, residual=False):
        super().__init__()
        self.inputs, self.residual = inputs, residual
        for name, cin, cout in zip(LAYER_NAMES, in_widths(inputs, widths), widths):
            setattr(self, name, nn.Conv2d(cin, cout, 3, padding=1))

    def forward(self, x):  # x: N x C x H x W, H and W multiples of 16
        c = lambda name, t: F.relu(getattr(self, name)(t))
        pool = lambda t: F.max_pool2d(t, 2)
        up = lambda t: F.interpolate(t, scale_factor=2, mode="nearest")
        p1 = pool(c("enc_conv1", c("enc_conv0", x)))
        p2 = pool(c("enc_conv2", p1))
        p3 = pool(c("enc_conv3", p2))
        t = pool(c("enc_conv4", p3))
        t = c("enc_conv5b", c("enc_conv5a", t))
        t = c("dec_conv4b", c("dec_conv4a", torch.cat((up(t), p3), 1)))
        t = c("dec_conv3b", c("dec_conv3a", torch.cat((up(t), p2), 1)))
        t = c("dec_conv2b", c("dec_conv2a", torch.cat((up(t), p1), 1)))
        t = c("dec_conv1b", c("dec_conv1a", torch.cat((up(t), x), 1)))
        y = self.dec_conv0(t)  # no ReLU: the curve's inverse clamps
        return y + x[:, :3] if self.residual else y


def transfer(x, scale):
    """The log curve of exposed radiance (render/denoise/unet_layers.cpp: transfer_forward)."""
    return scale * torch.log1p(torch.nan_to_num(x, nan=0.0, posinf=0.0).clamp(0.0, MAX_INPUT))


def transfer_inverse(y, scale):
    return torch.expm1(torch.clamp(y / scale, max=89.0)).clamp(0.0, MAX_INPUT)


def auto_exposure(rgb):
    """2^stops of render/image/look.cpp's auto_exposure_stops for one 3 x H x W tensor: the log-average over
    8x8 blocks (edge blocks partial) of each block's mean Rec. 709 luminance, plus 1e-4, to 0.18."""
    _, h, w = rgb.shape
    y = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]).double()
    y = torch.nan_to_num(y, nan=0.0, posinf=0.0, neginf=0.0)
    ph, pw = -h % 8, -w % 8  # zeros to whole blocks, and the count of real pixels in each
    sums = F.pad(y, (0, pw, 0, ph)).reshape((h + ph) // 8, 8, (w + pw) // 8, 8).sum((1, 3))
    counts = F.pad(torch.ones_like(y), (0, pw, 0, ph)).reshape((h + ph) // 8, 8, (w + pw) // 8, 8).sum((1, 3))
    logs = torch.log((sums / counts).clamp(min=0.0) + 1e-4)
    stops = math.log2(0.18) - logs.mean().item() / math.log(2.0)
    return 2.0 ** min(max(stops, -64.0), 64.0)


def network_input(color, albedo, normal, exposure, scale):
    """The C++'s UnetNetwork::input for N x 3 x H x W tensors; `exposure` N x 1 x 1 x 1."""
    return torch.cat((transfer(color * exposure, scale), albedo.clamp(0, 1), normal.clamp(-1, 1)), 1)


def export_weights(model, path, scale):
    """Writes the weight file (fp16, little-endian) in LAYER_NAMES' order, weights in PyTorch's OIHW order."""
    layers = []
    for name in LAYER_NAMES:
        conv = getattr(model, name)
        cout, cin, _, _ = conv.weight.shape
        layers.append((cin, cout, conv.weight.detach().cpu().flatten().tolist(), conv.bias.detach().cpu().tolist()))
    with open(path, "wb") as f:
        f.write(encode(layers, scale, model.inputs, output=OUTPUT_RESIDUAL if model.residual else OUTPUT_CURVE))


def load_weights(path):
    """A weight file as a UNet (its fp16 values in float32) and the curve's scale."""
    with open(path, "rb") as f:
        d = decode(f.read())
    model = UNet(d["inputs"], [cout for _, cout, _, _ in d["layers"]], d["output"] == OUTPUT_RESIDUAL)
    with torch.no_grad():
        for name, (cin, cout, weights, biases) in zip(LAYER_NAMES, d["layers"]):
            conv = getattr(model, name)
            conv.weight.copy_(torch.tensor(weights, dtype=torch.float32).view(cout, cin, 3, 3))
            conv.bias.copy_(torch.tensor(biases, dtype=torch.float32))
    return model, d["scale"]
