/*
 * gameanim core: the types shared by every format, wrapper and the binding.
 *
 * Plain C11, no Python.h.  Every format file (formats/bck_btk.c, ...) decodes a
 * buffer into an opaque, lossless "raw record" plus a format-neutral clip,
 * and encodes a clip (optionally guided by the raw record it came from) back
 * into bytes.  The binding (csrc/python/) is the only code that knows Python.
 */
#ifndef GAMEANIM_H
#define GAMEANIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Errors                                                              */

typedef enum ga_status {
    GA_OK = 0,
    GA_ERR_FORMAT = -1, /* input bytes are not a valid file (FormatError) */
    GA_ERR_NOMEM = -2,  /* allocation failed (MemoryError) */
    GA_ERR_ENCODE = -3, /* the clip cannot be written in this format (EncodeError) */
    GA_ERR_ARG = -4,    /* bad argument from the caller (ValueError) */
    GA_ERR_LIMIT = -5   /* input exceeds a documented limit (FormatError) */
} ga_status;

typedef struct ga_error {
    int code;            /* a ga_status */
    char format[16];     /* "bck", "lz10", ... or "" */
    char field[64];      /* which field of the file, or "" */
    long long offset;    /* byte offset in the (decompressed) input, -1 if none */
    char message[384];   /* full human readable message */
} ga_error;

/* Records an error and returns its code.  The message gets the format,
 * field and offset appended in a uniform way. */
int ga_fail(ga_error *err, int code, const char *format, const char *field,
            long long offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
int ga_nomem(ga_error *err, const char *format);

/* ------------------------------------------------------------------ */
/* Resource limits (checked before allocating; see docs/limits.md)     */

#define GA_MAX_INPUT_SIZE ((size_t)256 * 1024 * 1024)   /* bytes of any input file */
#define GA_MAX_DECOMPRESSED ((size_t)256 * 1024 * 1024) /* output of a decompressor */
#define GA_MAX_TRACKS 1000000u                          /* tracks in one clip */
#define GA_MAX_KEYS_TOTAL 50000000u                     /* keys summed over a clip */
#define GA_MAX_FRAMES 10000000u                         /* frames of per-frame formats */
#define GA_MAX_STRING 4096u                             /* one name / string */

/* The decoded-size limit of one load (docs/limits.md): a wrapper's
 * decompressed payload, and the clip's keys at GA_KEY_BYTES each, must each
 * fit in max(GA_DECODED_FLOOR, GA_DECODED_RATIO x the size of the input
 * given to ga_load), unless the caller sets ga_decode_opts.max_decoded_size.
 * The absolute limits above hold either way. */
#define GA_DECODED_FLOOR ((uint64_t)64 * 1024 * 1024)
#define GA_DECODED_RATIO 64u
#define GA_KEY_BYTES 17u /* a decoded key: time, value, in and out slope (f32), interp (u8) */

/* ------------------------------------------------------------------ */
/* Growable byte buffer (writer)                                       */

typedef struct ga_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed; /* sticky allocation failure */
} ga_buf;

void ga_buf_init(ga_buf *b);
void ga_buf_free(ga_buf *b);
int ga_buf_reserve(ga_buf *b, size_t extra);
int ga_buf_put(ga_buf *b, const void *src, size_t n);
int ga_buf_fill(ga_buf *b, uint8_t byte, size_t n);
/* Pads with `text` repeated from its start (cut to fit) until
 * (b->len - start) is a multiple of align (J3D's "This is padding data to
 * alignment."). */
int ga_buf_pad_text(ga_buf *b, size_t start, size_t align, const char *text);
int ga_buf_u8(ga_buf *b, uint8_t v);
int ga_buf_u16be(ga_buf *b, uint16_t v);
int ga_buf_u32be(ga_buf *b, uint32_t v);
int ga_buf_f32be(ga_buf *b, float v);
int ga_buf_u16le(ga_buf *b, uint16_t v);
int ga_buf_u32le(ga_buf *b, uint32_t v);
int ga_buf_u64le(ga_buf *b, uint64_t v);
int ga_buf_f32le(ga_buf *b, float v);
/* Overwrite bytes already written (for offsets and sizes known later). */
void ga_buf_set_u16be(ga_buf *b, size_t at, uint16_t v);
void ga_buf_set_u32be(ga_buf *b, size_t at, uint32_t v);
void ga_buf_set_u32le(ga_buf *b, size_t at, uint32_t v);
void ga_buf_set_u64le(ga_buf *b, size_t at, uint64_t v);

/* ------------------------------------------------------------------ */
/* Bounds-checked reader.  Every read names the field it reads so that a
 * failure becomes "bck: field 'joint table' at offset 0x40: ...".      */

typedef struct ga_reader {
    const uint8_t *data;
    size_t size;
    const char *format;
    ga_error *err;
} ga_reader;

void ga_reader_init(ga_reader *r, const uint8_t *data, size_t size,
                    const char *format, ga_error *err);
/* Fails unless [off, off+n) lies inside the buffer. */
int ga_need(const ga_reader *r, size_t off, size_t n, const char *field);
int ga_rd_u8(const ga_reader *r, size_t off, const char *field, uint8_t *out);
int ga_rd_u16be(const ga_reader *r, size_t off, const char *field, uint16_t *out);
int ga_rd_s16be(const ga_reader *r, size_t off, const char *field, int16_t *out);
int ga_rd_u32be(const ga_reader *r, size_t off, const char *field, uint32_t *out);
int ga_rd_f32be(const ga_reader *r, size_t off, const char *field, float *out);
int ga_rd_u16le(const ga_reader *r, size_t off, const char *field, uint16_t *out);
int ga_rd_s16le(const ga_reader *r, size_t off, const char *field, int16_t *out);
int ga_rd_u32le(const ga_reader *r, size_t off, const char *field, uint32_t *out);
int ga_rd_s32le(const ga_reader *r, size_t off, const char *field, int32_t *out);
int ga_rd_u64le(const ga_reader *r, size_t off, const char *field, uint64_t *out);
int ga_rd_f32le(const ga_reader *r, size_t off, const char *field, float *out);

/* Unchecked helpers for buffers already validated with ga_need. */
uint16_t ga_get_u16be(const uint8_t *p);
uint32_t ga_get_u32be(const uint8_t *p);
float ga_get_f32be(const uint8_t *p);
uint16_t ga_get_u16le(const uint8_t *p);
uint32_t ga_get_u32le(const uint8_t *p);
uint64_t ga_get_u64le(const uint8_t *p);
float ga_get_f32le(const uint8_t *p);
uint32_t ga_f32_bits(float f);
float ga_bits_f32(uint32_t u);

/* Checked size arithmetic: returns 0 and sets *out, or -1 on overflow. */
int ga_mul_size(size_t a, size_t b, size_t *out);
int ga_add_size(size_t a, size_t b, size_t *out);

/* ------------------------------------------------------------------ */
/* The format-neutral clip                                             */

typedef enum ga_channel {
    GA_CH_SCALE = 0,
    GA_CH_ROTATION = 1,            /* Euler XYZ, radians */
    GA_CH_TRANSLATION = 2,
    GA_CH_ROTATION_QUATERNION = 3, /* axis 0..3 = w, x, y, z */
    GA_CH_COLOR = 4,               /* BRK / BPK: axis 0..3 = R, G, B, A, s16 colour units as stored */
    GA_CH_TEXTURE_INDEX = 5,       /* BTP: axis 0, the texture number */
    GA_CH_VISIBILITY = 6           /* BVA: axis 0, the show byte (0 hidden) */
} ga_channel;

/* Highest axis a channel has (3 for quaternions and colours, 0 for the
 * one-value channels). */
int ga_channel_max_axis(int channel);

/* Interpolation of the segment that starts at a key.  The numbers are
 * Blender's FCurve keyframe interpolation enum values, so buffers can go
 * straight to foreach_set("interpolation", ...). */
typedef enum ga_interp {
    GA_INTERP_CONSTANT = 0,
    GA_INTERP_LINEAR = 1,
    GA_INTERP_BEZIER = 2 /* cubic Hermite with in/out slopes per frame */
} ga_interp;

typedef struct ga_track {
    int32_t target;      /* joint / bone / entry index, or bone id; -1 when target_name is set */
    char *target_name;   /* NULL unless the target is a name (JBA); the file's bytes (UTF-8 for JBA) */
    uint8_t channel;     /* ga_channel */
    uint8_t axis;        /* 0..2, or 0..3 for quaternions */
    uint32_t nkeys;
    /* The five key arrays share one block from ga_track_alloc, which
     * starts at `time` (ga_track_free frees only that pointer). */
    float *time;         /* frame of each key */
    float *value;
    float *in_slope;     /* value units per frame, arriving at the key */
    float *out_slope;    /* value units per frame, leaving the key */
    uint8_t *interp;     /* ga_interp of the segment starting at the key */
    uint8_t borrowed;    /* the key arrays belong to someone else (a view): ga_track_free leaves them */
} ga_track;

/* What an entry describes, which decides the keys of its Python dict. */
typedef enum ga_entry_layout {
    GA_ENTRY_TEXMTX = 0,   /* BTK: material, texmtx_id, center, post */
    GA_ENTRY_TEV = 1,      /* BRK: material, kind, color_id */
    GA_ENTRY_MATERIAL = 2, /* BPK: material */
    GA_ENTRY_TEXMAP = 3    /* BTP: material, texmap */
} ga_entry_layout;

/* Per-target extra data (BTK texture-matrix entries, BRK / BPK / BTP
 * material entries). */
typedef struct ga_entry {
    char *name;          /* material name, the file's bytes (CP932) */
    int32_t texmtx_id;   /* BTK: texture-matrix slot (u8 in the file) */
    float center[3];     /* BTK: S, T, Q centre */
    int32_t post;        /* BTK: 1 for a post-texgen matrix animation */
    int32_t layout;      /* ga_entry_layout */
    int32_t kind;        /* BRK: 0 register (C0..C2), 1 konst (K0..K3) */
    int32_t color_id;    /* BRK: the colour register / konst number (u8 in the file) */
    int32_t texmap;      /* BTP: the texture map slot (u8 in the file) */
} ga_entry;

typedef struct ga_clip {
    char format[8];      /* "bck", "btk", "bca", "bk", "jba" */
    double frame_count;  /* duration in frames */
    double fps;          /* 0 when the format stores none */
    int loop;            /* ga_loop, or -1 for none */
    int loop_raw_valid;  /* 1 if loop_raw holds the file's own loop field */
    int64_t loop_raw;    /* the file's loop field (byte / word), verbatim */
    uint32_t ntracks;
    ga_track *tracks;
    uint32_t nentries;
    ga_entry *entries;
    /* Format parameters a user may set (see ga_param below). */
    int32_t rotation_frac;   /* J3D: -1 = choose automatically */
    int32_t calc_type;       /* BTK: 0 basic, 1 maya; raw u32 kept in raw record */
    double start_frame;      /* BK: header start frame */
    int32_t layout;          /* JBA: 32 or 64 */
    int32_t keyless_rule;    /* JBA: 0 = base alone, 1 = base + all-ones code */
    int32_t frame_rule;      /* full-frame J3D (BVA, J3D BCA): a ga_frame_rule; sampling only */
    /* What the clip was decoded from, when it was (borrowed, never freed
     * with the clip; NULL otherwise): the format's raw record and the clip
     * as decoded.  Samplers may consult the file where a track is still as
     * decoded (JBA: the earlier section's copy of a shared frame). */
    const void *decoded_raw;
    const struct ga_clip *decoded;
    /* One block holding the keys of many tracks (ga_clip_reserve_keys):
     * those tracks are views into it (borrowed) and the clip frees it. */
    void *key_block;
    size_t key_block_size, key_block_used;
} ga_clip;

/* How a full-frame J3D table is read at a fractional frame (the JSystem
 * versions differ; docs/formats/j3d_kinds.md). */
typedef enum ga_frame_rule {
    GA_FRAME_NEAREST = 0,  /* (int)(frame + 0.5), clamped: Twilight Princess, Pikmin 2 */
    GA_FRAME_TRUNCATE = 1, /* (int)frame, clamped: Wind Waker */
    GA_FRAME_LERP = 2      /* J3DAnmTransformFullWithLerp: linear between whole frames */
} ga_frame_rule;

typedef enum ga_loop {
    GA_LOOP_ONCE = 0,
    GA_LOOP_ONCE_RESET = 1,
    GA_LOOP_REPEAT = 2,
    GA_LOOP_MIRROR_ONCE = 3,
    GA_LOOP_MIRROR_REPEAT = 4
} ga_loop;

void ga_clip_init(ga_clip *c, const char *format);
void ga_clip_free(ga_clip *c);
/* Allocates ntracks zeroed tracks. */
int ga_clip_alloc_tracks(ga_clip *c, uint32_t ntracks, ga_error *err);
int ga_clip_alloc_entries(ga_clip *c, uint32_t nentries, ga_error *err);
/* Allocates the key arrays of a track (all five). */
int ga_track_alloc(ga_track *t, uint32_t nkeys, ga_error *err);
/* A decoder that knows how many keys its tracks will hold reserves them in
 * one block (a large file then costs one allocation, which the C library
 * keeps for the next file instead of giving it back page by page), and
 * ga_clip_track_alloc carves each track's keys from it (ga_track_alloc when
 * the block is full or absent).  The block goes with the clip. */
int ga_clip_reserve_keys(ga_clip *c, uint64_t nkeys, uint32_t ntracks, ga_error *err);
int ga_clip_track_alloc(ga_clip *c, ga_track *t, uint32_t nkeys, ga_error *err);
void ga_track_free(ga_track *t);
int ga_track_copy(ga_track *dst, const ga_track *src, ga_error *err);
int ga_clip_copy(ga_clip *dst, const ga_clip *src, ga_error *err);
/* Same target, channel, axis and bit-identical keys. */
int ga_track_equal(const ga_track *a, const ga_track *b);
/* Default value of a channel component with no keys (1 for scale and
 * quaternion w, else 0). */
float ga_channel_default(int channel, int axis);
char *ga_strdup(const char *s);

/* ------------------------------------------------------------------ */
/* Curves (curve.c)                                                    */

/* The key index the J3D runtime's bisection lands on: the last key whose
 * time is <= frame, found the way the game searches (works the same on
 * sorted keys; defined, and identical to the game, on unsorted ones).
 * Requires nkeys >= 2 and time[0] <= frame < time[nkeys-1]. */
uint32_t ga_bisect(const float *time, uint32_t nkeys, double frame);

/* Cubic Hermite between (t0, v0) and (t1, v1) with slopes per frame. */
double ga_hermite(double frame, double t0, double v0, double s0,
                  double t1, double v1, double s1);

/* Evaluates a track at one frame: hold outside the keys, segment
 * interpolation from the left key's interp code.  Returns the channel
 * default when the track has no keys. */
double ga_track_eval(const ga_track *t, double frame);

/* ga_track_eval at n frames (fast for ascending frames). */
void ga_track_eval_many(const ga_track *t, const double *frames, size_t n, float *out);

/* Bezier form of a track for Blender: co, left and right handles as
 * (x, y) pairs.  Handles sit at one third of the neighbouring interval,
 * which makes the Bezier segment equal the Hermite segment exactly. */
void ga_track_bezier(const ga_track *t, double value_scale, double value_offset,
                     double time_scale, double time_offset,
                     float *co, float *left, float *right);

/* A Blender F-curve (keyframe buffers as foreach_get returns them) at one
 * frame, as Blender evaluates it; constant or linear extrapolation. */
double ga_fcurve_eval(const float *co, const float *left, const float *right, const int32_t *interp,
                      size_t n, double frame, int linear_extrapolation);
/* Its slope at a frame, from the left (side < 0) or the right (side > 0). */
double ga_fcurve_slope(const float *co, const float *left, const float *right, const int32_t *interp, size_t n,
                       double frame, int side, int linear_extrapolation);

/* Fits cubic Hermite keys to samples (time[i], value[i]), i < n, sorted by
 * time, so that the curve stays within tolerance of every sample.  Keys are
 * a subset of the sample times; the first and last are always kept.
 * in_slope / out_slope: the curve's derivatives at the samples, or NULL to
 * estimate them from the samples.  The result is written into out
 * (allocated).  See fit.c. */
int ga_fit_hermite(const double *time, const double *value, const double *in_slope, const double *out_slope,
                   size_t n, double tolerance, ga_track *out, ga_error *err);

/* Linear key reduction (fit.c): whether a track is all LINEAR with
 * strictly increasing times, and a copy of it without the keys that the
 * straight line between their kept neighbours passes within tolerance
 * (out->target_name is left NULL: set it if needed). */
int ga_track_is_linear(const ga_track *t);
int ga_reduce_linear(const ga_track *t, double tolerance, ga_track *out, ga_error *err);

/* Game frame clock: frame after `ticks` updates of J3DFrameCtrl. */
double ga_j3d_frame_at(double ticks, double duration, int loop, double rate);

/* ------------------------------------------------------------------ */
/* Encoding context and report                                         */

#define GA_REPORT_MAX_NOTES 32

typedef struct ga_report {
    double max_error;          /* worst quantisation error of the encode */
    char max_error_where[128]; /* which track / frame it happened at */
    uint32_t nrounded;         /* values that had to be rounded */
    uint32_t nnotes;           /* notes stored (at most GA_REPORT_MAX_NOTES) */
    uint32_t nnotes_total;     /* notes produced */
    char notes[GA_REPORT_MAX_NOTES][192];
    uint32_t reused_tracks;    /* tracks written from their original data */
    uint32_t encoded_tracks;   /* tracks encoded anew */
} ga_report;

void ga_report_init(ga_report *r);
void ga_report_note(ga_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ga_report_error(ga_report *r, double err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

typedef struct ga_encode_ctx {
    const void *raw;           /* the record decoded from the original file, or NULL */
    const ga_clip *orig;       /* the clip decoded from it, or NULL */
    const ga_clip *clip;       /* what to write */
    const int32_t *orig_track; /* per clip track: index of an identical original track, or -1 */
    int header_changed;        /* loop / frame_count / fps / params differ from the original */
    double tolerance;          /* key reduction tolerance for formats that fit keys (0 = exact) */
    ga_report *report;
} ga_encode_ctx;

/* ------------------------------------------------------------------ */
/* Formats                                                             */

/* Key/value list for Animation.info. */
typedef enum ga_info_type { GA_INFO_INT, GA_INFO_FLOAT, GA_INFO_STR, GA_INFO_BYTES } ga_info_type;
typedef struct ga_info_item {
    char key[48];
    int type;
    long long i;
    double f;
    uint8_t *bytes; /* owned; STR is NUL-terminated */
    size_t len;
} ga_info_item;
typedef struct ga_info {
    ga_info_item *items;
    size_t n, cap;
} ga_info;
void ga_info_free(ga_info *info);
int ga_info_int(ga_info *info, const char *key, long long v);
int ga_info_float(ga_info *info, const char *key, double v);
int ga_info_str(ga_info *info, const char *key, const char *s);
int ga_info_bytes(ga_info *info, const char *key, const uint8_t *p, size_t n);

/* Options that change how a file is turned into a clip. */
typedef struct ga_decode_opts {
    int keyless_rule; /* JBA: 0 = translation base alone, 1 = base + all-ones code x stride */
    /* Decoded-size limit in bytes (see GA_DECODED_FLOOR); 0 = the default
     * for the input's size. */
    uint64_t max_decoded_size;
    /* Size of the bytes given to ga_load (it sets this in the copy it passes
     * down, so that a wrapped file's default limit follows its compressed
     * size); 0 = the size of the data a decoder is given. */
    size_t input_size;
} ga_decode_opts;

/* The decoded-size limit that applies to a decoder given `size` bytes with
 * these options (opts may be NULL). */
uint64_t ga_decoded_limit(const ga_decode_opts *opts, size_t size);
/* Checks, before allocating, that `count` items of `unit` bytes each (keys:
 * GA_KEY_BYTES; decompressed bytes: 1) fit the decoded-size limit; fails
 * with GA_ERR_LIMIT naming format, field and offset and saying how to raise
 * the limit. */
int ga_check_decoded(const ga_decode_opts *opts, size_t size, uint64_t count, unsigned unit, const char *what,
                     const char *format, const char *field, long long offset, ga_error *err);

/* What a format animates and how, for the layers above the codec. */
typedef struct ga_format_traits {
    const char *extensions;   /* ";"-separated, the usual one first: ".bck" */
    const char *target_kind;  /* "joint", "bone_id", "bone_name" or "material_entry" */
    int absolute;             /* 1: values replace the rest pose; 0: deltas applied on it */
    const char *up_axis;      /* the game's up axis ("Y", "Z"), NULL when not spatial */
    const char *bone_match;   /* default rig matching ("INDEX", "ID", "NAME"), NULL for no rig */
    const char *compressions; /* ";"-separated wrapper names the games ship it in ("" for none) */
    /* The codec of the file's names (Python's codec name: "cp932",
     * "utf-8"); NULL for a format without names (then "utf-8").  Names
     * are bytes in the clip, as stored: the binding decodes them to text
     * and encodes only the names the user changed (docs/ARCHITECTURE.md,
     * "Names"). */
    const char *name_encoding;
    /* ";"-separated channels its tracks use; NULL for the pose channels
     * (scale, rotation, translation, rotation_quaternion).  The add-on
     * imports only what it knows how to map. */
    const char *channels;
    /* The model family ("j3d", "sm64ds", "bk": ga_rig_family_name) whose
     * joints its tracks drive (Model.world_matrices(anim)); NULL: none.
     * The first format of the registry naming a family is the family's own
     * skeleton animation (ga_rig_animation). */
    const char *rig;
} ga_format_traits;

typedef struct ga_format {
    const char *name;
    const char *description;
    /* 0 = not this format; higher = more certain.  Must never fail. */
    int (*probe)(const uint8_t *data, size_t size);
    /* Decodes into a new raw record and fills clip. */
    int (*decode)(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                  ga_clip *clip, ga_error *err);
    /* Encodes ctx->clip. */
    int (*encode)(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err);
    void (*free_raw)(void *raw);
    /* Optional: game-exact sampling of track i at n frames. NULL = generic. */
    int (*sample)(const ga_clip *clip, uint32_t track, const double *frames, size_t n,
                  float *out, ga_error *err);
    /* Optional: header fields as key/value items for Animation.info. */
    int (*info)(const void *raw, ga_info *info, ga_error *err);
    /* Optional: sets keep[i] (ntracks bytes) for the tracks the game's
     * pose assembly applies when a clip names a channel twice.  NULL =
     * every track; the first of two tracks of one channel counts. */
    int (*applied)(const ga_clip *clip, uint8_t *keep, ga_error *err);
    /* Optional: the game's evaluation of one decoded track on its own
     * (Track.evaluate of a track that came from a file of this format), at
     * n frames; rotation_frac: the clip-level rotation shift of its file.
     * NULL = the generic ga_track_eval. */
    int (*eval_track)(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                      ga_error *err);
    /* Traits that the CLI and the add-on read through gameanim.formats(),
     * so that a format added here shows up everywhere without literals. */
    ga_format_traits traits;
} ga_format;

/* keep[] for any clip: the format's rule, else every track (1).  Returns
 * GA_OK or an error (allocation). */
int ga_applied_tracks(const ga_format *fmt, const ga_clip *clip, uint8_t *keep, ga_error *err);

/* The registry (formats.c).  NULL-terminated. */
extern const ga_format *const ga_formats[];
const ga_format *ga_format_by_name(const char *name);
/* The first registered format whose tracks drive the joints of model
 * family `rig` (traits.rig), NULL when none does. */
const ga_format *ga_rig_animation(const char *rig);
/* 1 when fmt's tracks drive the joints of model family `rig`. */
int ga_format_drives(const ga_format *fmt, const char *rig);

/* ------------------------------------------------------------------ */
/* Compression wrappers (one file each; registry in formats.c)         */

typedef struct ga_wrapper {
    const char *name; /* "lz77", "yaz0", "yay0", "rarezip" */
    /* 1 if the buffer starts with this wrapper's signature. */
    int (*detect)(const uint8_t *data, size_t size);
    /* Decompresses; *out is malloc'ed.  The declared size is checked against
     * GA_MAX_DECOMPRESSED and the decoded-size limit of opts (NULL: the
     * default for `size`) before allocating. */
    int (*unwrap)(const uint8_t *data, size_t size, const ga_decode_opts *opts, uint8_t **out, size_t *out_size,
                  ga_error *err);
    /* Compresses into out. */
    int (*wrap)(const uint8_t *data, size_t size, ga_buf *out, ga_error *err);
    /* ";"-separated file extensions that name a wrapped file (".szs;.yaz0"). */
    const char *extensions;
} ga_wrapper;

extern const ga_wrapper *const ga_wrappers[];

const ga_wrapper *ga_wrapper_by_name(const char *name);

/* Loading: unwraps a compression wrapper (if any), detects the format
 * from the content and decodes.  On success *payload is the decompressed
 * data (malloc'ed; NULL when there was no wrapper) and *wrapper the
 * wrapper used (NULL for none). */
typedef struct ga_loaded {
    const ga_wrapper *wrapper;
    uint8_t *payload;
    size_t payload_size;
    const ga_format *format;
    void *raw;
    ga_clip clip;
} ga_loaded;

int ga_load(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_loaded *out,
            ga_error *err);
void ga_loaded_free(ga_loaded *l);
/* The first wrapper that recognises the bytes and unwraps them cleanly
 * (ga_load's and ga_load_model's first step).  out->wrapper NULL: none
 * did; then wrap_failed says whether one recognised its signature but
 * failed (its error in wrap_err).  Fails only when out of memory. */
typedef struct ga_unwrapped {
    const ga_wrapper *wrapper;
    uint8_t *payload; /* malloc'ed when wrapper is set */
    size_t size;
    int wrap_failed;
    ga_error wrap_err;
} ga_unwrapped;
int ga_unwrap_first(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_unwrapped *out, ga_error *err);
/* The first (up to 8) bytes as hex, for messages. */
void ga_describe_magic(const uint8_t *data, size_t size, char *buf, size_t cap);
/* Finds the format of an unwrapped payload (highest probe score). */
const ga_format *ga_detect_format(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ */
/* zlib (raw deflate) through hooks                                    */
/* The C core has no zlib dependency of its own: the binding plugs in
 * Python's zlib module (present in every CPython and Blender), and
 * standalone builds (fuzzers) plug in the system zlib.  See
 * docs/formats/bk.md for why. */

/* Inflates a raw deflate stream.  Writes at most dst_cap bytes; fails if
 * the stream would produce more, is corrupt or ends early.  *consumed is
 * the number of input bytes the stream occupied.  Returns GA_OK or an
 * error code, with a message in msg. */
typedef int (*ga_inflate_fn)(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap,
                             size_t *consumed, size_t *produced, char *msg, size_t msgcap);
/* Deflates to a raw stream at the given level, appending to out. */
typedef int (*ga_deflate_fn)(const uint8_t *src, size_t n, int level, ga_buf *out, char *msg,
                             size_t msgcap);
void ga_set_zlib(ga_inflate_fn inflate_fn, ga_deflate_fn deflate_fn);
extern ga_inflate_fn ga_zlib_inflate;
extern ga_deflate_fn ga_zlib_deflate;

#endif
