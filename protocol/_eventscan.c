/* protocol._eventscan: a run of received binlog events checked and followed in one C call.

Contract (the compiled twin of the per-event path of slave.io_task.IoTask._queue_packets with
slave.relay_log.GroupTracker.feed, which stays the reference and the fallback; the two are held
equal by tests/unit/test_eventscan.py and tests/unit/test_slave_io_task.py):

    scan(events, start, checksum, state[, verified]) -> (stop, last_boundary, positions, closed)

`events` is a list of whole binlog events (bytes or contiguous buffers: the payloads of one
read, semi-sync headers stripped). `verified`: their CRC32 footers were checked already, on
these very bytes (a slave's receiver thread, protocol/_dumpscan.h): not checked again (with
`checksum` the footer is still not part of a QUERY's statement). `state` is a list
[log_pos, in_group, pending, open_gtid] (open_gtid: None or a (domain_id, server_id, seq_no)
tuple) holding a GroupTracker's state with its master position's offset; scan updates it in
place. From events[start] on, each event is
taken when this function decides it exactly as the Python path would, which it does for:
  - event_size equal to the event's length, and (`checksum`, unless `verified`) a CRC32 footer
    that matches;
  - not FORMAT_DESCRIPTION, ROTATE or a heartbeat (their bodies are read in Python);
  - GTID (its fixed fields present), XID, INTVAR, RAND, USER_VAR, TABLE_MAP, ANNOTATE_ROWS, a
    rows event inside a group, any other type (nothing to follow);
  - QUERY whose statement starts with a byte that begins no BEGIN / COMMIT / ROLLBACK / START
    TRANSACTION (protocol.statements' OTHER_FIRST) or is exactly one of those four (its post-header,
    status variables and db well formed).
It stops at the first event it does not take (index `stop`; len(events) when it took them all):
the caller runs that event through the Python path (which verifies, raises or decides it) and
calls scan again after it. Nothing of a stopped event changes `state`.
For the taken events [start, stop): `positions[k]` is the master's offset after events[start+k]
(its log_pos, unless 0 or artificial and not a GTID_LIST: then the previous one), the
tracker's state moves as GroupTracker.feed moves it, `last_boundary` is the index of the last
event that left the stream between two transactions (-1: none), `closed` lists in order the
GTIDs those boundaries completed, as (domain_id, server_id, seq_no).
A state whose log_pos is negative (the tracker has no master position yet) takes nothing.
Layouts: the binlog v4 event header and the QUERY / MariaDB GTID post-headers of
protocol/events.py; the constants below are checked against it by the tests (CONSTANTS).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum {
    HEADER_LEN = 19, TYPE_AT = 4, SERVER_ID_AT = 5, EVENT_SIZE_AT = 9, LOG_POS_AT = 13, FLAGS_AT = 17,
    CHECKSUM_LEN = 4,
    QUERY_FIXED_LEN = 13, QUERY_DB_LEN_AT = HEADER_LEN + 8, QUERY_STATUS_LEN_AT = HEADER_LEN + 11,
    GTID_FIXED_LEN = 13, GTID_DOMAIN_AT = HEADER_LEN + 8, GTID_FLAGS2_AT = HEADER_LEN + 12,
    LOG_EVENT_ARTIFICIAL_F = 0x20, FL_STANDALONE = 0x01,
    T_QUERY = 2, T_ROTATE = 4, T_INTVAR = 5, T_RAND = 13, T_USER_VAR = 14, T_FD = 15, T_XID = 16,
    T_TABLE_MAP = 19, T_WRITE_V1 = 23, T_UPDATE_V1 = 24, T_DELETE_V1 = 25, T_HEARTBEAT = 27,
    T_WRITE = 30, T_UPDATE = 31, T_DELETE = 32, T_HEARTBEAT_V2 = 41, T_ANNOTATE_ROWS = 160,
    T_GTID = 162, T_GTID_LIST = 163,
};
/* zlib's CRC-32 of a message followed by its own CRC-32 (little-endian), whatever the message:
   an event's footer matches exactly when the CRC-32 of the whole event is this. */
#define CRC32_RESIDUE 0x2144DF1CUL

enum kind { K_OTHER, K_BEGIN, K_COMMIT, K_ROLLBACK, K_UNDECIDED };

static PyObject *crc32_func;  /* zlib.crc32 */

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* protocol.statements' OTHER_FIRST: ASCII, no blank of str.lstrip, upper-cased not one of B S C R. */
static int other_first(uint8_t c)
{
    if (c >= 128 || c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f))
        return 0;
    c = (uint8_t)(c >= 'a' && c <= 'z' ? c - 32 : c);
    return c != 'B' && c != 'S' && c != 'C' && c != 'R';
}

static enum kind query_kind(const uint8_t *text, Py_ssize_t len)
{
    if (len == 0 || other_first(text[0]))
        return K_OTHER;
#define IS(word) (len == (Py_ssize_t)sizeof(word) - 1 && memcmp(text, word, sizeof(word) - 1) == 0)
    if (IS("BEGIN") || IS("START TRANSACTION"))
        return K_BEGIN;
    if (IS("COMMIT"))
        return K_COMMIT;
    if (IS("ROLLBACK"))
        return K_ROLLBACK;
#undef IS
    return K_UNDECIDED;
}

static int is_prefix(int t) { return t == T_INTVAR || t == T_RAND || t == T_USER_VAR || t == T_TABLE_MAP || t == T_ANNOTATE_ROWS; }
static int is_rows(int t) { return (t >= T_WRITE_V1 && t <= T_DELETE_V1) || (t >= T_WRITE && t <= T_DELETE); }

/* 1: the footer matches; 0: it does not; -1: an error is set. */
static int checksum_ok(PyObject *event, Py_ssize_t n)
{
    if (n < HEADER_LEN + CHECKSUM_LEN)
        return 0;
    PyObject *crc = PyObject_CallOneArg(crc32_func, event);
    if (crc == NULL)
        return -1;
    unsigned long value = PyLong_AsUnsignedLong(crc);
    Py_DECREF(crc);
    if (value == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    return value == CRC32_RESIDUE;
}

typedef struct {
    long long log_pos;
    int in_group, pending;
    int has_open;
    unsigned long long open_seq;
    uint32_t open_domain, open_server;
} Tracker;

/* One event: 1 taken (t moved, *boundary set), 0 not taken (t unchanged), -1 error set. */
static int take(PyObject *event, int checksum, int verified, Tracker *t, int *boundary, int *closed)
{
    Py_buffer view;
    if (PyObject_GetBuffer(event, &view, PyBUF_SIMPLE) < 0)
        return -1;
    const uint8_t *b = view.buf;
    Py_ssize_t n = view.len;
    int taken = 0;
    if (n < HEADER_LEN || le32(b + EVENT_SIZE_AT) != (uint32_t)n)
        goto done;
    int type = b[TYPE_AT];
    if (type == T_FD || type == T_ROTATE || type == T_HEARTBEAT || type == T_HEARTBEAT_V2)
        goto done;
    if (checksum && !verified) {
        int ok = checksum_ok(event, n);
        if (ok <= 0) {
            taken = ok;
            goto done;
        }
    }
    Tracker next = *t;
    uint32_t log_pos = le32(b + LOG_POS_AT);
    if (log_pos && (!(le16(b + FLAGS_AT) & LOG_EVENT_ARTIFICIAL_F) || type == T_GTID_LIST))
        next.log_pos = log_pos;
    if (type == T_GTID) {
        if (n < HEADER_LEN + GTID_FIXED_LEN)
            goto done;
        uint64_t seq = le32(b + HEADER_LEN) | (uint64_t)le32(b + HEADER_LEN + 4) << 32;
        next.has_open = 1;
        next.open_seq = seq;
        next.open_domain = le32(b + GTID_DOMAIN_AT);
        next.open_server = le32(b + SERVER_ID_AT);
        if (b[GTID_FLAGS2_AT] & FL_STANDALONE)
            next.pending = 1;
        else
            next.in_group = 1;
    } else if (type == T_QUERY) {
        Py_ssize_t end = n - (checksum ? CHECKSUM_LEN : 0);
        if (n < HEADER_LEN + QUERY_FIXED_LEN)
            goto done;
        Py_ssize_t start = HEADER_LEN + QUERY_FIXED_LEN + le16(b + QUERY_STATUS_LEN_AT) + b[QUERY_DB_LEN_AT] + 1;
        if (start > end || b[start - 1] != 0)
            goto done;
        enum kind kind = query_kind(b + start, end - start);
        if (kind == K_UNDECIDED)
            goto done;
        if (kind == K_BEGIN)
            next.in_group = 1;
        else if (kind == K_COMMIT || kind == K_ROLLBACK || !next.in_group)
            next.in_group = 0;
        if (!next.in_group)
            next.pending = 0;
    } else if (type == T_XID) {
        next.in_group = next.pending = 0;
    } else if (is_prefix(type)) {
        if (!next.in_group)
            next.pending = 1;
    } else if (is_rows(type) && !next.in_group) {
        goto done;  /* its STMT_END flag is read in Python */
    }
    *boundary = !next.in_group && !next.pending;
    *closed = next.has_open && *boundary && type != T_GTID;
    if (*closed)
        next.has_open = 0;
    *t = next;
    taken = 1;
done:
    PyBuffer_Release(&view);
    return taken;
}

static PyObject *gtid_tuple(uint32_t domain, uint32_t server, unsigned long long seq)
{
    return Py_BuildValue("(kkK)", (unsigned long)domain, (unsigned long)server, seq);
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    PyObject *events, *state;
    Py_ssize_t start;
    int checksum, verified = 0;
    if (!PyArg_ParseTuple(args, "O!npO!|p:scan", &PyList_Type, &events, &start, &checksum, &PyList_Type, &state,
                          &verified))
        return NULL;
    if (PyList_GET_SIZE(state) != 4) {
        PyErr_SetString(PyExc_ValueError, "state must be [log_pos, in_group, pending, open_gtid]");
        return NULL;
    }
    Tracker t = {0};
    t.log_pos = PyLong_AsLongLong(PyList_GET_ITEM(state, 0));
    if (t.log_pos == -1 && PyErr_Occurred())
        return NULL;
    if ((t.in_group = PyObject_IsTrue(PyList_GET_ITEM(state, 1))) < 0 ||
        (t.pending = PyObject_IsTrue(PyList_GET_ITEM(state, 2))) < 0)
        return NULL;
    PyObject *open = PyList_GET_ITEM(state, 3);
    if (open != Py_None) {
        unsigned long domain, server;
        unsigned long long seq;
        if (!PyArg_ParseTuple(open, "kkK:open_gtid", &domain, &server, &seq))
            return NULL;
        t.has_open = 1;
        t.open_domain = (uint32_t)domain;
        t.open_server = (uint32_t)server;
        t.open_seq = seq;
    }
    Py_ssize_t count = PyList_GET_SIZE(events), last_boundary = -1;
    Py_ssize_t i = start < 0 ? 0 : start > count ? count : start;
    PyObject *positions = PyList_New(0), *closed = PyList_New(0);
    if (positions == NULL || closed == NULL)
        goto fail;
    for (; t.log_pos >= 0 && i < count; i++) {
        int boundary = 0, closing = 0;
        Tracker before = t;
        int taken = take(PyList_GET_ITEM(events, i), checksum, verified, &t, &boundary, &closing);
        if (taken < 0)
            goto fail;
        if (!taken)
            break;
        PyObject *pos = PyLong_FromLongLong(t.log_pos);
        if (pos == NULL || PyList_Append(positions, pos) < 0) {
            Py_XDECREF(pos);
            goto fail;
        }
        Py_DECREF(pos);
        if (boundary)
            last_boundary = i;
        if (closing) {
            PyObject *g = gtid_tuple(before.open_domain, before.open_server, before.open_seq);
            if (g == NULL || PyList_Append(closed, g) < 0) {
                Py_XDECREF(g);
                goto fail;
            }
            Py_DECREF(g);
        }
    }
    PyObject *open_now = t.has_open ? gtid_tuple(t.open_domain, t.open_server, t.open_seq) : Py_NewRef(Py_None);
    PyObject *pos_now = PyLong_FromLongLong(t.log_pos);
    if (open_now == NULL || pos_now == NULL) {
        Py_XDECREF(open_now);
        Py_XDECREF(pos_now);
        goto fail;
    }
    PyList_SetItem(state, 0, pos_now);
    PyList_SetItem(state, 1, PyBool_FromLong(t.in_group));
    PyList_SetItem(state, 2, PyBool_FromLong(t.pending));
    PyList_SetItem(state, 3, open_now);
    return Py_BuildValue("(nnNN)", i, last_boundary, positions, closed);
fail:
    Py_XDECREF(positions);
    Py_XDECREF(closed);
    return NULL;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "scan(events, start, checksum, state[, verified]) -> (stop, last_boundary, positions, closed)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "protocol._eventscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__eventscan(void)
{
    PyObject *zlib = PyImport_ImportModule("zlib");
    if (zlib == NULL)
        return NULL;
    crc32_func = PyObject_GetAttrString(zlib, "crc32");
    Py_DECREF(zlib);
    if (crc32_func == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyObject *constants = Py_BuildValue(
        "{sisisisisisisisisisisisisisisisisisisisisisisisisi}",
        "HEADER_LEN", HEADER_LEN, "TYPE_AT", TYPE_AT, "SERVER_ID_AT", SERVER_ID_AT,
        "EVENT_SIZE_AT", EVENT_SIZE_AT, "LOG_POS_AT", LOG_POS_AT, "FLAGS_AT", FLAGS_AT,
        "CHECKSUM_LEN", CHECKSUM_LEN, "QUERY_FIXED_LEN", QUERY_FIXED_LEN, "GTID_FIXED_LEN", GTID_FIXED_LEN,
        "GTID_FLAGS2_AT", GTID_FLAGS2_AT, "LOG_EVENT_ARTIFICIAL_F", LOG_EVENT_ARTIFICIAL_F,
        "FL_STANDALONE", FL_STANDALONE, "QUERY", T_QUERY, "ROTATE", T_ROTATE, "FD", T_FD, "XID", T_XID,
        "HEARTBEAT", T_HEARTBEAT, "HEARTBEAT_V2", T_HEARTBEAT_V2, "GTID", T_GTID, "GTID_LIST", T_GTID_LIST,
        "QUERY_DB_LEN_AT", QUERY_DB_LEN_AT, "QUERY_STATUS_LEN_AT", QUERY_STATUS_LEN_AT,
        "GTID_DOMAIN_AT", GTID_DOMAIN_AT, "TABLE_MAP", T_TABLE_MAP, "ANNOTATE_ROWS", T_ANNOTATE_ROWS);
    if (constants == NULL || PyModule_AddObject(m, "CONSTANTS", constants) < 0) {
        Py_XDECREF(constants);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
