"""The EXRs pkrt writes, read with the standard library (numpy, where installed, only makes it faster): the
device machines that train have PyTorch and numpy but not OpenEXR's bindings, and nothing can be
installed there.

Reads single-part scanline files of FLOAT or HALF channels, uncompressed or ZIP/ZIPS compressed: what
`pkrt render -o x.exr` writes (OpenEXR's default, ZIP). Anything else is refused with its reason.

    read(path) -> (width, height, {channel name: array('f') of width * height, row by row from the top})

`python3 exr.py FILE.exr FILE.pfm` checks the reader against a PFM of the same image (pkrt render -o FILE.exr
--hdr FILE.pfm writes both) and prints the largest difference.
"""
import struct
import sys
import zlib
from array import array

try:
    import numpy as _np
except ImportError:
    _np = None

MAGIC = 20000630
NO_COMPRESSION, ZIPS_COMPRESSION, ZIP_COMPRESSION = 0, 2, 3
UINT, HALF, FLOAT = 0, 1, 2


class ExrError(Exception):
    pass


def _header(b):
    if len(b) < 8 or struct.unpack_from("<i", b, 0)[0] != MAGIC:
        raise ExrError("not an OpenEXR file")
    version = struct.unpack_from("<I", b, 4)[0]
    if version & 0x1e00:  # tiled, long names are fine; deep and multi-part are not
        if version & (0x200 | 0x800 | 0x1000):
            raise ExrError("tiled, deep or multi-part files are not read here")
    at, attrs = 8, {}
    while True:
        end = b.index(b"\0", at)
        name = b[at:end].decode()
        at = end + 1
        if not name:
            return attrs, at
        end = b.index(b"\0", at)
        kind = b[at:end].decode()
        size = struct.unpack_from("<i", b, end + 1)[0]
        attrs[name] = (kind, b[end + 5:end + 5 + size])
        at = end + 5 + size


def _channels(value):
    out, at = [], 0
    while value[at:at + 1] != b"\0":
        end = value.index(b"\0", at)
        name = value[at:end].decode()
        pixel_type, _linear, _, _, _, xs, ys = struct.unpack_from("<iBBBBii", value, end + 1)
        if xs != 1 or ys != 1:
            raise ExrError(f"channel {name} is subsampled")
        out.append((name, pixel_type))
        at = end + 1 + 16
    return out  # in the file's order: sorted by name, as OpenEXR stores them


def _unzip(data, expected):
    raw = zlib.decompress(data)
    if len(raw) != expected:
        raise ExrError("a block decompresses to the wrong size")
    # Undo the predictor (each byte stored as its difference from the one before, plus 128), then the
    # interleaving (the even bytes came first, the odd ones after). numpy where there is one (the training
    # machines have it: a 256x256 noisy EXR's loop takes a second in Python).
    half = (len(raw) + 1) // 2
    if _np is not None:
        d = _np.frombuffer(raw, _np.uint8).astype(_np.int64)
        d[1:] -= 128
        b = (_np.cumsum(d) & 0xFF).astype(_np.uint8)
        out = _np.empty_like(b)
        out[0::2] = b[:half]
        out[1::2] = b[half:]
        return out.tobytes()
    b = bytearray(raw)
    for i in range(1, len(b)):
        b[i] = (b[i - 1] + b[i] - 128) & 0xFF
    out = bytearray(len(b))
    out[0::2] = b[:half]
    out[1::2] = b[half:]
    return bytes(out)


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    attrs, at = _header(b)
    channels = _channels(attrs["channels"][1])
    compression = attrs["compression"][1][0]
    x0, y0, x1, y1 = struct.unpack("<iiii", attrs["dataWindow"][1])
    width, height = x1 - x0 + 1, y1 - y0 + 1
    lines = {NO_COMPRESSION: 1, ZIPS_COMPRESSION: 1, ZIP_COMPRESSION: 16}.get(compression)
    if lines is None:
        raise ExrError(f"compression {compression} is not read here (pkrt writes ZIP)")
    sizes = {UINT: 4, HALF: 2, FLOAT: 4}
    if any(t not in (HALF, FLOAT) for _, t in channels):
        raise ExrError("UINT channels are not read here")
    row_bytes = sum(sizes[t] for _, t in channels) * width
    blocks = (height + lines - 1) // lines
    offsets = struct.unpack_from(f"<{blocks}Q", b, at)
    planes = {name: array("f") for name, _ in channels}
    for off in offsets:
        y, size = struct.unpack_from("<ii", b, off)
        data = b[off + 8:off + 8 + size]
        rows = min(lines, y1 - y + 1)
        expected = row_bytes * rows
        if compression != NO_COMPRESSION and size < expected:
            data = _unzip(data, expected)
        at = 0
        for _ in range(rows):
            for name, t in channels:
                n = sizes[t] * width
                chunk = data[at:at + n]
                at += n
                if t == FLOAT:
                    planes[name].frombytes(chunk)
                else:
                    planes[name].extend(struct.unpack(f"<{width}e", chunk))
    if sys.byteorder != "little":
        for p in planes.values():
            p.byteswap()
    return width, height, planes


def read_pfm(path):
    """A PFM's width, height, values row by row from the top, and channels per pixel."""
    with open(path, "rb") as f:
        kind = f.readline().strip()
        width, height = map(int, f.readline().split())
        scale = float(f.readline())
        data = array("f")
        data.frombytes(f.read())
    if scale > 0:
        data.byteswap()
    channels = 3 if kind == b"PF" else 1
    rows = [data[(height - 1 - y) * width * channels:(height - y) * width * channels] for y in range(height)]
    return width, height, [v for row in rows for v in row], channels


if __name__ == "__main__":
    w, h, planes = read(sys.argv[1])
    pw, ph, pfm, channels = read_pfm(sys.argv[2])
    assert (w, h) == (pw, ph), f"{w}x{h} against {pw}x{ph}"
    worst = max(abs(planes[c][i] - pfm[i * 3 + k]) for k, c in enumerate("RGB") for i in range(w * h))
    print(f"{w}x{h}, channels {sorted(planes)}: largest difference from the PFM {worst}")
    sys.exit(0 if worst == 0 else 1)
