/* Texture writing (issue 34): gameanim.encode_texture and
 * Model.replace_texture.  The encoders are csrc/models/gx_texture_encode.c
 * and csrc/models/j3d_tex1_writer.c; this is glue only. */
#include "model_object.h"

#include "../models/gx_texture.h"
#include "../models/j3d_mdl3.h"
#include "../models/j3d_tex1_writer.h"
#include "../models/j3d_writer.h"

#include <string.h>

/* A format name argument (None allowed when none_ok) -> id, or -2 with a
 * ValueError set; None -> -1. */
static int format_arg(PyObject *o, int palette, const char *what)
{
    if (o == Py_None) return -1;
    const char *name = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, NULL) : NULL;
    int id = name ? (palette ? ga_gx_palette_format_from_name(name) : ga_gx_format_from_name(name)) : -1;
    if (id < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError,
                     palette ? "%s must be 'IA8', 'RGB565' or 'RGB5A3', not %R"
                             : "%s must be a GX texture format ('I4', 'I8', 'IA4', 'IA8', 'RGB565', 'RGB5A3', "
                               "'RGBA8', 'C4', 'C8', 'C14X2' or 'CMPR'), not %R",
                     what, o);
        return -2;
    }
    return id;
}

static int pixels_arg(const Py_buffer *b, int width, int height)
{
    if (width < 1 || height < 1 || (unsigned)width > GA_GX_MAX_SIDE || (unsigned)height > GA_GX_MAX_SIDE) {
        PyErr_Format(PyExc_ValueError, "width and height must be 1..%u, not %d x %d", GA_GX_MAX_SIDE, width, height);
        return -1;
    }
    if ((size_t)b->len != (size_t)width * (size_t)height * 4) {
        PyErr_Format(PyExc_ValueError, "rgba must hold width * height * 4 = %zu bytes (RGBA8), not %zd",
                     (size_t)width * (size_t)height * 4, b->len);
        return -1;
    }
    return 0;
}

/* gameanim.encode_texture */
PyObject *mod_encode_texture(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"rgba", "width", "height", "format", "palette_format", "mip_count", NULL};
    Py_buffer px;
    int width, height, mips = 1;
    PyObject *fobj, *pfobj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*iiO|Oi:encode_texture", kwlist, &px, &width, &height, &fobj,
                                     &pfobj, &mips))
        return NULL;
    PyObject *res = NULL, *data = NULL, *pal = NULL;
    int fmt = format_arg(fobj, 0, "format"), pf = format_arg(pfobj, 1, "palette_format");
    if (fmt == -1) {
        PyErr_SetString(PyExc_ValueError, "format must be a GX texture format name, not None");
        fmt = -2;
    }
    if (fmt == -2 || pf == -2 || pixels_arg(&px, width, height) < 0) goto done;
    if (!ga_gx_is_indexed(fmt) && pf >= 0) {
        PyErr_Format(PyExc_ValueError, "palette_format is for C4, C8 and C14X2, not %s", ga_gx_format_name(fmt));
        goto done;
    }
    if (pf < 0) pf = GA_GX_TLUT_RGB5A3;
    ga_error err;
    if (mips < 1 || ga_gx_encode_check(fmt, (uint32_t)width, (uint32_t)height, (uint32_t)mips, pf, &err)) {
        if (mips < 1) PyErr_Format(PyExc_ValueError, "mip_count must be at least 1, not %d", mips);
        else raise_error(st, &err);
        goto done;
    }
    size_t bytes;
    ga_gx_mip_size(fmt, (uint32_t)width, (uint32_t)height, (uint32_t)mips, &bytes);
    uint32_t entries = ga_gx_palette_entries(fmt);
    data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)bytes);
    pal = entries ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)entries * 2) : Py_NewRef(Py_None);
    if (!data || !pal) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AsString(data), *pout = entries ? (uint8_t *)PyBytes_AsString(pal) : NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_gx_encode(fmt, px.buf, (uint32_t)width, (uint32_t)height, (uint32_t)mips, pf, out, pout, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_error(st, &err);
        goto done;
    }
    res = PyTuple_Pack(2, data, pal);
done:
    Py_XDECREF(data);
    Py_XDECREF(pal);
    PyBuffer_Release(&px);
    return res;
}

/* Model.replace_texture(index, rgba, width, height, format=None, *, palette_format=None) */
PyObject *Model_replace_texture(PyObject *self, PyObject *args, PyObject *kw)
{
    ModelObject *o = (ModelObject *)self;
    ga_state *st = STATE_OF(self);
    static char *kwlist[] = {"index", "rgba", "width", "height", "format", "palette_format", NULL};
    unsigned int index;
    Py_buffer px;
    int width, height;
    PyObject *fobj = Py_None, *pfobj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Iy*ii|O$O:replace_texture", kwlist, &index, &px, &width, &height,
                                     &fobj, &pfobj))
        return NULL;
    PyObject *res = NULL;
    int fmt = format_arg(fobj, 0, "format"), pf = format_arg(pfobj, 1, "palette_format");
    if (fmt == -2 || pf == -2 || pixels_arg(&px, width, height) < 0) goto done;
    if (o->m.family != GA_RIG_J3D) {
        PyErr_Format(PyExc_ValueError, "replace_texture needs a J3D model (BMD/BDL), not %s", o->m.format);
        goto done;
    }
    if (o->readers) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the model is being read by another thread; edit it when that call has returned");
        goto done;
    }
    ga_tex1_image im = {index, px.buf, (uint32_t)width, (uint32_t)height, fmt, pf};
    ga_buf out;
    ga_buf_init(&out);
    ga_error err;
    uint32_t chunk = 0;
    int rc;
    o->readers++; /* (no edit while the encoder reads o->m without the GIL) */
    Py_BEGIN_ALLOW_THREADS
    rc = ga_j3d_tex1_encode(&o->m, &im, 1, &out, &chunk, &err);
    Py_END_ALLOW_THREADS
    o->readers--;
    if (rc) {
        raise_error(st, &err);
    } else if (ga_j3d_find_chunk(&o->m, "MDL3") < 0) {
        if (model_splice(st, o, chunk, out.data, out.len) == 0) res = Py_NewRef(Py_None);
    } else { /* a BDL: TEX1, then the MDL3 lists of the texture's users; TEX1 put back if MDL3 fails */
        const ga_model_chunk *c = &o->m.chunks[chunk];
        ga_buf saved;
        ga_buf_init(&saved);
        uint8_t header[32];
        size_t h = c->size >= 0x10 ? c->offset + ga_get_u32be(o->m.data + c->offset + 0x0C) + 32 * (size_t)index : 0;
        int changed = 0;
        if (!h || h + 32 > c->offset + c->size) {
            rc = ga_fail(&err, GA_ERR_FORMAT, o->m.format, "TEX1 header table", (long long)c->offset,
                         "no texture %u", index);
        } else {
            memcpy(header, o->m.data + h, 32);
            if (ga_buf_put(&saved, o->m.data + c->offset, c->size) != GA_OK) rc = ga_nomem(&err, o->m.format);
        }
        if (!rc) rc = ga_j3d_splice(&o->m, chunk, out.data, out.len, &err);
        if (!rc && (rc = ga_j3d_mdl3_texture_changed(&o->m, index, header, &changed, &err)) != GA_OK) {
            ga_error undo;
            ga_j3d_splice(&o->m, chunk, saved.data, saved.len, &undo);
        }
        ga_buf_free(&saved);
        if (rc) raise_error(st, &err);
        else if (model_edited(st, o) == 0) res = Py_NewRef(Py_None);
    }
    ga_buf_free(&out);
done:
    PyBuffer_Release(&px);
    return res;
}
