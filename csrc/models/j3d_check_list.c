/* The problem list the J3D lint fills (j3d_check.h, j3d_check_ctx.h):
 * j3d_check.c and its parts (j3d_check_shapes.c, j3d_check_mdl3.c) each
 * report through chk_add, which lives here so that no part reaches back
 * up into j3d_check.c. */
#include "j3d_check_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ga_check_list_free(ga_check_list *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->count; i++) free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

void chk_add(chk *x, const char *fmt, ...)
{
    ga_check_list *l = x->out;
    if (x->nomem) return;
    if (l->count >= GA_CHECK_MAX_PROBLEMS) {
        l->dropped++;
        return;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            x->nomem = 1;
            return;
        }
        l->items = items;
        l->cap = cap;
    }
    size_t n = strlen(buf) + 1;
    char *s = malloc(n);
    if (!s) {
        x->nomem = 1;
        return;
    }
    memcpy(s, buf, n);
    l->items[l->count++] = s;
}
