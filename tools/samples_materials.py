"""samples/models/j3d/tev_showcase.bmd: a model whose materials use the
TEV as games do (issue 31), written with tools/make_models.py:

* "toon": a toon ramp through an SRTG texgen from a lit colour channel
  (stage 0), times a checker texture (stage 1);
* "konst": a texture times konst colour K0, plus TEV register C0 (two
  stages);
* "cutout": a texture times the vertex colour, its alpha tested
  (alpha > 127: a disc, the corners cut away);
* "glow": additive blending of a konst colour times a soft texture.

Four quads side by side in the XY plane (facing +Z), one per material,
on one joint.  tev_showcase_cutout.btp switches the cutout's texture
between the model's own TEX1 images (disc, checker, soft).  Deterministic
bytes."""
import struct

import gameanim

import make_models as mm

SIDE = 16  # texture side in texels


def rgb5a3(pixels, width, height):
    """RGB5A3 texels (4x4 tiles) of RGBA tuples, rows top first: opaque
    texels as RGB555, the rest as 3-bit alpha and RGB444."""
    out = b""
    for ty in range(0, height, 4):
        for tx in range(0, width, 4):
            for y in range(ty, ty + 4):
                for x in range(tx, tx + 4):
                    r, g, b, a = pixels[y * width + x]
                    if a >= 224:
                        v = 0x8000 | (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                    else:
                        v = (a >> 5) << 12 | (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
                    out += struct.pack(">H", v)
    return out


def i8(values, width, height):
    """I8 texels (8x4 tiles), rows top first."""
    out = b""
    for ty in range(0, height, 4):
        for tx in range(0, width, 8):
            out += bytes(values[y * width + x] for y in range(ty, ty + 4) for x in range(tx, tx + 8))
    return out


def _textures():
    checker = [(240, 200, 80, 255) if (x // 4 + y // 4) % 2 else (60, 110, 220, 255)
               for y in range(SIDE) for x in range(SIDE)]
    c = (SIDE - 1) / 2.0
    disc = [(250, 250, 250, 255) if (x - c) ** 2 + (y - c) ** 2 <= 49 else (250, 60, 60, 0)
            for y in range(SIDE) for x in range(SIDE)]
    soft = [max(0, 255 - int(34 * (((x - c) ** 2 + (y - c) ** 2) ** 0.5))) for y in range(SIDE) for x in range(SIDE)]
    ramp = [(64, 64, 128, 128, 200, 200, 255, 255)[x] for y in range(4) for x in range(8)]  # 3 bands, dark to lit
    return [mm.texture("checker", "RGB5A3", SIDE, SIDE, rgb5a3(checker, SIDE, SIDE), wrap_s=1, wrap_t=1,
                       min_filter=0, mag_filter=0),
            mm.texture("toon_ramp", "I8", 8, 4, i8(ramp, 8, 4), wrap_s=0, wrap_t=0, min_filter=0, mag_filter=0),
            mm.texture("disc", "RGB5A3", SIDE, SIDE, rgb5a3(disc, SIDE, SIDE), wrap_s=0, wrap_t=0,
                       min_filter=0, mag_filter=0),
            mm.texture("soft", "I8", SIDE, SIDE, i8(soft, SIDE, SIDE), wrap_s=0, wrap_t=0,
                       min_filter=0, mag_filter=0)]


def _materials():
    uv0 = (1, 4, 60)    # MTX2x4 from TEX0, identity
    srtg = (10, 19, 60)  # SRTG from COLOR0
    konst_k0 = (0x0C, 0x1C)  # (konst colour select K0, konst alpha select K0_A)
    # colour records: (a, b, c, d, op, bias, scale, clamp, out)
    prev_times_tex = ((15, 0, 8, 15, 0, 0, 0, 1, 0), (7, 7, 7, 0, 0, 0, 0, 1, 0))
    tex_times_konst = ((15, 8, 14, 15, 0, 0, 0, 1, 0), (7, 7, 7, 6, 0, 0, 0, 1, 0))
    plus_c0 = ((2, 15, 15, 0, 0, 0, 0, 1, 0), (7, 7, 7, 0, 0, 0, 0, 1, 0))  # C0 + PREV, alpha kept
    tex_alpha_konst = ((15, 14, 9, 15, 0, 0, 0, 1, 0), (7, 7, 7, 4, 0, 0, 0, 1, 0))
    return [
        mm.material("toon", texgens=(srtg, uv0), textures=(1, 0), stages=((0, 0, 4), (1, 1, 0xFF)),
                    channel=(1, 0, 1, 2, 2, 0), color=(255, 255, 255, 255),
                    tev=(((15, 15, 15, 8, 0, 0, 0, 1, 0), (7, 7, 7, 6, 0, 0, 0, 1, 0)), prev_times_tex)),
        mm.material("konst", textures=(0,), stages=((0, 0, 0xFF), (0xFF, 0xFF, 0xFF)),
                    konst=((255, 120, 60, 255),), tev_colors=((0, 40, 90, 0),),
                    konst_sel=(konst_k0, konst_k0), tev=(tex_times_konst, plus_c0)),
        mm.material("cutout", textures=(2,), stages=((0, 0, 4),), tev=(mm.TEV_MODULATE,),
                    alpha_compare=(4, 127, 0, 7, 0)),
        mm.material("glow", mode=4, cull=0, textures=(3,), stages=((0, 0, 0xFF),), konst=((80, 255, 160, 255),),
                    konst_sel=(konst_k0,), tev=(tex_alpha_konst,), blend=(1, 4, 1, 0)),
    ]


def showcase():
    pos, uv, col = [], [], []
    for q in range(4):
        x0 = 12.0 * q - 24.0
        for dx, dy in ((0, 0), (10, 0), (10, 10), (0, 10)):
            pos.append((x0 + dx, float(dy), 0.0))
            uv.append((dx / 10.0, 1.0 - dy / 10.0))  # (GX t runs down the image)
            col.append((255, 255, 255, 255) if q != 2 else (255, 200 - 10 * dy, 120 + 10 * dx, 255))
    arrays = {mm.POS: mm.vertex_array(pos, "s16", 4), mm.CLR0: mm.color_array(col, "RGBA8"),
              mm.TEX0: mm.vertex_array(uv, "u16", 14)}
    attrs = [(mm.POS, mm.INDEX16), (mm.CLR0, mm.INDEX16), (mm.TEX0, mm.INDEX16)]
    # GX winds clockwise seen from the front: 0, 3, 2, 1 faces +Z
    shapes = [mm.shape(attrs, [mm.packet([0], [("quads", [(4 * q + i,) * 3 for i in (0, 3, 2, 1)])])])
              for q in range(4)]
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0)]
    for q in range(4):
        nodes += [(mm.MATERIAL, q), (mm.OPEN, 0), (mm.SHAPE, q), (mm.CLOSE, 0)]
    nodes += [(mm.CLOSE, 0), (mm.END, 0)]
    # laid out as the game's loader needs it (gameanim.check_model): Nintendo's chunk order, INF1's
    # counts, the root's box around the quads
    lo = tuple(min(p[k] for p in pos) for k in range(3))
    hi = tuple(max(p[k] for p in pos) for k in range(3))
    radius = max(sum(v * v for v in p) for p in pos) ** 0.5
    root = mm.joint("root", bound_min=lo, bound_max=hi, bound_radius=radius)
    return mm.j3d_file([mm.inf1_chunk(nodes, "basic", packet_count=len(shapes), vertex_count=len(pos)),
                        mm.chunk("VTX1", mm.vtx1_body(arrays)),
                        mm.evp1_chunk([], [[1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0]]), mm.drw1_chunk([(0, 0)]),
                        mm.jnt1_chunk([root]), mm.chunk("SHP1", mm.shp1_body(shapes)),
                        mm.chunk("MAT3", mm.mat3_body(_materials())), mm.chunk("TEX1", mm.tex1_body(_textures()))],
                       "bmd")


def cutout_pattern():
    """A BTP for the showcase: the cutout material's texmap 0 shows TEX1
    image 2 (the disc), 0 (the checker) and 3 (the soft spot) in turn."""
    numbers = [2, 2, 0, 0, 3, 3]
    tracks = [gameanim.Track(0, "texture_index", 0, range(len(numbers)), numbers, interpolation=gameanim.CONSTANT)]
    return gameanim.Animation("btp", tracks, frame_count=len(numbers), loop="loop",
                              entries=[{"material": "cutout", "texmap": 0}]).to_bytes()


def generate():
    return {"models/j3d/tev_showcase.bmd": showcase(), "models/j3d/tev_showcase_cutout.btp": cutout_pattern()}
