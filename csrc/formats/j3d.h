/* Pieces shared by the two J3D key-frame formats, BCK (ANK1) and BTK (TTK1).
 * See docs/formats/j3d.md for the layout as this project understands it. */
#ifndef GAMEANIM_J3D_H
#define GAMEANIM_J3D_H

#include "gameanim.h"

/* J3DAnmKeyTableBase: key count, first element index, tangent type. */
typedef struct j3d_desc {
    uint16_t count;
    uint16_t index;
    uint16_t type;
} j3d_desc;

/* One set of animations: the ANK1 body, the TTK1 main set or the TTK1
 * post-texgen set.  Everything is kept exactly as read. */
typedef struct j3d_section {
    uint32_t nentries;     /* joints, or texture-matrix animations */
    j3d_desc *desc;        /* 9 per entry, file order sx rx tx sy ry ty sz rz tz */
    uint32_t nscale, nrot, ntrans; /* declared value-table counts */
    uint32_t *scale;       /* f32 bit patterns */
    int16_t *rot;
    uint32_t *trans;       /* f32 bit patterns */
    /* TTK1 only */
    uint16_t *remap;       /* mUpdateMaterialID, raw */
    uint8_t *texmtx;       /* mUpdateTexMtxID */
    uint32_t *center;      /* 3 f32 bit patterns per entry */
    char **names;          /* parsed name-table strings (nentries) */
    uint8_t *ntab;         /* raw name table bytes (for an unchanged re-emit) */
    size_t ntab_len;
    int has_ntab;          /* name table offset was non-zero */
} j3d_section;

typedef struct j3d_raw {
    int btk;
    uint8_t *file;         /* the whole decompressed file, verbatim */
    size_t size;
    /* file header */
    uint32_t size_field, block_count;
    uint8_t svr[16];       /* 0x10..0x1F verbatim (0x1C = BCK sound offset) */
    /* chunk header */
    uint32_t chunk_size_field;
    long long chunk_size_delta; /* size field minus the chunk's real extent */
    uint8_t loop_raw, frac;
    int16_t duration;
    uint16_t count_field;  /* ANK1 joint count / TTK1 track count (3 x n) */
    uint8_t pad24[0x1C];   /* ANK1 0x24..0x3F */
    uint32_t calc_type_raw; /* TTK1 0x5C */
    uint16_t post_count_field; /* TTK1 0x34 */
    j3d_section main, post;
    int has_post;
    /* BCK sound block (from the 0x1C offset to the end of the file) */
    uint8_t *sound;
    size_t sound_len;
    /* bytes after the chunk that are not the sound block (other blocks, archive padding) */
    uint8_t *extra;
    size_t extra_len;
    uint32_t align;        /* value-table alignment the file used (ANK1) */
} j3d_raw;

extern const char j3d_padding_text[];

int j3d_decode(const uint8_t *data, size_t size, int btk, const ga_decode_opts *opts, j3d_raw **out,
               ga_clip *clip, ga_error *err);
int j3d_encode(const ga_encode_ctx *ctx, int btk, ga_buf *out, ga_error *err);
void j3d_free_raw(void *raw);
int j3d_sample(const ga_clip *clip, uint32_t track, const double *frames, size_t n, float *out,
               ga_error *err);
int j3d_eval_track(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                   ga_error *err);
int j3d_info(const void *raw, ga_info *info, ga_error *err);
int j3d_probe(const uint8_t *data, size_t size, const char *kind);
uint16_t j3d_name_hash(const char *s);
double j3d_rotation_unit(int frac);

#endif
