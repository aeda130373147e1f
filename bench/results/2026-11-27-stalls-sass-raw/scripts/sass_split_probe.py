"""Probe: what one nvdisasm -b run costs: pure start (--version), the hot functions of a --stalls
record in one raw file, and split in k files run in parallel."""
import glob, json, os, struct, subprocess, sys, time
record, raw_root = sys.argv[1], sys.argv[2]
run = json.load(open(record))
cubins = {int(os.path.basename(p)[:16], 16): p for p in glob.glob(f'{raw_root}/*/cubins/*.cubin')}
def functions(path):
    b = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', b, 0x28); _, shnum, _ = struct.unpack_from('<HHH', b, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * 64) for i in range(shnum)]
    out = {}
    for s in secs:
        if s[1] != 2: continue
        st = secs[s[6]]
        for n in range(s[5] // 24):
            name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', b, s[4] + n * 24)
            if info & 0xf == 2:
                o = st[4] + name; sec = secs[shndx]
                out[b[o:b.index(b'\0', o)].decode()] = b[sec[4] + value: sec[4] + value + (size or sec[5])]
    return out
codes = []
for k in run['stalls']['kernels']:
    if k.get('hot_pcs') and k['cubin_crc'] in cubins:
        codes.append(functions(cubins[k['cubin_crc']])[k['mangled_name']])
print(f'{len(codes)} functions, {sum(map(len, codes)) >> 10} KiB of code')
t0 = time.time(); subprocess.run(['nvdisasm', '--version'], capture_output=True); print(f'nvdisasm --version: {time.time() - t0:.3f} s')
for k in (1, 2, 4, 8, 16):
    chunks = [b''.join(codes[i::k]) for i in range(k)]
    paths = []
    for i, c in enumerate(chunks):
        p = f'/tmp/split_{k}_{i}.bin'; open(p, 'wb').write(c); paths.append(p)
    t0 = time.time()
    procs = [subprocess.Popen(['nvdisasm', '-c', '-b', 'SM90', p], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for p in paths]
    lines = sum(len(pr.communicate()[0].splitlines()) for pr in procs)
    print(f'{k} file(s) in parallel: {time.time() - t0:.3f} s, {lines} lines')
