/* engine._collation: utf8mb4_general_ci as a SQLite collation in C.

Contract (the compiled twin of engine.collation.compare, which stays the reference and the
fallback; tests/unit/test_collation.py holds the two equal):

    register(connection, name, table, version) -> bool

installs the collation `name` (UTF-8) on the sqlite3.Connection `connection`, comparing two
texts as utf8mb4_general_ci does: each character's weight (`table`: 65536 native 16-bit weights
of the BMP, engine.collation.table(); a character above U+FFFF weighs U+FFFD), the first
differing weight decides; when one text ends, the other's remaining characters are compared
with a space (PAD SPACE: trailing spaces are ignored, a character below the space sorts first).
A byte that does not start a valid UTF-8 sequence weighs U+FFFD and is one character.

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
#include <string.h>

#define SQLITE_OK 0
#define SQLITE_UTF8 1
#define SPACE 0x20
#define REPLACEMENT 0xFFFD

typedef int (*create_collation_fn)(void *db, const char *name, int encoding, void *arg,
                                   int (*compare)(void *, int, const void *, int, const void *),
                                   void (*destroy)(void *));

typedef int (*version_fn)(void);

typedef struct {  /* CPython 3.8-3.13 Modules/_sqlite/connection.h: the handle comes first */
    PyObject_HEAD
    void *db;
} ConnectionHead;

static uint16_t weights[0x10000];
static int have_weights = 0;

/* The next character's weight; *at moves past it. */
static inline unsigned next_weight(const unsigned char *s, int n, int *at)
{
    int i = *at;
    unsigned c = s[i];
    if (c < 0x80) {
        *at = i + 1;
        return weights[c];
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
        return REPLACEMENT;  /* overlong or out of range */
    return cp > 0xFFFF ? REPLACEMENT : weights[cp];
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
    version_fn loaded = (version_fn)dlsym(lib, "sqlite3_libversion_number");
    void *db = ((ConnectionHead *)conn)->db;
    if (create != NULL && loaded != NULL && loaded() == version && db != NULL)
        ok = create(db, name, SQLITE_UTF8, NULL, general_ci, NULL) == SQLITE_OK;
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
