#!/usr/bin/env python3
"""The module's layout, as TAP: data flows one way between its files.

A file of module/ or sysfs/ calls another when it calls a function that
the other defines. No file may call, directly or through others, a file
that calls it; every loop found is named with one call per hop. Version
and architecture tests (LINUX_VERSION_CODE, KERNEL_VERSION, CONFIG_X86*,
CONFIG_ARM64, __x86_64__, __aarch64__) live in include/compat.h only, and
no source file is over 500 lines.
"""
import glob
import os
import re
import sys

MAX_LINES = 500
top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..')
os.chdir(top)
files = sorted(glob.glob('module/*.c') + glob.glob('sysfs/*.c'))
defn = re.compile(r'^[a-z][^;()=\n]*?\b(mbr_[a-z0-9_]+)\(', re.M)
call = re.compile(r'\b(mbr_[a-z0-9_]+)\s*\(')


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


src = {f: strip(open(f).read()) for f in files}
owner = {}
for f, text in src.items():
    for m in defn.finditer(text):
        line = text[m.start():text.index('\n', m.start())]
        if line.rstrip().endswith(';'):
            continue
        owner.setdefault(m.group(1), f)
calls = {f: {} for f in files}
for f, text in src.items():
    for name in call.findall(text):
        to = owner.get(name)
        if to and to != f:
            calls[f].setdefault(to, name)


def loop_from(start):
    """A shortest loop back to start, as a list of files, or None."""
    prev = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for f in todo:
            for to in sorted(calls[f]):
                if to == start:
                    path = [f]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] \
                        if len(path) > 1 else [start, start]
                if to not in prev:
                    prev[to] = f
                    nxt.append(to)
        todo = nxt
    return None


n = 0
seen = set()
for f in files:
    loop = loop_from(f)
    if not loop:
        continue
    if len(loop) == 2:
        loop = [f, next(t for t in calls[f] if f in calls[t]), f]
    key = frozenset(loop)
    if key in seen:
        continue
    seen.add(key)
    n += 1
    hops = ', '.join('%s calls %s (%s)' % (os.path.basename(a),
                                           os.path.basename(b), calls[a][b])
                     for a, b in zip(loop, loop[1:]))
    print('not ok - layout: loop of calls: ' + hops)
if not n:
    print('ok - layout: no loop of calls between the files of module/ and '
          'sysfs/ (%d files, %d calls between files)' %
          (len(files), sum(len(c) for c in calls.values())))

ver = re.compile(r'\b(LINUX_VERSION_CODE|KERNEL_VERSION|CONFIG_X86\w*|'
                 r'CONFIG_ARM64\w*|__x86_64__|__aarch64__)\b')
outside = []
for f in files + sorted(glob.glob('include/*.h')):
    if f == 'include/compat.h':
        continue
    text = strip(open(f).read())
    outside += ['%s: %s' % (f, m) for m in sorted(set(ver.findall(text)))]
if outside:
    print('not ok - layout: version or architecture tests outside '
          'include/compat.h: ' + '; '.join(outside))
else:
    print('ok - layout: version and architecture tests only in '
          'include/compat.h')

for f in files + sorted(glob.glob('include/*.h')):
    lines = sum(1 for _ in open(f))
    print('%s - layout: %s has %d lines (at most %d)' %
          ('ok' if lines <= MAX_LINES else 'not ok', f, lines, MAX_LINES))
