"""Small independent readers of the cross-built binaries, from the file
format specifications (Mach-O: Apple's <mach-o/loader.h> and <mach-o/nlist.h>
layouts; PE/COFF: Microsoft's PE format), for tests/test_cross.py and
tests/test_distribution.py."""
import struct

MH_MAGIC_64 = 0xFEEDFACF
CPU_TYPES = {0x0100000C: "arm64", 0x01000007: "x86_64"}
MH_FILETYPES = {2: "execute", 6: "dylib", 8: "bundle"}
LC_SYMTAB, LC_LOAD_DYLIB, LC_ID_DYLIB = 0x2, 0xC, 0xD
LC_VERSION_MIN_MACOSX, LC_BUILD_VERSION = 0x24, 0x32
LC_DYLD_INFO, LC_DYLD_INFO_ONLY = 0x22, 0x80000022
BIND_SPECIAL_FLAT_LOOKUP = -2  # BIND_SPECIAL_DYLIB_FLAT_LOOKUP: the -undefined dynamic_lookup binding
LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB = 0x80000018, 0x8000001F, 0x20
N_STAB, N_TYPE, N_EXT, N_UNDF, N_SECT = 0xE0, 0x0E, 0x01, 0x0, 0xE
DYNAMIC_LOOKUP_ORDINAL = 0xFE
PLATFORM_MACOS = 1


def _version(v):
    """Mach-O's packed X.Y.Z (xxxx.yy.zz nibbles)."""
    return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)


def read_macho(data):
    """{'arch', 'filetype', 'min_os' (x, y, z), 'platform', 'dylibs' [names],
    'defined' {name}, 'undefined' {name: nlist library ordinal},
    'binds' {name: dyld bind ordinal}} of a 64-bit
    little-endian Mach-O file."""
    magic, cputype, _sub, filetype, ncmds, sizeofcmds, _flags, _res = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != MH_MAGIC_64:
        raise ValueError(f"not a 64-bit Mach-O file (magic {magic:#x})")
    out = {"arch": CPU_TYPES.get(cputype & 0xFFFFFFFF, hex(cputype)), "filetype": MH_FILETYPES.get(filetype, filetype),
           "min_os": None, "platform": None, "dylibs": [], "defined": set(), "undefined": {}, "binds": {}}
    off = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == LC_BUILD_VERSION:
            platform, minos, _sdk = struct.unpack_from("<III", data, off + 8)
            out["platform"], out["min_os"] = platform, _version(minos)
        elif cmd == LC_VERSION_MIN_MACOSX:
            minos, _sdk = struct.unpack_from("<II", data, off + 8)
            out["platform"], out["min_os"] = PLATFORM_MACOS, _version(minos)
        elif cmd in (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB):
            (name_off,) = struct.unpack_from("<I", data, off + 8)
            name = data[off + name_off:off + size].split(b"\0", 1)[0].decode()
            out["dylibs"].append(name)
        elif cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
            f = struct.unpack_from("<10I", data, off + 8)
            for bind_off, bind_size in ((f[2], f[3]), (f[4], f[5]), (f[6], f[7])):
                out["binds"].update(_binds(data[bind_off:bind_off + bind_size]))
        elif cmd == LC_SYMTAB:
            symoff, nsyms, stroff, _strsize = struct.unpack_from("<IIII", data, off + 8)
            for i in range(nsyms):
                strx, ntype, _sect, desc, _value = struct.unpack_from("<IBBHQ", data, symoff + 16 * i)
                if ntype & N_STAB:
                    continue
                name = data[stroff + strx:].split(b"\0", 1)[0].decode()
                if ntype & N_TYPE == N_UNDF and ntype & N_EXT:
                    out["undefined"][name] = (desc >> 8) & 0xFF  # GET_LIBRARY_ORDINAL
                elif ntype & N_TYPE == N_SECT and ntype & N_EXT:
                    out["defined"].add(name)
        off += size
    if off > 32 + sizeofcmds + 8:
        raise ValueError("load commands run past sizeofcmds")
    return out


def _uleb(b, i):
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, i


def _binds(b):
    """{symbol: library ordinal} of a dyld bind opcode stream (negative
    ordinals are the special ones: -1 main executable, -2 flat lookup)."""
    out, i, ordinal, sym = {}, 0, 0, None
    while i < len(b):
        op, imm = b[i] & 0xF0, b[i] & 0x0F
        i += 1
        if op == 0x10:    # SET_DYLIB_ORDINAL_IMM
            ordinal = imm
        elif op == 0x20:  # SET_DYLIB_ORDINAL_ULEB
            ordinal, i = _uleb(b, i)
        elif op == 0x30:  # SET_DYLIB_SPECIAL_IMM (sign-extended 4 bits)
            ordinal = imm - 16 if imm else 0
        elif op == 0x40:  # SET_SYMBOL_TRAILING_FLAGS_IMM + name
            end = b.index(0, i)
            sym, i = b[i:end].decode(), end + 1
        elif op in (0x60, 0x70, 0x80):  # SET_ADDEND_SLEB, SET_SEGMENT_AND_OFFSET_ULEB, ADD_ADDR_ULEB
            _, i = _uleb(b, i)
        elif op in (0x90, 0xB0):  # DO_BIND, DO_BIND_ADD_ADDR_IMM_SCALED
            out[sym] = ordinal
        elif op == 0xA0:  # DO_BIND_ADD_ADDR_ULEB
            out[sym] = ordinal
            _, i = _uleb(b, i)
        elif op == 0xC0:  # DO_BIND_ULEB_TIMES_SKIPPING_ULEB
            out[sym] = ordinal
            _, i = _uleb(b, i)
            _, i = _uleb(b, i)
        elif op == 0x00:  # DONE (lazy streams hold several)
            continue
        elif op != 0x50:  # SET_TYPE_IMM
            raise ValueError(f"unknown bind opcode {op:#x}")
    return out


def _rva_to_off(sections, rva):
    for va, vsize, raw, rsize in sections:
        if va <= rva < va + max(vsize, rsize):
            return raw + rva - va
    raise ValueError(f"RVA {rva:#x} is in no section")


def read_pe(data):
    """{'machine', 'dll' (bool), 'timestamp', 'imports' {dll: [names]},
    'exports' [names]} of a PE32+ file."""
    if data[:2] != b"MZ":
        raise ValueError("not a PE file (no MZ)")
    (pe,) = struct.unpack_from("<I", data, 0x3C)
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("no PE signature")
    machine, nsect, timestamp, _sym, _nsym, opt_size, chars = struct.unpack_from("<HHIIIHH", data, pe + 4)
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise ValueError("not PE32+")
    ndirs = struct.unpack_from("<I", data, opt + 108)[0]
    dirs = [struct.unpack_from("<II", data, opt + 112 + 8 * i) for i in range(ndirs)]
    sections = []
    sec = opt + opt_size
    for i in range(nsect):
        vsize, va, rsize, raw = struct.unpack_from("<IIII", data, sec + 40 * i + 8)
        sections.append((va, vsize, raw, rsize))

    def cstr(rva):
        o = _rva_to_off(sections, rva)
        return data[o:data.index(b"\0", o)].decode()

    exports = []
    if ndirs > 0 and dirs[0][0]:
        o = _rva_to_off(sections, dirs[0][0])
        nnames, _functions, names_rva = struct.unpack_from("<III", data, o + 24)  # NumberOfNames, ...
        (names_rva,) = struct.unpack_from("<I", data, o + 32)  # AddressOfNames
        no = _rva_to_off(sections, names_rva)
        exports = [cstr(struct.unpack_from("<I", data, no + 4 * i)[0]) for i in range(nnames)]
    imports = {}
    if ndirs > 1 and dirs[1][0]:
        o = _rva_to_off(sections, dirs[1][0])
        while True:
            ilt, _ts, _fwd, name_rva, iat = struct.unpack_from("<IIIII", data, o)
            if not (ilt or name_rva or iat):
                break
            names = []
            t = _rva_to_off(sections, ilt or iat)
            while True:
                (entry,) = struct.unpack_from("<Q", data, t)
                if not entry:
                    break
                names.append(f"#{entry & 0xFFFF}" if entry >> 63 else cstr((entry & 0x7FFFFFFF) + 2))
                t += 8
            imports[cstr(name_rva)] = names
            o += 20
    return {"machine": machine, "dll": bool(chars & 0x2000), "timestamp": timestamp, "imports": imports,
            "exports": exports}
