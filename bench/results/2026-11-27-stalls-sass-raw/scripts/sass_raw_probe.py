"""Probe: nvdisasm on a raw instruction binary (-b SMxy) of only the hot functions' bytes,
against -fun on the whole cubin. For each cubin in DIR (or FILE): every function named in the
record's stalls (or the largest few), times of both, and whether the instruction texts agree."""
import os, struct, subprocess, sys, time, glob, json, gzip, re

def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    out = []
    for i in range(shnum):
        name, typ, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
        out.append(dict(i=i, name=name, type=typ, addr=addr, offset=offset, size=size, link=link))
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
            sec = secs[st_shndx]
            size = st_size or sec['size'] - st_value
            res[raw[:raw.index(b'\0')].decode()] = (n, data[sec['offset'] + st_value: sec['offset'] + st_value + size])
    return res

def listing(text):
    out, fn = {}, None
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r'^/\*([0-9a-f]+)\*/\s+(.*?)\s*;', line)
        if m: out[int(m.group(1), 16)] = re.sub(r'\s+', ' ', m.group(2))
    return out

def sm_of(data):
    abi, flags = data[8], struct.unpack_from('<I', data, 48)[0]
    return (flags >> 8) & 0xff if abi >= 8 else flags & 0xff

record, cubins = sys.argv[1], sys.argv[2:]
wanted = {}
if record != '-':
    run = json.load(gzip.open(record) if record.endswith('.gz') else open(record))
    for k in (run.get('stalls') or {}).get('kernels', []):
        wanted.setdefault(k.get('cubin_crc'), set()).add(k.get('mangled_name'))
print('nvdisasm --help on -b:'); print(subprocess.run('nvdisasm --help | grep -i -A6 -- "--binary"', shell=True, capture_output=True, text=True).stdout)
tot_fun = tot_raw = 0.0
for path in cubins:
    data = open(path, 'rb').read()
    fns = functions(data, sections(data))
    crc = int(os.path.basename(path).split('.')[0], 16) if re.match(r'^[0-9a-f]{16}\.cubin$', os.path.basename(path)) else None
    names = [n for n in (wanted.get(crc) or []) if n in fns] or sorted(fns, key=lambda n: -len(fns[n][1]))[:3]
    sm = sm_of(data)
    idx = ','.join(str(fns[n][0]) for n in names)
    t0 = time.time(); r = subprocess.run(['nvdisasm', '-c', '-fun', idx, path], capture_output=True, text=True); t_fun = time.time() - t0
    # -fun listing per function
    per_fn, fn = {}, None
    for line in r.stdout.splitlines():
        s = line.strip()
        if s.startswith('.text.') and s.endswith(':'): fn = s[6:-1]; per_fn[fn] = []
        elif fn: per_fn[fn].append(line)
    t_raw = 0.0; agree = total = 0; first_diff = None; out_head = None
    for arch in ['SM%d' % sm, 'SM%da' % sm]:
        blob = b''; starts = []
        for n in names:
            starts.append((len(blob), n)); blob += fns[n][1]
            blob += b'\0' * ((-len(blob)) % 128)
        raw = '/tmp/raw_probe.bin'; open(raw, 'wb').write(blob)
        t0 = time.time(); rr = subprocess.run(['nvdisasm', '-c', '-b', arch, raw], capture_output=True, text=True); t_raw = time.time() - t0
        if rr.returncode == 0: break
        print('  -b %s failed rc %d: %s' % (arch, rr.returncode, rr.stderr[:300]))
    out_head = '\n'.join(rr.stdout.splitlines()[:6])
    raw_list = listing(rr.stdout)
    for start, n in starts:
        ref = listing('\n'.join(per_fn.get(n, [])))
        for off, text in ref.items():
            total += 1
            got = raw_list.get(start + off)
            if got == text: agree += 1
            elif first_diff is None: first_diff = (n[:40], hex(off), text, got)
    tot_fun += t_fun; tot_raw += t_raw
    print(f'{os.path.basename(path)} {len(data)>>10} KiB sm{sm} {len(names)} fns: -fun {t_fun:.3f} s, -b {arch} {t_raw:.3f} s (rc {rr.returncode}), '
          f'instructions equal {agree}/{total}' + (f', first difference {first_diff}' if first_diff else ''))
    if path == cubins[0]: print('  raw listing head:\n' + out_head)
print(f'total: -fun {tot_fun:.2f} s, -b {tot_raw:.2f} s')
