"""pkrt's U-Net weight file (render/denoise/unet_weights.h describes the layout; this is its Python writer,
standard library only, so that tests/denoise/test_unet_weights.cpp can check it against the C++ reader
where no torch is installed).

The layer order, the skips and the widths live here once for the Python side; unet.py builds the network
from them. `python3 weights_file.py --fixture OUT` writes the small patterned network the C++ test expects.
"""
import math
import struct
import sys

MAGIC = b"PKRTUNET"
VERSION = 2  # 2 added the output field; the C++ reads version 1 files as OUTPUT_CURVE
INPUT_COLOR, INPUT_ALBEDO, INPUT_NORMAL = 1, 2, 4
EXPOSURE_NONE, EXPOSURE_AUTO = 0, 1
CURVE_LOG = 1
# The last layer's output: the curve's value of the denoised colour, or the change to the input colour's
# (residual: the network adds to what it was given, so a converged image needs only a zero correction).
OUTPUT_CURVE, OUTPUT_RESIDUAL = 0, 1
MAX_INPUT = 65504.0  # the largest half: what the dataset's EXRs can hold
LAYER_NAMES = ["enc_conv0", "enc_conv1", "enc_conv2", "enc_conv3", "enc_conv4", "enc_conv5a", "enc_conv5b",
               "dec_conv4a", "dec_conv4b", "dec_conv3a", "dec_conv3b", "dec_conv2a", "dec_conv2b",
               "dec_conv1a", "dec_conv1b", "dec_conv0"]
# Output widths (unet_default_widths() in the C++): Open Image Denoise's published U-Net, 918,720 weights.
WIDTHS = [32, 32, 48, 64, 80, 96, 96, 112, 112, 96, 96, 64, 64, 64, 32, 3]
# The layer whose output is concatenated after the upsampled tensor, before these layers ("input": the
# network's input).
SKIPS = {7: 3, 9: 2, 11: 1, 13: "input"}


def input_channels(inputs):
    return 3 + (3 if inputs & INPUT_ALBEDO else 0) + (3 if inputs & INPUT_NORMAL else 0)


def in_widths(inputs, widths=WIDTHS):
    """Each layer's input channels: the previous layer's output, plus the skip's where there is one."""
    cin = input_channels(inputs)
    ins = []
    for i in range(len(LAYER_NAMES)):
        prev = cin if i == 0 else widths[i - 1]
        skip = SKIPS.get(i)
        ins.append(prev + (0 if skip is None else cin if skip == "input" else widths[skip]))
    return ins


def encode(layers, scale, inputs=INPUT_COLOR | INPUT_ALBEDO | INPUT_NORMAL, exposure=EXPOSURE_AUTO,
           output=OUTPUT_CURVE):
    """The file's bytes. `layers`: (cin, cout, weights, biases) in LAYER_NAMES' order, weights a flat
    sequence in PyTorch's OIHW order (cout x cin x 3 x 3). Values round to fp16, ties to even."""
    out = bytearray(MAGIC)
    out += struct.pack("<IIIIffII", VERSION, inputs, exposure, CURVE_LOG, scale, MAX_INPUT, output, len(layers))
    for cin, cout, _, _ in layers:
        out += struct.pack("<IIII", cin, cout, 3, 3)
    for i, (cin, cout, weights, biases) in enumerate(layers):
        if len(weights) != cout * cin * 9 or len(biases) != cout:
            raise ValueError(f"layer {i} ({LAYER_NAMES[i]}): weights or biases not of its shape")
        values = list(weights) + list(biases)
        if not all(math.isfinite(v) and abs(v) < 65520.0 for v in values):
            raise ValueError(f"layer {i} ({LAYER_NAMES[i]}): a weight is NaN, infinite or beyond fp16")
        out += struct.pack(f"<{len(values)}e", *values)
    return bytes(out)


def decode(data):
    """The file's fields and layers (as `encode` takes them) from its bytes, version 1 or 2; ValueError
    where it is not a whole file of the architecture's layer count."""
    if data[:8] != MAGIC:
        raise ValueError("not a pkrt U-Net weight file")
    version, inputs, exposure, curve, scale, max_input = struct.unpack_from("<IIIIff", data, 8)
    pos, output = 32, OUTPUT_CURVE
    if version == 2:
        output, = struct.unpack_from("<I", data, pos)
        pos += 4
    elif version != 1:
        raise ValueError(f"version {version}")
    count, = struct.unpack_from("<I", data, pos)
    pos += 4
    if count != len(LAYER_NAMES):
        raise ValueError(f"{count} layers")
    shapes = [struct.unpack_from("<IIII", data, pos + 16 * i)[:2] for i in range(count)]
    pos += 16 * count
    layers = []
    for cin, cout in shapes:
        n = cout * cin * 9
        values = struct.unpack_from(f"<{n + cout}e", data, pos)
        pos += 2 * (n + cout)
        layers.append((cin, cout, list(values[:n]), list(values[n:])))
    if pos != len(data):
        raise ValueError(f"{len(data) - pos} bytes after the last layer")
    return {"inputs": inputs, "exposure": exposure, "curve": curve, "scale": scale, "max_input": max_input,
            "output": output, "layers": layers}


# The fixture: small widths, every value a multiple of 1/16 (exact in fp16), from its layer and index.
FIXTURE_WIDTHS = [4, 5, 6, 7, 8, 9, 10, 11, 8, 7, 6, 5, 6, 5, 4, 3]


def fixture():
    ins = in_widths(7, FIXTURE_WIDTHS)
    layers = []
    for i, (cin, cout) in enumerate(zip(ins, FIXTURE_WIDTHS)):
        weights = [((i * 31 + k * 7) % 17 - 8) / 16.0 for k in range(cout * cin * 9)]
        biases = [((i + k * 3) % 9 - 4) / 8.0 for k in range(cout)]
        layers.append((cin, cout, weights, biases))
    return encode(layers, 0.25)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--fixture":
        sys.exit("usage: weights_file.py --fixture OUT")
    with open(sys.argv[2], "wb") as f:
        f.write(fixture())
