/* Archives (RARC / CRAR, csrc/archives/rarc.c): the parsed tables that the
 * binding lists and reads, and the in-place rewrite that replaces one
 * member.  Notes: ../shared/formats/rarc.md; what a rewrite keeps:
 * docs/formats/rarc.md.  Plain C, no Python. */
#ifndef GAMEANIM_ARCHIVE_H
#define GAMEANIM_ARCHIVE_H

#include "gameanim.h"

/* Entry attribute bits. */
#define GA_ARC_FILE 0x01u
#define GA_ARC_DIR 0x02u
#define GA_ARC_COMPRESSED 0x04u
#define GA_ARC_MRAM 0x10u
#define GA_ARC_ARAM 0x20u
#define GA_ARC_DVD 0x40u
#define GA_ARC_YAZ0 0x80u /* with GA_ARC_COMPRESSED: Yaz0, else Yay0 */

/* ";"-separated extensions of archive files (.szs and .szp: Yaz0 / Yay0
 * wrapped; .carc: a name some tools give CRAR files) */
#define GA_ARC_EXTENSIONS ".arc;.szs;.szp;.carc"

#define GA_ARC_ALIGN 32u     /* the games' data alignment: a rewrite keeps every span's offset modulo this */
#define GA_ARC_MAX_PATH 4096u /* bytes of one member path */

/* A file reached from the root: what namelist / infolist / read see. */
typedef struct ga_arc_member {
    uint32_t entry;     /* index in the file entry table */
    size_t path_off;    /* the '/'-separated path (bytes as stored), NUL-terminated, in ga_archive.paths */
    size_t path_len;
    uint32_t data_off;  /* relative to the data section */
    uint32_t size;      /* as stored */
    uint16_t id;
    uint8_t attr;
} ga_arc_member;

typedef struct ga_archive {
    int little;         /* 1: CRAR (little-endian) */
    /* the (unwrapped) archive: borrowed from the caller of ga_archive_parse,
     * owned when ga_archive_open unwrapped it (payload != NULL) */
    const uint8_t *data;
    size_t size;
    uint8_t *payload;
    const ga_wrapper *wrapper; /* the outer wrapper, NULL for none */
    size_t base;        /* where the offsets of the data header count from (the header's u32 at 0x08) */
    size_t data_start;  /* absolute offset of the file data */
    uint32_t node_count, entry_count;
    size_t node_table, entry_table; /* absolute */
    size_t str_table, str_size;     /* absolute */
    size_t root_name;               /* absolute offset of the root node's NUL-terminated name */
    ga_arc_member *members;
    size_t nmembers;
    char *paths;        /* every member path, NUL-terminated */
    size_t paths_size;
} ga_archive;

/* 1 if data starts with "RARC" or "CRAR". */
int ga_archive_probe(const uint8_t *data, size_t size);
/* Parses an unwrapped archive (data stays the caller's and must outlive
 * arc).  FormatError (format "rarc") for tables, names or data past the
 * end, names outside the string table and loops in the directory graph;
 * the member paths are checked against the decoded-size limit of opts. */
int ga_archive_parse(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_archive *arc,
                     ga_error *err);
/* Unwraps an outer compression (any of ga_wrappers, as ga_load does) and
 * parses; arc owns the unwrapped bytes. */
int ga_archive_open(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_archive *arc,
                    ga_error *err);
void ga_archive_free(ga_archive *arc);
/* The unwrapped archive with member m's bytes replaced by data[0..n)
 * (docs/formats/rarc.md: what is kept), appended to out. */
int ga_archive_replace(const ga_archive *arc, size_t m, const uint8_t *data, size_t n, ga_buf *out,
                       ga_error *err);
/* The member's own compression from its attributes: NULL, "yaz0" or "yay0". */
const char *ga_arc_member_compression(uint8_t attr);

#endif
