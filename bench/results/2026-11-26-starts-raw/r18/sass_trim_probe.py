"""Probe: does nvdisasm get faster on a cubin whose other functions' code is cut out?
For each cubin in DIR: the largest function, disassembled with -fun from the whole cubin and
from a copy whose other .text.* (and their .rel*) sections are emptied; times and equality."""
import os, struct, subprocess, sys, time, glob

def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    out = []
    for i in range(shnum):
        off = shoff + i * shentsize
        name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from('<IIQQQQIIQQ', data, off)
        out.append(dict(i=i, hdr=off, name=name, type=typ, offset=offset, size=size, link=link, entsize=entsize))
    strtab = out[shstrndx]
    for s in out:
        raw = data[strtab['offset'] + s['name']:]
        s['sname'] = raw[:raw.index(b'\0')].decode()
    return out

def functions(data, secs):
    res = {}
    for s in secs:
        if s['type'] != 2: continue
        names = secs[s['link']]
        for n in range(s['size'] // 24):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from('<IBBHQQ', data, s['offset'] + n * 24)
            if st_info & 0xf != 2: continue
            raw = data[names['offset'] + st_name:]
            res[raw[:raw.index(b'\0')].decode()] = (n, st_size)
    return res

def trimmed(data, secs, keep, variant):
    out = bytearray(data)
    other_text = set()
    for s in secs:
        name = s['sname']
        base, kind = None, None
        if name.startswith('.text.'): base, kind = name[len('.text.'):], 'text'
        for p in ('.rel.text.', '.rela.text.'):
            if name.startswith(p): base, kind = name[len(p):], 'rel'
        if name.startswith('.nv.info.'): base, kind = name[len('.nv.info.'):], 'info'
        if name.startswith('.nv.constant0.'): base, kind = name[len('.nv.constant0.'):], 'const'
        if base is None or base in keep: continue
        if kind == 'rel' and variant in ('rel', 'nobits', 'zero_syms', 'all'):
            struct.pack_into('<Q', out, s['hdr'] + 0x20, 0)
        if kind == 'text':
            other_text.add(s['i'])
            if variant == 'nobits': struct.pack_into('<I', out, s['hdr'] + 4, 8)
            if variant in ('zero_syms', 'all'): struct.pack_into('<Q', out, s['hdr'] + 0x20, 0)
        if kind in ('info', 'const') and variant == 'all':
            struct.pack_into('<Q', out, s['hdr'] + 0x20, 0)
    if variant in ('zero_syms', 'all'):
        for s in secs:
            if s['type'] != 2: continue
            for n in range(s['size'] // 24):
                off = s['offset'] + n * 24
                st_shndx, = struct.unpack_from('<H', out, off + 6)
                if st_shndx in other_text: struct.pack_into('<Q', out, off + 16, 0)
    return bytes(out)

def run(args):
    t = time.perf_counter()
    p = subprocess.run(args, capture_output=True)
    return time.perf_counter() - t, p.returncode, p.stdout

for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.cubin')), key=os.path.getsize, reverse=True)[:int(sys.argv[2]) if len(sys.argv) > 2 else 6]:
    data = open(path, 'rb').read()
    secs = sections(data)
    funcs = functions(data, secs)
    if not funcs: continue
    name, (index, size) = max(funcs.items(), key=lambda kv: kv[1][1])
    whole_t, whole_rc, _ = run(['nvdisasm', '-c', path]) if len(data) < 3e6 else (0.0, -1, b'')
    fun_t, fun_rc, fun_out = run(['nvdisasm', '-c', '-fun', str(index), path])
    for variant in ('rel', 'nobits', 'zero_syms', 'all'):
        small = path + '.trim'
        open(small, 'wb').write(trimmed(data, secs, {name}, variant))
        t = time.perf_counter()
        p = subprocess.run(['nvdisasm', '-c', '-fun', str(index), small], capture_output=True)
        trim_t = time.perf_counter() - t
        print(f"  {variant}: {trim_t:.2f}s rc{p.returncode} same {p.stdout == fun_out} {p.stderr.decode()[:200]!r}")
        os.remove(small)
    print(f"{os.path.basename(path)} {len(data)/1e6:.1f} MB {len(funcs)} functions: whole {whole_t:.2f}s rc{whole_rc}; "
          f"-fun {fun_t:.2f}s rc{fun_rc} ({len(fun_out)} bytes)", flush=True)
