/* protocol._position: `BinlogPosition` as a compiled type.

Contract (the compiled twin of protocol.position.PyBinlogPosition, which stays the reference and
the fallback where this module is not built; tests/unit/test_position.py runs one battery of
behaviours against both and fails where they differ):
  - BinlogPosition(file, pos), positionally or by keyword; `file` and `pos` read-only attributes
    holding the objects given (a str and an int in every use); `__match_args__` ("file", "pos");
  - immutable: assigning or deleting any attribute raises dataclasses.FrozenInstanceError
    ("cannot assign to field 'name'" / "cannot delete field 'name'");
  - equal by (pos, file) to another BinlogPosition of exactly this type, NotImplemented against
    anything else; hash(p) == hash((p.file, p.pos));
  - ordered as protocol/position.py's header says, with functools.total_ordering's <=, >, >=
    derived from < and ==: the same file orders by pos; different files go to the reference's
    `_lt_other_files` (numeric extensions via file_sequence, LocalProtocolError for different
    basenames), the rare case, looked up in protocol.position at its first use; NotImplemented
    against anything that is not a BinlogPosition;
  - repr "BinlogPosition(file='f', pos=4)", str "f:4"; pickled and copied through __reduce__
    as BinlogPosition(file, pos).
Not subclassable (nothing subclasses a position), and without the reference's way around its
immutability (object.__setattr__ stores into the reference's slots; nothing does that). Called with two positional arguments the type
is built through vectorcall, without an argument tuple: a position is made for every event sent
and every group committed.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *file;
    PyObject *pos;
} Position;

static PyTypeObject *PositionType;  /* a heap type: named BinlogPosition, its module protocol.position */
static PyObject *frozen_error;     /* dataclasses.FrozenInstanceError */
static PyObject *lt_other_files;   /* protocol.position._lt_other_files, at its first use */

static PyObject *make(PyObject *file, PyObject *pos)
{
    Position *self = PyObject_New(Position, PositionType);
    if (self == NULL)
        return NULL;
    Py_INCREF(file);
    Py_INCREF(pos);
    self->file = file;
    self->pos = pos;
    return (PyObject *)self;
}

static PyObject *Position_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"file", "pos", NULL};
    PyObject *file, *pos;
    (void)type;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:BinlogPosition", kwlist, &file, &pos))
        return NULL;
    return make(file, pos);
}

static PyObject *Position_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames == NULL && nargs == 2)
        return make(args[0], args[1]);
    /* keywords or a wrong count: the argument parser's way, with its messages */
    PyObject *tuple = PyTuple_New(nargs);
    if (tuple == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tuple, i, args[i]);
    }
    PyObject *kwds = NULL;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        kwds = PyDict_New();
        if (kwds == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
            if (PyDict_SetItem(kwds, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) {
                Py_DECREF(tuple);
                Py_DECREF(kwds);
                return NULL;
            }
        }
    }
    PyObject *result = Position_new((PyTypeObject *)type, tuple, kwds);
    Py_DECREF(tuple);
    Py_XDECREF(kwds);
    return result;
}

static void Position_dealloc(Position *self)
{
    Py_DECREF(self->file);
    Py_DECREF(self->pos);
    PyObject_Free(self);
    Py_DECREF(PositionType);  /* an instance holds its heap type */
}

static int Position_setattro(PyObject *self, PyObject *name, PyObject *value)
{
    (void)self;
    PyErr_Format(frozen_error, value != NULL ? "cannot assign to field %R" : "cannot delete field %R", name);
    return -1;
}

static PyObject *Position_repr(Position *self)
{
    return PyUnicode_FromFormat("BinlogPosition(file=%R, pos=%R)", self->file, self->pos);
}

static PyObject *Position_str(Position *self)
{
    PyObject *file = PyObject_Format(self->file, NULL);
    if (file == NULL)
        return NULL;
    PyObject *pos = PyObject_Format(self->pos, NULL);
    if (pos == NULL) {
        Py_DECREF(file);
        return NULL;
    }
    PyObject *result = PyUnicode_FromFormat("%U:%U", file, pos);
    Py_DECREF(file);
    Py_DECREF(pos);
    return result;
}

/* hash((file, pos)): CPython's tuple hash (Objects/tupleobject.c, xxHash lanes) over the two
   items' hashes, without building the tuple. */
#if SIZEOF_PY_UHASH_T > 4
#define XXPRIME_1 ((Py_uhash_t)11400714785074694791ULL)
#define XXPRIME_2 ((Py_uhash_t)14029467366897019727ULL)
#define XXPRIME_5 ((Py_uhash_t)2870177450012600261ULL)
#define XXROTATE(x) ((x << 31) | (x >> 33))
#else
#define XXPRIME_1 ((Py_uhash_t)2654435761UL)
#define XXPRIME_2 ((Py_uhash_t)2246822519UL)
#define XXPRIME_5 ((Py_uhash_t)374761393UL)
#define XXROTATE(x) ((x << 13) | (x >> 19))
#endif

static Py_hash_t Position_hash(Position *self)
{
    Py_uhash_t acc = XXPRIME_5;
    PyObject *items[2] = {self->file, self->pos};
    for (int i = 0; i < 2; i++) {
        Py_uhash_t lane = (Py_uhash_t)PyObject_Hash(items[i]);
        if (lane == (Py_uhash_t)-1)
            return -1;
        acc += lane * XXPRIME_2;
        acc = XXROTATE(acc);
        acc *= XXPRIME_1;
    }
    acc += 2 ^ (XXPRIME_5 ^ 3527539UL);
    if (acc == (Py_uhash_t)-1)
        return 1546275796;
    return (Py_hash_t)acc;
}

/* The reference's __eq__ (1 / 0 / -1 on error): pos, then file. */
static int position_eq(Position *a, Position *b)
{
    int r = PyObject_RichCompareBool(a->pos, b->pos, Py_EQ);
    if (r <= 0)
        return r;
    return PyObject_RichCompareBool(a->file, b->file, Py_EQ);
}

/* The reference's __lt__ (1 / 0 / -1 on error). */
static int position_lt(Position *a, Position *b)
{
    int same = PyObject_RichCompareBool(a->file, b->file, Py_EQ);
    if (same < 0)
        return -1;
    if (same)
        return PyObject_RichCompareBool(a->pos, b->pos, Py_LT);
    if (lt_other_files == NULL) {
        PyObject *module = PyImport_ImportModule("protocol.position");
        if (module == NULL)
            return -1;
        lt_other_files = PyObject_GetAttrString(module, "_lt_other_files");
        Py_DECREF(module);
        if (lt_other_files == NULL)
            return -1;
    }
    PyObject *result = PyObject_CallFunctionObjArgs(lt_other_files, (PyObject *)a, (PyObject *)b, NULL);
    if (result == NULL)
        return -1;
    int r = PyObject_IsTrue(result);
    Py_DECREF(result);
    return r;
}

static PyObject *Position_richcompare(PyObject *self, PyObject *other, int op)
{
    if (Py_TYPE(other) != PositionType)
        Py_RETURN_NOTIMPLEMENTED;
    Position *a = (Position *)self, *b = (Position *)other;
    int r;
    switch (op) {
    case Py_EQ:
        r = position_eq(a, b);
        break;
    case Py_NE:
        r = position_eq(a, b);
        if (r >= 0)
            r = !r;
        break;
    case Py_LT:
        r = position_lt(a, b);
        break;
    case Py_LE:  /* total_ordering: a < b or a == b */
        r = position_lt(a, b);
        if (r == 0)
            r = position_eq(a, b);
        break;
    case Py_GE:  /* total_ordering: not a < b */
        r = position_lt(a, b);
        if (r >= 0)
            r = !r;
        break;
    case Py_GT:  /* total_ordering: not a < b and a != b */
        r = position_lt(a, b);
        if (r == 0) {
            r = position_eq(a, b);
            if (r >= 0)
                r = !r;
        } else if (r > 0) {
            r = 0;
        }
        break;
    default:
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

static PyObject *Position_reduce(Position *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("O(OO)", (PyObject *)PositionType, self->file, self->pos);
}

static PyMethodDef Position_methods[] = {
    {"__reduce__", (PyCFunction)Position_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Position_members[] = {
    {"file", T_OBJECT_EX, offsetof(Position, file), READONLY, NULL},
    {"pos", T_OBJECT_EX, offsetof(Position, pos), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot Position_slots[] = {
    {Py_tp_dealloc, Position_dealloc},
    {Py_tp_repr, Position_repr},
    {Py_tp_hash, Position_hash},
    {Py_tp_str, Position_str},
    {Py_tp_getattro, PyObject_GenericGetAttr},
    {Py_tp_setattro, Position_setattro},
    {Py_tp_doc, "An immutable value: equal and hashed by (file, pos), ordered as protocol.position's header says."},
    {Py_tp_richcompare, Position_richcompare},
    {Py_tp_methods, Position_methods},
    {Py_tp_members, Position_members},
    {Py_tp_new, Position_new},
    {0, NULL},
};

/* A heap type, so that its name is BinlogPosition (as in the reference's messages) and its
   __module__, set at init, protocol.position (where pickle finds it). */
static PyType_Spec Position_spec = {
    .name = "BinlogPosition",
    .basicsize = sizeof(Position),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Position_slots,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "protocol._position", NULL, -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__position(void)
{
    PyObject *dataclasses = PyImport_ImportModule("dataclasses");
    if (dataclasses == NULL)
        return NULL;
    frozen_error = PyObject_GetAttrString(dataclasses, "FrozenInstanceError");
    Py_DECREF(dataclasses);
    if (frozen_error == NULL)
        return NULL;
    PositionType = (PyTypeObject *)PyType_FromSpec(&Position_spec);
    if (PositionType == NULL)
        return NULL;
    PositionType->tp_vectorcall = Position_vectorcall;
    PyObject *match_args = Py_BuildValue("(ss)", "file", "pos");
    if (match_args == NULL)
        return NULL;
    int failed = PyDict_SetItemString(PositionType->tp_dict, "__match_args__", match_args);
    Py_DECREF(match_args);
    PyObject *module_name = PyUnicode_FromString("protocol.position");
    if (module_name == NULL)
        return NULL;
    failed = failed || PyDict_SetItemString(PositionType->tp_dict, "__module__", module_name);
    Py_DECREF(module_name);
    if (failed)
        return NULL;
    PyType_Modified(PositionType);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(PositionType);
    if (PyModule_AddObject(m, "BinlogPosition", (PyObject *)PositionType) < 0) {
        Py_DECREF(PositionType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
