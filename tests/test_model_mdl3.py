"""The BDL's MDL3 made from MAT3 and TEX1 (regenerate; issue 34, notes
j3d_writer.md fact 9, section 1 "MDL3", 5.4 "MDL3"; docs/model_writer.md
"MDL3").

An independent reader written here from the GX register layouts parses
each display list into register writes (BP register -> values, XF address
-> words, CP) and checks them against the material tables the fixtures
were built from (tools/make_models.py dicts) and the decoded materials:
the register bit layouts below are the GX hardware's (BP TX_SETMODE0/1,
TX_SETIMAGE0/3, TREF, TEV_COLOR_ENV / ALPHA_ENV, TEV_KSEL, TEV register
pairs, FOG, ALPHACOMPARE, BLENDMODE, ZMODE, GENMODE; XF texgen, material /
ambient colour, channel control)."""
import struct

import pytest

import gameanim
from model_fixtures import make_models as mm

XF, BP, CP = 0x10, 0x61, 0x08
PATCHES = ("matColor", "colorChan", "texMtx", "texNo", "tevReg", "fog")


# ---------------------------------------------------------------- the reader


def parse_dl(dl):
    """Commands of one list: (offset, 'bp', reg, value24) / (offset, 'xf',
    addr, [words]) / (offset, 'cp', reg, value); then only zero bytes."""
    out, p = [], 0
    while p < len(dl) and dl[p] != 0:
        if dl[p] == BP:
            v = struct.unpack_from(">I", dl, p + 1)[0]
            out.append((p, "bp", v >> 24, v & 0xFFFFFF))
            p += 5
        elif dl[p] == XF:
            n, addr = struct.unpack_from(">HH", dl, p + 1)
            out.append((p, "xf", addr, list(struct.unpack_from(">%dI" % (n + 1), dl, p + 5))))
            p += 5 + 4 * (n + 1)
        elif dl[p] == CP:
            out.append((p, "cp", dl[p + 1], struct.unpack_from(">I", dl, p + 2)[0]))
            p += 6
        else:
            raise AssertionError("command 0x%02x at 0x%x" % (dl[p], p))
    assert p <= len(dl) and not any(dl[p:]), "non-zero padding"
    return out


def read_mdl3(chunk):
    """The chunk's tables: lists (bytes, chunk offset), patches, matrix
    words, modes, index table, names."""
    n = struct.unpack_from(">H", chunk, 8)[0]
    dl_tab, patch_tab, mtx_tab, mode_tab, index_tab, name_tab = struct.unpack_from(">6I", chunk, 0x0C)
    lists, patches, words = [], [], []
    for i in range(n):
        off, size = struct.unpack_from(">II", chunk, dl_tab + 8 * i)
        start = dl_tab + 8 * i + off
        lists.append((chunk[start:start + size], start))
        patches.append(dict(zip(PATCHES, struct.unpack_from(">6H", chunk, patch_tab + 16 * i))))
        assert chunk[patch_tab + 16 * i + 12:patch_tab + 16 * i + 16] == bytes(4)
        words.append(struct.unpack_from(">II", chunk, mtx_tab + 8 * i))
    modes = list(chunk[mode_tab:mode_tab + n])
    index = list(struct.unpack_from(">%dH" % n, chunk, index_tab))
    count = struct.unpack_from(">H", chunk, name_tab)[0]
    names = []
    for k in range(count):
        key, off = struct.unpack_from(">HH", chunk, name_tab + 4 + 4 * k)
        end = chunk.index(b"\0", name_tab + off)
        names.append((key, chunk[name_tab + off:end].decode()))
    return dict(n=n, lists=lists, patches=patches, words=words, modes=modes, index=index, names=names)


def regs(cmds):
    """BP: reg -> list of values (konst pairs 0xE0-0xE7 keyed (reg, 'k'));
    XF: addr -> word, each address of a multi-word load."""
    bp, xf = {}, {}
    for _, kind, reg, v in cmds:
        if kind == "bp":
            key = (reg, "k") if 0xE0 <= reg <= 0xE7 and v & 0x800000 else reg
            bp.setdefault(key, []).append(v)
        elif kind == "xf":
            for q, w in enumerate(v):
                xf[reg + q] = w
    return bp, xf


def bits(v, lo, n):
    return (v >> lo) & ((1 << n) - 1)


# ---------------------------------------------------------------- fixtures

GAME_TEXTURES = [dict(fmt=14, w=16, h=16, wrap=(1, 2), palette=None, filters=(1, 1)),   # skin CMPR
                 dict(fmt=9, w=8, h=4, wrap=(0, 0), palette=(2, 16), filters=(1, 1)),   # eyes C8, RGB5A3 x16
                 dict(fmt=0, w=8, h=8, wrap=(1, 1), palette=None, filters=(1, 1))]      # mask I4
GAME_STAGES = [([(0, 0, 4), (0, 1, 0xFF)], [mm.TEV_MODULATE, mm.TEV_PREV_TIMES_TEX]),
               ([(0, 0, 4)], [mm.TEV_MODULATE])]


def game_bdl():
    return mm.mesh_model(kind="bdl", game=True)


def rich_bdl():
    joints = [mm.joint("root"), mm.joint("a", translation=(0.0, 1.0, 0.0))]
    data = mm.write_j3d_model(joints, [-1, 0], kind="bdl", extra_chunks=[
        ("MAT3", mm.mat3_body(mm.rich_materials())), ("TEX1", mm.tex1_body(mm.seed_textures()))])
    return mm.with_mdl3(data)


def _tex_fixture(t):
    pal = (t["palette_format"], len(t["palette"]) // 2) if t["palette"] else None
    return dict(fmt=mm.GX_FORMATS[t["fmt"]], w=t["width"], h=t["height"], wrap=(t["wrap_s"], t["wrap_t"]),
                palette=pal, filters=(t["min_filter"], t["mag_filter"]))


RICH_TEXTURES = [_tex_fixture(t) for t in mm.seed_textures()]


def _chunk(model, tag):
    return dict(model.chunks)[tag]


# ---------------------------------------------------------------- the checks

MIN_FILTER = {0: 0, 1: 4, 2: 1, 3: 5, 4: 2, 5: 6}   # GX_NEAR.. -> TX_SETMODE0 min filter code
RAS = {0: 0, 1: 1, 2: 0, 3: 1, 4: 0, 5: 1, 6: 5, 7: 6, 8: 7, 0xFF: 7}  # GX_COLOR0.. -> TREF colour channel
CULL = {0: 0, 1: 2, 2: 1, 3: 3}                     # GX_CULL_* -> GENMODE (front / back swapped)


def texmap_reg(base, k):
    return base + k if k < 4 else base + 0x20 + k - 4


def check_texture_groups(dl, at, mat, textures):
    """The game's texNo walk (fact 9): from the offset, while a BP command
    writes a register in 0x80-0xBB, its low 16 bits are a texture number
    and a group of 0x14 bytes (+0x23 with a palette) follows."""
    used = [k for k in range(8) if mat.textures[k] >= 0]
    p, seen = at, []
    while p + 5 <= len(dl) and dl[p] == BP and 0x80 <= dl[p + 1] <= 0xBB:
        tex = struct.unpack_from(">H", dl, p + 3)[0]
        seen.append(tex)
        p += 0x14 + (0x23 if textures[tex]["palette"] else 0)
    assert seen == [mat.textures[k] for k in used]
    for k in used:
        t = textures[mat.textures[k]]
        group = parse_dl(dl[at:at + 0x14 + (0x23 if t["palette"] else 0)])
        at += 0x14 + (0x23 if t["palette"] else 0)
        (_, _, r0, v0), (_, _, r1, v1), (_, _, r2, v2), (_, _, r3, v3) = group[:4]
        assert (r0, v0) == (texmap_reg(0x94, k), mat.textures[k])          # TX_SETIMAGE3: the texture number
        assert r1 == texmap_reg(0x88, k)                                   # TX_SETIMAGE0
        assert (bits(v1, 0, 10) + 1, bits(v1, 10, 10) + 1, bits(v1, 20, 4)) == (t["w"], t["h"], t["fmt"])
        assert r2 == texmap_reg(0x80, k)                                   # TX_SETMODE0
        assert (bits(v2, 0, 2), bits(v2, 2, 2)) == t["wrap"]
        assert bits(v2, 4, 1) == (t["filters"][1] != 0) and bits(v2, 5, 3) == MIN_FILTER[t["filters"][0]]
        assert r3 == texmap_reg(0x84, k)                                   # TX_SETMODE1: LOD 0..0 here
        if t["palette"]:
            fmt, count = t["palette"]
            tlut = {c[2]: c[3] for c in group[4:]}
            assert bits(tlut[0x65], 10, 11) == (16 if count > 16 else 1)   # TLUT size in 16-entry units
            assert bits(tlut[texmap_reg(0x98, k)], 10, 2) == fmt            # TX_SETTLUT format


def check_material(dl, patch, words, mat, stages, tev, textures, ksel=None, swap_modes=None):
    cmds = parse_dl(dl)
    at = {c[0]: c for c in cmds}
    bp, xf = regs(cmds)
    # patch offsets name the commands the game's patchers rewrite
    assert at[patch["matColor"]][1:3] == ("xf", 0x100C)
    assert at[patch["colorChan"]][1:3] == ("xf", 0x100E)
    assert at[patch["tevReg"]][1] == "bp" and 0xE0 <= at[patch["tevReg"]][2] <= 0xE7
    assert at[patch["fog"]][1:3] == ("bp", 0xEE)
    assert at[patch["texMtx"]][1] == "xf" and (0x78 <= at[patch["texMtx"]][2] < 0x78 + 120 or
                                              at[patch["texMtx"]][2] == 0x1040)
    check_texture_groups(dl, patch["texNo"], mat, textures)
    n = len(stages)
    scales = [(c[2], c[3] & 0xFFFF) for c in cmds if c[1] == "bp" and 0x30 <= c[2] <= 0x3F]
    # TEV orders (TREF: map 0-2, coord 3-5, enable 6, colour 7-9; two stages a register)
    for s, (coord, tmap, chan) in enumerate(stages):
        v = bp[0x28 + s // 2][0] >> (12 * (s % 2))
        on = tmap != 0xFF
        assert bits(v, 6, 1) == on and bits(v, 7, 3) == RAS[chan]
        if on:  # GX_TEXCOORD_NULL with a map reads texcoord 0 (GXSetTevOrder)
            assert (bits(v, 0, 3), bits(v, 3, 3)) == (tmap, coord if coord < 8 else 0)
        if on and coord < 8:
            t = textures[mat.textures[tmap]]  # its texcoord's scale (SU_SSIZE / TSIZE) is the texture's size
            assert scales[2 * s:2 * s + 2] == [(0x30 + 2 * coord, t["w"] - 1), (0x31 + 2 * coord, t["h"] - 1)]
    # combiners
    for s, (col, alp) in enumerate(tev):
        c, a = bp[0xC0 + 2 * s][0], bp[0xC1 + 2 * s][0]
        assert [bits(c, 12, 4), bits(c, 8, 4), bits(c, 4, 4), bits(c, 0, 4)] == list(col[:4])
        assert [bits(a, 13, 3), bits(a, 10, 3), bits(a, 7, 3), bits(a, 4, 3)] == list(alp[:4])
        for half, v in ((col, c), (alp, a)):
            op, bias, scale, clamp, out = half[4:]
            if op < 8:
                assert (bits(v, 16, 2), bits(v, 18, 1), bits(v, 20, 2)) == (bias, op, scale)
            else:  # compares: bias 3, the kind in op / scale
                assert (bits(v, 16, 2), bits(v, 18, 1), bits(v, 20, 2)) == (3, op & 1, (op >> 1) & 3)
            assert (bits(v, 19, 1), bits(v, 22, 2)) == (clamp, out)
        if swap_modes:
            assert (bits(a, 0, 2), bits(a, 2, 2)) == tuple(swap_modes[s])
    assert 0xC0 + 2 * n not in bp  # only the material's stages
    # konst selects and swap tables (TEV_KSEL 0xF6-0xFD)
    for j in range(8):
        v = bp[0xF6 + j][0]
        table = mat.swap_tables[j // 2]
        assert (bits(v, 0, 2), bits(v, 2, 2)) == (tuple(table[2:]) if j % 2 else tuple(table[:2]))
        for q in range(2):
            s = 2 * j + q
            if ksel and s < n:
                assert (bits(v, 4 + 10 * q, 5), bits(v, 9 + 10 * q, 5)) == tuple(ksel[s])
    # TEV registers C0-C2 (slots 0-2) and konst K0-K3: RA then BG, 11 bits each
    for slot in range(3):
        r, g, b, a = mat.tev_colors[slot]
        ra, bg = bp[0xE2 + 2 * slot], bp[0xE3 + 2 * slot]
        assert ra == [(r & 0x7FF) | (a & 0x7FF) << 12] and bg == [(b & 0x7FF) | (g & 0x7FF) << 12] * 3
    for k in range(4):
        r, g, b, a = mat.konst_colors[k]
        assert bp[(0xE0 + 2 * k, "k")] == [0x800000 | r | a << 12]
        assert bp[(0xE1 + 2 * k, "k")] == [0x800000 | b | g << 12]
    # PE
    comp0, ref0, op, comp1, ref1 = mat.alpha_compare_raw
    assert bp[0xF3] == [ref0 | ref1 << 8 | comp0 << 16 | comp1 << 19 | op << 22]
    btype, src, dst, logic = mat.blend_raw
    v = bp[0x41][0]
    assert bits(v, 0, 1) == (btype in (1, 3)) and bits(v, 1, 1) == (btype == 2) and bits(v, 11, 1) == (btype == 3)
    assert (bits(v, 8, 3), bits(v, 5, 3), bits(v, 12, 4), bits(v, 2, 1)) == (src, dst, logic, mat.dither)
    test, func, write = mat.z_mode_raw
    assert bp[0x40] == [test | func << 1 | write << 4]
    assert bits(bp[0x43][0], 6, 1) == mat.z_comp_loc
    g = bp[0x00][0]
    assert (bits(g, 0, 4), bits(g, 4, 3), bits(g, 10, 4) + 1, bits(g, 14, 2)) == (
        len(mat.texgens_raw), mat.channel_count, n, CULL[mat.cull_mode])
    # texgens (XF 0x1040: projection 1, input form 2, type 4-6, source row 7-11) and the CP matrix words
    for k, (ttype, source, matrix) in enumerate(mat.texgens_raw):
        w = xf[0x1040 + k]
        if ttype in (0, 1):
            row = source + 1 if 4 <= source <= 11 else {0: 0, 1: 1, 2: 3, 3: 4}.get(source, 5)
            assert (bits(w, 1, 1), bits(w, 4, 3), bits(w, 7, 5)) == (ttype == 0, 0, row)
        elif ttype == 10:  # SRTG from a colour: row 2, type 2 (COLOR0) / 3 (COLOR1)
            assert (bits(w, 4, 3), bits(w, 7, 5)) == (2 + (source == 20), 2)
        word, shift = divmod(6 + 6 * k, 30)
        assert bits(words[word], shift, 6) == matrix
        assert xf[0x1050 + k] == 61
    for k in range(len(mat.texgens_raw), 8):
        word, shift = divmod(6 + 6 * k, 30)
        assert bits(words[word], shift, 6) == 60  # GX_IDENTITY
    # channel colours and controls
    rgba = [lambda c: c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3]][0]
    assert [xf[0x100C], xf[0x100D]] == [rgba(c) for c in mat.mat_colors]
    assert [xf[0x100A], xf[0x100B]] == [rgba(c) for c in mat.amb_colors]
    for k, ch in enumerate(mat.channels_raw):
        if ch is not None:
            enable, msrc, mask, diffuse, atten, asrc = ch
            w = xf[0x100E + k]
            assert (bits(w, 0, 1), bits(w, 1, 1), bits(w, 2, 4) | bits(w, 11, 4) << 4, bits(w, 6, 1)) == (
                msrc & 1, enable != 0, mask, asrc & 1)  # one bit each in the register
            assert (bits(w, 9, 1), bits(w, 10, 1)) == (atten != 2, atten != 0)
    assert xf[0x1009] == mat.channel_count and xf[0x103F] == len(mat.texgens_raw)
    return bp, xf


def check_chunk(model, chunk):
    d = read_mdl3(chunk)
    assert chunk[:4] == b"MDL3" and len(chunk) % 32 == 0 and struct.unpack_from(">I", chunk, 4)[0] == len(chunk)
    mats = model.materials
    assert d["n"] == len(mats)
    base = dict((t, o) for t, o in _offsets(model))["MDL3"]
    for dl, start in d["lists"]:
        assert (base + start) % 32 == 0 and len(dl) % 32 == 0  # fact 1
    assert d["modes"] == [m.mode for m in mats]
    assert d["index"] == list(range(len(mats)))
    assert [nm for _, nm in d["names"]] == [m.name for m in mats]
    for key, nm in d["names"]:
        h = 0
        for ch in nm.encode():
            h = (h * 3 + (ch - 256 if ch > 127 else ch)) & 0xFFFF
        assert key == h
    return d


def _offsets(model):
    at, out = 0x20, []
    for tag, body in model.chunks:
        out.append((tag, at))
        at += len(body)
    return out


# ---------------------------------------------------------------- tests


def test_game_bdl_mdl3_holds_the_materials_registers():
    model = gameanim.load_model(game_bdl())
    d = check_chunk(model, _chunk(model, "MDL3"))
    for i, mat in enumerate(model.materials):
        dl, _ = d["lists"][i]
        stages, tev = GAME_STAGES[i]
        check_material(dl, d["patches"][i], d["words"][i], mat, stages, tev, GAME_TEXTURES)
    assert gameanim.check_model(model) == []


def test_rich_materials_mdl3_holds_every_table():
    model = gameanim.load_model(rich_bdl())
    d = check_chunk(model, _chunk(model, "MDL3"))
    rich = mm.rich_materials()
    for i, mat in enumerate(model.materials):
        dl, _ = d["lists"][i]
        r = rich[i]
        bp, xf = check_material(dl, d["patches"][i], d["words"][i], mat, r["stages"], r["tev"], RICH_TEXTURES,
                                ksel=r["konst_sel"], swap_modes=r["swap_modes"])
        # fog: type in FOG_PARAM3 bits 21-23 (projection bit 20), colour RGB, range centre + 342
        ftype, adjust, centre = r["fog"][:3]
        assert (bits(bp[0xF1][0], 21, 3), bits(bp[0xF1][0], 20, 1)) == (ftype & 7, ftype >> 3 & 1)
        red, green, blue, _ = r["fog"][7]
        assert bp[0xF2] == [blue | green << 8 | red << 16]
        assert bp[0xE8] == [(centre + 342) & 0x3FF | adjust << 10]
        # indirect: one TEV_IND per stage, from the indirect stage records
        ind_stage = r["indirect"][5][0]  # (stage, format, bias, matrix, wrap s, wrap t, add prev, utc lod, alpha)
        assert bits(bp[0x10][0], 9, 4) == ind_stage[3] and bits(bp[0x10][0], 0, 2) == ind_stage[0]
        # the texgen matrices texgens use are loaded at XF 0x78 + 12 k (none here: identity)
        assert not [a for a in xf if 0x78 <= a < 0x78 + 120]
    assert gameanim.check_model(model) == [] or all("MDL3" not in p for p in gameanim.check_model(model))


def test_texture_matrix_load_for_a_texgen_that_uses_one():
    mats = [mm.material("m", texgens=((1, 4, 33),), tex_matrices=[None, (1, 0, (0.5, 0.5, 0.0), (2.0, 1.0), 0,
                                                                        (0.25, 0.0), tuple([0.0] * 16))])]
    data = mm.with_mdl3(mm.write_j3d_model([mm.joint("r")], [-1], kind="bdl", extra_chunks=[
        ("MAT3", mm.mat3_body(mats)), ("TEX1", mm.tex1_body(mm.seed_textures()))]))
    model = gameanim.load_model(data)
    d = read_mdl3(_chunk(model, "MDL3"))
    dl, _ = d["lists"][0]
    cmds = parse_dl(dl)
    loads = [c for c in cmds if c[1] == "xf" and 0x78 <= c[2] < 0x78 + 120]
    assert [(c[2], len(c[3])) for c in loads] == [(0x78 + 12, 8)]  # TEXMTX1, 2x4
    assert cmds[[c[0] for c in cmds].index(d["patches"][0]["texMtx"])][2] == 0x78 + 12
    m = [struct.unpack(">f", struct.pack(">I", w))[0] for w in loads[0][3]]
    # scale about the centre, then translate: s' = 2 s - 0.5 + 0.25, t' = t
    assert m == pytest.approx([2.0, 0.0, 0.0, -0.25, 0.0, 1.0, 0.0, 0.0])
    assert bits(d["words"][0][0], 6, 6) == 33


def test_regenerate_is_a_fixed_point():
    for data in (game_bdl(), rich_bdl()):
        model = gameanim.load_model(data)
        out = model.to_bytes(regenerate=True)
        assert _chunk(gameanim.load_model(out), "MDL3") == _chunk(model, "MDL3")
        assert gameanim.load_model(out).to_bytes(regenerate=True) == out


def test_colour_edit_of_a_generated_bdl_patches_its_list():
    model = gameanim.load_model(game_bdl())
    old = _chunk(model, "MDL3")
    model.set_material_colors(1, colors=[(1, 2, 3, 4)], ambient_colors=[(9, 8, 7, 6)],
                              konst_colors=[(10, 20, 30, 40)], tev_colors=[(-5, 6, 1000, -1000)])
    new = _chunk(model, "MDL3")
    assert len(new) == len(old) and new != old
    d = read_mdl3(new)
    dl, _ = d["lists"][1]
    bp, xf = regs(parse_dl(dl))
    assert xf[0x100C] == 0x01020304 and xf[0x100A] == 0x09080706
    assert bp[(0xE0, "k")] == [0x800000 | 10 | 40 << 12] and bp[(0xE1, "k")] == [0x800000 | 30 | 20 << 12]
    assert bp[0xE2] == [(-5 & 0x7FF) | (-1000 & 0x7FF) << 12]
    # material 0's list is untouched, and the patched chunk is what regenerate makes of the edited MAT3
    assert read_mdl3(old)["lists"][0] == d["lists"][0]
    again = gameanim.load_model(model.to_bytes())
    assert again.materials[1].mat_colors[0] == (1, 2, 3, 4)
    assert _chunk(gameanim.load_model(model.to_bytes(regenerate=True)), "MDL3") == new


def test_lint_finds_a_wrong_patch_offset_and_a_bad_command():
    data = game_bdl()
    model = gameanim.load_model(data)
    at = dict(_offsets(model))["MDL3"]
    chunk = _chunk(model, "MDL3")
    patch_tab = struct.unpack_from(">I", chunk, 0x10)[0]
    bad = bytearray(data)
    struct.pack_into(">H", bad, at + patch_tab + 8, 0)  # tevReg -> the first texture command
    problems = gameanim.check_model(bytes(bad))
    assert any("tevReg" in p and "material 0" in p for p in problems), problems
    bad = bytearray(data)
    struct.pack_into(">H", bad, at + patch_tab + 6, 5)  # texNo -> past the first group's start
    assert any("texNo walk" in p or "texture group" in p for p in gameanim.check_model(bytes(bad)))
    bad = bytearray(data)
    dl_tab = struct.unpack_from(">I", chunk, 0x0C)[0]
    start = dl_tab + struct.unpack_from(">I", chunk, dl_tab)[0]
    bad[at + start] = 0x42
    assert any("command 0x42" in p for p in gameanim.check_model(bytes(bad)))


def test_bad_materials_or_textures_are_format_errors():
    data = game_bdl()
    model = gameanim.load_model(data)
    offs = dict(_offsets(model))
    # a TEX1 header with wrap mode 7
    tex1 = _chunk(model, "TEX1")
    head = struct.unpack_from(">I", tex1, 0x0C)[0]
    bad = bytearray(data)
    bad[offs["TEX1"] + head + 6] = 7
    with pytest.raises(gameanim.FormatError, match="TEX1"):
        gameanim.load_model(bytes(bad)).to_bytes(regenerate=True)
    # a MAT3 texture slot naming a texture TEX1 does not hold (the texture index table entry)
    mat3 = _chunk(model, "MAT3")
    tex_tab = struct.unpack_from(">I", mat3, 0x48)[0]
    bad = bytearray(data)
    struct.pack_into(">H", bad, offs["MAT3"] + tex_tab, 40)
    with pytest.raises(gameanim.FormatError):
        gameanim.load_model(bytes(bad)).to_bytes(regenerate=True)
    # a MAT3 that does not decode (a TEV stage count of 17)
    cnt_tab = struct.unpack_from(">I", mat3, 0x58)[0]
    bad = bytearray(data)
    bad[offs["MAT3"] + cnt_tab] = 17
    with pytest.raises(gameanim.FormatError, match="MAT3"):
        gameanim.load_model(bytes(bad)).to_bytes(regenerate=True)
