/* RARC (big-endian) and CRAR (little-endian, Twilight Princess HD)
 * archives: the reader of the node and entry tables, and the in-place
 * rewrite that replaces one member's bytes.  Notes:
 * ../shared/formats/rarc.md; the choices: docs/formats/rarc.md. */
#include "archive.h"

#include <stdlib.h>
#include <string.h>

#define RARC_HEADER 0x20u
#define RARC_DATA_HEADER 0x20u
#define RARC_NODE 0x10u
#define RARC_ENTRY 0x14u

int ga_archive_probe(const uint8_t *data, size_t size)
{
    return size >= 4 && (memcmp(data, "RARC", 4) == 0 || memcmp(data, "CRAR", 4) == 0);
}

const char *ga_arc_member_compression(uint8_t attr)
{
    if (!(attr & GA_ARC_COMPRESSED)) return NULL;
    return (attr & GA_ARC_YAZ0) ? "yaz0" : "yay0";
}

static uint32_t get_u32(const ga_archive *a, const uint8_t *p)
{
    return a->little ? ga_get_u32le(p) : ga_get_u32be(p);
}

static uint16_t get_u16(const ga_archive *a, const uint8_t *p)
{
    return a->little ? ga_get_u16le(p) : ga_get_u16be(p);
}

static void put_u32(const ga_archive *a, uint8_t *p, uint32_t v)
{
    if (a->little) {
        p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
    } else {
        p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
    }
}

/* [base + off, + n) inside the buffer; the absolute offset in *abs. */
static int table_at(const ga_archive *a, ga_error *err, uint32_t off, uint64_t n, const char *field,
                    long long field_at, size_t *abs)
{
    uint64_t start = (uint64_t)a->base + off;
    if (start > a->size || n > a->size - start)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", field, field_at,
                       "0x%llx bytes at 0x%llx run past the end of the %zu-byte archive", (unsigned long long)n,
                       (unsigned long long)start, a->size);
    *abs = (size_t)start;
    return GA_OK;
}

/* The NUL-terminated name at string-table offset off: its absolute
 * offset and length. */
static int name_at(const ga_archive *a, ga_error *err, uint32_t off, const char *field, long long field_at,
                   size_t *abs, size_t *len)
{
    if (off >= a->str_size)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", field, field_at,
                       "name offset 0x%x is outside the %zu-byte string table", off, a->str_size);
    const uint8_t *s = a->data + a->str_table + off;
    size_t room = a->str_size - off;
    if (room > GA_MAX_STRING + 1u) room = GA_MAX_STRING + 1u;
    const uint8_t *nul = memchr(s, 0, room);
    if (!nul) {
        if (room > GA_MAX_STRING)
            return ga_fail(err, GA_ERR_LIMIT, "rarc", field, field_at,
                           "the name at string-table offset 0x%x is longer than %u bytes", off, GA_MAX_STRING);
        return ga_fail(err, GA_ERR_FORMAT, "rarc", field, field_at,
                       "the name at string-table offset 0x%x runs past the end of the string table", off);
    }
    *abs = a->str_table + off;
    *len = (size_t)(nul - s);
    return GA_OK;
}

static int is_dot(const uint8_t *s, size_t len)
{
    return (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
}

void ga_archive_free(ga_archive *arc)
{
    free(arc->members);
    free(arc->paths);
    free(arc->payload);
    memset(arc, 0, sizeof *arc);
}

/* One directory still to list: its node and the length of its path prefix
 * (in the scratch path). */
typedef struct walk_item {
    uint32_t node;
    uint32_t next;  /* the next entry of the node to look at */
    size_t prefix;  /* bytes of the scratch path up to and including this directory's '/' */
} walk_item;

static int add_member(ga_archive *a, ga_buf *paths, const char *path, size_t len, uint32_t e, const uint8_t *ent)
{
    ga_arc_member *m = &a->members[a->nmembers++];
    m->entry = e;
    m->path_off = paths->len;
    m->path_len = len;
    m->id = get_u16(a, ent);
    m->attr = ent[4 + (a->little ? 3 : 0)];
    m->data_off = get_u32(a, ent + 8);
    m->size = get_u32(a, ent + 12);
    ga_buf_put(paths, path, len);
    ga_buf_u8(paths, 0);
    return paths->failed ? GA_ERR_NOMEM : GA_OK;
}

/* Depth-first from the root, each directory's entries in table order,
 * a sub-directory's files where its entry stands.  Every node may be
 * reached once and every entry listed by one node: a graph that breaks
 * either is a loop or an overlap, refused. */
static int walk(ga_archive *a, const ga_decode_opts *opts, ga_error *err)
{
    int rc = GA_OK;
    uint8_t *node_seen = calloc(a->node_count ? a->node_count : 1, 1);
    uint8_t *entry_seen = calloc(a->entry_count ? a->entry_count : 1, 1);
    walk_item *stack = malloc(sizeof *stack * (a->node_count ? a->node_count : 1));
    char *path = malloc(GA_ARC_MAX_PATH + 1);
    a->members = malloc(sizeof *a->members * (a->entry_count ? a->entry_count : 1));
    ga_buf paths;
    ga_buf_init(&paths);
    uint64_t path_bytes = 0;
    if (!node_seen || !entry_seen || !stack || !path || !a->members) {
        rc = ga_nomem(err, "rarc");
        goto done;
    }
    size_t depth = 0;
    stack[depth++] = (walk_item){0, 0, 0};
    node_seen[0] = 1;
    while (depth) {
        walk_item *w = &stack[depth - 1];
        const uint8_t *node = a->data + a->node_table + (size_t)w->node * RARC_NODE;
        uint32_t count = get_u16(a, node + 10), first = get_u32(a, node + 12);
        if (w->next == 0 && ((uint64_t)first + count > a->entry_count)) {
            rc = ga_fail(err, GA_ERR_FORMAT, "rarc", "node file range", (long long)(node + 10 - a->data),
                         "node %u lists entries %u..%llu of a table of %u", w->node, first,
                         (unsigned long long)first + count - 1, a->entry_count);
            goto done;
        }
        if (w->next == count) {
            depth--;
            continue;
        }
        uint32_t e = first + w->next++;
        const uint8_t *ent = a->data + a->entry_table + (size_t)e * RARC_ENTRY;
        long long ent_at = (long long)(ent - a->data);
        uint32_t name_attr = get_u32(a, ent + 4);
        uint8_t attr = (uint8_t)(name_attr >> 24);
        size_t name_abs, name_len;
        rc = name_at(a, err, name_attr & 0xFFFFFFu, "entry name", ent_at + 4, &name_abs, &name_len);
        if (rc) goto done;
        const uint8_t *name = a->data + name_abs;
        if (is_dot(name, name_len)) continue;
        if (entry_seen[e]) {
            rc = ga_fail(err, GA_ERR_FORMAT, "rarc", "node file range", (long long)(node + 12 - a->data),
                         "entry %u is listed by two directories", e);
            goto done;
        }
        entry_seen[e] = 1;
        size_t prefix = w->prefix;
        if (prefix + name_len + 1 > GA_ARC_MAX_PATH) {
            rc = ga_fail(err, GA_ERR_LIMIT, "rarc", "entry name", ent_at + 4,
                         "the path of entry %u is longer than %u bytes", e, GA_ARC_MAX_PATH);
            goto done;
        }
        memcpy(path + prefix, name, name_len);
        if (attr & GA_ARC_DIR) {
            uint32_t sub = get_u32(a, ent + 8);
            if (sub >= a->node_count) {
                rc = ga_fail(err, GA_ERR_FORMAT, "rarc", "directory node", ent_at + 8,
                             "entry %u names node %u of %u", e, sub, a->node_count);
                goto done;
            }
            if (node_seen[sub]) {
                rc = ga_fail(err, GA_ERR_FORMAT, "rarc", "directory node", ent_at + 8,
                             "entry %u leads back to node %u: a loop in the directory graph", e, sub);
                goto done;
            }
            node_seen[sub] = 1;
            path[prefix + name_len] = '/';
            stack[depth++] = (walk_item){sub, 0, prefix + name_len + 1};
            continue;
        }
        uint32_t off = get_u32(a, ent + 8), size = get_u32(a, ent + 12);
        if ((uint64_t)a->data_start + off + size > a->size) {
            rc = ga_fail(err, GA_ERR_FORMAT, "rarc", "file data", ent_at + 8,
                         "entry %u: 0x%x bytes at data offset 0x%x run past the end of the %zu-byte archive", e,
                         size, off, a->size);
            goto done;
        }
        path_bytes += prefix + name_len + 1 + sizeof(ga_arc_member);
        rc = ga_check_decoded(opts, a->size, path_bytes, 1, "member paths", "rarc", "entry name", ent_at + 4, err);
        if (rc) goto done;
        rc = add_member(a, &paths, path, prefix + name_len, e, ent);
        if (rc) {
            rc = ga_nomem(err, "rarc");
            goto done;
        }
    }
    a->paths = (char *)paths.data;
    a->paths_size = paths.len;
    paths.data = NULL;
done:
    ga_buf_free(&paths);
    free(node_seen);
    free(entry_seen);
    free(stack);
    free(path);
    return rc;
}

int ga_archive_parse(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_archive *arc,
                     ga_error *err)
{
    memset(arc, 0, sizeof *arc);
    arc->data = data;
    arc->size = size;
    if (size < 4 || !ga_archive_probe(data, size))
        return ga_fail(err, GA_ERR_FORMAT, "rarc", "magic", 0, "the data does not start with 'RARC' or 'CRAR'");
    arc->little = data[0] == 'C';
    if (size < RARC_HEADER + RARC_DATA_HEADER)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", "header", 0,
                       "%zu bytes are too few for the 0x40 bytes of the two headers", size);
    if (size > GA_MAX_INPUT_SIZE || size > UINT32_MAX)
        return ga_fail(err, GA_ERR_LIMIT, "rarc", "file size", 4, "%zu bytes exceed the input limit of %zu bytes",
                       size, GA_MAX_INPUT_SIZE);
    uint32_t base = get_u32(arc, data + 8);
    if ((uint64_t)base + RARC_DATA_HEADER > size)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", "data header offset", 8,
                       "the data header at 0x%x runs past the end of the %zu-byte archive", base, size);
    arc->base = base;
    const uint8_t *dh = data + base;
    uint64_t data_start = (uint64_t)base + get_u32(arc, data + 0x0C);
    if (data_start > size)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", "file data offset", 0x0C,
                       "file data at 0x%llx starts past the end of the %zu-byte archive",
                       (unsigned long long)data_start, size);
    arc->data_start = (size_t)data_start;
    arc->node_count = get_u32(arc, dh);
    arc->entry_count = get_u32(arc, dh + 8);
    long long dh_at = (long long)base;
    int rc = table_at(arc, err, get_u32(arc, dh + 4), (uint64_t)arc->node_count * RARC_NODE, "node table",
                      dh_at + 4, &arc->node_table);
    if (rc) return rc;
    rc = table_at(arc, err, get_u32(arc, dh + 12), (uint64_t)arc->entry_count * RARC_ENTRY, "file entry table",
                  dh_at + 12, &arc->entry_table);
    if (rc) return rc;
    arc->str_size = get_u32(arc, dh + 16);
    rc = table_at(arc, err, get_u32(arc, dh + 20), arc->str_size, "string table", dh_at + 20, &arc->str_table);
    if (rc) return rc;
    if (arc->node_count == 0)
        return ga_fail(err, GA_ERR_FORMAT, "rarc", "node count", dh_at, "the archive has no root node");
    size_t root_len;
    rc = name_at(arc, err, get_u32(arc, data + arc->node_table + 4), "node name", (long long)arc->node_table + 4,
                 &arc->root_name, &root_len);
    if (rc) return rc;
    rc = walk(arc, opts, err);
    if (rc) {
        free(arc->members);
        free(arc->paths);
        arc->members = NULL;
        arc->paths = NULL;
        arc->nmembers = 0;
    }
    return rc;
}

int ga_archive_open(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_archive *arc,
                    ga_error *err)
{
    memset(arc, 0, sizeof *arc);
    if (size > GA_MAX_INPUT_SIZE)
        return ga_fail(err, GA_ERR_LIMIT, "", "file size", 0, "%zu bytes exceed the input limit of %zu bytes", size,
                       GA_MAX_INPUT_SIZE);
    ga_decode_opts o = {0};
    if (opts) o = *opts;
    o.input_size = size;
    const ga_wrapper *wrapper = NULL;
    uint8_t *payload = NULL;
    size_t psize = 0;
    if (!ga_archive_probe(data, size)) {
        for (size_t i = 0; ga_wrappers[i]; i++) {
            if (!ga_wrappers[i]->detect(data, size)) continue;
            int rc = ga_wrappers[i]->unwrap(data, size, &o, &payload, &psize, err);
            if (rc) return rc;
            wrapper = ga_wrappers[i];
            break;
        }
    }
    int rc = payload ? ga_archive_parse(payload, psize, &o, arc, err) : ga_archive_parse(data, size, &o, arc, err);
    if (rc) {
        free(payload);
        return rc;
    }
    arc->payload = payload;
    arc->wrapper = wrapper;
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Replacing a member in place                                         */

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The smallest length >= n that is congruent to `like` modulo the
 * alignment: later spans keep their offsets modulo GA_ARC_ALIGN. */
static uint64_t slot_length(uint64_t n, uint64_t like)
{
    uint64_t r = like % GA_ARC_ALIGN;
    uint64_t l = n - n % GA_ARC_ALIGN + r;
    return l >= n ? l : l + GA_ARC_ALIGN;
}

/* The header field (0x14 MRAM, 0x18 ARAM, or 0 for none) of the region
 * that holds data offset `at`: MRAM, ARAM and DVD data follow each other
 * in that order. */
static size_t region_field(const ga_archive *a, uint32_t at)
{
    uint64_t mram = get_u32(a, a->data + 0x14), aram = get_u32(a, a->data + 0x18);
    if (at < mram) return 0x14;
    if (at < mram + aram) return 0x18;
    return 0;
}

static void add_u32(const ga_archive *a, uint8_t *p, int64_t delta)
{
    put_u32(a, p, (uint32_t)((int64_t)get_u32(a, p) + delta));
}

int ga_archive_replace(const ga_archive *arc, size_t m, const uint8_t *data, size_t n, ga_buf *out, ga_error *err)
{
    if (m >= arc->nmembers) return ga_fail(err, GA_ERR_ARG, "rarc", "member", -1, "no member %zu", m);
    const ga_arc_member *mem = &arc->members[m];
    const size_t data_len = arc->size - arc->data_start;
    /* the rewrite moves file data only: the tables must lie before it */
    struct {
        size_t at, len;
        const char *what;
    } tables[] = {{0, RARC_HEADER, "header"},
                  {arc->base, RARC_DATA_HEADER, "data header"},
                  {arc->node_table, (size_t)arc->node_count * RARC_NODE, "node table"},
                  {arc->entry_table, (size_t)arc->entry_count * RARC_ENTRY, "file entry table"},
                  {arc->str_table, arc->str_size, "string table"}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].len && tables[i].at + tables[i].len > arc->data_start)
            return ga_fail(err, GA_ERR_FORMAT, "rarc", tables[i].what, (long long)tables[i].at,
                           "the %s overlaps the file data at 0x%zx: members cannot be replaced in place",
                           tables[i].what, arc->data_start);
    /* every file entry's start: the spans, in data order */
    uint32_t *starts = malloc(sizeof *starts * (arc->entry_count ? arc->entry_count : 1));
    if (!starts) return ga_nomem(err, "rarc");
    size_t ns = 0, sharing = 0;
    for (uint32_t e = 0; e < arc->entry_count; e++) {
        const uint8_t *ent = arc->data + arc->entry_table + (size_t)e * RARC_ENTRY;
        if (ent[4 + (arc->little ? 3 : 0)] & GA_ARC_DIR) continue;
        uint32_t off = get_u32(arc, ent + 8);
        if (off > data_len) continue; /* an unreachable entry that points nowhere: left as it is */
        starts[ns++] = off;
        /* an empty entry at the same offset holds no bytes that a rewrite could change */
        if (off == mem->data_off && e != mem->entry && get_u32(arc, ent + 12) > 0) sharing++;
    }
    qsort(starts, ns, sizeof *starts, cmp_u32);
    uint64_t slot_end = data_len;
    for (size_t i = 0; i < ns; i++)
        if (starts[i] > mem->data_off) {
            slot_end = starts[i];
            break;
        }
    free(starts);
    uint64_t old_slot = slot_end - mem->data_off;
    if (mem->size > old_slot)
        return ga_fail(err, GA_ERR_ARG, "rarc", "file data", -1,
                       "member %zu overlaps the next member's data: it cannot be replaced in place", m);
    /* A shared span stays for the others; the replaced member gets a slot
     * of its own right after it.  Otherwise its slot is rewritten. */
    uint64_t new_slot = sharing ? slot_length(n, 0) : slot_length(n, old_slot);
    uint64_t cut_from = sharing ? slot_end : mem->data_off, cut_to = slot_end;
    /* no other member's bytes may straddle the place that changes */
    for (uint32_t e = 0; e < arc->entry_count; e++) {
        const uint8_t *ent = arc->data + arc->entry_table + (size_t)e * RARC_ENTRY;
        if ((ent[4 + (arc->little ? 3 : 0)] & GA_ARC_DIR) || e == mem->entry) continue;
        uint64_t off = get_u32(arc, ent + 8), end = off + get_u32(arc, ent + 12);
        if (off < cut_from && end > cut_from)
            return ga_fail(err, GA_ERR_ARG, "rarc", "file data", (long long)(ent - arc->data) + 8,
                           "entry %u's data overlaps member %zu's: it cannot be replaced in place", e, m);
    }
    int64_t delta = (int64_t)new_slot - (int64_t)(cut_to - cut_from);
    if ((int64_t)arc->size + delta > (int64_t)UINT32_MAX || (uint64_t)((int64_t)arc->size + delta) > GA_MAX_INPUT_SIZE)
        return ga_fail(err, GA_ERR_LIMIT, "rarc", "file size", 4, "the archive would exceed %zu bytes",
                       GA_MAX_INPUT_SIZE);
    size_t at = out->len;
    ga_buf_put(out, arc->data, arc->data_start + (size_t)cut_from);
    ga_buf_put(out, data, n);
    ga_buf_fill(out, 0, (size_t)(new_slot - n));
    ga_buf_put(out, arc->data + arc->data_start + cut_to, (size_t)(data_len - cut_to));
    if (out->failed) return ga_nomem(err, "rarc");
    uint8_t *o = out->data + at;
    for (uint32_t e = 0; e < arc->entry_count; e++) {
        uint8_t *ent = o + arc->entry_table + (size_t)e * RARC_ENTRY;
        if (ent[4 + (arc->little ? 3 : 0)] & GA_ARC_DIR) continue;
        uint32_t off = get_u32(arc, ent + 8);
        if (e == mem->entry) continue;
        if (off > data_len) continue;
        if (off > mem->data_off) add_u32(arc, ent + 8, delta);
    }
    uint8_t *ent = o + arc->entry_table + (size_t)mem->entry * RARC_ENTRY;
    put_u32(arc, ent + 8, (uint32_t)cut_from);
    put_u32(arc, ent + 12, (uint32_t)n);
    if (mem->attr & GA_ARC_COMPRESSED) {
        /* a member the game decompresses says how: from the new bytes */
        uint8_t attr = (uint8_t)(mem->attr & ~(GA_ARC_COMPRESSED | GA_ARC_YAZ0));
        if (n >= 4 && memcmp(data, "Yaz0", 4) == 0) attr |= GA_ARC_COMPRESSED | GA_ARC_YAZ0;
        else if (n >= 4 && memcmp(data, "Yay0", 4) == 0) attr |= GA_ARC_COMPRESSED;
        ent[4 + (arc->little ? 3 : 0)] = attr;
    }
    add_u32(arc, o + 4, delta);
    add_u32(arc, o + 0x10, delta);
    size_t region = region_field(arc, mem->data_off);
    if (region) add_u32(arc, o + region, delta);
    return GA_OK;
}
