/* gameanim.Material: one MAT3 material's whole GX state with string enums
 * (GX names without the GX_ / GX_CC_ / GX_CA_ / GX_TEV_ / GX_TG_ ...
 * prefixes), its TEV evaluator and lighting equation (the C core:
 * models/gx_tev.c).  Glue only.  API: docs/materials.md. */
#include "binding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "../models/gx_tev.h"

/* ------------------------------------------------------------------ */
/* Names of the GX enumerations (value -> name; a value without a GX name
 * is given as its int)                                                */

#define TABLE(name, msg) const enum_table name = {name##_items, ENUM_NO_NONE, 1, NULL, msg " must be a GX name, not %R"}

static const enum_item tev_color_in_items[] = {
    {"CPREV", 0}, {"APREV", 1}, {"C0", 2}, {"A0", 3}, {"C1", 4}, {"A1", 5}, {"C2", 6}, {"A2", 7},
    {"TEXC", 8}, {"TEXA", 9}, {"RASC", 10}, {"RASA", 11}, {"ONE", 12}, {"HALF", 13}, {"KONST", 14},
    {"ZERO", 15}, {NULL, 0}};
static TABLE(tev_color_in, "a TEV colour input");
static const enum_item tev_alpha_in_items[] = {
    {"APREV", 0}, {"A0", 1}, {"A1", 2}, {"A2", 3}, {"TEXA", 4}, {"RASA", 5}, {"KONST", 6}, {"ZERO", 7}, {NULL, 0}};
static TABLE(tev_alpha_in, "a TEV alpha input");
static const enum_item tev_color_op_items[] = {
    {"ADD", 0}, {"SUB", 1}, {"COMP_R8_GT", 8}, {"COMP_R8_EQ", 9}, {"COMP_GR16_GT", 10}, {"COMP_GR16_EQ", 11},
    {"COMP_BGR24_GT", 12}, {"COMP_BGR24_EQ", 13}, {"COMP_RGB8_GT", 14}, {"COMP_RGB8_EQ", 15}, {NULL, 0}};
static TABLE(tev_color_op, "a TEV op");
static const enum_item tev_alpha_op_items[] = {
    {"ADD", 0}, {"SUB", 1}, {"COMP_R8_GT", 8}, {"COMP_R8_EQ", 9}, {"COMP_GR16_GT", 10}, {"COMP_GR16_EQ", 11},
    {"COMP_BGR24_GT", 12}, {"COMP_BGR24_EQ", 13}, {"COMP_A8_GT", 14}, {"COMP_A8_EQ", 15}, {NULL, 0}};
static TABLE(tev_alpha_op, "a TEV op");
static const enum_item tev_bias_items[] = {{"ZERO", 0}, {"ADDHALF", 1}, {"SUBHALF", 2}, {NULL, 0}};
static TABLE(tev_bias, "a TEV bias");
static const enum_item tev_scale_items[] = {
    {"SCALE_1", 0}, {"SCALE_2", 1}, {"SCALE_4", 2}, {"DIVIDE_2", 3}, {NULL, 0}};
static TABLE(tev_scale, "a TEV scale");
static const enum_item tev_reg_items[] = {{"PREV", 0}, {"REG0", 1}, {"REG1", 2}, {"REG2", 3}, {NULL, 0}};
static TABLE(tev_reg, "a TEV register");
static const enum_item konst_sel_items[] = {
    {"1", 0}, {"7_8", 1}, {"3_4", 2}, {"5_8", 3}, {"1_2", 4}, {"3_8", 5}, {"1_4", 6}, {"1_8", 7},
    {"K0", 12}, {"K1", 13}, {"K2", 14}, {"K3", 15},
    {"K0_R", 16}, {"K1_R", 17}, {"K2_R", 18}, {"K3_R", 19}, {"K0_G", 20}, {"K1_G", 21}, {"K2_G", 22},
    {"K3_G", 23}, {"K0_B", 24}, {"K1_B", 25}, {"K2_B", 26}, {"K3_B", 27}, {"K0_A", 28}, {"K1_A", 29},
    {"K2_A", 30}, {"K3_A", 31}, {NULL, 0}};
static TABLE(konst_sel, "a konst select");
static const enum_item channel_id_items[] = {
    {"COLOR0", 0}, {"COLOR1", 1}, {"ALPHA0", 2}, {"ALPHA1", 3}, {"COLOR0A0", 4}, {"COLOR1A1", 5},
    {"COLOR_ZERO", 6}, {"ALPHA_BUMP", 7}, {"ALPHA_BUMPN", 8}, {"COLOR_NULL", 0xFF}, {NULL, 0}};
static TABLE(channel_id, "a colour channel");
static const enum_item compare_items[] = {
    {"NEVER", 0}, {"LESS", 1}, {"EQUAL", 2}, {"LEQUAL", 3}, {"GREATER", 4}, {"NEQUAL", 5}, {"GEQUAL", 6},
    {"ALWAYS", 7}, {NULL, 0}};
static TABLE(compare, "a compare");
static const enum_item alpha_op_items[] = {{"AND", 0}, {"OR", 1}, {"XOR", 2}, {"XNOR", 3}, {NULL, 0}};
static TABLE(alpha_op, "an alpha op");
static const enum_item blend_mode_items[] = {
    {"NONE", 0}, {"BLEND", 1}, {"LOGIC", 2}, {"SUBTRACT", 3}, {NULL, 0}};
static TABLE(blend_mode, "a blend mode");
static const enum_item blend_src_items[] = {
    {"ZERO", 0}, {"ONE", 1}, {"DSTCLR", 2}, {"INVDSTCLR", 3}, {"SRCALPHA", 4}, {"INVSRCALPHA", 5},
    {"DSTALPHA", 6}, {"INVDSTALPHA", 7}, {NULL, 0}};
static TABLE(blend_src, "a blend factor");
static const enum_item blend_dst_items[] = {
    {"ZERO", 0}, {"ONE", 1}, {"SRCCLR", 2}, {"INVSRCCLR", 3}, {"SRCALPHA", 4}, {"INVSRCALPHA", 5},
    {"DSTALPHA", 6}, {"INVDSTALPHA", 7}, {NULL, 0}};
static TABLE(blend_dst, "a blend factor");
static const enum_item logic_op_items[] = {
    {"CLEAR", 0}, {"AND", 1}, {"REVAND", 2}, {"COPY", 3}, {"INVAND", 4}, {"NOOP", 5}, {"XOR", 6}, {"OR", 7},
    {"NOR", 8}, {"EQUIV", 9}, {"INV", 10}, {"REVOR", 11}, {"INVCOPY", 12}, {"INVOR", 13}, {"NAND", 14},
    {"SET", 15}, {NULL, 0}};
static TABLE(logic_op, "a logic op");
static const enum_item texgen_type_items[] = {
    {"MTX3x4", 0}, {"MTX2x4", 1}, {"BUMP0", 2}, {"BUMP1", 3}, {"BUMP2", 4}, {"BUMP3", 5}, {"BUMP4", 6},
    {"BUMP5", 7}, {"BUMP6", 8}, {"BUMP7", 9}, {"SRTG", 10}, {NULL, 0}};
static TABLE(texgen_type, "a texgen type");
static const enum_item texgen_src_items[] = {
    {"POS", 0}, {"NRM", 1}, {"BINRM", 2}, {"TANGENT", 3}, {"TEX0", 4}, {"TEX1", 5}, {"TEX2", 6}, {"TEX3", 7},
    {"TEX4", 8}, {"TEX5", 9}, {"TEX6", 10}, {"TEX7", 11}, {"TEXCOORD0", 12}, {"TEXCOORD1", 13},
    {"TEXCOORD2", 14}, {"TEXCOORD3", 15}, {"TEXCOORD4", 16}, {"TEXCOORD5", 17}, {"TEXCOORD6", 18},
    {"COLOR0", 19}, {"COLOR1", 20}, {NULL, 0}};
static TABLE(texgen_src, "a texgen source");
static const enum_item texgen_mtx_items[] = {
    {"PNMTX0", 0}, {"PNMTX1", 3}, {"PNMTX2", 6}, {"PNMTX3", 9}, {"PNMTX4", 12}, {"PNMTX5", 15}, {"PNMTX6", 18},
    {"PNMTX7", 21}, {"PNMTX8", 24}, {"PNMTX9", 27}, {"TEXMTX0", 30}, {"TEXMTX1", 33}, {"TEXMTX2", 36},
    {"TEXMTX3", 39}, {"TEXMTX4", 42}, {"TEXMTX5", 45}, {"TEXMTX6", 48}, {"TEXMTX7", 51}, {"TEXMTX8", 54},
    {"TEXMTX9", 57}, {"IDENTITY", 60}, {NULL, 0}};
static TABLE(texgen_mtx, "a texgen matrix");
static const enum_item chan_src_items[] = {{"REG", 0}, {"VTX", 1}, {"REG", 0xFF}, {NULL, 0}};
static TABLE(chan_src, "a colour source");
static const enum_item diffuse_items[] = {{"NONE", 0}, {"SIGN", 1}, {"CLAMP", 2}, {NULL, 0}};
static TABLE(diffuse, "a diffuse function");
/* J3D's attenuation codes (j3d_materials.md 1.3): 0 and 2 none */
static const enum_item atten_items[] = {{"NONE", 0}, {"SPEC", 1}, {"NONE", 2}, {"SPOT", 3}, {NULL, 0}};
static TABLE(atten, "an attenuation function");

static PyObject *ename(const enum_table *t, int v)
{
    const char *s = enum_name(t, v);
    return s ? PyUnicode_FromString(s) : PyLong_FromLong(v);
}

/* ------------------------------------------------------------------ */
/* The parts: struct sequences (named, immutable, hashable tuples)      */

enum { P_TEV_OP, P_TEV_STAGE, P_ALPHA_COMPARE, P_BLEND, P_CHANNEL, P_TEXGEN, P_TEX_MATRIX, P_Z_MODE, P_FOG,
       P_NBT, P_INDIRECT, P_INDIRECT_STAGE, P_COUNT };

#define F(n, d) {n, d}
static PyStructSequence_Field tev_op_fields[] = {
    F("a", "Input A"), F("b", "Input B"), F("c", "Input C"), F("d", "Input D"),
    F("op", "'ADD', 'SUB' or a compare ('COMP_R8_GT' ...)"), F("bias", "'ZERO', 'ADDHALF', 'SUBHALF'; None for a compare"),
    F("scale", "'SCALE_1', 'SCALE_2', 'SCALE_4', 'DIVIDE_2'; None for a compare"), F("clamp", "bool: clamp to 0..255"),
    F("out", "'PREV', 'REG0', 'REG1' or 'REG2'"), {NULL, NULL}};
static PyStructSequence_Field tev_stage_fields[] = {
    F("color", "TevOp of the colour half"), F("alpha", "TevOp of the alpha half"),
    F("konst_color", "Konst colour select ('1', '7_8', ..., 'K0', 'K0_R', ... 'K3_A')"),
    F("konst_alpha", "Konst alpha select"), F("tex_coord", "Texcoord (texgen) index, None for none"),
    F("tex_map", "Texture slot, None for none"), F("channel", "Colour channel ('COLOR0A0', ..., 'COLOR_NULL')"),
    F("ras_swap", "Swap table index for RAS"), F("tex_swap", "Swap table index for TEX"),
    F("texture", "TEX1 index sampled, None for none"), {NULL, NULL}};
static PyStructSequence_Field alpha_compare_fields[] = {
    F("comp0", "Compare 0"), F("ref0", "Reference 0 (0-255)"), F("op", "'AND', 'OR', 'XOR', 'XNOR'"),
    F("comp1", "Compare 1"), F("ref1", "Reference 1"), {NULL, NULL}};
static PyStructSequence_Field blend_fields[] = {
    F("type", "'NONE', 'BLEND', 'LOGIC', 'SUBTRACT'"), F("src", "Source factor"), F("dst", "Destination factor"),
    F("logic_op", "Logic op"), {NULL, NULL}};
static PyStructSequence_Field channel_fields[] = {
    F("lighting", "bool"), F("material_source", "'REG' or 'VTX'"), F("ambient_source", "'REG' or 'VTX'"),
    F("light_mask", "int, bit n = light n"), F("diffuse", "'NONE', 'SIGN', 'CLAMP'"),
    F("attenuation", "'NONE', 'SPEC', 'SPOT'"), {NULL, NULL}};
static PyStructSequence_Field texgen_fields[] = {
    F("type", "'MTX3x4', 'MTX2x4', 'BUMP0'-'BUMP7', 'SRTG'"), F("source", "'POS', 'NRM', ..., 'TEX0'-'TEX7', ..."),
    F("matrix", "'PNMTX0'-'PNMTX9', 'TEXMTX0'-'TEXMTX9', 'IDENTITY' (post texgens: the int)"), {NULL, NULL}};
static PyStructSequence_Field tex_matrix_fields[] = {
    F("projection", "'MTX3x4' or 'MTX2x4'"), F("mode", "Mapping mode (info bits 0-6)"), F("maya", "bool: Maya SRT"),
    F("center", "(x, y, z)"), F("scale", "(s, t)"), F("rotation", "s16, 65536 per turn"),
    F("translation", "(s, t)"), F("effect", "16 floats, row-major"), {NULL, NULL}};
static PyStructSequence_Field z_mode_fields[] = {
    F("test", "bool"), F("func", "Compare"), F("write", "bool"), {NULL, NULL}};
static PyStructSequence_Field fog_fields[] = {
    F("type", "GX fog type"), F("adjust", "bool: range adjust"), F("center", "Adjust centre"),
    F("start_z", "float"), F("end_z", "float"), F("near_z", "float"), F("far_z", "float"),
    F("color", "RGBA8"), F("adjust_table", "10 u16"), {NULL, NULL}};
static PyStructSequence_Field nbt_fields[] = {F("enabled", "bool"), F("scale", "(x, y, z)"), {NULL, NULL}};
static PyStructSequence_Field indirect_fields[] = {
    F("enabled", "bool"), F("count", "Indirect stages used (0-4)"),
    F("orders", "4 x (texcoord, texmap)"), F("matrices", "3 x ((m00, m01, m02, m10, m11, m12), exponent)"),
    F("scales", "4 x (scale s, scale t) codes"), F("stages", "16 IndirectStage, one per TEV stage"), {NULL, NULL}};
static PyStructSequence_Field indirect_stage_fields[] = {
    F("ind_stage", "int"), F("format", "int"), F("bias", "int"), F("matrix", "int"), F("wrap_s", "int"),
    F("wrap_t", "int"), F("add_prev", "bool"), F("utc_lod", "bool"), F("alpha", "int"), {NULL, NULL}};

static PyStructSequence_Desc part_desc[P_COUNT] = {
    {"gameanim.TevOp", "One half (colour or alpha) of a TEV stage.", tev_op_fields, 9},
    {"gameanim.TevStage", "One TEV stage of a Material.", tev_stage_fields, 10},
    {"gameanim.AlphaCompare", "The alpha test: comp0(a, ref0) op comp1(a, ref1).", alpha_compare_fields, 5},
    {"gameanim.Blend", "The blend mode.", blend_fields, 4},
    {"gameanim.ColorChannel", "A colour channel control.", channel_fields, 6},
    {"gameanim.TexGen", "A texture coordinate generator.", texgen_fields, 3},
    {"gameanim.TexMatrix", "A texture matrix record.", tex_matrix_fields, 8},
    {"gameanim.ZMode", "Depth test and write.", z_mode_fields, 3},
    {"gameanim.Fog", "The fog record.", fog_fields, 9},
    {"gameanim.NbtScale", "The NBT scale record.", nbt_fields, 2},
    {"gameanim.Indirect", "The indirect texturing record.", indirect_fields, 6},
    {"gameanim.IndirectStage", "The indirect setup of one TEV stage.", indirect_stage_fields, 9},
};

/* A part from n new references (NULL if any is NULL). */
static PyObject *part(ga_state *st, int kind, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    PyObject *items[16];
    int ok = 1;
    for (int k = 0; k < n; k++) {
        items[k] = va_arg(ap, PyObject *);
        if (!items[k]) ok = 0;
    }
    va_end(ap);
    PyObject *s = ok ? PyStructSequence_New(st->MaterialParts[kind]) : NULL;
    for (int k = 0; k < n; k++) {
        if (s) PyStructSequence_SetItem(s, k, items[k]);
        else Py_XDECREF(items[k]);
    }
    return s;
}

static PyObject *ints(const uint8_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) PyTuple_SetItem(t, k, PyLong_FromLong(v[k]));
    return t;
}

static PyObject *floats(const float *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) PyTuple_SetItem(t, k, PyFloat_FromDouble(v[k]));
    return t;
}

static PyObject *s16s(const int16_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) PyTuple_SetItem(t, k, PyLong_FromLong(v[k]));
    return t;
}

static PyObject *maybe(int has, PyObject *v)
{
    if (has) return v;
    Py_XDECREF(v);
    return Py_NewRef(Py_None);
}

static PyObject *index_or_none(int v) { return v == 0xFF ? Py_NewRef(Py_None) : PyLong_FromLong(v); }

/* A tuple of n items made by fn(st, mt, k). */
typedef PyObject *(*item_fn)(ga_state *st, const ga_material *mt, int k);
static PyObject *tuple_of(ga_state *st, const ga_material *mt, int n, item_fn fn)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *v = fn(st, mt, k);
        if (!v) Py_CLEAR(t);
        else PyTuple_SetItem(t, k, v);
    }
    return t;
}

static PyObject *tev_op(ga_state *st, const ga_tev_op *o, int alpha)
{
    const enum_table *in = alpha ? &tev_alpha_in : &tev_color_in;
    int cmp = o->op >= 8;
    return part(st, P_TEV_OP, 9, ename(in, o->a), ename(in, o->b), ename(in, o->c), ename(in, o->d),
                ename(alpha ? &tev_alpha_op : &tev_color_op, o->op),
                cmp ? Py_NewRef(Py_None) : ename(&tev_bias, o->bias),
                cmp ? Py_NewRef(Py_None) : ename(&tev_scale, o->scale), PyBool_FromLong(o->clamp),
                ename(&tev_reg, o->out));
}

static PyObject *tev_stage(ga_state *st, const ga_material *mt, int s)
{
    const ga_tev_stage *g = &mt->tev.stages[s];
    return part(st, P_TEV_STAGE, 10, tev_op(st, &g->color, 0), tev_op(st, &g->alpha, 1),
                ename(&konst_sel, g->konst_color), ename(&konst_sel, g->konst_alpha),
                index_or_none(mt->stage_texcoord[s]), index_or_none(mt->stage_texmap[s]),
                ename(&channel_id, mt->stage_channel[s]), PyLong_FromLong(g->ras_swap), PyLong_FromLong(g->tex_swap),
                mt->stage_texture[s] >= 0 ? PyLong_FromLong(mt->stage_texture[s]) : Py_NewRef(Py_None));
}

static PyObject *channel(ga_state *st, const ga_material *mt, int k)
{
    const uint8_t *c = mt->channel[k];
    return part(st, P_CHANNEL, 6, PyBool_FromLong(c[0]), ename(&chan_src, c[1]), ename(&chan_src, c[5]),
                PyLong_FromLong(c[2]), ename(&diffuse, c[3]), ename(&atten, c[4]));
}

static PyObject *texgen(ga_state *st, const ga_material *mt, int k)
{
    const uint8_t *t = mt->texgen[k];
    return part(st, P_TEXGEN, 3, ename(&texgen_type, t[0]), ename(&texgen_src, t[1]), ename(&texgen_mtx, t[2]));
}

static PyObject *post_texgen(ga_state *st, const ga_material *mt, int k)
{
    const uint8_t *t = mt->post_texgen[k];
    return maybe(mt->has_post_texgen[k],
                 part(st, P_TEXGEN, 3, ename(&texgen_type, t[0]), ename(&texgen_src, t[1]), PyLong_FromLong(t[2])));
}

static PyObject *tex_matrix(ga_state *st, const ga_material *mt, int k)
{
    const ga_tex_matrix *m = &mt->tex_matrix[k];
    if (!mt->has_tex_matrix[k]) return Py_NewRef(Py_None);
    return part(st, P_TEX_MATRIX, 8, ename(&texgen_type, m->projection ? 1 : 0), PyLong_FromLong(m->info & 0x7F),
                PyBool_FromLong(m->info >> 7), floats(m->center, 3), floats(m->scale, 2), PyLong_FromLong(m->rotation),
                floats(m->translation, 2), floats(m->effect, 16));
}

static PyObject *rgba8(ga_state *st, const ga_material *mt, int k)
{
    (void)st;
    return ints(mt->konst[k], 4);
}

static PyObject *rgba16(ga_state *st, const ga_material *mt, int k)
{
    (void)st;
    return s16s(mt->tev_color[k], 4);
}

static PyObject *swap_table(ga_state *st, const ga_material *mt, int k)
{
    (void)st;
    return ints(mt->tev.swap[k], 4);
}

static PyObject *indirect_stage(ga_state *st, const ga_material *mt, int k)
{
    const uint8_t *s = mt->indirect.stage[k];
    return part(st, P_INDIRECT_STAGE, 9, PyLong_FromLong(s[0]), PyLong_FromLong(s[1]), PyLong_FromLong(s[2]),
                PyLong_FromLong(s[3]), PyLong_FromLong(s[4]), PyLong_FromLong(s[5]), PyBool_FromLong(s[6]),
                PyBool_FromLong(s[7]), PyLong_FromLong(s[8]));
}

static PyObject *indirect(ga_state *st, const ga_material *mt)
{
    const ga_indirect *n = &mt->indirect;
    if (!mt->has_indirect) return Py_NewRef(Py_None);
    PyObject *orders = PyTuple_New(4), *scales = PyTuple_New(4), *mats = PyTuple_New(3);
    for (int k = 0; k < 4 && orders && scales; k++) {
        PyTuple_SetItem(orders, k, ints(n->order[k], 2));
        PyTuple_SetItem(scales, k, ints(n->scale[k], 2));
    }
    for (int k = 0; k < 3 && mats; k++)
        PyTuple_SetItem(mats, k, Py_BuildValue("(Ni)", floats(n->matrix[k], 6), (int)n->exponent[k]));
    return part(st, P_INDIRECT, 6, PyBool_FromLong(n->enabled), PyLong_FromLong(n->nstages), orders, mats, scales,
                tuple_of(st, mt, GA_MAT_STAGES, indirect_stage));
}

/* ------------------------------------------------------------------ */
/* The Material object                                                  */

enum {
    M_INDEX, M_NAME, M_ENTRY, M_MODE, M_CULL_MODE, M_TEV_STAGES, M_SWAP_TABLES, M_KONST_COLORS, M_TEV_COLORS,
    M_ALPHA_COMPARE, M_BLEND, M_CHANNELS, M_CHANNEL_COUNT, M_TEXGENS, M_POST_TEXGENS, M_TEX_MATRICES, M_TEXTURES,
    M_MAT_COLORS, M_AMB_COLORS, M_Z_MODE, M_Z_COMP_LOC, M_DITHER, M_NBT_SCALE, M_FOG, M_INDIRECT,
    /* the tuple attributes of the first release, kept one release */
    M_STAGES, M_STAGE_TEXTURES, M_COLORS, M_AMBIENT_COLORS, M_TEXGENS_RAW, M_CHANNELS_RAW, M_TEV_COLORS_RAW,
    M_KONST_COLORS_RAW, M_ALPHA_COMPARE_RAW, M_BLEND_RAW, M_Z_MODE_RAW, M_COUNT
};

typedef struct {
    PyObject_HEAD
    PyObject *f[M_COUNT];
    ga_material m; /* (name NULL: the state the methods need) */
} MaterialObject;

static void Material_dealloc(PyObject *self) { fields_dealloc(self, M_COUNT); }

static PyObject *Material_repr(PyObject *self)
{
    MaterialObject *o = (MaterialObject *)self;
    return PyUnicode_FromFormat("<gameanim.Material %S %R, %d TEV stages>", o->f[M_INDEX], o->f[M_NAME],
                                (int)o->m.nstages);
}

static PyObject *old_tuples(const ga_material *mt, int which)
{
    PyObject *t = NULL;
    switch (which) {
    case M_STAGES:
        t = PyTuple_New(mt->nstages);
        for (int s = 0; t && s < mt->nstages; s++)
            PyTuple_SetItem(t, s, Py_BuildValue("(iiii)", mt->stage_texcoord[s], mt->stage_texmap[s],
                                                mt->stage_channel[s], (int)mt->stage_texture[s]));
        return t;
    case M_STAGE_TEXTURES:
        t = PyTuple_New(mt->nstages);
        for (int s = 0; t && s < mt->nstages; s++) PyTuple_SetItem(t, s, PyLong_FromLong(mt->stage_texture[s]));
        return t;
    case M_COLORS: case M_AMBIENT_COLORS:
        t = PyTuple_New(2);
        for (int k = 0; t && k < 2; k++)
            PyTuple_SetItem(t, k, which == M_COLORS ? maybe(mt->has_color[k], ints(mt->color[k], 4))
                                                    : maybe(mt->has_ambient[k], ints(mt->ambient[k], 4)));
        return t;
    case M_TEXGENS_RAW:
        t = PyTuple_New(mt->ntexgens);
        for (int k = 0; t && k < mt->ntexgens; k++)
            PyTuple_SetItem(t, k, maybe(mt->has_texgen[k], ints(mt->texgen[k], 3)));
        return t;
    case M_CHANNELS_RAW: case M_TEV_COLORS_RAW: case M_KONST_COLORS_RAW:
        t = PyTuple_New(4);
        for (int k = 0; t && k < 4; k++)
            PyTuple_SetItem(t, k, which == M_CHANNELS_RAW ? maybe(mt->has_channel[k], ints(mt->channel[k], 6))
                                  : which == M_TEV_COLORS_RAW ? maybe(mt->has_tev_color[k], s16s(mt->tev_color[k], 4))
                                                              : maybe(mt->has_konst[k], ints(mt->konst[k], 4)));
        return t;
    case M_ALPHA_COMPARE_RAW: return ints(mt->alpha_compare, 5);
    case M_BLEND_RAW: return maybe(mt->has_blend, ints(mt->blend, 4));
    default: return maybe(mt->has_z_mode, ints(mt->z_mode, 3));
    }
}

PyObject *material_new(ga_state *st, const ga_material *mt, uint32_t i)
{
    PyTypeObject *tp = st->MaterialType;
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    MaterialObject *o = (MaterialObject *)alloc(tp, 0);
    if (!o) return NULL;
    o->m = *mt;
    o->m.name = NULL;
    PyObject **f = o->f;
    f[M_INDEX] = PyLong_FromUnsignedLong(i);
    f[M_NAME] = mt->name ? name_text(mt->name, "cp932") : Py_NewRef(Py_None);
    f[M_ENTRY] = PyLong_FromUnsignedLong(mt->entry);
    f[M_MODE] = PyLong_FromLong(mt->mode);
    f[M_CULL_MODE] = PyLong_FromLong(mt->cull_mode);
    f[M_TEV_STAGES] = tuple_of(st, mt, mt->nstages, tev_stage);
    f[M_SWAP_TABLES] = tuple_of(st, mt, 4, swap_table);
    f[M_KONST_COLORS] = tuple_of(st, mt, 4, rgba8);
    f[M_TEV_COLORS] = tuple_of(st, mt, 4, rgba16);
    const uint8_t *ac = mt->alpha_compare, *b = mt->blend;
    f[M_ALPHA_COMPARE] = part(st, P_ALPHA_COMPARE, 5, ename(&compare, ac[0]), PyLong_FromLong(ac[1]),
                              ename(&alpha_op, ac[2]), ename(&compare, ac[3]), PyLong_FromLong(ac[4]));
    f[M_BLEND] = part(st, P_BLEND, 4, ename(&blend_mode, b[0]), ename(&blend_src, b[1]), ename(&blend_dst, b[2]),
                      ename(&logic_op, b[3]));
    f[M_CHANNELS] = tuple_of(st, mt, 4, channel);
    f[M_CHANNEL_COUNT] = PyLong_FromLong(mt->nchannels);
    f[M_TEXGENS] = tuple_of(st, mt, mt->ntexgens, texgen);
    f[M_POST_TEXGENS] = tuple_of(st, mt, mt->ntexgens, post_texgen);
    f[M_TEX_MATRICES] = tuple_of(st, mt, 8, tex_matrix);
    f[M_TEXTURES] = PyTuple_New(8);
    for (int k = 0; k < 8 && f[M_TEXTURES]; k++) PyTuple_SetItem(f[M_TEXTURES], k, PyLong_FromLong(mt->textures[k]));
    f[M_MAT_COLORS] = Py_BuildValue("(NN)", ints(mt->color[0], 4), ints(mt->color[1], 4));
    f[M_AMB_COLORS] = Py_BuildValue("(NN)", ints(mt->ambient[0], 4), ints(mt->ambient[1], 4));
    f[M_Z_MODE] = part(st, P_Z_MODE, 3, PyBool_FromLong(mt->z_mode[0]), ename(&compare, mt->z_mode[1]),
                       PyBool_FromLong(mt->z_mode[2]));
    f[M_Z_COMP_LOC] = PyLong_FromLong(mt->z_comp_loc);
    f[M_DITHER] = PyLong_FromLong(mt->dither);
    f[M_NBT_SCALE] = part(st, P_NBT, 2, PyBool_FromLong(mt->nbt_enabled), floats(mt->nbt_scale, 3));
    const ga_fog *g = &mt->fog;
    f[M_FOG] = maybe(mt->has_fog, part(st, P_FOG, 9, PyLong_FromLong(g->type), PyBool_FromLong(g->adjust),
                                       PyLong_FromLong(g->center), PyFloat_FromDouble(g->start_z),
                                       PyFloat_FromDouble(g->end_z), PyFloat_FromDouble(g->near_z),
                                       PyFloat_FromDouble(g->far_z), ints(g->color, 4),
                                       Py_BuildValue("(iiiiiiiiii)", g->adj[0], g->adj[1], g->adj[2], g->adj[3],
                                                     g->adj[4], g->adj[5], g->adj[6], g->adj[7], g->adj[8],
                                                     g->adj[9])));
    f[M_INDIRECT] = indirect(st, mt);
    for (int k = M_STAGES; k < M_COUNT; k++) f[k] = old_tuples(mt, k);
    for (int k = 0; k < M_COUNT; k++)
        if (!f[k]) {
            Py_DECREF(o);
            return NULL;
        }
    return (PyObject *)o;
}

/* ------------------------------------------------------------------ */
/* Material.evaluate, Material.channel_color                            */

/* n ints in lo..hi from a sequence (what: the argument, for the errors). */
static int seq_ints(PyObject *obj, int n, int lo, int hi, int *out, const char *what)
{
    if (!PySequence_Check(obj) || PyUnicode_Check(obj) || PySequence_Size(obj) != n) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a sequence of %d ints, not %R", what, n, obj);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        PyObject *it = PySequence_GetItem(obj, k);
        if (!it) return -1;
        long v = PyLong_AsLong(it);
        Py_DECREF(it);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s[%d] = %ld is outside %d..%d", what, k, v, lo, hi);
            return -1;
        }
        out[k] = (int)v;
    }
    return 0;
}

/* 4 colours of 4 ints in lo..hi (konst=, tev_colors=). */
static int read_colors(PyObject *obj, const char *what, int lo, int hi, int out[4][4])
{
    if (!PySequence_Check(obj) || PySequence_Size(obj) != 4) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be None or 4 (r, g, b, a) colours", what);
        return -1;
    }
    for (int k = 0; k < 4; k++) {
        PyObject *c = PySequence_GetItem(obj, k);
        if (!c) return -1;
        char name[32];
        snprintf(name, sizeof name, "%s[%d]", what, k);
        int rc = seq_ints(c, 4, lo, hi, out[k], name);
        Py_DECREF(c);
        if (rc < 0) return -1;
    }
    return 0;
}

/* The per-stage inputs of evaluate: immutable bytes (held) and n. */
static int read_inputs(PyObject *obj, const char *what, int nstages, PyObject **held, Py_ssize_t *n)
{
    if (!PySequence_Check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of one bytes-like or None per TEV stage", what);
        return -1;
    }
    Py_ssize_t len = PySequence_Size(obj);
    if (len < 0) return -1;
    if (len != nstages) {
        PyErr_Format(PyExc_ValueError, "%s must hold one entry per TEV stage (%d), not %zd", what, nstages, len);
        return -1;
    }
    for (int s = 0; s < nstages; s++) {
        PyObject *v = PySequence_GetItem(obj, s);
        if (!v) return -1;
        if (v == Py_None) {
            Py_DECREF(v);
            continue;
        }
        PyObject *b = immutable_bytes(v);
        Py_DECREF(v);
        if (!b) return -1;
        held[s] = b;
        Py_ssize_t size = PyBytes_Size(b);
        if (size % 4 || (*n >= 0 && size != 4 * *n)) {
            PyErr_Format(PyExc_ValueError, "%s[%d] holds %zd bytes: RGBA8 of %s pixels expected", what, s, size,
                         *n >= 0 ? "the same number of" : "whole");
            return -1;
        }
        *n = size / 4;
    }
    return 0;
}

static PyObject *Material_evaluate(PyObject *self, PyObject *args, PyObject *kw)
{
    MaterialObject *o = (MaterialObject *)self;
    static char *kwlist[] = {"tex", "ras", "konst", "tev_colors", NULL};
    PyObject *tex, *ras, *konst = Py_None, *regs = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:evaluate", kwlist, &tex, &ras, &konst, &regs)) return NULL;
    ga_tev_state state = o->m.tev; /* (a copy: the overrides go into it) */
    int ns = (int)state.nstages, c[4][4];
    if (konst != Py_None) {
        if (read_colors(konst, "konst", 0, 255, c) < 0) return NULL;
        for (int k = 0; k < 16; k++) state.konst[k / 4][k % 4] = (uint8_t)c[k / 4][k % 4];
    }
    if (regs != Py_None) {
        if (read_colors(regs, "tev_colors", -32768, 32767, c) < 0) return NULL;
        /* loaded like the file's: the low 11 bits, signed */
        for (int k = 0; k < 16; k++) state.regs[k / 4][k % 4] = (int16_t)(((c[k / 4][k % 4] & 0x7FF) ^ 0x400) - 0x400);
    }
    PyObject *held[2 * GA_TEV_STAGES] = {NULL};
    PyObject *res = NULL, *rgba = NULL, *passed = NULL;
    Py_ssize_t n = -1;
    if (read_inputs(tex, "tex", ns, held, &n) < 0 || read_inputs(ras, "ras", ns, held + GA_TEV_STAGES, &n) < 0)
        goto done;
    if (n < 0) n = 1; /* nothing sampled: one pixel */
    const uint8_t *tp[GA_TEV_STAGES], *rp[GA_TEV_STAGES];
    uint8_t tex_default[GA_TEV_STAGES];
    for (int s = 0; s < GA_TEV_STAGES; s++) {
        tp[s] = held[s] ? (const uint8_t *)PyBytes_AsString(held[s]) : NULL;
        rp[s] = held[GA_TEV_STAGES + s] ? (const uint8_t *)PyBytes_AsString(held[GA_TEV_STAGES + s]) : NULL;
        /* a stage without a sample: 255 (a null texmap), 0 without texgens */
        tex_default[s] = o->m.ntexgens ? 255 : 0;
    }
    rgba = PyBytes_FromStringAndSize(NULL, 4 * n);
    passed = PyBytes_FromStringAndSize(NULL, n);
    if (!rgba || !passed) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AsString(rgba), *pass = (uint8_t *)PyBytes_AsString(passed);
    Py_BEGIN_ALLOW_THREADS
    ga_tev_eval(&state, tp, tex_default, rp, (size_t)n, out, pass);
    Py_END_ALLOW_THREADS
    res = PyTuple_Pack(2, rgba, passed);
done:
    for (int k = 0; k < 2 * GA_TEV_STAGES; k++) Py_XDECREF(held[k]);
    Py_XDECREF(rgba);
    Py_XDECREF(passed);
    return res;
}

static PyObject *Material_channel_color(PyObject *self, PyObject *args, PyObject *kw)
{
    MaterialObject *o = (MaterialObject *)self;
    static char *kwlist[] = {"channel", "vertex_color", "light", NULL};
    PyObject *chan, *vc;
    double light = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d:channel_color", kwlist, &chan, &vc, &light)) return NULL;
    int ch = -1;
    if (PyUnicode_Check(chan)) {
        if (PyUnicode_CompareWithASCIIString(chan, "COLOR0A0") == 0) ch = 0;
        else if (PyUnicode_CompareWithASCIIString(chan, "COLOR1A1") == 0) ch = 1;
    } else if (PyLong_Check(chan)) {
        long v = PyLong_AsLong(chan);
        if (v == 0 || v == 1) ch = (int)v;
    }
    if (ch < 0) {
        PyErr_Format(PyExc_ValueError, "channel must be 0, 1, 'COLOR0A0' or 'COLOR1A1', not %R", chan);
        return NULL;
    }
    int vtx[4];
    if (seq_ints(vc, 4, 0, 255, vtx, "vertex_color") < 0) return NULL;
    const ga_material *m = &o->m;
    int out[4];
    for (int k = 0; k < 4; k++) {
        const uint8_t *c = m->channel[2 * ch + (k == 3)]; /* colour control for rgb, alpha control for a */
        int mat = c[1] == 1 ? vtx[k] : m->color[ch][k];
        int amb = c[5] == 1 ? vtx[k] : m->ambient[ch][k];
        double d = c[3] == 0 ? 1.0 : c[3] == 1 ? light : (light > 0.0 ? light : 0.0);
        int lights = 0;
        for (int b = 0; b < 8; b++) lights += (c[2] >> b) & 1;
        out[k] = ga_gx_channel_component(c[0], mat, amb, 255.0 * d * lights);
    }
    return Py_BuildValue("(iiii)", out[0], out[1], out[2], out[3]);
}

/* ------------------------------------------------------------------ */
/* Type                                                                 */

#define MF(name, i, doc) {name, fields_get, NULL, doc, (void *)(intptr_t)(i)}
static PyGetSetDef Material_getset[] = {
    MF("index", M_INDEX, "Position in Model.materials (MAT3 order)."),
    MF("name", M_NAME, "The MAT3 name (cp932), or None."),
    MF("entry", M_ENTRY, "The MAT3 init record used (remap table)."),
    MF("mode", M_MODE, "Material mode byte: 1 opaque, 2 alpha test, 4 translucent."),
    MF("cull_mode", M_CULL_MODE, "0 none, 1 front, 2 back, 3 all (GX fronts)."),
    MF("tev_stages", M_TEV_STAGES, "Tuple of TevStage, one per TEV stage."),
    MF("swap_tables", M_SWAP_TABLES, "4 x (r, g, b, a) source channel indices."),
    MF("konst_colors", M_KONST_COLORS, "Konst colours K0-K3: 4 x (r, g, b, a) bytes (absent: white)."),
    MF("tev_colors", M_TEV_COLORS, "TEV colour slots 0-3 as stored, s16 (r, g, b, a) (absent: 0); slots 0-2 load "
                                   "REG0-REG2, PREV starts from slot 3."),
    MF("alpha_compare", M_ALPHA_COMPARE, "AlphaCompare."),
    MF("blend", M_BLEND, "Blend."),
    MF("channels", M_CHANNELS, "4 ColorChannel: colour 0, alpha 0, colour 1, alpha 1."),
    MF("channel_count", M_CHANNEL_COUNT, "Colour channel count."),
    MF("texgens", M_TEXGENS, "Tuple of TexGen, texgen count of them."),
    MF("post_texgens", M_POST_TEXGENS, "Tuple of TexGen (matrix an int) or None, texgen count of them."),
    MF("tex_matrices", M_TEX_MATRICES, "8 x TexMatrix or None."),
    MF("textures", M_TEXTURES, "Tuple of 8: the TEX1 index in each texture slot (texmap), -1 unused."),
    MF("mat_colors", M_MAT_COLORS, "Material colours of channels 0 and 1 (absent: white)."),
    MF("amb_colors", M_AMB_COLORS, "Ambient colours of channels 0 and 1 (absent: 0x32 grey)."),
    MF("z_mode", M_Z_MODE, "ZMode."),
    MF("z_comp_loc", M_Z_COMP_LOC, "1: depth test before texturing, 0 after."),
    MF("dither", M_DITHER, "Dither byte."),
    MF("nbt_scale", M_NBT_SCALE, "NbtScale."),
    MF("fog", M_FOG, "Fog, or None (fog off)."),
    MF("indirect", M_INDIRECT, "Indirect, or None without the table."),
    MF("stages", M_STAGES, "Deprecated: (texcoord, texmap, channel, texture) per TEV stage."),
    MF("stage_textures", M_STAGE_TEXTURES, "The TEX1 index each TEV stage samples, -1 for none."),
    MF("colors", M_COLORS, "Deprecated: material colours as stored, None when absent."),
    MF("ambient_colors", M_AMBIENT_COLORS, "Deprecated: ambient colours as stored, None when absent."),
    MF("texgens_raw", M_TEXGENS_RAW, "The first release's texgens: (type, source, matrix) ints or None."),
    MF("channels_raw", M_CHANNELS_RAW, "The first release's channels: 6 ints or None each."),
    MF("tev_colors_raw", M_TEV_COLORS_RAW, "The first release's tev_colors: s16 tuples or None."),
    MF("konst_colors_raw", M_KONST_COLORS_RAW, "The first release's konst_colors: tuples or None."),
    MF("alpha_compare_raw", M_ALPHA_COMPARE_RAW, "The first release's alpha_compare: 5 ints."),
    MF("blend_raw", M_BLEND_RAW, "The first release's blend: 4 ints or None."),
    MF("z_mode_raw", M_Z_MODE_RAW, "The first release's z_mode: 3 ints or None."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Material_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))Material_evaluate, METH_VARARGS | METH_KEYWORDS,
     "evaluate(tex, ras, konst=None, tev_colors=None) -> (rgba, passed)\n\nRuns the TEV stages with the GX's "
     "integer arithmetic.  tex, ras: one entry per TEV stage, RGBA8 bytes-like of n pixels (the texture as "
     "sampled, before the swap tables; the rasterised colour) or None (texture: 255, or 0 without texgens; "
     "ras: 0).  All None: one pixel.  konst / tev_colors: 4 RGBA replacing the material's.  Returns bytes of "
     "4n (RGBA8) and bytes of n (the alpha test, 0 or 1)."},
    {"channel_color", (PyCFunction)(void (*)(void))Material_channel_color, METH_VARARGS | METH_KEYWORDS,
     "channel_color(channel, vertex_color, light=0.0) -> (r, g, b, a)\n\nColour channel 0 or 1 by the GX "
     "lighting equation for a vertex colour and a diffuse intensity (each light in the mask: white, "
     "intensity `light`, no attenuation)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Material_slots[] = {
    {Py_tp_dealloc, Material_dealloc},
    {Py_tp_repr, Material_repr},
    {Py_tp_getset, Material_getset},
    {Py_tp_methods, Material_methods},
    {Py_tp_doc, "One MAT3 material of a J3D Model, read-only (Model.materials): its whole GX state and its TEV "
                "evaluator."},
    {0, NULL},
};

PyType_Spec Material_spec = {"gameanim.Material", sizeof(MaterialObject), 0, Py_TPFLAGS_DEFAULT, Material_slots};

int material_types_init(PyObject *m, ga_state *st)
{
    st->MaterialType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &Material_spec, NULL);
    if (!st->MaterialType || PyModule_AddObject(m, "Material", Py_NewRef((PyObject *)st->MaterialType)) < 0)
        return -1;
    for (int k = 0; k < P_COUNT; k++) {
        st->MaterialParts[k] = PyStructSequence_NewType(&part_desc[k]);
        if (!st->MaterialParts[k]) return -1;
        const char *dot = strrchr(part_desc[k].name, '.');
        if (PyModule_AddObject(m, dot + 1, Py_NewRef((PyObject *)st->MaterialParts[k])) < 0) return -1;
    }
    return 0;
}
