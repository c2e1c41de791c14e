#!/usr/bin/env python3
"""Per-kernel machine code of two builds side by side, without cuobjdump or nvdisasm.

    tests/sass_compare.py BASE NEW        (two .o files, or two folders searched for *.cu.o)

Reads the sm_90 cubins embedded in the object files (uncompressed fatbins, nvcc's default) and, for every
function, prints its instruction count (the .text section's size over 16 bytes, trailing padding NOPs
left out), registers (the section's sh_info), the per-thread frame (local memory: spills and local
arrays, EIATTR_FRAME_SIZE) and whether the code is byte for byte the same once relocated words are
masked. `--all` lists device functions too (by default only kernels, the entry points), `--changed` only
rows whose code differs.
"""
import argparse
import hashlib
import os
import struct
import sys

EM_CUDA = 190
EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
EIATTR_MAX_STACK_SIZE = 0x23


def elf_sections(blob, base):
    """(name, type, offset, size, info, link) of an ELF64 image starting at blob[base]."""
    shoff, = struct.unpack_from('<Q', blob, base + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', blob, base + 0x3A)
    raw = []
    for i in range(shnum):
        o = base + shoff + i * shentsize
        name, typ, _flags, _addr, off, size, link, info = struct.unpack_from('<IIQQQQII', blob, o)
        raw.append((name, typ, off, size, info, link))
    stroff = base + raw[shstrndx][2]
    out = []
    for name, typ, off, size, info, link in raw:
        end = blob.index(b'\0', stroff + name)
        out.append((blob[stroff + name:end].decode(), typ, base + off, size, info, link))
    return out


def cubins(blob):
    """Start offsets of the CUDA ELF images inside a host object (or a bare cubin)."""
    starts, i = [], blob.find(b'\x7fELF')
    while i >= 0:
        if i + 0x40 <= len(blob) and blob[i + 4] == 2:  # ELF64
            machine, = struct.unpack_from('<H', blob, i + 0x12)
            if machine == EM_CUDA:
                starts.append(i)
        i = blob.find(b'\x7fELF', i + 1)
    return starts


def symbols(blob, secs):
    for name, typ, off, size, info, link in secs:
        if typ == 2:  # SHT_SYMTAB
            strtab = secs[link][2]
            syms = []
            for k in range(size // 24):
                st_name, st_info, st_other, shndx, value, sz = struct.unpack_from('<IBBHQQ', blob, off + 24 * k)
                end = blob.index(b'\0', strtab + st_name)
                syms.append(blob[strtab + st_name:end].decode())
            return syms
    return []


def nv_info(blob, off, size):
    """Attributes of a .nv.info section: (attr, payload bytes)."""
    out, p, end = [], off, off + size
    while p + 2 <= end:
        fmt, attr = blob[p], blob[p + 1]
        p += 2
        if fmt == 0x04:  # EIFMT_SVAL: u16 size, then data
            n, = struct.unpack_from('<H', blob, p)
            out.append((attr, blob[p + 2:p + 2 + n]))
            p += 2 + n
        elif fmt == 0x03:  # EIFMT_HVAL
            out.append((attr, blob[p:p + 2]))
            p += 2
        elif fmt == 0x02:  # EIFMT_BVAL
            out.append((attr, blob[p:p + 1]))
            p += 1
        else:  # EIFMT_NVAL
            out.append((attr, b''))
    return out


def functions(path):
    blob = open(path, 'rb').read()
    result = {}
    for base in cubins(blob):
        secs = elf_sections(blob, base)
        syms = symbols(blob, secs)
        frame = {}
        for name, typ, off, size, info, link in secs:
            if name == '.nv.info':
                for attr, data in nv_info(blob, off, size):
                    if attr in (EIATTR_FRAME_SIZE, EIATTR_MAX_STACK_SIZE, EIATTR_REGCOUNT) and len(data) == 8:
                        sym, val = struct.unpack('<II', data)
                        if sym < len(syms):
                            frame.setdefault(syms[sym], {})[attr] = val
        relocs = {}
        for name, typ, off, size, info, link in secs:
            if typ in (4, 9) and name.startswith(('.rel.text.', '.rela.text.')):
                ent = 24 if typ == 4 else 16
                relocs[name.split('.text.', 1)[1]] = [struct.unpack_from('<Q', blob, off + ent * k)[0]
                                                      for k in range(size // ent)]
        for name, typ, off, size, info, link in secs:
            if not name.startswith('.text.'):
                continue
            fn = name[len('.text.'):]
            code = bytearray(blob[off:off + size])
            for r in relocs.get(fn, []):  # relocated words hold addresses, not the instruction's choice
                code[r:r + 8] = b'\0' * 8
            n = size // 16
            while n > 0 and (struct.unpack_from('<Q', code, 16 * (n - 1))[0] & 0xFFF) == 0x918:  # NOP padding
                n -= 1
            f = frame.get(fn, {})
            result[fn] = {
                'insts': n,
                'regs': f.get(EIATTR_REGCOUNT, 0),
                'frame': f.get(EIATTR_FRAME_SIZE, 0),
                'stack': f.get(EIATTR_MAX_STACK_SIZE, 0),
                'hash': hashlib.sha1(bytes(code[:16 * n])).hexdigest()[:10],
                'entry': any(s[0] == '.nv.info.' + fn for s in secs),
                'file': os.path.basename(path),
            }
    return result


def collect(arg):
    if os.path.isdir(arg):
        out = {}
        for root, _dirs, files in os.walk(arg):
            for f in sorted(files):
                if f.endswith('.cu.o'):
                    for fn, v in functions(os.path.join(root, f)).items():
                        out[(f, fn)] = v
        return out
    return {(os.path.basename(arg), fn): v for fn, v in functions(arg).items()}


def demangle(names):
    try:
        import subprocess
        out = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True, check=True).stdout
        return dict(zip(names, out.splitlines()))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def short(name, width):
    name = name.replace('pkrt::', '').replace('(anonymous namespace)::', '').replace('BvhViewLayout', '')
    return name if len(name) <= width else name[:width - 3] + '...'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('base')
    ap.add_argument('new')
    ap.add_argument('--all', action='store_true', help='device functions too, and unchanged rows')
    ap.add_argument('--changed', action='store_true', help='only rows whose code differs')
    ap.add_argument('--width', type=int, default=90)
    a = ap.parse_args()
    base, new = collect(a.base), collect(a.new)
    # Matched by demangled name without the anonymous namespace (whose mangling names the file and a
    # hash), so a function that moved between files still matches.
    dm = demangle(sorted({fn for _k, fn in list(base) + list(new)}))
    key = lambda fn: dm[fn].replace('(anonymous namespace)::', '')
    b = {key(fn): v for (_k, fn), v in base.items()}
    n = {key(fn): v for (_k, fn), v in new.items()}
    rows = []
    for name in sorted(set(b) | set(n)):
        bv, nv = b.get(name), n.get(name)
        if not a.all and not (bv or nv)['entry']:
            continue
        if not a.all and bv and nv and bv['hash'] == nv['hash'] and a.changed:
            continue
        rows.append((name, bv, nv))
    dm = {name: name for name, _b, _n in rows}
    hdr = f"{'function':<{a.width}} {'insts':>13} {'d':>6} {'regs':>7} {'frame':>9} same"
    print(hdr)
    print(f"{'':<{a.width}} {'base/new':>13} {'':>6} {'base/new':>7} {'base/new':>9}")
    print('-' * len(hdr))
    worse = 0
    for fn, bv, nv in rows:
        if bv and nv:
            d = nv['insts'] - bv['insts']
            same = 'yes' if bv['hash'] == nv['hash'] else 'no'
            if nv['regs'] > bv['regs'] or nv['frame'] > bv['frame'] or d > 0:
                worse += 1
            print(f"{short(dm[fn], a.width):<{a.width}} {bv['insts']:>6}/{nv['insts']:<6} {d:>+6} "
                  f"{bv['regs']:>3}/{nv['regs']:<3} {bv['frame']:>4}/{nv['frame']:<4} {same}")
        else:
            v = bv or nv
            print(f"{short(dm[fn], a.width):<{a.width}} {'only in ' + ('base' if bv else 'new'):>13} "
                  f"{v['insts']:>6} {v['regs']:>7} {v['frame']:>9}")
    print(f"\n{len(rows)} functions; {worse} with more instructions, registers or frame than the base")


if __name__ == '__main__':
    sys.exit(main())
