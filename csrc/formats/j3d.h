/* Pieces shared by the two J3D key-frame formats, BCK (ANK1) and BTK (TTK1).
 * See docs/formats/j3d.md for the layout as this project understands it. */
#ifndef GAMEANIM_J3D_H
#define GAMEANIM_J3D_H

#include "gameanim.h"
#include "pool.h"

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

/* ------------------------------------------------------------------ */
/* Shared with the other kinds: BRK, BPK (key-framed colours, s16
 * Hermite), BTP, BVA, J3D BCA (full-frame tables).  docs/formats/j3d_kinds.md */

#define J3D_KIND_BRK 'r'
#define J3D_KIND_BPK 'p'

typedef struct j3d_seq {
    uint32_t *v;
    size_t n, cap;
} j3d_seq;
int j3d_seq_push(j3d_seq *s, uint32_t x);

/* JUTNameTab: `need` names (bytes as stored) and, if ntab is given, the
 * table's raw bytes. */
int j3d_read_names(const ga_reader *r, size_t at, uint32_t need, char ***names, uint8_t **ntab, size_t *ntab_len,
                   ga_error *err);
void j3d_put_names(ga_buf *b, const char *const *names, uint32_t n);
void j3d_put_padding(ga_buf *b, size_t align);
/* Encodes a key-framed track (BCK's rule; colours as s16 colour units)
 * into an element run, setting count and tangent type. */
int j3d_encode_keys(const ga_track *t, int kind, int orig_type, double tolerance, j3d_seq *seq, uint16_t *count,
                    uint16_t *type, ga_report *rep, ga_error *err);

/* The raw record of the other kinds: the file verbatim plus what a
 * rebuild needs to keep. */
typedef struct j3dk_raw {
    char fmt[8];
    uint8_t *file;            /* the whole (decompressed) input */
    size_t size;
    uint32_t size_field, block_count, chunk_size_field;
    uint8_t svr[16];          /* 0x10..0x1F */
    size_t hsize;             /* chunk header size of the kind */
    uint8_t loop_raw;
    int16_t duration;
    size_t duration_at;       /* chunk offset of the duration field */
    long long chunk_delta;    /* chunk size field minus the chunk's extent in the file */
    uint32_t ntracks;
    uint16_t *types;          /* key kinds: each decoded track's tangent type */
    uint8_t *entry_pad;       /* BRK / BTP: the bytes after each entry's id byte, 3 per entry */
    uint16_t *remap;          /* remap tables as stored, sets one after another */
    uint32_t nentries;
    uint32_t counts[2];       /* BRK: register, konst entries; BTP: header index count */
} j3dk_raw;

/* Checks the JSYSTEM header and the first chunk's magic and header size;
 * a file may end before the size its header claims (kept as is). */
int j3dk_open(const uint8_t *data, size_t size, const char *fmt, const char *magic, const char *chunk,
              size_t hsize, size_t duration_at, j3dk_raw **out, ga_error *err);
void j3dk_free_raw(void *raw);
void j3dk_clip_init(ga_clip *clip, const j3dk_raw *raw);
/* One key-framed s16 track from its 6-byte descriptor at desc_at; the
 * table at table_at holds table_n s16 elements (already bounds-checked). */
int j3dk_key_track(ga_clip *clip, ga_track *t, const ga_reader *r, size_t desc_at, size_t table_at,
                   uint32_t table_n, const char *field, uint16_t *type, ga_error *err);
/* A full-frame track: count values of elem bytes (1 u8, 2 u16 or s16
 * (sign), 4 f32) at at, times scale, one CONSTANT key per frame. */
int j3dk_frame_track(ga_clip *clip, ga_track *t, const uint8_t *at, uint32_t count, int elem, int sign,
                     double scale);
/* Header-only edits (loop, duration) of an unchanged clip: the original
 * bytes with those fields patched; returns 1 when it applied. */
int j3dk_patch(const ga_encode_ctx *ctx, int entries_same, ga_buf *out, ga_error *err, int *done);
/* Starts a rebuilt file (header, chunk magic, header bytes of the kind
 * from the original or 0xFF) and finishes it (sizes, padding). */
size_t j3dk_begin(ga_buf *b, const ga_encode_ctx *ctx, const char *magic, const char *chunk, size_t hsize,
                  size_t duration_at, ga_error *err, int *rc);
void j3dk_finish(ga_buf *b, const ga_encode_ctx *ctx, size_t c0);
/* The track's value at whole frame k for a full-frame encoder (its own
 * keys when they sit on frames 0..n-1), and the number of frames. */
uint32_t j3dk_frame_count(const ga_track *t);
int j3dk_keys_on_frames(const ga_track *t);
double j3dk_frame_value(const ga_track *t, uint32_t k, int on); /* on: j3dk_keys_on_frames(t) */
/* A note (a PrecisionWarning) when the report counts more rounded values
 * than `before`. */
void j3dk_note_rounded(const ga_encode_ctx *ctx, uint32_t before, const char *what);
/* The runs of the tracks slot[0..n-1] (-1: none) placed in one pool,
 * filling each desc's count and index. */
int j3dk_place_frames(const ga_encode_ctx *ctx, const int32_t *slot, uint32_t n, double hi, int elem,
                      const char *table, ga_pool *pool, j3d_desc *desc, ga_error *err);
/* Those values as an element run of integers lo..hi (elem 1: u8, 2: u16). */
int j3dk_frame_run(const ga_track *t, const char *fmt, double lo, double hi, int elem, j3d_seq *seq, uint16_t *count,
                   ga_report *rep, ga_error *err);
/* Sampling (sample() of each kind). */
int j3dk_sample_keys(const ga_clip *clip, uint32_t track, const double *frames, size_t n, float *out, ga_error *err);
int j3dk_sample_frames(const ga_clip *clip, uint32_t track, const double *frames, size_t n, float *out,
                       ga_error *err);
int j3dk_eval_frames(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out, ga_error *err);
int j3dk_eval_keys(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out, ga_error *err);
int j3dk_info(const void *raw, ga_info *info, ga_error *err);

/* BRK (TRK1) and BPK (PAK1): the same colour entries in one or two sets. */
typedef struct j3dk_color_layout {
    const char *fmt, *magic, *chunk;
    int kind;              /* J3D_KIND_BRK / J3D_KIND_BPK */
    size_t hsize, duration_at;
    int nsets;             /* BRK: register and konst entries; BPK: one set */
    size_t entry_size;     /* 28 (4 descriptors, colour id, 3 bytes) or 24 */
    size_t count_at[2], nvals_at, table_at[2], remap_at[2], names_at[2], values_at;
} j3dk_color_layout;
int j3dk_color_decode(const j3dk_color_layout *L, const uint8_t *data, size_t size, const ga_decode_opts *opts,
                      void **raw, ga_clip *clip, ga_error *err);
int j3dk_color_encode(const j3dk_color_layout *L, const ga_encode_ctx *ctx, ga_buf *out, ga_error *err);
/* Bytes owned by the clip's entries match the original's. */
int j3dk_entries_equal(const ga_clip *a, const ga_clip *b);
int j3d_probe(const uint8_t *data, size_t size, const char *kind);
uint16_t j3d_name_hash(const char *s);
double j3d_rotation_unit(int frac);

#endif
