/* protocol._framing: the master's two per-group encodings, each in one C call.

Contract (the compiled twins of protocol.events.encode_events and of the per-event loop of
protocol.connection.ServerConnection.send_events, which stay the reference and the fallback;
the two are held equal by tests/unit/test_framing.py, byte for byte):

    encode_events(specs, server_id, offset, checksum) -> list[(start, event)] | None

`specs` is a list of (type_code, body, timestamp, flags) with `body` bytes: each framed as a
binlog v4 event written from byte `offset` on (event_size, log_pos = its end offset,
`server_id`, and with `checksum` a CRC32 footer), exactly as encode_events frames it.

    frame_events(events, headers, seq) -> (wire, next_seq) | None

`events` is a list of bytes, `headers` bytes (one header for every event) or a list of bytes
(one per event, as long as `events`): the MySQL packets of a dump, back to back, each payload
the OK byte, the event's header and the event, sequence ids from `seq` on, restarting at 1
after an event whose header asks for a semi-sync ack (EF, flag bit 0x01).

Either returns None, having changed nothing, for whatever it does not take: an argument of
another type, a value a field cannot hold (the reference raises LocalProtocolError for it), a
FORMAT_DESCRIPTION_EVENT (encoded alone), a packet of MAX_PAYLOAD bytes or more (split in
chunks by the reference). The caller then runs the reference on the same arguments.
Layouts: the event header of protocol/events.py (HEADER) and the packet header of
protocol/packets.py; the constants below are checked against them by the tests (CONSTANTS).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

enum {
    HEADER_LEN = 19, CHECKSUM_LEN = 4, TYPE_FD = 15, MAX_PAYLOAD = 0xFFFFFF,
    SEMI_SYNC_MAGIC = 0xEF, SEMI_SYNC_ACK_REQUESTED = 0x01,
};

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* An int that fits `max`, or -1 (no Python error left set). */
static long long bounded(PyObject *o, unsigned long long max) {
    if (!PyLong_Check(o))
        return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return v > max ? -1 : (long long)v;
}

static PyObject *encode_events(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *specs, *server_id_arg, *offset_arg;
    int checksum;
    if (!PyArg_ParseTuple(args, "O!OOp", &PyList_Type, &specs, &server_id_arg, &offset_arg, &checksum))
        return NULL;
    long long server_id = bounded(server_id_arg, 0xFFFFFFFFULL), offset = bounded(offset_arg, 0xFFFFFFFFULL);
    if (server_id < 0 || offset < 0)
        Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(specs);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    const Py_ssize_t footer = checksum ? CHECKSUM_LEN : 0;
    long long end = offset;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *spec = PyList_GET_ITEM(specs, i);
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4)
            goto fallback;
        PyObject *body = PyTuple_GET_ITEM(spec, 1);
        if (!PyBytes_Check(body))
            goto fallback;
        long long type_code = bounded(PyTuple_GET_ITEM(spec, 0), 0xFF);
        long long timestamp = bounded(PyTuple_GET_ITEM(spec, 2), 0xFFFFFFFFULL);
        long long flags = bounded(PyTuple_GET_ITEM(spec, 3), 0xFFFF);
        if (type_code < 0 || timestamp < 0 || flags < 0 || type_code == TYPE_FD)
            goto fallback;
        Py_ssize_t body_len = PyBytes_GET_SIZE(body);
        long long size = HEADER_LEN + footer + (long long)body_len;
        long long start = end;
        end += size;
        if (size > 0xFFFFFFFFLL || end > 0xFFFFFFFFLL)
            goto fallback;
        PyObject *event = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (event == NULL)
            goto error;
        unsigned char *p = (unsigned char *)PyBytes_AS_STRING(event);
        put32(p, (uint32_t)timestamp);
        p[4] = (unsigned char)type_code;
        put32(p + 5, (uint32_t)server_id);
        put32(p + 9, (uint32_t)size);
        put32(p + 13, (uint32_t)end);
        p[17] = (unsigned char)flags;
        p[18] = (unsigned char)(flags >> 8);
        memcpy(p + HEADER_LEN, PyBytes_AS_STRING(body), (size_t)body_len);
        if (footer) {
            uLong crc = crc32(0L, Z_NULL, 0);
            crc = crc32(crc, p, (uInt)(HEADER_LEN + body_len));
            put32(p + HEADER_LEN + body_len, (uint32_t)crc);
        }
        PyObject *item = Py_BuildValue("(LN)", start, event);
        if (item == NULL)
            goto error;
        PyList_SET_ITEM(out, i, item);
    }
    return out;
fallback:
    Py_DECREF(out);
    Py_RETURN_NONE;
error:
    Py_DECREF(out);
    return NULL;
}

static int ack_requested(PyObject *header) {
    return PyBytes_GET_SIZE(header) >= 2 && (unsigned char)PyBytes_AS_STRING(header)[0] == SEMI_SYNC_MAGIC
           && ((unsigned char)PyBytes_AS_STRING(header)[1] & SEMI_SYNC_ACK_REQUESTED);
}

static PyObject *frame_events(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *events, *headers;
    int seq;
    if (!PyArg_ParseTuple(args, "O!Oi", &PyList_Type, &events, &headers, &seq))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(events);
    int same = PyBytes_Check(headers);
    if (!same && !(PyList_Check(headers) && PyList_GET_SIZE(headers) == n))
        Py_RETURN_NONE;
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *event = PyList_GET_ITEM(events, i);
        PyObject *header = same ? headers : PyList_GET_ITEM(headers, i);
        if (!PyBytes_Check(event) || !PyBytes_Check(header))
            Py_RETURN_NONE;
        size_t size = 1 + (size_t)PyBytes_GET_SIZE(header) + (size_t)PyBytes_GET_SIZE(event);
        if (size >= MAX_PAYLOAD)
            Py_RETURN_NONE;
        total += 4 + size;
    }
    if (total > (size_t)PY_SSIZE_T_MAX)
        Py_RETURN_NONE;
    PyObject *wire = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (wire == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(wire);
    unsigned int s = (unsigned int)seq & 0xFF;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *event = PyList_GET_ITEM(events, i);
        PyObject *header = same ? headers : PyList_GET_ITEM(headers, i);
        size_t header_len = (size_t)PyBytes_GET_SIZE(header), event_len = (size_t)PyBytes_GET_SIZE(event);
        put32(p, (uint32_t)(1 + header_len + event_len) | (uint32_t)s << 24);
        p[4] = 0;  /* the OK byte */
        memcpy(p + 5, PyBytes_AS_STRING(header), header_len);
        memcpy(p + 5 + header_len, PyBytes_AS_STRING(event), event_len);
        p += 5 + header_len + event_len;
        s = ack_requested(header) ? 1 : (s + 1) & 0xFF;
    }
    return Py_BuildValue("(Ni)", wire, (int)s);
}

static PyObject *constants(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:i,s:i}", "HEADER_LEN", HEADER_LEN, "CHECKSUM_LEN", CHECKSUM_LEN,
                         "TYPE_FD", TYPE_FD, "MAX_PAYLOAD", MAX_PAYLOAD, "SEMI_SYNC_MAGIC", SEMI_SYNC_MAGIC,
                         "SEMI_SYNC_ACK_REQUESTED", SEMI_SYNC_ACK_REQUESTED);
}

static PyMethodDef methods[] = {
    {"encode_events", encode_events, METH_VARARGS,
     "encode_events(specs, server_id, offset, checksum) -> [(start, event), ...] or None"},
    {"frame_events", frame_events, METH_VARARGS, "frame_events(events, headers, seq) -> (wire, next_seq) or None"},
    {"CONSTANTS", constants, METH_NOARGS, "the layout constants this module was built with"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "protocol._framing",
    .m_doc = "a commit group's binlog events encoded and a dump's batch framed, each in one call",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__framing(void) {
    return PyModule_Create(&module);
}
