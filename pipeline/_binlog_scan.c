/* The `binlog` source's hot loop in C: framing a chunk of a binlog, and the columns of its
 * events. A plain C library (no Python API), built by setuptools (setup.py) and called through
 * ctypes by pipeline/native.py, which owns the contract; pipeline/decode.py's numpy decoder is
 * the same function and the fallback when this library is not built.
 *
 * Nothing here trusts the bytes: every read is inside the event it belongs to, and an event
 * whose body does not have the regular shape is marked `slow`, for the reference decoder
 * (protocol.events) to decode or to reject with its own error. Event type codes are not
 * declared here: the caller passes `kind`, a table from type code to what to decode.
 */
#include <stdint.h>
#include <string.h>

#define HEADER_LEN 19

/* The interface's version: pipeline/native.py refuses a library built from another one. Change
 * it with any signature, enum or contract below. */
#define SS_VERSION 2

int64_t ss_version(void) { return SS_VERSION; }

/* kind[type_code] */
enum { K_HEADER = 0, K_SLOW, K_QUERY, K_XID, K_GTID, K_TABLE_MAP, K_ROWS_V1, K_ROWS_V2, K_ANNOTATE };

/* ints: rows of `count` int64 values, in this order */
enum { I_POS, I_SIZE, I_TYPE_CODE, I_SERVER_ID, I_TIMESTAMP, I_LOG_POS, I_FLAGS,
       I_XID, I_TABLE_ID, I_ROWS_FLAGS, N_INTS };
/* text columns, and the validity rows after the three nullable ints */
enum { T_DB, T_QUERY, T_TABLE, T_GTID, T_DETAILS, N_TEXTS };
enum { V_XID, V_TABLE_ID, V_ROWS_FLAGS, V_TEXT, N_VALID = V_TEXT + N_TEXTS };

static inline uint32_t u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t u32(const uint8_t *p) { return u16(p) | u16(p + 2) << 16; }
static inline uint64_t u48(const uint8_t *p) { return u32(p) | (uint64_t)u16(p + 4) << 32; }
static inline uint64_t u64(const uint8_t *p) { return u32(p) | (uint64_t)u32(p + 4) << 32; }

/* Offsets of the complete events in buf[0:n] that start before `limit`, walking the event
 * sizes from 0: returns how many (at most cap) and sets *stop to where the walk stopped (the
 * first incomplete or unread event); -1 when an event size is below the header length, with
 * *stop its offset. */
int64_t ss_frame(const uint8_t *buf, int64_t n, int64_t limit, int64_t *offsets, int64_t cap, int64_t *stop)
{
    int64_t off = 0, count = 0, end = n - HEADER_LEN + 1;
    if (limit < end)
        end = limit;
    while (off < end && count < cap) {
        uint32_t size = u32(buf + off + 9);
        if (size < HEADER_LEN) {
            *stop = off;
            return -1;
        }
        if (off + size > n)
            break;
        offsets[count++] = off;
        off += size;
    }
    *stop = off;
    return count;
}

typedef struct {
    int32_t *off;
    uint8_t *data;
    int64_t cap, len;
} text_t;

static inline void put(text_t *t, const void *p, int64_t len)
{
    memcpy(t->data + t->len, p, (size_t)len);
    t->len += len;
}

#define PUT_LIT(t, s) put((t), (s), (int64_t)sizeof(s) - 1)

static inline void put_u64(text_t *t, uint64_t v)
{
    uint8_t tmp[20];
    int k = 20;
    do {
        tmp[--k] = (uint8_t)('0' + v % 10);
        v /= 10;
    } while (v);
    put(t, tmp + k, 20 - k);
}

typedef struct {
    int64_t *ints;
    uint8_t *valid;
    text_t text[N_TEXTS];
    int64_t count, i;
} cols_t;

static inline void set_int(cols_t *c, int col, int vcol, int64_t v)
{
    c->ints[col * c->count + c->i] = v;
    c->valid[vcol * c->count + c->i] = 1;
}

static inline text_t *text(cols_t *c, int col)
{
    c->valid[(V_TEXT + col) * c->count + c->i] = 1;
    return &c->text[col];
}

/* Each decoder returns 0 when the body has the regular shape (and sets its columns), 1 when it
 * does not (nothing set): the event is then the reference decoder's. b: the body, blen: its
 * length without the CRC32 footer (may be negative when the event is too short for one). */

/* QUERY_EVENT: thread_id(4) exec_time(4) db_len(1) error_code(2) status_vars_len(2)
 * status_vars db \0 query. sql_mode is the first status variable, or the one right after
 * Q_FLAGS2_CODE; any other status variable layout goes to the reference decoder. */
static int query(cols_t *c, const uint8_t *b, int64_t blen)
{
    if (blen < 13)
        return 1;
    int64_t sv = u16(b + 11), dbl = b[8];
    int64_t at_db = 13 + sv, at_text = at_db + dbl + 1;
    if (at_text > blen || b[at_text - 1] != 0)
        return 1;
    int first = sv >= 9 ? b[13] : 255;
    int second = sv >= 14 && first == 0 ? b[18] : 255;
    int has_mode = first == 1 || second == 1;
    if (!(has_mode || sv == 0 || (first == 0 && sv == 5)))
        return 1;
    put(text(c, T_DB), b + at_db, dbl);
    put(text(c, T_QUERY), b + at_text, blen - at_text);
    text_t *d = text(c, T_DETAILS);
    PUT_LIT(d, "{\"thread_id\":");
    put_u64(d, u32(b));
    PUT_LIT(d, ",\"exec_time\":");
    put_u64(d, u32(b + 4));
    PUT_LIT(d, ",\"error_code\":");
    put_u64(d, u16(b + 9));
    if (has_mode) {
        PUT_LIT(d, ",\"sql_mode\":");
        put_u64(d, u64(b + (first == 1 ? 14 : 19)));
    }
    PUT_LIT(d, "}");
    return 0;
}

/* XID_EVENT: xid(8) */
static int xid(cols_t *c, const uint8_t *b, int64_t blen)
{
    if (blen != 8)
        return 1;
    set_int(c, I_XID, V_XID, (int64_t)u64(b));
    return 0;
}

/* GTID_EVENT (MariaDB): seq_no(8) domain_id(4) flags2(1) [commit_id(8) | 6 zero bytes];
 * XA transactions go to the reference decoder. */
static int gtid(cols_t *c, const uint8_t *b, int64_t blen, uint32_t server_id)
{
    if (blen < 19)
        return 1;
    uint32_t flags2 = b[12];
    int committed = (flags2 & 0x02) != 0;
    if (committed ? blen < 21 : (flags2 & 0xC0) || u48(b + 13))
        return 1;
    text_t *g = text(c, T_GTID);
    put_u64(g, u32(b + 8));
    PUT_LIT(g, "-");
    put_u64(g, server_id);
    PUT_LIT(g, "-");
    put_u64(g, u64(b));
    text_t *d = text(c, T_DETAILS);
    PUT_LIT(d, "{\"flags2\":");
    put_u64(d, flags2);
    if (committed) {
        PUT_LIT(d, ",\"commit_id\":");
        put_u64(d, u64(b + 13));
    }
    PUT_LIT(d, "}");
    return 0;
}

/* TABLE_MAP_EVENT: table_id(6) flags(2) db_len(1) db \0 table_len(1) table \0 ncols(1)
 * types(ncols) meta_len(1) meta null_bits */
static int table_map(cols_t *c, const uint8_t *b, int64_t blen)
{
    if (blen < 13)
        return 1;
    int64_t dbl = b[8], at_tl = 9 + dbl + 1;
    if (at_tl + 1 >= blen)
        return 1;
    int64_t tl = b[at_tl], at_nc = at_tl + 1 + tl + 1;
    if (at_nc >= blen || b[at_tl - 1] != 0 || b[at_nc - 1] != 0)
        return 1;
    int64_t ncols = b[at_nc], at_ml = at_nc + 1 + ncols;
    if (ncols >= 251 || at_ml >= blen)
        return 1;
    int64_t mlen = b[at_ml];
    if (mlen >= 251 || at_ml + 1 + mlen + (ncols + 7) / 8 > blen)
        return 1;
    set_int(c, I_TABLE_ID, V_TABLE_ID, (int64_t)u48(b));
    put(text(c, T_DB), b + 9, dbl);
    put(text(c, T_TABLE), b + at_tl + 1, tl);
    text_t *d = text(c, T_DETAILS);
    PUT_LIT(d, "{\"column_types\":[");
    for (int64_t k = 0; k < ncols; k++) {
        if (k)
            PUT_LIT(d, ",");
        put_u64(d, b[at_nc + 1 + k]);
    }
    PUT_LIT(d, "]}");
    return 0;
}

/* rows events: table_id(6) flags(2) [extra_len(2) extra (v2)] rows */
static int rows(cols_t *c, const uint8_t *b, int64_t blen, int v2)
{
    if (blen < (v2 ? 10 : 8))
        return 1;
    if (v2) {
        int64_t extra = u16(b + 8);
        if (extra < 2 || 8 + extra > blen)
            return 1;
    }
    set_int(c, I_TABLE_ID, V_TABLE_ID, (int64_t)u48(b));
    set_int(c, I_ROWS_FLAGS, V_ROWS_FLAGS, u16(b + 6));
    return 0;
}

/* ANNOTATE_ROWS_EVENT: the statement */
static int annotate(cols_t *c, const uint8_t *b, int64_t blen)
{
    if (blen < 0)
        return 1;
    put(text(c, T_QUERY), b, blen);
    return 0;
}

/* The most text one event of `size` bytes adds to column t: some of its own bytes, a GTID's
 * three numbers, a details object (a QUERY's under 128 bytes; a TABLE_MAP's 4 bytes per
 * column type at most, of at most 250 types and of fewer than `size`). */
static inline int64_t most(int t, int64_t size)
{
    switch (t) {
    case T_GTID: return 64;
    case T_DETAILS: return (size < 256 ? 4 * size : 1024) + 128;
    default: return size;
    }
}

/* caps[t]: enough bytes for text column t of `count` events of `n` bytes in all (the sum of
 * `most` over them), for the caller to allocate before ss_columns. */
void ss_text_caps(int64_t n, int64_t count, int64_t *caps)
{
    for (int t = 0; t < N_TEXTS; t++)
        caps[t] = n;
    caps[T_GTID] = 64 * count;
    caps[T_DETAILS] = (4 * n < 1024 * count ? 4 * n : 1024 * count) + 128 * count;
}

/* The columns of the `count` events at `offsets` of buf[0:n] (complete events, as ss_frame
 * gives them; buf[0] is file offset `base`). crc[i]: event i ends in a CRC32 footer. Writes
 * ints (N_INTS rows of count), valid (N_VALID rows of count bytes, 1 = not null; the first
 * seven ints are never null), slow (count bytes, 1 = for the reference decoder; its body
 * columns are left null), and for each text column its count + 1 int32 offsets and its bytes
 * (at most text_cap[t], as ss_text_caps gives them). Returns 0; -1 - i if event i is not inside
 * buf; -100 - t if text column t would overflow its capacity (a caller bug). */
int64_t ss_columns(const uint8_t *buf, int64_t n, int64_t base, const int64_t *offsets, int64_t count,
                   const uint8_t *crc, const uint8_t *kind, int64_t *ints, uint8_t *valid, uint8_t *slow,
                   int32_t *text_offsets, uint8_t *const *text_data, const int64_t *text_cap)
{
    cols_t c = { .ints = ints, .valid = valid, .count = count };
    for (int t = 0; t < N_TEXTS; t++)
        c.text[t] = (text_t){ text_offsets + t * (count + 1), text_data[t], text_cap[t], 0 };
    memset(valid, 0, (size_t)(N_VALID * count));
    memset(slow, 0, (size_t)count);
    for (int64_t i = 0; i < count; i++) {
        c.i = i;
        int64_t off = offsets[i];
        if (off < 0 || off > n - HEADER_LEN)
            return -1 - i;
        const uint8_t *e = buf + off;
        uint32_t size = u32(e + 9), type = e[4], server_id = u32(e + 5);
        if (size < HEADER_LEN || off + size > n)
            return -1 - i;
        ints[I_POS * count + i] = base + off;
        ints[I_SIZE * count + i] = size;
        ints[I_TYPE_CODE * count + i] = type;
        ints[I_SERVER_ID * count + i] = server_id;
        ints[I_TIMESTAMP * count + i] = u32(e);
        ints[I_LOG_POS * count + i] = u32(e + 13);
        ints[I_FLAGS * count + i] = u16(e + 17);
        ints[I_XID * count + i] = ints[I_TABLE_ID * count + i] = ints[I_ROWS_FLAGS * count + i] = 0;
        for (int t = 0; t < N_TEXTS; t++) {
            if (c.text[t].len + most(t, size) > c.text[t].cap)
                return -100 - t;
            c.text[t].off[i] = (int32_t)c.text[t].len;
        }
        const uint8_t *b = e + HEADER_LEN;
        int64_t blen = (int64_t)size - HEADER_LEN - (crc[i] ? 4 : 0);
        int irregular = 0;
        switch (kind[type]) {
        case K_SLOW: irregular = 1; break;
        case K_QUERY: irregular = query(&c, b, blen); break;
        case K_XID: irregular = xid(&c, b, blen); break;
        case K_GTID: irregular = gtid(&c, b, blen, server_id); break;
        case K_TABLE_MAP: irregular = table_map(&c, b, blen); break;
        case K_ROWS_V1: irregular = rows(&c, b, blen, 0); break;
        case K_ROWS_V2: irregular = rows(&c, b, blen, 1); break;
        case K_ANNOTATE: irregular = annotate(&c, b, blen); break;
        default: break;
        }
        slow[i] = (uint8_t)irregular;
    }
    for (int t = 0; t < N_TEXTS; t++)
        c.text[t].off[count] = (int32_t)c.text[t].len;
    return 0;
}

/* CRC-32 (the binlog footer's: zlib's, reflected polynomial 0xEDB88320), slice-by-8: eight
 * tables of 256 entries, filled once when the library is loaded. */
static uint32_t crc_table[8][256];

__attribute__((constructor)) static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_table[t][i] = crc_table[t - 1][i] >> 8 ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
}

static uint32_t crc32(const uint8_t *p, int64_t len)
{
    uint32_t c = 0xFFFFFFFFu;
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = u32(p) ^ c, hi = u32(p + 4);
        c = crc_table[7][lo & 0xFF] ^ crc_table[6][lo >> 8 & 0xFF] ^ crc_table[5][lo >> 16 & 0xFF] ^
            crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xFF] ^ crc_table[2][hi >> 8 & 0xFF] ^
            crc_table[1][hi >> 16 & 0xFF] ^ crc_table[0][hi >> 24];
    }
    for (; len > 0; p++, len--)
        c = crc_table[0][(c ^ *p) & 0xFF] ^ c >> 8;
    return ~c;
}

/* The CRC32 footer check of the events i with check[i] (complete events at `offsets` of
 * buf[0:n], each ending in its footer): returns the index of the first whose footer is not the
 * CRC32 of the rest of it, or -1 when all are intact; -2 - i if event i is not inside buf. */
int64_t ss_verify(const uint8_t *buf, int64_t n, const int64_t *offsets, int64_t count, const uint8_t *check)
{
    for (int64_t i = 0; i < count; i++) {
        if (!check[i])
            continue;
        int64_t off = offsets[i];
        if (off < 0 || off > n - HEADER_LEN)
            return -2 - i;
        uint32_t size = u32(buf + off + 9);
        if (size < HEADER_LEN || off + size > n)
            return -2 - i;
        if (crc32(buf + off, size - 4) != u32(buf + off + size - 4))
            return i;
    }
    return -1;
}
