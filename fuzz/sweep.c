/* The robustness sweep of tests/test_hardening.py: every truncation and/or
 * every single flipped byte (xor 0xFF) of a file, at offsets first..last
 * (every stride-th), must decode (and then sample) or fail with a format
 * error.  In C, with no Python object per case, so that large samples can
 * be swept completely; the test compiles it against the core.
 *   sweep FILE STRIDE FIRST LAST TRUNCATE FLIP   (LAST -1: the file's end)
 * prints "<decoded> <rejected>", or names the first bad case on stderr and
 * exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gameanim.h"
#include "model.h"

void ga_fuzz_use_system_zlib(void);

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *d = realloc(data, cap);
            if (!d) break;
            data = d;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    *n = len;
    return data;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s FILE STRIDE FIRST LAST TRUNCATE FLIP\n", argv[0]);
        return 2;
    }
    size_t n;
    uint8_t *data = read_file(argv[1], &n);
    if (!data) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    long long stride = atoll(argv[2]), first = atoll(argv[3]), last = atoll(argv[4]);
    int do_truncate = atoi(argv[5]), do_flip = atoi(argv[6]);
    if (stride < 1) stride = 1;
    size_t lo = first < 0 ? 0 : (size_t)first;
    size_t hi = last < 0 || (size_t)last > n ? n : (size_t)last;
    ga_fuzz_use_system_zlib();
    uint8_t *buf = malloc(n + 1);
    if (!buf) return 2;
    long long decoded = 0, rejected = 0;
    for (size_t i = lo; i < hi; i += (size_t)stride) {
        for (int kind = 0; kind < 2; kind++) {
            if ((kind == 0 && !do_truncate) || (kind == 1 && !do_flip)) continue;
            size_t len = kind == 0 ? i : n;
            memcpy(buf, data, n);
            if (kind == 1) buf[i] ^= 0xFF;
            ga_loaded l;
            ga_error err;
            int rc = ga_load(buf, len, NULL, &l, &err);
            int bad = 0;
            /* the model loader on the same bytes: a model or a format error */
            ga_model m;
            const ga_wrapper *mw;
            ga_error merr;
            int mrc = ga_load_model(buf, len, NULL, &m, &mw, &merr);
            if (mrc == GA_OK) ga_model_free(&m);
            else if (mrc != GA_ERR_FORMAT && mrc != GA_ERR_LIMIT) {
                fprintf(stderr, "load_model on the case at byte %zu failed with an unexpected error: %s\n", i,
                        merr.message);
                return 1;
            }
            if (rc == GA_OK) {
                decoded++;
                double frames[3] = {-0.5, 0.5, l.clip.frame_count};
                float out[3];
                for (uint32_t t = 0; t < l.clip.ntracks && !bad; t++) {
                    int src = l.format->sample ? l.format->sample(&l.clip, t, frames, 3, out, &err) : GA_OK;
                    bad = src != GA_OK && src != GA_ERR_FORMAT;
                }
                ga_loaded_free(&l);
            } else if (rc == GA_ERR_FORMAT || rc == GA_ERR_LIMIT) {
                rejected++;
            } else {
                bad = 1;
            }
            if (bad) {
                fprintf(stderr, "%s at byte %zu failed with an unexpected error: %s\n",
                        kind ? "flipping the byte" : "truncating", i, err.message);
                return 1;
            }
        }
    }
    free(buf);
    free(data);
    printf("%lld %lld\n", decoded, rejected);
    return 0;
}
