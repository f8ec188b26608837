/* engine._collation: utf8mb4_general_ci as a SQLite collation and LIKE in C.

Contract (the compiled twin of engine.collation.compare and engine.collation.like, which stay
the references and the fallbacks; tests/unit/test_collation.py holds each pair equal):

    register(connection, name, table, version) -> bool

installs the collation `name` (UTF-8), the SQL functions like(pattern, text) and
like(pattern, text, escape) (what `text LIKE pattern [ESCAPE escape]` calls) and
mysql_like_bin(pattern, text[, escape]) (a binary collation's LIKE) on the sqlite3.Connection
`connection`. The collation compares two
texts as utf8mb4_general_ci does: each character's weight (`table`: 65536 native 16-bit weights
of the BMP, engine.collation.table(); a character above U+FFFF weighs U+FFFD), the first
differing weight decides; when one text ends, the other's remaining characters are compared
with a space (PAD SPACE: trailing spaces are ignored, a character below the space sorts first).
A byte that does not start a valid UTF-8 sequence weighs U+FFFD and is one character.
like matches character by character by the same weights, without padding: % any run, _ one
character, the escape (exactly one character, else SQLite's error) makes the next literal; a
BLOB on either side makes both match byte for byte; NULL on either side gives NULL.
mysql_like_bin matches the same way by code points (case and accents count; U+FFFD for a bad
byte), as MariaDB's LIKE under utf8mb4_bin.

It returns False, having installed nothing, when it cannot reach the connection's database
handle safely: a CPython whose sqlite3.Connection layout is not known here (the handle is the
object's first field from 3.8 through 3.13), or no libsqlite3 already loaded as
"libsqlite3.so.0" whose sqlite3_libversion_number() is `version` (the sqlite3 module's
sqlite_version_info as one number, 3040001 for 3.40.1; a module that links SQLite statically
does not load that library, or not that version): the caller then installs the Python
comparison. The table is copied once; the collation keeps no other state and may
run on any thread.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SQLITE_OK 0
#define SQLITE_UTF8 1
#define SPACE 0x20
#define REPLACEMENT 0xFFFD

typedef int (*create_collation_fn)(void *db, const char *name, int encoding, void *arg,
                                   int (*compare)(void *, int, const void *, int, const void *),
                                   void (*destroy)(void *));

typedef int (*version_fn)(void);
typedef int (*create_function_fn)(void *db, const char *name, int nargs, int flags, void *arg,
                                  void (*fn)(void *, int, void **), void (*step)(void *, int, void **),
                                  void (*final)(void *), void (*destroy)(void *));

#define SQLITE_BLOB 4
#define SQLITE_NULL 5
#define SQLITE_DETERMINISTIC 0x800
#define ANY (-1)
#define ONE (-2)

/* the SQLite API this module calls, found in the loaded libsqlite3 */
static struct {
    int (*value_type)(void *);
    int (*value_bytes)(void *);
    const unsigned char *(*value_text)(void *);
    const void *(*value_blob)(void *);
    void (*result_int)(void *, int);
    void (*result_null)(void *);
    void (*result_error)(void *, const char *, int);
    void (*result_error_nomem)(void *);
} api;
static int have_api = 0;

typedef struct {  /* CPython 3.8-3.13 Modules/_sqlite/connection.h: the handle comes first */
    PyObject_HEAD
    void *db;
} ConnectionHead;

static uint16_t weights[0x10000];
static int have_weights = 0;

/* The next character's weight; *at moves past it. */
/* The next character's code point (U+FFFD for a byte that starts no valid sequence, an overlong
or out-of-range one); *at moves past it. */
static inline unsigned next_cp(const unsigned char *s, int n, int *at)
{
    int i = *at;
    unsigned c = s[i];
    if (c < 0x80) {
        *at = i + 1;
        return c;
    }
    int len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (len == 0 || i + len > n) {
        *at = i + 1;
        return REPLACEMENT;
    }
    unsigned cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < len; k++) {
        unsigned b = s[i + k];
        if ((b & 0xC0) != 0x80) {
            *at = i + 1;
            return REPLACEMENT;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    *at = i + len;
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return REPLACEMENT;
    return cp;
}

/* The next character's weight; *at moves past it. */
static inline unsigned next_weight(const unsigned char *s, int n, int *at)
{
    unsigned cp = next_cp(s, n, at);
    return cp > 0xFFFF ? REPLACEMENT : weights[cp];
}

enum { BY_WEIGHT, BY_CODE_POINT, BY_BYTE };

/* `s` as the units `mode` matches by; a pattern's % and _ as ANY and ONE, the character after
`escape` (a code point, or -1) literal. Returns the count, or -1 without memory. */
static int units(const unsigned char *s, int n, int mode, int pattern, long escape, int **out)
{
    int *u = malloc(sizeof(int) * (n > 0 ? n : 1));
    if (u == NULL)
        return -1;
    int count = 0, at = 0, literal = 0;
    while (at < n) {
        int cp = mode == BY_BYTE ? s[at++] : (int)next_cp(s, n, &at);
        if (pattern && !literal) {
            if (escape >= 0 && cp == escape && at < n) {
                literal = 1;
                continue;
            }
            if (cp == '%') {
                u[count++] = ANY;
                continue;
            }
            if (cp == '_') {
                u[count++] = ONE;
                continue;
            }
        }
        literal = 0;
        u[count++] = mode == BY_WEIGHT ? (cp > 0xFFFF ? REPLACEMENT : weights[cp]) : cp;
    }
    *out = u;
    return count;
}

static int match(const int *s, int ns, const int *p, int np)
{
    int si = 0, pi = 0, star = -1, mark = 0;
    while (si < ns) {
        if (pi < np && p[pi] == ANY) {
            star = pi++;
            mark = si;
        } else if (pi < np && (p[pi] == ONE || p[pi] == s[si])) {
            si++;
            pi++;
        } else if (star >= 0) {
            pi = star + 1;
            si = ++mark;
        } else {
            return 0;
        }
    }
    while (pi < np && p[pi] == ANY)
        pi++;
    return pi == np;
}

static void like_by(void *ctx, int argc, void **argv, int mode)
{
    if (api.value_type(argv[0]) == SQLITE_NULL || api.value_type(argv[1]) == SQLITE_NULL
            || (argc == 3 && api.value_type(argv[2]) == SQLITE_NULL)) {
        api.result_null(ctx);
        return;
    }
    long escape = -1;
    if (argc == 3) {
        const unsigned char *e = api.value_text(argv[2]);
        int ne = api.value_bytes(argv[2]);
        int at = 0;
        if (e != NULL && ne > 0) {
            unsigned c = e[0];
            int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            if (len <= ne) {
                unsigned v = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
                for (int k = 1; k < len; k++)
                    v = (v << 6) | (e[k] & 0x3F);
                escape = (long)v;
                at = len;
            }
        }
        if (escape < 0 || at != ne) {
            api.result_error(ctx, "ESCAPE expression must be a single character", -1);
            return;
        }
    }
    int binary = api.value_type(argv[0]) == SQLITE_BLOB || api.value_type(argv[1]) == SQLITE_BLOB;
    if (binary)
        mode = BY_BYTE;
    const unsigned char *ps, *ts;
    int np, nt;
    if (binary) {
        ps = api.value_blob(argv[0]);
        np = api.value_bytes(argv[0]);
        ts = api.value_blob(argv[1]);
        nt = api.value_bytes(argv[1]);
    } else {
        ps = api.value_text(argv[0]);
        np = api.value_bytes(argv[0]);
        ts = api.value_text(argv[1]);
        nt = api.value_bytes(argv[1]);
    }
    int *p = NULL, *t = NULL;
    int cp = units(ps ? ps : (const unsigned char *)"", np, mode, 1, escape, &p);
    int ct = cp < 0 ? -1 : units(ts ? ts : (const unsigned char *)"", nt, mode, 0, -1, &t);
    if (cp < 0 || ct < 0) {
        free(p);
        api.result_error_nomem(ctx);
        return;
    }
    api.result_int(ctx, match(t, ct, p, cp));
    free(p);
    free(t);
}

static void like(void *ctx, int argc, void **argv)
{
    like_by(ctx, argc, argv, BY_WEIGHT);
}

static void like_bin(void *ctx, int argc, void **argv)
{
    like_by(ctx, argc, argv, BY_CODE_POINT);
}

static int general_ci(void *arg, int n1, const void *v1, int n2, const void *v2)
{
    (void)arg;
    const unsigned char *s1 = v1, *s2 = v2;
    int i = 0, j = 0;
    while (i < n1 && j < n2) {
        unsigned a = next_weight(s1, n1, &i), b = next_weight(s2, n2, &j);
        if (a != b)
            return a < b ? -1 : 1;
    }
    /* the rest of the longer against the shorter's padding */
    int sign = i < n1 ? 1 : -1;
    const unsigned char *s = i < n1 ? s1 : s2;
    int n = i < n1 ? n1 : n2, at = i < n1 ? i : j;
    while (at < n) {
        unsigned w = next_weight(s, n, &at);
        if (w != SPACE)
            return w > SPACE ? sign : -sign;
    }
    return 0;
}

static PyObject *reg(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *conn;
    const char *name;
    Py_buffer table;
    int version;
    if (!PyArg_ParseTuple(args, "Osy*i", &conn, &name, &table, &version))
        return NULL;
    int ok = 0;
    if (table.len != (Py_ssize_t)sizeof(weights)) {
        PyErr_SetString(PyExc_ValueError, "the weight table holds 65536 16-bit weights");
        PyBuffer_Release(&table);
        return NULL;
    }
    if (!have_weights) {
        memcpy(weights, table.buf, sizeof(weights));
        have_weights = 1;
    }
    PyBuffer_Release(&table);
    if (PY_VERSION_HEX < 0x03080000 || PY_VERSION_HEX >= 0x030E0000
            || strcmp(Py_TYPE(conn)->tp_name, "sqlite3.Connection") != 0)
        Py_RETURN_FALSE;
    void *lib = dlopen("libsqlite3.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == NULL)
        Py_RETURN_FALSE;
    create_collation_fn create = (create_collation_fn)dlsym(lib, "sqlite3_create_collation_v2");
    create_function_fn function = (create_function_fn)dlsym(lib, "sqlite3_create_function_v2");
    version_fn loaded = (version_fn)dlsym(lib, "sqlite3_libversion_number");
    if (!have_api) {
        *(void **)&api.value_type = dlsym(lib, "sqlite3_value_type");
        *(void **)&api.value_bytes = dlsym(lib, "sqlite3_value_bytes");
        *(void **)&api.value_text = dlsym(lib, "sqlite3_value_text");
        *(void **)&api.value_blob = dlsym(lib, "sqlite3_value_blob");
        *(void **)&api.result_int = dlsym(lib, "sqlite3_result_int");
        *(void **)&api.result_null = dlsym(lib, "sqlite3_result_null");
        *(void **)&api.result_error = dlsym(lib, "sqlite3_result_error");
        *(void **)&api.result_error_nomem = dlsym(lib, "sqlite3_result_error_nomem");
        have_api = api.value_type && api.value_bytes && api.value_text && api.value_blob && api.result_int
            && api.result_null && api.result_error && api.result_error_nomem;
    }
    void *db = ((ConnectionHead *)conn)->db;
    if (create != NULL && function != NULL && have_api && loaded != NULL && loaded() == version && db != NULL)
        ok = create(db, name, SQLITE_UTF8, NULL, general_ci, NULL) == SQLITE_OK
            && function(db, "like", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, like, NULL, NULL, NULL) == SQLITE_OK
            && function(db, "like", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, like, NULL, NULL, NULL) == SQLITE_OK
            && function(db, "mysql_like_bin", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, like_bin, NULL, NULL, NULL) == SQLITE_OK
            && function(db, "mysql_like_bin", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, like_bin, NULL, NULL, NULL) == SQLITE_OK;
    dlclose(lib);
    return PyBool_FromLong(ok);
}

static PyObject *compare(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer a, b;
    if (!have_weights) {
        PyErr_SetString(PyExc_RuntimeError, "register() first: it gives the weight table");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "y*y*", &a, &b))
        return NULL;
    int r = general_ci(NULL, (int)a.len, a.buf, (int)b.len, b.buf);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return PyLong_FromLong(r);
}

static PyMethodDef methods[] = {
    {"register", reg, METH_VARARGS, "Install the collation on a sqlite3.Connection; False if it cannot."},
    {"compare", compare, METH_VARARGS, "The collation on two UTF-8 byte strings (for the tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "engine._collation", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__collation(void)
{
    return PyModule_Create(&module);
}
