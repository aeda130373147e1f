"""Check: the hot PCs' SASS in a --stalls record (raw-binary path) against nvdisasm -fun on the same
cubins (RAW/<pid>/cubins). Prints equal / differing counts; differing lines should be branches only."""
import glob, json, os, re, struct, subprocess, sys, time
record, raw_root = sys.argv[1], sys.argv[2]
run = json.load(open(record))
cubins = {}
for path in glob.glob(f'{raw_root}/*/cubins/*.cubin'):
    cubins[int(os.path.basename(path)[:16], 16)] = path
def symbols(path):
    b = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', b, 0x28); shentsize, shnum, _ = struct.unpack_from('<HHH', b, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * 64) for i in range(shnum)]
    out = {}
    for s in secs:
        if s[1] != 2: continue
        st = secs[s[6]]
        for n in range(s[5] // 24):
            name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', b, s[4] + n * 24)
            if info & 0xf == 2:
                o = st[4] + name; out[b[o:b.index(b'\0', o)].decode()] = n
    return out
by_crc = {}
for k in run['stalls']['kernels']:
    if k.get('hot_pcs'): by_crc.setdefault(k['cubin_crc'], []).append(k)
equal = differ = branch = empty = nocubin = 0; examples = []
t_fun = 0.0
for crc, kernels in by_crc.items():
    if crc not in cubins: nocubin += len(kernels); continue
    syms = symbols(cubins[crc])
    idx = ','.join(str(syms[k['mangled_name']]) for k in kernels if k['mangled_name'] in syms)
    t0 = time.time(); out = subprocess.run(['nvdisasm', '-c', '-fun', idx, cubins[crc]], capture_output=True, text=True).stdout; t_fun += time.time() - t0
    fn, lst = None, {}
    for line in out.splitlines():
        s = line.strip()
        if s.startswith('.text.') and s.endswith(':'): fn = s[6:-1]; lst[fn] = {}
        m = re.match(r'^/\*([0-9a-f]+)\*/\s+(.*?)\s*;', s)
        if m and fn: lst[fn][int(m.group(1), 16)] = re.sub(r'\s+', ' ', m.group(2))
    for k in kernels:
        for pc in k['hot_pcs']:
            ours, ref = pc.get('sass', ''), lst.get(k['mangled_name'], {}).get(pc['pc_offset'])
            if not ours: empty += 1
            elif ours == ref: equal += 1
            elif re.search(r'\b(BRA|BSSY|CALL|JMP|BRX)\b', ours): branch += 1; examples.append((ours, ref))
            else: differ += 1; examples.append((ours, ref))
print(f'hot PCs: {equal} equal to -fun, {branch} branches written differently, {differ} other differences, {empty} empty, {nocubin} kernels without cubin; -fun on these cubins took {t_fun:.2f} s sequentially')
for e in examples[:8]: print('  ours', repr(e[0]), ' -fun', repr(e[1]))
