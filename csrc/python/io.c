/* What the binding does through Python's own modules: reading a source
 * (os, io), writing a file atomically (os, tempfile), and the core's
 * inflate / deflate hooks (zlib, present in every CPython and Blender). */
#include "binding.h"

#ifndef _WIN32
#include <sys/stat.h>
#endif
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

/* mkstemp makes the temporary file 0600: before it replaces the target it
 * gets the mode the replaced file had, else 0666 less the umask (what
 * open() would have given a new file).  Best effort: a failure keeps 0600. */
static void give_mode(PyObject *os, PyObject *fspath, PyObject *tmpname)
{
    long mode = -1;
    PyObject *st = PyObject_CallMethod(os, "stat", "O", fspath);
    if (st) {
        PyObject *m = PyObject_GetAttrString(st, "st_mode");
        if (m) {
            mode = PyLong_AsLong(m) & 07777;
            Py_DECREF(m);
        }
        Py_DECREF(st);
    }
    PyErr_Clear();
    if (mode < 0) {
#ifndef _WIN32
        mode_t u = umask(0);
        umask(u);
        mode = 0666 & ~(long)u;
#else
        return;
#endif
    }
    PyObject *r = PyObject_CallMethod(os, "chmod", "Ol", tmpname, mode);
    if (!r) PyErr_Clear();
    Py_XDECREF(r);
}

/* Writes data next to path and renames it into place: a failure leaves
 * any existing file untouched. */
PyObject *atomic_write(PyObject *path, PyObject *data)
{
    PyObject *fspath = PyOS_FSPath(path);
    if (!fspath) return NULL;
    PyObject *os = PyImport_ImportModule("os");
    PyObject *tempfile = PyImport_ImportModule("tempfile");
    PyObject *ospath = os ? PyObject_GetAttrString(os, "path") : NULL;
    PyObject *res = NULL, *dir = NULL, *base = NULL, *prefix = NULL, *tmp = NULL, *fd = NULL, *tmpname = NULL;
    if (!os || !tempfile || !ospath) goto done;
    PyObject *abs = PyObject_CallMethod(ospath, "abspath", "O", fspath);
    if (!abs) goto done;
    dir = PyObject_CallMethod(ospath, "dirname", "O", abs);
    base = PyObject_CallMethod(ospath, "basename", "O", abs);
    Py_DECREF(abs);
    if (!dir || !base) goto done;
    if (PyUnicode_Check(base)) prefix = PyUnicode_FromFormat(".%U.", base);
    else prefix = PyBytes_FromString(".gameanim.");
    if (!prefix) goto done;
    PyObject *mk = PyObject_GetAttrString(tempfile, "mkstemp");
    if (!mk) goto done;
    PyObject *kwargs = Py_BuildValue("{s:O,s:O,s:s}", "dir", dir, "prefix", prefix, "suffix", ".tmp");
    PyObject *empty = PyTuple_New(0);
    if (kwargs && empty) tmp = PyObject_Call(mk, empty, kwargs);
    Py_DECREF(mk);
    Py_XDECREF(kwargs);
    Py_XDECREF(empty);
    if (!tmp) goto done;
    fd = Py_NewRef(PyTuple_GetItem(tmp, 0));
    tmpname = Py_NewRef(PyTuple_GetItem(tmp, 1));
    int ok = 0;
    {
        PyObject *f = PyObject_CallMethod(os, "fdopen", "Os", fd, "wb");
        if (f) {
            PyObject *w = PyObject_CallMethod(f, "write", "O", data);
            PyObject *fl = w ? PyObject_CallMethod(f, "flush", NULL) : NULL;
            PyObject *fileno = fl ? PyObject_CallMethod(f, "fileno", NULL) : NULL;
            PyObject *sync = fileno ? PyObject_CallMethod(os, "fsync", "O", fileno) : NULL;
            ok = sync != NULL;
            Py_XDECREF(w);
            Py_XDECREF(fl);
            Py_XDECREF(fileno);
            Py_XDECREF(sync);
            PyObject *exc_type = NULL, *exc_val = NULL, *exc_tb = NULL;
            if (!ok) PyErr_Fetch(&exc_type, &exc_val, &exc_tb);
            PyObject *cl = PyObject_CallMethod(f, "close", NULL);
            if (!cl) {
                if (ok) ok = 0;
                else PyErr_Clear();
            }
            Py_XDECREF(cl);
            if (exc_type) PyErr_Restore(exc_type, exc_val, exc_tb);
            Py_DECREF(f);
        } else {
            PyObject *cl = PyObject_CallMethod(os, "close", "O", fd);
            Py_XDECREF(cl);
        }
    }
    if (ok) give_mode(os, fspath, tmpname);
    if (ok) {
        PyObject *rep = PyObject_CallMethod(os, "replace", "OO", tmpname, fspath);
        if (rep) {
            Py_DECREF(rep);
            res = Py_NewRef(Py_None);
        } else {
            ok = 0;
        }
    }
    if (!ok) {
        PyObject *exc_type, *exc_val, *exc_tb;
        PyErr_Fetch(&exc_type, &exc_val, &exc_tb);
        PyObject *un = PyObject_CallMethod(os, "unlink", "O", tmpname);
        if (!un) PyErr_Clear();
        Py_XDECREF(un);
        PyErr_Restore(exc_type, exc_val, exc_tb);
    }
done:
    Py_XDECREF(fspath);
    Py_XDECREF(os);
    Py_XDECREF(tempfile);
    Py_XDECREF(ospath);
    Py_XDECREF(dir);
    Py_XDECREF(base);
    Py_XDECREF(prefix);
    Py_XDECREF(tmp);
    Py_XDECREF(fd);
    Py_XDECREF(tmpname);
    return res;
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
