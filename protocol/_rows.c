/* protocol._rows: a result set's rows encoded in one C call, binary or text.

Contract (the compiled twin of protocol.binary.BinaryRowEncoder.encode_rows' per-value path and
of protocol.messages.encode_text_row, which stay the references and the fallbacks;
tests/unit/test_binary_rows_native.py holds each pair equal):

    encode(rows, kinds) -> list[bytes] | None

`rows` is a list or a tuple of rows (anything else: None).
`kinds` has one byte per column, chosen by BinaryRowEncoder from the column definitions:
  'n'  a NULL column (every value sent as NULL);
  's'  a length-encoded string: str (UTF-8) or bytes;
  'b' 'h' 'i' 'q'  a signed integer of 1, 2, 4, 8 bytes, little-endian; 'B' 'H' 'I' 'Q' unsigned;
  'd'  an IEEE double, little-endian.
Each row becomes the payload of a Binary Protocol Resultset Row: 0x00, the NULL bitmap (offset
2, (columns + 9) / 8 bytes), then each non-NULL value in its column's form. A value is taken
only when this function encodes it exactly as the Python encoder would: None, or for 's' an
exact str whose UTF-8 form exists (no lone surrogate) or exact bytes, for an integer kind an
exact int in the kind's range, for 'd' an exact float. Anything else (a row of another width,
a row that is not a tuple, a value of another type, an integer out of range) makes it return None, having encoded
nothing the caller keeps: the Python path then encodes the whole result (and raises what it
raises). Layouts: protocol/binary.py (`_INTEGERS`, `_value_encoder`, `encode_lenenc_bytes`).

    encode_text(rows, columns) -> list[bytes] | None

Each row (a tuple of `columns` values) becomes the payload of a text result set row: per value
the length-encoded bytes of its text, or 0xFB for None. It takes None, an exact str whose UTF-8
form exists, exact bytes and an exact int of 64 bits (its decimal digits); anything else (a
float, a bool, a Decimal, a row of another width) makes it return None, as above.

    frame(payloads, seq) -> tuple[bytes, int] | None

The compiled twin of protocol.packets.frame_payloads (the reference and the fallback;
tests/unit/test_binary_rows_native.py holds the two equal): `payloads` is a list or a tuple of
exact bytes objects, each under MAX_PAYLOAD (0xFFFFFF) bytes; each becomes one packet, its
4-byte header (3-byte little-endian length, sequence id) then the payload, starting at sequence
id `seq` modulo 256 and wrapping; the packets joined and the next sequence id are returned.
Anything else (another container, an item of another type, a payload to be split in chunks)
makes it return None, and the Python path frames them all. Layout: protocol/packets.py.

    answer(kinds, head, rows, closing, seq) -> bytes | None

A binary result set's bytes after its column block in one pass, the compiled twin of
protocol.binary.BinaryRowEncoder.answer's Python path (`head` + frame(encode(rows, kinds) +
[closing], seq)'s bytes; tests/unit/test_binary_rows_native.py holds the two equal): `head`
(exact bytes, copied as they are), then each row as `encode` encodes it, framed as one packet
from sequence id `seq` modulo 256 (wrapping), then the payload `closing` (exact bytes) framed
as the next. Where `encode` declines, or a row's or `closing`'s payload is MAX_PAYLOAD bytes or
more, None (nothing kept): the Python path then answers. `kinds` (`encode`'s) comes first so that
an encoder binds it once (`functools.partial`: `BinaryRowEncoder.native_answer`).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buffer;

static int reserve(Buffer *b, Py_ssize_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    char *data = PyMem_Realloc(b->data, cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static void put_le(char *out, uint64_t v, int width)
{
    for (int i = 0; i < width; i++)
        out[i] = (char)((v >> (8 * i)) & 0xFF);
}

/* A length-encoded string; -1 with an exception set only on memory exhaustion. */
static int put_lenenc(Buffer *b, const char *s, Py_ssize_t n)
{
    if (reserve(b, n + 9) < 0)
        return -1;
    char *out = b->data + b->len;
    uint64_t u = (uint64_t)n;
    if (u < 0xFB) {
        *out++ = (char)u;
    } else if (u < 0x10000) {
        *out++ = (char)0xFC;
        put_le(out, u, 2);
        out += 2;
    } else if (u < 0x1000000) {
        *out++ = (char)0xFD;
        put_le(out, u, 3);
        out += 3;
    } else {
        *out++ = (char)0xFE;
        put_le(out, u, 8);
        out += 8;
    }
    memcpy(out, s, n);
    b->len = (out + n) - b->data;
    return 0;
}

enum { TAKEN = 0, DECLINED = 1, FAILED = -1 };

/* An exact str (UTF-8) or exact bytes, length-encoded: TAKEN, DECLINED (another type, or a str
with a lone surrogate: surrogateescape is the Python path's), FAILED. */
static int put_string(Buffer *b, PyObject *value)
{
    if (PyUnicode_CheckExact(value)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(value, &n);
        if (s == NULL) {
            PyErr_Clear();
            return DECLINED;
        }
        return put_lenenc(b, s, n) < 0 ? FAILED : TAKEN;
    }
    if (PyBytes_CheckExact(value))
        return put_lenenc(b, PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value)) < 0 ? FAILED : TAKEN;
    return DECLINED;
}

/* One non-NULL value of kind `kind` appended: TAKEN, DECLINED (the Python path decides it), FAILED. */
static int put_value(Buffer *b, char kind, PyObject *value)
{
    int width = 0, is_unsigned = 0;
    switch (kind) {
    case 's':
        return put_string(b, value);
    case 'd': {
        if (!PyFloat_CheckExact(value))
            return DECLINED;
        double d = PyFloat_AS_DOUBLE(value);
        uint64_t bits;
        memcpy(&bits, &d, 8);
        if (reserve(b, 8) < 0)
            return FAILED;
        put_le(b->data + b->len, bits, 8);
        b->len += 8;
        return TAKEN;
    }
    case 'b': width = 1; break;
    case 'h': width = 2; break;
    case 'i': width = 4; break;
    case 'q': width = 8; break;
    case 'B': width = 1; is_unsigned = 1; break;
    case 'H': width = 2; is_unsigned = 1; break;
    case 'I': width = 4; is_unsigned = 1; break;
    case 'Q': width = 8; is_unsigned = 1; break;
    default:
        return DECLINED;
    }
    if (!PyLong_CheckExact(value))
        return DECLINED;
    uint64_t bits;
    if (is_unsigned) {
        unsigned long long u = PyLong_AsUnsignedLongLong(value);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {  /* negative or too large */
            PyErr_Clear();
            return DECLINED;
        }
        if (width < 8 && u >> (8 * width))
            return DECLINED;
        bits = u;
    } else {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow)
            return DECLINED;
        if (width < 8) {
            long long lo = -(1LL << (8 * width - 1)), hi = (1LL << (8 * width - 1)) - 1;
            if (v < lo || v > hi)
                return DECLINED;
        }
        bits = (uint64_t)v;
    }
    if (reserve(b, 8) < 0)
        return FAILED;
    put_le(b->data + b->len, bits, width);
    b->len += width;
    return TAKEN;
}

/* One binary row (a tuple of `ncols` values) appended after what `b` holds: 0x00, the NULL
bitmap, the values. */
static int put_binary_row(Buffer *b, PyObject *row, Py_ssize_t ncols, const char *kinds)
{
    Py_ssize_t nbytes = (ncols + 9) / 8, start = b->len;
    if (reserve(b, 1 + nbytes) < 0)
        return FAILED;
    memset(b->data + start, 0, 1 + nbytes);
    b->len = start + 1 + nbytes;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        PyObject *value = PyTuple_GET_ITEM(row, c);
        if (value == Py_None || kinds[c] == 'n') {
            Py_ssize_t bit = c + 2;
            b->data[start + 1 + bit / 8] |= (char)(1 << (bit % 8));
            continue;
        }
        int taken = put_value(b, kinds[c], value);
        if (taken != TAKEN)
            return taken;
    }
    return TAKEN;
}

/* One text row value appended (the text protocol's LenencBytes, or 0xFB for NULL). */
static int put_text(Buffer *b, PyObject *value)
{
    if (value == Py_None) {
        if (reserve(b, 1) < 0)
            return FAILED;
        b->data[b->len++] = (char)0xFB;
        return TAKEN;
    }
    int taken = put_string(b, value);
    if (taken != DECLINED || !PyLong_CheckExact(value))  /* (a bool is not: its text is Python's) */
        return taken;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow)
        return DECLINED;
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", v);
    return put_lenenc(b, digits, n) < 0 ? FAILED : TAKEN;
}

/* One text row appended: its values in turn (`kinds` unused). */
static int put_text_row(Buffer *b, PyObject *row, Py_ssize_t ncols, const char *kinds)
{
    (void)kinds;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        int taken = put_text(b, PyTuple_GET_ITEM(row, c));
        if (taken != TAKEN)
            return taken;
    }
    return TAKEN;
}

typedef int (*PutRow)(Buffer *b, PyObject *row, Py_ssize_t ncols, const char *kinds);

/* Every row's payload through `put_row`: the list, None when a row or value is declined. */
static PyObject *encode_all(PyObject *rows, Py_ssize_t ncols, const char *kinds, PutRow put_row)
{
    if (!PyList_CheckExact(rows) && !PyTuple_CheckExact(rows))
        Py_RETURN_NONE;
    Py_ssize_t nrows = PySequence_Fast_GET_SIZE(rows);
    PyObject *out = PyList_New(nrows);
    if (out == NULL)
        return NULL;
    Buffer b = {NULL, 0, 0};
    int taken = TAKEN;
    for (Py_ssize_t r = 0; r < nrows && taken == TAKEN; r++) {
        PyObject *row = PySequence_Fast_GET_ITEM(rows, r);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != ncols) {
            taken = DECLINED;
            break;
        }
        b.len = 0;
        taken = put_row(&b, row, ncols, kinds);
        if (taken == TAKEN) {
            PyObject *payload = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
            if (payload == NULL)
                taken = FAILED;
            else
                PyList_SET_ITEM(out, r, payload);
        }
    }
    PyMem_Free(b.data);
    if (taken == TAKEN)
        return out;
    Py_DECREF(out);
    if (taken == FAILED)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *encode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows;
    const char *kinds;
    Py_ssize_t ncols;
    if (!PyArg_ParseTuple(args, "Oy#", &rows, &kinds, &ncols))
        return NULL;
    return encode_all(rows, ncols, kinds, put_binary_row);
}

static PyObject *encode_text(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows;
    Py_ssize_t ncols;
    if (!PyArg_ParseTuple(args, "On", &rows, &ncols))
        return NULL;
    return encode_all(rows, ncols, "", put_text_row);
}

#define MAX_PAYLOAD 0xFFFFFF

static PyObject *frame(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *payloads;
    int seq;
    if (!PyArg_ParseTuple(args, "Oi", &payloads, &seq))
        return NULL;
    if (!PyList_CheckExact(payloads) && !PyTuple_CheckExact(payloads))
        Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(payloads), total = 0;
    PyObject **items = PySequence_Fast_ITEMS(payloads);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyBytes_CheckExact(items[i]) || PyBytes_GET_SIZE(items[i]) >= MAX_PAYLOAD)
            Py_RETURN_NONE;
        total += 4 + PyBytes_GET_SIZE(items[i]);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL)
        return NULL;
    char *at = PyBytes_AS_STRING(out);
    unsigned next = (unsigned)seq & 0xFF;
    for (Py_ssize_t i = 0; i < n; i++) {  /* (a list cannot change here: no Python code runs) */
        Py_ssize_t size = PyBytes_GET_SIZE(items[i]);
        put_le(at, (uint64_t)size, 3);
        at[3] = (char)next;
        memcpy(at + 4, PyBytes_AS_STRING(items[i]), size);
        at += 4 + size;
        next = (next + 1) & 0xFF;
    }
    return Py_BuildValue("(Ni)", out, (int)next);
}

/* A packet's header (3-byte little-endian length, sequence id) written at `at`. */
static void put_header(char *at, Py_ssize_t size, unsigned seq)
{
    put_le(at, (uint64_t)size, 3);
    at[3] = (char)seq;
}

static PyObject *answer(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows;
    const char *head, *kinds, *closing;
    Py_ssize_t nhead, ncols, nclosing;
    int seq;
    if (!PyArg_ParseTuple(args, "y#y#Oy#i", &kinds, &ncols, &head, &nhead, &rows, &closing, &nclosing, &seq))
        return NULL;
    if ((!PyList_CheckExact(rows) && !PyTuple_CheckExact(rows)) || nclosing >= MAX_PAYLOAD)
        Py_RETURN_NONE;
    Buffer b = {NULL, 0, 0};
    if (reserve(&b, nhead + 4 + nclosing + 512) < 0)  /* (a point read's answer: no growing) */
        return NULL;
    memcpy(b.data, head, nhead);
    b.len = nhead;
    unsigned next = (unsigned)seq & 0xFF;
    int taken = TAKEN;
    Py_ssize_t nrows = PySequence_Fast_GET_SIZE(rows);
    for (Py_ssize_t r = 0; r < nrows; r++) {  /* (no Python code runs here: the list stays as it is) */
        PyObject *row = PySequence_Fast_GET_ITEM(rows, r);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != ncols) {
            taken = DECLINED;
            break;
        }
        Py_ssize_t at = b.len;
        if (reserve(&b, 4) < 0) {
            taken = FAILED;
            break;
        }
        b.len += 4;
        taken = put_binary_row(&b, row, ncols, kinds);
        if (taken != TAKEN)
            break;
        if (b.len - at - 4 >= MAX_PAYLOAD) {  /* a row split in chunks: the Python path's */
            taken = DECLINED;
            break;
        }
        put_header(b.data + at, b.len - at - 4, next);
        next = (next + 1) & 0xFF;
    }
    if (taken == TAKEN && reserve(&b, 4 + nclosing) < 0)
        taken = FAILED;
    PyObject *out = NULL;
    if (taken == TAKEN) {
        put_header(b.data + b.len, nclosing, next);
        memcpy(b.data + b.len + 4, closing, nclosing);
        b.len += 4 + nclosing;
        out = PyBytes_FromStringAndSize(b.data, b.len);
    }
    PyMem_Free(b.data);
    if (taken == DECLINED)
        Py_RETURN_NONE;
    return out;
}

static PyMethodDef methods[] = {
    {"encode", encode, METH_VARARGS, "encode(rows, kinds) -> list[bytes] | None"},
    {"encode_text", encode_text, METH_VARARGS, "encode_text(rows, columns) -> list[bytes] | None"},
    {"frame", frame, METH_VARARGS, "frame(payloads, seq) -> tuple[bytes, int] | None"},
    {"answer", answer, METH_VARARGS, "answer(kinds, head, rows, closing, seq) -> bytes | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "protocol._rows", NULL, -1, methods};

PyMODINIT_FUNC PyInit__rows(void)
{
    return PyModule_Create(&module);
}
