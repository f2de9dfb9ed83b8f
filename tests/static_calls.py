#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""IBT check of a built module, on the host: no indirect branch can reach
a function the module resolved at load.

usage: static_calls.py KREL BUILD_DIR [ROOT]

BUILD_DIR is the module's build directory (objects and the unstripped
memcg_bgreclaim.ko, as tests/lib-host.sh's mbr_build_ko leaves it);
ROOT the root the kernel's headers are installed in (its release's
chroot; / by default). What differs between kernels is read from that
kernel's own headers: CONFIG_X86_KERNEL_IBT, the name __ADDRESSABLE()
gives its symbols (6.18 changed it) and the NOP that seals an ENDBR
(6.18, "x86,ibt: Use UDB instead of 0xEA", changed it).
Prints TAP lines, and writes BUILD_DIR/static_calls.txt for the guest's
check of the live code (tests/cases/static_calls.sh):

    ibt 0|1                     CONFIG_X86_KERNEL_IBT of that kernel
    seal B0 B1 B2 B3            the bytes of a sealed ENDBR, in hex
    tramp KEY TARGET OFF        trampoline at .static_call.text+OFF
    site KEY TARGET OFF         call site at .text+OFF

Resolved addresses are produced in module/symbols.c and handed straight
to __static_call_update(); the argument that no indirect branch can
reach them is structural, and each step is checked here:
  1. every resolved function has its own static-call key and trampoline;
  2. no object refers to a resolved function by name;
  3. symbols.o has no indirect branch, and keeps no address in data but
     in its keys;
  4. only symbols.o updates a key or reads one from code;
  5. every call through a key is a direct rel32 call or jump, listed in
     .static_call_sites (so patched into a direct call to the target),
     and every trampoline is a direct jmp;
  6. objtool, run by kbuild on every object, reported nothing.
"""
import os
import re
import subprocess
import sys

krel, bdir = sys.argv[1], sys.argv[2]
root = (sys.argv[3] if len(sys.argv) > 3 else '') or '/'
ko = os.path.join(bdir, 'memcg_bgreclaim.ko')


def in_root(path):
    """PATH inside ROOT, following symlinks (absolute ones from ROOT)."""
    parts, cur, hops = path.strip('/').split('/'), '', 0
    while parts:
        part = parts.pop(0)
        nxt = os.path.join(cur, part)
        full = os.path.join(root, nxt)
        if os.path.islink(full) and hops < 40:
            hops += 1
            tgt = os.readlink(full)
            base = '' if tgt.startswith('/') else cur
            parts = os.path.normpath(os.path.join(base, tgt)).strip('/') \
                .split('/') + parts
            cur = ''
            continue
        cur = nxt
    return os.path.join(root, cur)


def kernel_file(rel):
    """A file of the kernel's headers: the flavour's tree, then common."""
    for d in ('build', 'source'):
        p = in_root('/lib/modules/%s/%s/%s' % (krel, d, rel))
        if os.path.exists(p):
            return open(p).read()
    return ''


# __ADDRESSABLE(sym) names its variable __UNIQUE_ID_<prefix>sym<n>.
m = re.search(r'__UNIQUE_ID\(__PASTE\((\w+),\s*sym\)\)',
              kernel_file('include/linux/compiler.h'))
addressable = '__UNIQUE_ID_%s__SCK__mbr_' % (m.group(1) if m else
                                              '__addressable_')
# gen_endbr_poison(): the 4-byte NOP written over a sealed ENDBR.
m = re.search(r'gen_endbr_poison\(void\)\s*\{[^}]*?return\s+0x([0-9a-fA-F]{8})',
              kernel_file('arch/x86/include/asm/ibt.h'))
seal = ' '.join('%02x' % b for b in int(m.group(1), 16).to_bytes(4, 'little')) \
    if m else ''

label = 'ibt[%s]' % krel
failed = 0


def tap(ok, desc, diag=()):
    global failed
    print('%s - %s: %s' % ('ok' if ok else 'not ok', label, desc))
    if not ok:
        failed += 1
    for d in list(diag)[:20]:
        print('#   ' + d)


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def relocs(obj):
    """{section: [(offset, symbol, addend)]} from readelf -rW."""
    out, sec = {}, None
    for line in run('readelf', '-rW', obj).splitlines():
        m = re.match(r"Relocation section '\.rela(\S+)'", line)
        if m:
            sec = m.group(1)
            out[sec] = []
            continue
        f = line.split()
        if sec and len(f) >= 5 and re.fullmatch(r'[0-9a-f]+', f[0]):
            sym = f[4]
            add = int(f[6], 16) * (-1 if f[5] == '-' else 1) \
                if len(f) >= 7 else 0
            out[sec].append((int(f[0], 16), f[2], sym, add))
    return out


def section_bytes(obj, name):
    for line in run('readelf', '-SW', obj).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+'
                     r'([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m and m.group(1) == name:
            with open(obj, 'rb') as f:
                f.seek(int(m.group(2), 16))
                return f.read(int(m.group(3), 16))
    return b''


def objects():
    objs = []
    for d in ('module', 'sysfs'):
        p = os.path.join(bdir, d)
        objs += [os.path.join(p, n) for n in sorted(os.listdir(p))
                 if n.endswith('.o')]
    return objs


symtab = run('nm', ko)
keys = sorted(re.findall(r' D __SCK__mbr_(\S+)\n', symtab))
tramps = set(re.findall(r' T __SCT__mbr_(\S+)\n', symtab))
# The resolver's table (plus kallsyms_lookup_name, resolved by kprobe).
src = open(os.path.join(bdir, 'module', 'symbols.c')).read()
resolved = sorted(set(['kallsyms_lookup_name'] +
                      re.findall(r'^\tMBR_SYMBOL\((\w+)\)', src, re.M)))

# 1
tap(keys == resolved and tramps == set(resolved),
    'a static-call key and trampoline of its own for each resolved '
    'function (%s)' % ', '.join(resolved),
    ['keys: %s' % keys, 'trampolines: %s' % sorted(tramps)])

# 2
undef = set(re.findall(r' U (\S+)\n', symtab))
tap(not undef & set(resolved),
    'no object refers to a resolved function by name',
    sorted(undef & set(resolved)))

# 3
dis = run('objdump', '-dr', '--no-show-raw-insn',
          os.path.join(bdir, 'module', 'symbols.o'))
ind = [l.strip() for l in dis.splitlines()
       if re.search(r'\s(call|jmp)\s+\*', l) or
       re.search(r'R_X86_64\S*\s+__x86_indirect_(call_|jump_)?thunk', l)]
tap(not ind, 'symbols.o, the only holder of resolved addresses, has no '
    'indirect branch', ind)
sym_data = [l.split()[-1] for l in run(
    'nm', os.path.join(bdir, 'module', 'symbols.o')).splitlines()
    if re.match(r'\S+ [bBdD] ', l)]
stray = [s for s in sym_data if not s.startswith('__SCK__mbr_') and
         not s.startswith(addressable)]
tap(not stray, 'symbols.o keeps no data but its static-call keys', stray)

# 4
bad = []
for obj in objects():
    name = os.path.relpath(obj, bdir)
    for sec, rel in relocs(obj).items():
        for off, _, sym, add in rel:
            if sym == '__static_call_update' and \
                    not name.endswith('symbols.o'):
                bad.append('%s %s+%#x calls __static_call_update' %
                           (name, sec, off))
            if sym.startswith('__SCK__mbr_') and sec.startswith('.text') \
                    and not name.endswith('symbols.o'):
                bad.append('%s %s+%#x reads %s' % (name, sec, off, sym))
tap(not bad, 'only symbols.o updates a static call or reads a key', bad)

# 5: per object, where the compiler's relocations still tell which
# object a reference comes from.
def branches(obj):
    """Direct rel32 branches to a trampoline, and any other reference."""
    text = section_bytes(obj, '.text')
    br, other = [], []
    for off, typ, sym, add in relocs(obj).get('.text', []):
        m = re.fullmatch(r'__SCT__mbr_(\S+)', sym)
        if not m:
            continue
        if typ in ('R_X86_64_PLT32', 'R_X86_64_PC32') and add == -4 and \
                off and text[off - 1] in (0xe8, 0xe9):
            br.append((m.group(1), off - 1))
        else:
            other.append('%s .text+%#x: %s %s%+d' % (
                os.path.relpath(obj, bdir), off, typ, sym, add))
    return br, other


def listed_sites(obj):
    sites = relocs(obj).get('.static_call_sites', [])
    listed = set()
    for i in range(0, len(sites) - 1, 2):
        (_, _, ssec, sadd), (_, _, key, _) = sites[i], sites[i + 1]
        m = re.fullmatch(r'__SCK__mbr_(\S+)', key)
        if m and ssec == '.text':
            listed.add((m.group(1), sadd))
    return listed


ncalls, notdirect, missing = 0, [], []
for obj in objects():
    br, other = branches(obj)
    ncalls += len(br)
    # symbols.o hands each trampoline's address to __static_call_update().
    if not obj.endswith('symbols.o'):
        notdirect += other
tap(ncalls and not notdirect,
    'every call through a key is a direct rel32 call or jmp, and no code '
    'but the resolver takes a trampoline\'s address (%d call sites)' %
    ncalls, notdirect)
# objtool lists the sites per object, or for the whole module where it
# runs on the linked object (IBT kernels): compare in the .ko.
calls, _ = branches(ko)
missing = ['%s at .text+%#x' % c for c in calls if c not in listed_sites(ko)]
tap(len(calls) == ncalls and not missing,
    'each call site is in .static_call_sites, patched to a direct call of '
    'the target at load', missing)

sct = section_bytes(ko, '.static_call.text')
tramp_off = {}
for l in symtab.splitlines():
    m = re.match(r'([0-9a-f]+) T __SCT__mbr_(\S+)$', l)
    if m:
        tramp_off[m.group(2)] = int(m.group(1), 16)
# A RET0 trampoline is a jmp to __static_call_return0 or, inline, a
# 5-byte "xor %eax,%eax; ret"-style stub; anything else is unexpected.
notjmp = [n for n, o in tramp_off.items() if sct[o:o + 1] != b'\xe9']
tap(tramp_off and not notjmp,
    'every trampoline is a direct rel32 jmp', notjmp)

# 6
log = open(os.path.join(bdir, 'build.log')).read()
ot = [l for l in log.splitlines() if 'objtool' in l]
objtool_run = os.path.exists(os.path.join(bdir, 'module', '.symbols.o.cmd')) \
    and 'objtool' in open(os.path.join(bdir, 'module',
                                       '.symbols.o.cmd')).read()
tap(objtool_run and not ot,
    'objtool ran on every object and reported nothing', ot or
    ['objtool did not run'] if not objtool_run else ot)

cfg = kernel_file('.config')
ibt = 1 if 'CONFIG_X86_KERNEL_IBT=y' in cfg else 0
tap(cfg and (seal or not ibt),
    'the kernel\'s headers give its config%s' %
    (' and the sealed ENDBR (%s)' % seal if ibt else ''))
with open(os.path.join(bdir, 'static_calls.txt'), 'w') as f:
    f.write('ibt %d\n' % ibt)
    f.write('seal %s\n' % seal)
    for n, o in sorted(tramp_off.items()):
        f.write('tramp %s %s %#x\n' % (n, n, o))
    for n, o in calls:
        f.write('site %s %s %#x\n' % (n, n, o))
sys.exit(1 if failed else 0)
