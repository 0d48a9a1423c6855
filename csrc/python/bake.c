/* Arguments of bake_pose, local_from_basis and evaluate_fcurve; the work
 * is core/bake.c and core/curve.c. */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

#include "bake.h"
#include "pose.h"

PyObject *mod_bake_pose(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"animation", "bones", "frames", "translation_scale", "time_scale", "time_offset",
                             "collapse", NULL};
    PyObject *anim_obj, *bones_obj, *frames_obj;
    double tscale = 1.0, time_scale = 1.0, time_offset = 0.0;
    int collapse = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OO|ddd$p:bake_pose", kwlist, st->AnimationType, &anim_obj, &bones_obj,
                                     &frames_obj, &tscale, &time_scale, &time_offset, &collapse))
        return NULL;
    AnimationObject *a = (AnimationObject *)anim_obj;
    PyObject *bones = PySequence_List(bones_obj);
    if (!bones) return NULL;
    Py_ssize_t nb = PyList_Size(bones);
    double *frames = NULL;
    Py_ssize_t nf = 0;
    ga_bake_bone *bb = NULL;
    float *samples = NULL, *scratch = NULL;
    uint8_t *keep = NULL;
    PyObject *result = NULL;
    ga_clip c;
    clip_hold hold;
    int have_clip = 0;
    if (read_frames(st, frames_obj, &frames, &nf) < 0) goto done;
    if (clip_from_python(st, a, &c, &hold) < 0) goto done;
    have_clip = 1;
    bb = calloc((size_t)nb + 1, sizeof *bb);
    keep = malloc((size_t)c.ntracks + 1);
    if (!bb || !keep) {
        PyErr_NoMemory();
        goto done;
    }
    {
        /* the tracks the game applies (Banjo-Kazooie: a bone's last run of
         * elements, the later of two elements of one channel) */
        ga_error kerr;
        if (ga_applied_tracks(a->fmt, &c, keep, &kerr)) {
            raise_error(st, &kerr);
            goto done;
        }
    }
    for (Py_ssize_t b = 0; b < nb; b++) {
        PyObject *item = PyList_GetItem(bones, b);
        PyObject *tup = PySequence_Tuple(item);
        if (!tup) goto done;
        if (PyTuple_Size(tup) != 3) {
            Py_DECREF(tup);
            PyErr_Format(PyExc_ValueError, "bones[%zd] must be (target, pre_matrix, post_matrix)", b);
            goto done;
        }
        PyObject *target = PyTuple_GetItem(tup, 0);
        PyObject *name_bytes = NULL;
        const char *name = NULL;
        long id = -1;
        if (PyUnicode_Check(target)) {
            name_bytes = PyUnicode_AsEncodedString(target, "utf-8", "surrogateescape");
            if (!name_bytes) {
                Py_DECREF(tup);
                goto done;
            }
            name = PyBytes_AsString(name_bytes);
        } else {
            id = PyLong_AsLong(target);
            if (id == -1 && PyErr_Occurred()) {
                Py_DECREF(tup);
                PyErr_Format(PyExc_TypeError, "bones[%zd]: target must be an int or a str", b);
                goto done;
            }
        }
        if (read_matrix(PyTuple_GetItem(tup, 1), bb[b].pre, b, "pre_matrix") < 0 ||
            read_matrix(PyTuple_GetItem(tup, 2), bb[b].post, b, "post_matrix") < 0) {
            Py_XDECREF(name_bytes);
            Py_DECREF(tup);
            goto done;
        }
        ga_bake_find_tracks(&c, keep, name, id, &bb[b]);
        Py_XDECREF(name_bytes);
        Py_DECREF(tup);
    }
    size_t per_bone = (size_t)nf * 13;
    size_t total;
    if (ga_mul_size(per_bone, (size_t)nb, &total) || total > ((size_t)1 << 30)) {
        PyErr_SetString(PyExc_ValueError, "too many bones x frames to bake at once");
        goto done;
    }
    /* One bone at a time: its samples and its 10 baked buffers go to
     * scratch memory without the GIL, then into arrays of the size they
     * need (one key for a constant channel with collapse): never every
     * bone's full-length buffers at once. */
    samples = malloc((per_bone + 1) * sizeof(float));
    scratch = malloc(((size_t)nf * 20 + 1) * sizeof(float));
    result = PyList_New(nb);
    if (!samples || !scratch || !result) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    ga_error err;
    int rc = GA_OK;
    const ga_format *fmt = a->fmt;
    for (Py_ssize_t b = 0; b < nb; b++) {
        float *o[10];
        for (int k = 0; k < 10; k++) o[k] = scratch + (size_t)k * 2 * (size_t)nf;
        Py_BEGIN_ALLOW_THREADS
        rc = ga_bake_one_bone(&c, fmt, &bb[b], frames, (size_t)nf, tscale, time_scale, time_offset, samples, o,
                              &err);
        Py_END_ALLOW_THREADS
        if (rc) {
            raise_error(st, &err);
            goto done;
        }
        PyObject *tup = PyTuple_New(10);
        if (!tup) goto done;
        PyList_SetItem(result, b, tup);
        for (int k = 0; k < 10; k++) {
            Py_ssize_t keep = collapse && nf > 1 && ga_values_one_number(o[k], (size_t)nf) ? 1 : nf;
            PyObject *arr = new_array(st, "f", o[k], keep * 2 * (Py_ssize_t)sizeof(float));
            if (!arr) goto done;
            PyTuple_SetItem(tup, k, arr);
        }
    }
done:
    if (PyErr_Occurred()) Py_CLEAR(result);
    free(scratch);
    free(frames);
    free(bb);
    free(keep);
    free(samples);
    if (have_clip) clip_release(&c, &hold);
    Py_DECREF(bones);
    return result;
}

PyObject *mod_evaluate_fcurve(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"co", "handle_left", "handle_right", "interpolation", "frames", "extrapolation",
                             "slopes", NULL};
    PyObject *co_o, *l_o, *r_o, *i_o, *f_o;
    const char *extrap = "CONSTANT";
    int want_slopes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|s$p:evaluate_fcurve", kwlist, &co_o, &l_o, &r_o, &i_o, &f_o,
                                     &extrap, &want_slopes))
        return NULL;
    int linear;
    if (parse_enum_str(&extrapolation_enum, extrap, &linear) < 0) return NULL;
    Py_buffer v[4];
    PyObject *h[4] = {NULL, NULL, NULL, NULL};
    PyObject *objs[4] = {co_o, l_o, r_o, i_o};
    const char *names[4] = {"co", "handle_left", "handle_right", "interpolation"};
    int got = 0;
    PyObject *res = NULL;
    double *frames = NULL;
    Py_ssize_t nf = 0;
    for (int k = 0; k < 4; k++) {
        if (typed_buffer(st, objs[k], k < 3 ? "f" : "i", 4, names[k], &v[k], &h[k]) < 0) goto done;
        got++;
    }
    Py_ssize_t n = v[3].len / 4;
    for (int k = 0; k < 3; k++)
        if (v[k].len / 4 != 2 * n) {
            PyErr_Format(PyExc_ValueError, "%s must hold 2 floats per key (%zd keys)", names[k], n);
            goto done;
        }
    if (read_frames(st, f_o, &frames, &nf) < 0) goto done;
    float *out = malloc((size_t)(nf + 1) * sizeof(float));
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nf; i++)
        out[i] = (float)ga_fcurve_eval(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], linear);
    res = new_array(st, "f", out, nf * 4);
    if (res && want_slopes) {
        float *sl = malloc((size_t)(2 * nf + 1) * sizeof(float));
        if (!sl) {
            free(out);
            Py_CLEAR(res);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < nf; i++) {
            sl[i] = (float)ga_fcurve_slope(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], -1, linear);
            sl[nf + i] = (float)ga_fcurve_slope(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], 1, linear);
        }
        PyObject *li = new_array(st, "f", sl, nf * 4), *ri = new_array(st, "f", sl + nf, nf * 4);
        free(sl);
        if (!li || !ri) {
            Py_XDECREF(li);
            Py_XDECREF(ri);
            Py_CLEAR(res);
        } else {
            res = Py_BuildValue("(NNN)", res, li, ri);
        }
    }
    free(out);
done:
    free(frames);
    for (int k = 0; k < got; k++) PyBuffer_Release(&v[k]);
    for (int k = 0; k < 4; k++) Py_XDECREF(h[k]);
    return res;
}

PyObject *mod_local_from_basis(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"pre", "post", "location", "rotation", "scale", "rotation_mode", "translation_scale",
                             NULL};
    PyObject *pre_o, *post_o, *loc_o, *rot_o, *scale_o;
    const char *mode = "QUATERNION";
    double tscale = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|sd:local_from_basis", kwlist, &pre_o, &post_o, &loc_o, &rot_o,
                                     &scale_o, &mode, &tscale))
        return NULL;
    double pre[16], post[16], ipre[16], ipost[16];
    if (read_matrix(pre_o, pre, 0, "pre") < 0 || read_matrix(post_o, post, 0, "post") < 0) return NULL;
    if (!ga_mat_invert(pre, ipre) || !ga_mat_invert(post, ipost)) {
        PyErr_SetString(PyExc_ValueError, "pre or post matrix is singular");
        return NULL;
    }
    if (tscale == 0.0) {
        PyErr_SetString(PyExc_ValueError, "translation_scale must not be 0");
        return NULL;
    }
    int rot_kind;
    if (parse_enum_str(&rotation_mode_enum, mode, &rot_kind) < 0) return NULL;
    int nrot = rot_kind == GA_ROT_EULER ? 3 : 4;
    PyObject *groups[3] = {loc_o, rot_o, scale_o};
    int counts[3] = {3, nrot, 3};
    PyObject *holders[10] = {NULL};
    Py_buffer views[10];
    int nv = 0;
    PyObject *res = NULL;
    float *out = NULL;
    Py_ssize_t nf = -1;
    double skew = 0.0;
    Py_ssize_t skew_at = 0;
    for (int g = 0; g < 3; g++) {
        PyObject *seq = PySequence_Tuple(groups[g]);
        if (!seq) goto done;
        if (PyTuple_Size(seq) != counts[g]) {
            PyErr_Format(PyExc_ValueError, "%s needs %d sequences of per-frame values",
                         g == 0 ? "location" : g == 1 ? "rotation" : "scale", counts[g]);
            Py_DECREF(seq);
            goto done;
        }
        for (int k = 0; k < counts[g]; k++) {
            if (typed_buffer(st, PyTuple_GetItem(seq, k), "f", 4, "per-frame values", &views[nv], &holders[nv]) < 0) {
                Py_DECREF(seq);
                goto done;
            }
            Py_ssize_t len = views[nv].len / 4;
            nv++;
            if (nf < 0) nf = len;
            else if (len != nf) {
                PyErr_SetString(PyExc_ValueError, "all per-frame sequences must have the same length");
                Py_DECREF(seq);
                goto done;
            }
        }
        Py_DECREF(seq);
    }
    out = malloc(((size_t)nf * 13 + 1) * sizeof(float));
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const float *L[3], *R[4] = {NULL, NULL, NULL, NULL}, *S[3];
        int vi = 0;
        for (int k = 0; k < 3; k++) L[k] = views[vi++].buf;
        for (int k = 0; k < nrot; k++) R[k] = views[vi++].buf;
        for (int k = 0; k < 3; k++) S[k] = views[vi++].buf;
        size_t at;
        ga_local_from_basis(ipre, ipost, rot_kind, mode, L, R, S, (size_t)nf, tscale, out, &skew, &at);
        skew_at = (Py_ssize_t)at;
    }
    {
        PyObject *arrs[13];
        for (int k = 0; k < 13; k++) {
            arrs[k] = new_array(st, "f", out + (size_t)k * nf, nf * 4);
            if (!arrs[k]) {
                for (int j = 0; j < k; j++) Py_DECREF(arrs[j]);
                goto done;
            }
        }
        res = Py_BuildValue("{s:(NNN),s:(NNN),s:(NNNN),s:(NNN),s:(dn)}", "translation", arrs[0], arrs[1], arrs[2],
                            "euler", arrs[3], arrs[4], arrs[5], "quaternion", arrs[6], arrs[7], arrs[8], arrs[9],
                            "scale", arrs[10], arrs[11], arrs[12], "skew", skew, skew_at);
    }
done:
    free(out);
    for (int k = 0; k < nv; k++) PyBuffer_Release(&views[k]);
    for (int k = 0; k < 10; k++) Py_XDECREF(holders[k]);
    return res;
}
