/* BCK (ANK1) and BTK (TTK1): their raw record and the pieces that the
 * decoder (bck_btk.c) and the encoder (bck_btk_encode.c) share. */
#ifndef GAMEANIM_BCK_BTK_H
#define GAMEANIM_BCK_BTK_H

#include "j3d.h"

#define ANK1_HEADER 0x40u
#define TTK1_HEADER 0x60u
#define ENTRY_SIZE 0x36u
#define NO_SOUND 0xFFFFFFFFu

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

int j3d_decode(const uint8_t *data, size_t size, int btk, const ga_decode_opts *opts, j3d_raw **out,
               ga_clip *clip, ga_error *err);
int j3d_encode(const ga_encode_ctx *ctx, int btk, ga_buf *out, ga_error *err);
void j3d_free_raw(void *raw);
int j3d_sample(const ga_clip *clip, uint32_t track, const double *frames, size_t n, float *out,
               ga_error *err);
int j3d_eval_track(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                   ga_error *err);
int j3d_info(const void *raw, ga_info *info, ga_error *err);
/* The field name of a key table (slot in file order: axis * 3 + channel). */
void j3d_desc_field(char *buf, size_t cap, int btk, uint32_t entry, int post, uint32_t slot);
/* Smallest rotation shift (from `from`) at which every rotation track fits
 * s16; -1 when none does. */
int j3d_choose_frac(const ga_clip *clip, int from);

#endif
