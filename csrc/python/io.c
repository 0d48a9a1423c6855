/* What the binding does through Python's own modules: reading a source
 * (os, io), writing a file atomically (the package's gameanim._save), and
 * the core's inflate / deflate hooks (zlib, present in every CPython and
 * Blender). */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

/* Reads a file path or returns a new reference to a bytes-like object. */
PyObject *source_bytes(ga_state *st, PyObject *source)
{
    if (PyObject_CheckBuffer(source) && !PyUnicode_Check(source)) return Py_NewRef(source);
    PyObject *path = PyOS_FSPath(source);
    if (!path) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "source must be a path (str or os.PathLike) or a bytes-like object, not %s",
                     Py_TYPE(source) ? "that type" : "?");
        return NULL;
    }
    PyObject *os = PyImport_ImportModule("os");
    if (!os) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *size = PyObject_CallMethod(os, "stat", "O", path);
    Py_DECREF(os);
    if (!size) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *st_size = PyObject_GetAttrString(size, "st_size");
    Py_DECREF(size);
    if (!st_size) {
        Py_DECREF(path);
        return NULL;
    }
    long long n = PyLong_AsLongLong(st_size);
    Py_DECREF(st_size);
    if ((unsigned long long)n > GA_MAX_INPUT_SIZE) {
        ga_error err;
        ga_fail(&err, GA_ERR_LIMIT, "", "file size", 0, "%lld bytes exceed the input limit of %zu bytes", n,
                GA_MAX_INPUT_SIZE);
        Py_DECREF(path);
        return raise_error(st, &err);
    }
    PyObject *io = PyImport_ImportModule("io");
    if (!io) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *f = PyObject_CallMethod(io, "open", "Os", path, "rb");
    Py_DECREF(io);
    Py_DECREF(path);
    if (!f) return NULL;
    PyObject *data = PyObject_CallMethod(f, "read", NULL);
    PyObject *r = PyObject_CallMethod(f, "close", NULL);
    Py_DECREF(f);
    if (!r) {
        Py_XDECREF(data);
        return NULL;
    }
    Py_DECREF(r);
    return data;
}

PyObject *immutable_bytes(PyObject *obj)
{
    if (PyBytes_CheckExact(obj)) return Py_NewRef(obj);
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *bytes = PyBytes_FromStringAndSize(view.buf, view.len);
    PyBuffer_Release(&view);
    return bytes;
}

/* Writes data to path atomically.  The work (temporary file, sync, rename,
 * removal of stale temporary files, error messages naming the caller's
 * path) is Python code in the package, gameanim/_save.py: the binding
 * only calls it. */
PyObject *atomic_write(PyObject *path, PyObject *data)
{
    PyObject *save = PyImport_ImportModule("gameanim._save");
    if (!save) return NULL;
    PyObject *r = PyObject_CallMethod(save, "write_atomic", "OO", path, data);
    Py_DECREF(save);
    return r;
}

static void set_msg(char *msg, size_t cap, const char *text)
{
    snprintf(msg, cap, "%s", text);
}

static void set_msg_from_exc(char *msg, size_t cap)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    Py_ssize_t len = 0;
    const char *c = s ? PyUnicode_AsUTF8AndSize(s, &len) : NULL;
    snprintf(msg, cap, "zlib: %s", c ? c : "error");
    if (!c) PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static int py_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *consumed, size_t *produced,
                      char *msg, size_t msgcap)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = GA_ERR_FORMAT;
    PyObject *zlib = NULL, *d = NULL, *in = NULL, *out = NULL, *unused = NULL, *tail = NULL, *eof = NULL;
    zlib = PyImport_ImportModule("zlib");
    if (!zlib) goto pyerr;
    d = PyObject_CallMethod(zlib, "decompressobj", "i", -15);
    if (!d) goto pyerr;
    in = PyBytes_FromStringAndSize((const char *)src, (Py_ssize_t)n);
    if (!in) goto pyerr;
    out = PyObject_CallMethod(d, "decompress", "On", in, (Py_ssize_t)(cap + 1));
    if (!out) goto pyerr;
    unused = PyObject_GetAttrString(d, "unused_data");
    tail = PyObject_GetAttrString(d, "unconsumed_tail");
    eof = PyObject_GetAttrString(d, "eof");
    if (!unused || !tail || !eof) goto pyerr;
    Py_ssize_t olen = PyBytes_Size(out);
    if ((size_t)olen > cap) {
        set_msg(msg, msgcap, "the deflate stream produces more data than the header declares");
        goto done;
    }
    if (!PyObject_IsTrue(eof)) {
        set_msg(msg, msgcap, "the deflate stream ends before its final block (truncated?)");
        goto done;
    }
    memcpy(dst, PyBytes_AsString(out), (size_t)olen);
    *produced = (size_t)olen;
    *consumed = n - (size_t)PyBytes_Size(unused) - (size_t)PyBytes_Size(tail);
    rc = GA_OK;
    goto done;
pyerr:
    if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        set_msg(msg, msgcap, "out of memory");
        rc = GA_ERR_NOMEM;
    } else {
        set_msg_from_exc(msg, msgcap);
    }
done:
    Py_XDECREF(zlib);
    Py_XDECREF(d);
    Py_XDECREF(in);
    Py_XDECREF(out);
    Py_XDECREF(unused);
    Py_XDECREF(tail);
    Py_XDECREF(eof);
    PyGILState_Release(g);
    return rc;
}

static int py_deflate(const uint8_t *src, size_t n, int level, ga_buf *outbuf, char *msg, size_t msgcap)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = GA_ERR_ENCODE;
    PyObject *zlib = NULL, *c = NULL, *in = NULL, *a = NULL, *b = NULL;
    zlib = PyImport_ImportModule("zlib");
    if (!zlib) goto pyerr;
    /* raw deflate (wbits -15), memLevel 8 as gzip and zlib default */
    c = PyObject_CallMethod(zlib, "compressobj", "iiii", level, 8, -15, 8);
    if (!c) goto pyerr;
    in = PyBytes_FromStringAndSize((const char *)src, (Py_ssize_t)n);
    if (!in) goto pyerr;
    a = PyObject_CallMethod(c, "compress", "O", in);
    b = a ? PyObject_CallMethod(c, "flush", NULL) : NULL;
    if (!a || !b) goto pyerr;
    if (ga_buf_put(outbuf, PyBytes_AsString(a), (size_t)PyBytes_Size(a)) ||
        ga_buf_put(outbuf, PyBytes_AsString(b), (size_t)PyBytes_Size(b))) {
        set_msg(msg, msgcap, "out of memory");
        rc = GA_ERR_NOMEM;
        goto done;
    }
    rc = GA_OK;
    goto done;
pyerr:
    set_msg_from_exc(msg, msgcap);
done:
    Py_XDECREF(zlib);
    Py_XDECREF(c);
    Py_XDECREF(in);
    Py_XDECREF(a);
    Py_XDECREF(b);
    PyGILState_Release(g);
    return rc;
}

void install_zlib_hooks(void)
{
    ga_set_zlib(py_inflate, py_deflate);
}
