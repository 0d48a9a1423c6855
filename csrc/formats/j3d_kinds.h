/* The shared code of the other J3D kinds (j3d_kinds.c): BRK, BPK
 * (key-framed colours, s16 Hermite; brk_bpk.c), BTP, BVA, J3D BCA
 * (full-frame tables).  docs/formats/j3d_kinds.md */
#ifndef GAMEANIM_J3D_KINDS_H
#define GAMEANIM_J3D_KINDS_H

#include "j3d.h"

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
/* Where full-frame track i's values lie (j3dk_frame_tracks). */
typedef struct j3dk_frames_at {
    size_t at;       /* file offset of the first value */
    uint32_t count;  /* values (frames) */
    int elem, sign;  /* bytes per value (1 u8, 2 u16 or s16, 4 f32); signed */
    double scale;
    int32_t target;
    uint8_t channel, axis;
} j3dk_frames_at;
/* Fills *f for track i; names its values in field (cap bytes) unless
 * field is NULL. */
typedef void (*j3dk_frames_fn)(const uint8_t *data, const void *arg, uint32_t i, j3dk_frames_at *f, char *field,
                               size_t cap);
/* The n full-frame tracks of a kind (BVA, J3D BCA): each one's values
 * checked to lie in the data, the key count against the decoded-size limit
 * (table_at: where to point), then the clip's tracks made. */
int j3dk_frame_tracks(const ga_reader *r, const ga_decode_opts *opts, j3dk_raw *raw, ga_clip *clip, uint32_t n,
                      size_t table_at, j3dk_frames_fn where, const void *arg, ga_error *err);
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
/* The full-frame kinds' rebuild (BTP, BVA, J3D BCA).  A run: the track's
 * values at whole frames as table elements (count set); fmt names the
 * format in messages. */
typedef int (*j3dk_run_fn)(const ga_track *t, const char *fmt, const void *arg, j3d_seq *seq, uint16_t *count,
                           ga_report *rep, ga_error *err);
/* Integers 0..hi in elem-byte elements (1: u8, 2: u16): j3dk_int_run's arg. */
typedef struct j3dk_int_range {
    double hi;
    int elem;
} j3dk_int_range;
int j3dk_int_run(const ga_track *t, const char *fmt, const void *arg, j3d_seq *seq, uint16_t *count, ga_report *rep,
                 ga_error *err);
typedef struct j3dk_layout {
    const char *magic, *chunk;  /* "bva1", "VAF1" */
    size_t hsize, duration_at;  /* the chunk header's size; its duration field */
    int npools;                 /* 1..3 value tables: slot s goes to table s % npools */
    const char *tables[3];      /* their names, for messages */
    j3dk_run_fn run;
    const void *run_arg;
    const char *rounded;        /* the PrecisionWarning when values were rounded */
} j3dk_layout;
typedef struct j3dk_rebuild {
    ga_pool pools[3];
    j3d_desc *desc;             /* one per slot: count and index in its table */
    size_t c0;                  /* the chunk's offset in out */
} j3dk_rebuild;
/* Up to the kind's tables: the header-only patch when it applies (*done
 * set, out complete), else each slot's track (slot[s] >= 0) run and placed
 * in its table and the file begun (header, chunk header).  Frees slot;
 * release rb with j3dk_rebuild_free whatever the result. */
int j3dk_rebuild_begin(const ga_encode_ctx *ctx, const j3dk_layout *L, int entries_same, int32_t *slot,
                       uint32_t nslots, ga_buf *out, j3dk_rebuild *rb, int *done, ga_error *err);
void j3dk_rebuild_free(j3dk_rebuild *rb);
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

/* Bytes owned by the clip's entries match the original's. */
int j3dk_entries_equal(const ga_clip *a, const ga_clip *b);

#endif
