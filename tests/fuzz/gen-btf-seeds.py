#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen-btf-seeds.py: (re)write the seed corpus of fuzz-btf in corpus/btf/.

Minimal blobs by construction (empty, one record of every kind, a struct
whose anonymous member contains itself) and the trimmed real kernel BTF of
tests/fixtures/btf/ (which trim-btf.py made).
"""
import os
import shutil
import struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'corpus', 'btf')
fixtures = os.path.join(here, '..', 'fixtures', 'btf')

(INT, PTR, ARRAY, STRUCT, UNION, ENUM, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT,
 FUNC, FUNC_PROTO, VAR, DATASEC, FLOAT, DECL_TAG, TYPE_TAG, ENUM64) = range(1, 20)


class Blob:
    def __init__(self):
        self.types = bytearray()
        self.strs = bytearray(b'\0')
        self.nr = 0

    def s(self, name):
        if not name:
            return 0
        off = len(self.strs)
        self.strs += name.encode() + b'\0'
        return off

    def rec(self, name, kind, vlen, size_type, *words):
        self.types += struct.pack('<III', self.s(name), kind << 24 | vlen, size_type)
        self.types += struct.pack('<%dI' % len(words), *words)
        self.nr += 1
        return self.nr

    def bytes(self):
        hdr = struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, len(self.types), len(self.types),
                          len(self.strs))
        return hdr + bytes(self.types) + bytes(self.strs)


def every_kind():
    b = Blob()
    i = b.rec('int', INT, 0, 4, 0x01000020)
    b.rec('', PTR, 0, i)
    b.rec('', ARRAY, 0, 0, i, i, 8)
    anon = b.rec('', UNION, 2, 4, b.s('inner'), i, 0, b.s('deep'), i, 0)
    b.rec('outer', STRUCT, 3, 12, b.s('first'), i, 0, 0, anon, 32, b.s('last'), i, 64)
    b.rec('colour', ENUM, 2, 4, b.s('RED'), 0, b.s('GREEN'), 1)
    b.rec('damon_sysfs_kdamond', FWD, 0, 0)
    b.rec('myint', TYPEDEF, 0, i)
    b.rec('', VOLATILE, 0, i)
    b.rec('', CONST, 0, i)
    b.rec('', RESTRICT, 0, i)
    proto = b.rec('', FUNC_PROTO, 2, i, b.s('a'), i, b.s('b'), i)
    b.rec('some_func', FUNC, 1, proto)
    var = b.rec('some_var', VAR, 0, i, 1)
    b.rec('.data..percpu', DATASEC, 2, 8, var, 0, 4, var, 4, 4)
    b.rec('double', FLOAT, 0, 8)
    b.rec('tag', DECL_TAG, 0, i, 0xffffffff)
    b.rec('user', TYPE_TAG, 0, i)
    b.rec('big', ENUM64, 2, 8, b.s('BIG_A'), 1, 2, b.s('BIG_B'), 3, 4)
    b.rec('damon_sysfs_kdamond', STRUCT, 3, 12, b.s('kobj'), i, 0, b.s('contexts'), i, 32,
          b.s('refresh_ms'), i, 64)
    b.rec('damon_pa_apply_scheme', FUNC, 0, proto)
    return b.bytes()


def anon_cycle():
    b = Blob()
    b.rec('loop', STRUCT, 3, 12, 0, 1, 0, 0, 999, 0, b.s('x'), 1, 0)
    return b.bytes()


def main():
    os.makedirs(out, exist_ok=True)
    seeds = {'empty': Blob().bytes(), 'every-kind': every_kind(), 'anon-cycle': anon_cycle()}
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    for name in sorted(os.listdir(fixtures)):
        if name.endswith('.btf'):
            shutil.copyfile(os.path.join(fixtures, name), os.path.join(out, 'kernel-' + name[:-4]))


if __name__ == '__main__':
    main()
