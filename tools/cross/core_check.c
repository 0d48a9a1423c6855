/* The C core's own check, built for each platform (tests/test_cross.py):
 * natively on Linux, as a Windows .exe (run under wine) and for macOS (link
 * only; it cannot run here).  Its outputs are compared with the Linux
 * build's and with independent references.
 *
 *   core_check fma FILE      FILE: lines "AAAAAAAA BBBBBBBB CCCCCCCC", float32
 *                            bit patterns in hex; prints for each line the
 *                            bits of ga_fmaf_soft(a, b, c) and of ga_fmaf
 *                            (the build's choice: the instruction or the same
 *                            software routine)
 *   core_check trig FILE     FILE: lines "XXXXXXXXXXXXXXXX YYYYYYYYYYYYYYYY",
 *                            float64 bit patterns x, y in hex; prints the bits
 *                            of ga_sin(x), ga_cos(x) and ga_atan2(y, x)
 *   core_check digest FILE...  decodes each animation file with the core
 *                            and prints "<FNV-1a 64 of every track's samples
 *                            at frames -1, -0.63, ... (step 0.37) up to
 *                            frame_count + 1> <tracks> <file>", or
 *                            "error <message> <file>" */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fma.h"
#include "gameanim.h"
#include "trig.h"

/* the whole file (samples are small), or NULL */
static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0) data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *n = size > 0 ? (size_t)size : 0;
    return data;
}

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t f_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int check_fma(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 2;
    unsigned long a, b, c;
    while (fscanf(f, "%lx %lx %lx", &a, &b, &c) == 3) {
        float x = bits_f((uint32_t)a), y = bits_f((uint32_t)b), z = bits_f((uint32_t)c);
        printf("%08lx %08lx\n", (unsigned long)f_bits(ga_fmaf_soft(x, y, z)), (unsigned long)f_bits(ga_fmaf(x, y, z)));
    }
    fclose(f);
    return 0;
}

static int check_trig(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 2;
    unsigned long long a, b;
    while (fscanf(f, "%llx %llx", &a, &b) == 2) {
        double x, y, r[3];
        uint64_t u = a, v = b, o[3];
        memcpy(&x, &u, sizeof x);
        memcpy(&y, &v, sizeof y);
        r[0] = ga_sin(x);
        r[1] = ga_cos(x);
        r[2] = ga_atan2(y, x);
        memcpy(o, r, sizeof o);
        printf("%016llx %016llx %016llx\n", (unsigned long long)o[0], (unsigned long long)o[1],
               (unsigned long long)o[2]);
    }
    fclose(f);
    return 0;
}

static int digest(const char *path)
{
    size_t n;
    uint8_t *data = read_file(path, &n);
    if (!data) {
        printf("error cannot-read %s\n", path);
        return 1;
    }
    ga_loaded l;
    ga_error err;
    if (ga_load(data, n, NULL, &l, &err) != GA_OK) {
        printf("error %s %s\n", err.message, path);
        free(data);
        return 0;
    }
    uint64_t h = 1469598103934665603ULL;
    size_t nf = (size_t)((l.clip.frame_count + 2.0) / 0.37) + 1;
    double *frames = malloc(nf * sizeof *frames);
    float *out = malloc(nf * sizeof *out);
    int rc = 0;
    if (!frames || !out) rc = 1;
    for (size_t i = 0; i < nf && !rc; i++) frames[i] = -1.0 + 0.37 * (double)i;
    for (uint32_t t = 0; t < l.clip.ntracks && !rc; t++) {
        if (!l.format->sample) break;
        if (l.format->sample(&l.clip, t, frames, nf, out, &err) != GA_OK) {
            printf("error %s %s\n", err.message, path);
            rc = 1;
            break;
        }
        for (size_t i = 0; i < nf; i++) {
            uint32_t u = f_bits(out[i]);
            for (int k = 0; k < 4; k++) {
                h ^= (u >> (8 * k)) & 0xFF;
                h *= 1099511628211ULL;
            }
        }
    }
    if (!rc) printf("%016llx %lu %s\n", (unsigned long long)h, (unsigned long)l.clip.ntracks, path);
    free(frames);
    free(out);
    ga_loaded_free(&l);
    free(data);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "fma") == 0) return check_fma(argv[2]);
    if (argc == 3 && strcmp(argv[1], "trig") == 0) return check_trig(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "digest") == 0) {
        int rc = 0;
        for (int i = 2; i < argc; i++) rc |= digest(argv[i]);
        return rc;
    }
    fprintf(stderr, "usage: core_check fma FILE | core_check trig FILE | core_check digest FILE...\n");
    return 2;
}
