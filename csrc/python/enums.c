/* Names of enumerations <-> their C values, from tables, so that a name
 * is spelled once and every parser gives its error the same way. */
#include "binding.h"

#include <string.h>

#include "bake.h"
#include "edit.h"

static const enum_item channel_items[] = {
    {"scale", GA_CH_SCALE},
    {"rotation", GA_CH_ROTATION},
    {"translation", GA_CH_TRANSLATION},
    {"rotation_quaternion", GA_CH_ROTATION_QUATERNION},
    {"color", GA_CH_COLOR},
    {"texture_index", GA_CH_TEXTURE_INDEX},
    {"visibility", GA_CH_VISIBILITY},
    {NULL, 0},
};
const enum_table channel_enum = {
    channel_items, ENUM_NO_NONE, 0, "channel must be a str",
    "channel must be 'scale', 'rotation', 'translation', 'rotation_quaternion', 'color', 'texture_index' or "
    "'visibility', not %R"};

/* Full-frame J3D (BVA, J3D BCA): how a fractional frame picks a value. */
static const enum_item frame_rule_items[] = {
    {"nearest", GA_FRAME_NEAREST},
    {"truncate", GA_FRAME_TRUNCATE},
    {"lerp", GA_FRAME_LERP},
    {NULL, 0},
};
const enum_table frame_rule_enum = {
    frame_rule_items, 0, 0, NULL, "frame_rule must be 'nearest', 'truncate' or 'lerp', not %R"};

/* BRK entries: which colour table an entry belongs to. */
static const enum_item tev_kind_items[] = {
    {"register", 0},
    {"konst", 1},
    {NULL, 0},
};
const enum_table tev_kind_enum = {tev_kind_items, 0, 0, NULL, "entry kind must be 'register' or 'konst', not %R"};

static const enum_item loop_items[] = {
    {"once", GA_LOOP_ONCE},
    {"once_reset", GA_LOOP_ONCE_RESET},
    {"loop", GA_LOOP_REPEAT},
    {"mirror_once", GA_LOOP_MIRROR_ONCE},
    {"mirror_loop", GA_LOOP_MIRROR_REPEAT},
    {NULL, 0},
};
const enum_table loop_enum = {
    loop_items, -1, 0, NULL,
    "loop must be 'once', 'once_reset', 'loop', 'mirror_once', 'mirror_loop' or None, not %R"};

/* BTK: the file's word is accepted too, as info['calc_type'] reports it
 * (1 is Maya, 0 Basic; the game reads any other value as Basic). */
static const enum_item calc_type_items[] = {
    {"basic", 0},
    {"maya", 1},
    {NULL, 0},
};
const enum_table calc_type_enum = {
    calc_type_items, 0, 1, NULL,
    "calc_type must be 'basic' or 'maya' (or the file's word 0 or 1), not %R"};

static const enum_item keyless_rule_items[] = {
    {"base", 0},
    {"base_plus_span", 1},
    {NULL, 0},
};
const enum_table keyless_rule_enum = {
    keyless_rule_items, 0, 0, NULL, "keyless_rule must be 'base' or 'base_plus_span', not %R"};

static const enum_item reencode_items[] = {
    {"raw", GA_REENCODE_RAW},
    {"full", GA_REENCODE_FULL},
    {NULL, 0},
};
const enum_table reencode_enum = {reencode_items, 0, 0, NULL, "reencode must be None, 'raw' or 'full'"};

static const enum_item extrapolation_items[] = {
    {"CONSTANT", 0},
    {"LINEAR", 1},
    {NULL, 0},
};
const enum_table extrapolation_enum = {
    extrapolation_items, ENUM_NO_NONE, 0, NULL, "extrapolation must be 'CONSTANT' or 'LINEAR'"};

/* Blender's rotation modes; an Euler order names the axes in the order
 * they are applied, and bake.c reads the order from the name. */
static const enum_item rotation_mode_items[] = {
    {"QUATERNION", GA_ROT_QUATERNION},
    {"AXIS_ANGLE", GA_ROT_AXIS_ANGLE},
    {"XYZ", GA_ROT_EULER},
    {"XZY", GA_ROT_EULER},
    {"YXZ", GA_ROT_EULER},
    {"YZX", GA_ROT_EULER},
    {"ZXY", GA_ROT_EULER},
    {"ZYX", GA_ROT_EULER},
    {NULL, 0},
};
const enum_table rotation_mode_enum = {rotation_mode_items, ENUM_NO_NONE, 0, NULL, "unknown rotation_mode %U"};

static int enum_fail(const enum_table *t, PyObject *v)
{
    PyErr_Format(PyExc_ValueError, t->message, v);
    return -1;
}

int parse_enum(const enum_table *t, PyObject *v, int *out)
{
    if (v == Py_None && t->none_value != ENUM_NO_NONE) {
        *out = t->none_value;
        return 0;
    }
    if (!PyUnicode_Check(v) && t->type_error) {
        PyErr_SetString(PyExc_TypeError, t->type_error);
        return -1;
    }
    if (PyUnicode_Check(v)) {
        for (const enum_item *it = t->items; it->name; it++)
            if (PyUnicode_CompareWithASCIIString(v, it->name) == 0) {
                *out = it->value;
                return 0;
            }
    }
    if (t->allow_int && PyLong_Check(v) && !PyBool_Check(v)) {
        long code = PyLong_AsLong(v);
        for (const enum_item *it = t->items; it->name; it++)
            if (code == it->value) {
                *out = it->value;
                return 0;
            }
        if (code == -1 && PyErr_Occurred()) return -1;
    }
    return enum_fail(t, v);
}

int parse_enum_str(const enum_table *t, const char *s, int *out)
{
    if (!s) return parse_enum(t, Py_None, out);
    PyObject *v = PyUnicode_FromString(s);
    if (!v) return -1;
    int rc = parse_enum(t, v, out);
    Py_DECREF(v);
    return rc;
}

const char *enum_name(const enum_table *t, int value)
{
    for (const enum_item *it = t->items; it->name; it++)
        if (it->value == value) return it->name;
    return NULL;
}

PyObject *enum_names(const enum_table *t)
{
    Py_ssize_t n = 0;
    while (t->items[n].name) n++;
    PyObject *tup = PyTuple_New(n);
    for (Py_ssize_t i = 0; tup && i < n; i++) {
        PyObject *s = PyUnicode_FromString(t->items[i].name);
        if (!s) {
            Py_CLEAR(tup);
            break;
        }
        PyTuple_SetItem(tup, i, s);
    }
    return tup;
}

int parse_compression(PyObject *v, PyObject **out)
{
    if (v == Py_None) {
        *out = Py_NewRef(Py_None);
        return 0;
    }
    if (PyUnicode_Check(v)) {
        if (PyUnicode_CompareWithASCIIString(v, "none") == 0) {
            *out = Py_NewRef(Py_None);
            return 0;
        }
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(v, &len);
        if (!s) return -1;
        if (ga_wrapper_by_name(s)) {
            *out = Py_NewRef(v);
            return 0;
        }
    }
    PyObject *names = PyList_New(0);
    for (size_t i = 0; names && ga_wrappers[i]; i++) {
        PyObject *s = PyUnicode_FromString(ga_wrappers[i]->name);
        if (s) PyList_Append(names, s);
        Py_XDECREF(s);
    }
    PyErr_Format(PyExc_ValueError, "compression must be None or one of %R, not %R", names, v);
    Py_XDECREF(names);
    return -1;
}
