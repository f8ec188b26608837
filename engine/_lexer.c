/* engine._lexer: the compiled literal extractor of engine/lexer.py.

Contract (the same as `engine.lexer._extract_py`, which is the reference: tests hold the two
equal on every input, tests/unit/test_lexer_native.py)
- `extract(sql: str) -> (shape, literals) | None`: one pass over the text, as
  `_LITERALS.finditer` goes: at each position the alternatives are tried in the pattern's order
  (quoted identifier and comments, which are skipped; string; hex; bits; number; `?`), with the
  pattern's backtracking resolved by hand (an unterminated quoted run closes at the first quote
  of its last doubled pair; a number ends where the pattern's lookahead lets it end). Each
  literal becomes `?` in the shape and its value, decoded with MySQL's rules, goes to the list:
  strings with backslash escapes and the doubled quote of their own kind, numbers as int (below
  2**63), the digits as `engine.lexer.Digits` (BIGINT UNSIGNED and beyond: a str that says it
  was a number, not a quoted string), float (an exponent, or a point
  and at most 15 digits) or decimal.Decimal (a point and more digits: exact),
  X'..' as bytes. Without literals the shape is `sql`
  itself. A string that follows a string with nothing but blanks (space, \t, \n, \r, \f, \v) and comments between is MySQL's
  one literal, their values concatenated ('a' 'b' is 'ab'): one `?`, one value, what was between dropped.
- None: the text has a bare `?` (the Python path raises 1064 with its position), or a 0x.. or
  bit literal (MariaDB's hybrid: the Python path builds its value and marks the shape). Executable
  comments are replaced by the caller before.
- Character classes are Python's for str patterns: \w is alphanumeric or `_`, \d a Unicode
  decimal digit; the first character of a number, hex and bit digits are ASCII.
The module keeps no state and takes the GIL throughout (it builds Python objects). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NONE ((Py_UCS4)0xFFFFFFFFu)

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

static inline Py_UCS4 ch(const Text *t, Py_ssize_t i) {
    return (i >= 0 && i < t->n) ? PyUnicode_READ(t->kind, t->data, i) : NONE;
}

static inline int is_word(Py_UCS4 c) {  /* [\w$] */
    return c != NONE && (c == '_' || c == '$' || Py_UNICODE_ISALNUM(c));
}

static inline int is_decimal(Py_UCS4 c) {  /* \d */
    return c != NONE && Py_UNICODE_ISDECIMAL(c);
}

static inline int is_hex(Py_UCS4 c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int is_bit(Py_UCS4 c) { return c == '0' || c == '1'; }

static Py_ssize_t find_char(const Text *t, Py_ssize_t from, Py_UCS4 c) {
    for (Py_ssize_t i = from; i < t->n; i++)
        if (PyUnicode_READ(t->kind, t->data, i) == c)
            return i;
    return -1;
}

/* A run opened by quote q at p: `q[^q\\]*(?:(?:\\.|qq)[^q\\]*)*q` (escapes only when `escapes`).
   Returns its end, or -1. At the end of the text without a closing quote the pattern backtracks
   to its last doubled pair, whose first quote closes the run. */
static Py_ssize_t quoted_end(const Text *t, Py_ssize_t p, Py_UCS4 q, int escapes) {
    Py_ssize_t i = p + 1, last_pair = -1;
    while (i < t->n) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if (escapes && c == '\\') {
            if (i + 1 >= t->n)
                break;
            i += 2;
        } else if (c == q) {
            if (ch(t, i + 1) != q)
                return i + 1;
            last_pair = i;
            i += 2;
        } else {
            i++;
        }
    }
    return last_pair >= 0 ? last_pair + 1 : -1;
}

/* `[eE][-+]?\d+` at k: its end, or -1. */
static Py_ssize_t exponent_end(const Text *t, Py_ssize_t k) {
    Py_UCS4 c = ch(t, k);
    if (c != 'e' && c != 'E')
        return -1;
    Py_ssize_t m;
    Py_UCS4 s = ch(t, k + 1);
    if ((s == '+' || s == '-') && is_decimal(ch(t, k + 2)))
        m = k + 2;
    else if (is_decimal(s))
        m = k + 1;
    else
        return -1;
    while (is_decimal(ch(t, m)))
        m++;
    return m;
}

/* `(?:\d+(?:\.(?!\.)\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?![\w$])` at p (the lookbehind is the
   caller's; a point before another is no number's but a range's, FOR's `1..3`): the
   first end, in the pattern's order of tries, that the lookahead accepts; -1 if none. A shorter
   digit run is never accepted (a digit follows it), so each branch has one candidate per
   exponent choice. */
static Py_ssize_t number_end(const Text *t, Py_ssize_t p) {
    Py_UCS4 c = ch(t, p);
    Py_ssize_t e;
    if (c >= '0' && c <= '9') {
        Py_ssize_t i = p + 1;
        while (is_decimal(ch(t, i)))
            i++;
        if (ch(t, i) == '.' && ch(t, i + 1) != '.') {
            Py_ssize_t j = i + 1;
            while (is_decimal(ch(t, j)))
                j++;
            e = exponent_end(t, j);
            if (e >= 0 && !is_word(ch(t, e)))
                return e;
            if (!is_word(ch(t, j)))
                return j;
            return i;  /* without the dot: the dot is no word character */
        }
        e = exponent_end(t, i);
        if (e >= 0 && !is_word(ch(t, e)))
            return e;
        return is_word(ch(t, i)) ? -1 : i;
    }
    if (c == '.' && is_decimal(ch(t, p + 1))) {
        Py_ssize_t j = p + 2;
        while (is_decimal(ch(t, j)))
            j++;
        e = exponent_end(t, j);
        if (e >= 0 && !is_word(ch(t, e)))
            return e;
        return is_word(ch(t, j)) ? -1 : j;
    }
    return -1;
}

enum { LIT_NONE, LIT_STR, LIT_HEX, LIT_BITS, LIT_NUM };

/* A string literal's value: the text between its quotes, `\x` escapes (MySQL's table: \0 \' \"
   \b \n \r \t \Z \\, \% and \_ kept with their backslash, any other character itself) and the
   literal's own quote doubled read as one. */
static PyObject *string_value(PyObject *sql, const Text *t, Py_ssize_t start, Py_ssize_t end) {
    Py_UCS4 q = ch(t, start);
    Py_ssize_t a = start + 1, b = end - 1, i;
    int plain = 1;
    for (i = a; i < b; i++) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if (c == '\\' || (c == q && i + 1 < b && PyUnicode_READ(t->kind, t->data, i + 1) == q)) {
            plain = 0;
            break;
        }
    }
    if (plain)
        return PyUnicode_Substring(sql, a, b);
    Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(2 * (b - a) + 1));
    if (buf == NULL)
        return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (i = a; i < b; i++) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if (c == '\\' && i + 1 < b) {
            Py_UCS4 x = PyUnicode_READ(t->kind, t->data, ++i);
            switch (x) {
            case '0': buf[n++] = 0; break;
            case 'b': buf[n++] = '\b'; break;
            case 'n': buf[n++] = '\n'; break;
            case 'r': buf[n++] = '\r'; break;
            case 't': buf[n++] = '\t'; break;
            case 'Z': buf[n++] = 0x1a; break;
            case '%': case '_': buf[n++] = '\\'; buf[n++] = x; break;
            default: buf[n++] = x; break;  /* \' \" \\ and any other character: itself */
            }
        } else if (c == q && i + 1 < b && PyUnicode_READ(t->kind, t->data, i + 1) == q) {
            buf[n++] = q;
            i++;
        } else {
            buf[n++] = c;
        }
    }
    PyObject *out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n);
    PyMem_Free(buf);
    return out;
}

static int hex_nibble(Py_UCS4 c) {
    if (c <= '9')
        return (int)(c - '0');
    if (c <= 'F')
        return (int)(c - 'A' + 10);
    return (int)(c - 'a' + 10);
}

/* X'..' or 0x..: the digits as bytes, an odd count read with a leading 0. */
static PyObject *hex_value(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t a = start + 2, b = ch(t, start + 1) == '\'' ? end - 1 : end;
    Py_ssize_t digits = b - a, size = (digits + 1) / 2;
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    Py_ssize_t i = a, k = 0;
    if (digits % 2)
        p[k++] = (unsigned char)hex_nibble(ch(t, i++));
    for (; i < b; i += 2)
        p[k++] = (unsigned char)(hex_nibble(ch(t, i)) << 4 | hex_nibble(ch(t, i + 1)));
    return out;
}

/* A number with a point and more digits than a double holds, as an exact decimal.Decimal. */
static PyObject *exact_decimal(PyObject *text) {
    PyObject *module = PyImport_ImportModule("decimal");
    if (module == NULL)
        return NULL;
    PyObject *out = PyObject_CallMethod(module, "Decimal", "O", text);
    Py_DECREF(module);
    return out;
}

/* engine.lexer.Digits, the type of a number literal's digits past BIGINT: looked up when first
   needed (that module imports this one), then kept. */
static PyObject *DIGITS;

static PyObject *past_bigint(PyObject *text) {
    if (DIGITS == NULL) {
        PyObject *module = PyImport_ImportModule("engine.lexer");
        if (module == NULL)
            return NULL;
        DIGITS = PyObject_GetAttrString(module, "Digits");
        Py_DECREF(module);
        if (DIGITS == NULL)
            return NULL;
    }
    return PyObject_CallOneArg(DIGITS, text);
}

/* A number: with an exponent a float; with a point a float, or a Decimal past EXACT_DIGITS
   digits; else int below 2**63, else its digits as a Digits. */
#define EXACT_DIGITS 15
static PyObject *number_value(PyObject *sql, Py_ssize_t start, Py_ssize_t end, const Text *t) {
    PyObject *text = PyUnicode_Substring(sql, start, end);
    if (text == NULL)
        return NULL;
    int point = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if (c == 'e' || c == 'E') {
            PyObject *f = PyFloat_FromString(text);
            Py_DECREF(text);
            return f;
        }
        point |= c == '.';
    }
    if (point) {
        PyObject *out = end - start - 1 > EXACT_DIGITS ? exact_decimal(text) : PyFloat_FromString(text);
        Py_DECREF(text);
        return out;
    }
    PyObject *n = PyLong_FromUnicodeObject(text, 10);
    if (n == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(n, &overflow);
    if (overflow) {
        Py_DECREF(n);
        PyObject *digits = past_bigint(text);
        Py_DECREF(text);
        return digits;
    }
    Py_DECREF(text);
    return n;
}

static int append_steal(PyObject *list, PyObject *item) {
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* Nothing but MySQL's blanks and comments in t[a:b] (between two adjacent string literals;
   a comment there is whole, the pass having skipped it). */
static int gap_only(const Text *t, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t i = a;
    while (i < b) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i), d = ch(t, i + 1), e;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '/' && d == '*') {
            Py_ssize_t k = i + 2;
            while (k + 1 < b && !(PyUnicode_READ(t->kind, t->data, k) == '*'
                                  && PyUnicode_READ(t->kind, t->data, k + 1) == '/'))
                k++;
            if (k + 1 >= b)
                return 0;
            i = k + 2;
        } else if (c == '#' || (c == '-' && d == '-' && ((e = ch(t, i + 2)) == ' ' || e == '\t'
                                                         || e == '\r' || e == '\n'))) {
            Py_ssize_t k = find_char(t, i, '\n');
            if (k < 0 || k >= b)
                return 0;
            i = k + 1;
        } else {
            return 0;
        }
    }
    return 1;
}

static PyObject *QMARK;
static PyObject *EMPTY;

static PyObject *extract(PyObject *module, PyObject *sql) {
    (void)module;
    if (!PyUnicode_Check(sql)) {
        PyErr_SetString(PyExc_TypeError, "extract() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(sql) < 0)
        return NULL;
    Text t = {PyUnicode_KIND(sql), PyUnicode_DATA(sql), PyUnicode_GET_LENGTH(sql)};
    PyObject *params = PyList_New(0), *parts = NULL;
    if (params == NULL)
        return NULL;
    Py_ssize_t pos = 0, last = 0;
    int after_str = 0;  /* the last literal was a string, ending at `last` */
    while (pos < t.n) {
        Py_UCS4 c = PyUnicode_READ(t.kind, t.data, pos);
        Py_ssize_t end = -1;
        int lit = LIT_NONE;
        switch (c) {  /* the skipped runs: quoted identifier, comments */
        case '`':
            end = quoted_end(&t, pos, '`', 0);
            break;
        case '/':
            if (ch(&t, pos + 1) == '*') {
                Py_ssize_t k = pos + 2;
                for (; k + 1 < t.n; k++)
                    if (PyUnicode_READ(t.kind, t.data, k) == '*' && PyUnicode_READ(t.kind, t.data, k + 1) == '/')
                        break;
                end = k + 1 < t.n ? k + 2 : -1;
            }
            break;
        case '-':
            if (ch(&t, pos + 1) == '-') {
                Py_UCS4 d = ch(&t, pos + 2);
                if (d == NONE || d == ' ' || d == '\t' || d == '\r' || d == '\n') {
                    end = find_char(&t, pos + 2, '\n');
                    if (end < 0)
                        end = t.n;
                }
            }
            break;
        case '#':
            end = find_char(&t, pos + 1, '\n');
            if (end < 0)
                end = t.n;
            break;
        }
        if (end >= 0) {
            pos = end;
            continue;
        }
        if (c == '\'' || c == '"') {
            end = quoted_end(&t, pos, c, 1);
            if (end >= 0)
                lit = LIT_STR;
        }
        if (lit == LIT_NONE && (c == 'x' || c == 'X' || c == 'b' || c == 'B' || c == '0')
            && !is_word(ch(&t, pos - 1))) {
            Py_UCS4 d = ch(&t, pos + 1);
            Py_ssize_t k = pos + 2;
            if ((c == 'x' || c == 'X') && d == '\'') {
                while (is_hex(ch(&t, k)))
                    k++;
                if (ch(&t, k) == '\'') {
                    end = k + 1;
                    lit = LIT_HEX;
                }
            } else if (c == '0' && d == 'x' && is_hex(ch(&t, k))) {
                while (is_hex(ch(&t, k)))
                    k++;
                if (!is_word(ch(&t, k))) {
                    end = k;
                    lit = LIT_HEX;
                }
            }
            k = pos + 2;
            if (lit == LIT_NONE && (c == 'b' || c == 'B') && d == '\'') {
                while (is_bit(ch(&t, k)))
                    k++;
                if (ch(&t, k) == '\'') {
                    end = k + 1;
                    lit = LIT_BITS;
                }
            } else if (lit == LIT_NONE && c == '0' && d == 'b' && is_bit(ch(&t, k))) {
                while (is_bit(ch(&t, k)))
                    k++;
                if (!is_word(ch(&t, k))) {
                    end = k;
                    lit = LIT_BITS;
                }
            }
        }
        if (lit == LIT_NONE && ((c >= '0' && c <= '9') || c == '.')) {
            Py_UCS4 before = ch(&t, pos - 1);
            if (!is_word(before) && (before != '.' || ch(&t, pos - 2) == '.')) {  /* after `..`: a range's bound */
                end = number_end(&t, pos);
                if (end >= 0)
                    lit = LIT_NUM;
            }
        }
        if (lit == LIT_BITS || (lit == LIT_HEX && c == '0')) {  /* a hybrid: the Python path's */
            Py_DECREF(params);
            Py_XDECREF(parts);
            Py_RETURN_NONE;
        }
        if (lit == LIT_NONE) {
            if (c == '?') {  /* not MySQL: the Python path raises 1064 where it stands */
                Py_DECREF(params);
                Py_XDECREF(parts);
                Py_RETURN_NONE;
            }
            pos++;
            continue;
        }
        if (lit == LIT_STR && after_str && gap_only(&t, last, pos)) {  /* 'a' 'b': one literal */
            PyObject *tail = string_value(sql, &t, pos, end);
            if (tail == NULL)
                goto fail;
            Py_ssize_t n = PyList_GET_SIZE(params) - 1;
            PyObject *joined = PyUnicode_Concat(PyList_GET_ITEM(params, n), tail);
            Py_DECREF(tail);
            if (joined == NULL)
                goto fail;
            PyList_SetItem(params, n, joined);  /* (steals joined, drops the old value) */
            last = pos = end;
            continue;
        }
        after_str = lit == LIT_STR;
        PyObject *value;
        switch (lit) {
        case LIT_STR: value = string_value(sql, &t, pos, end); break;
        case LIT_HEX: value = hex_value(&t, pos, end); break;
        default: value = number_value(sql, pos, end, &t); break;
        }
        if (append_steal(params, value) < 0)
            goto fail;
        if (parts == NULL && (parts = PyList_New(0)) == NULL)
            goto fail;
        if (append_steal(parts, PyUnicode_Substring(sql, last, pos)) < 0 || PyList_Append(parts, QMARK) < 0)
            goto fail;
        last = pos = end;
    }
    PyObject *shape;
    if (parts == NULL) {
        Py_INCREF(sql);
        shape = sql;
    } else {
        if (append_steal(parts, PyUnicode_Substring(sql, last, t.n)) < 0)
            goto fail;
        shape = PyUnicode_Join(EMPTY, parts);
        Py_DECREF(parts);
        parts = NULL;
        if (shape == NULL)
            goto fail;
    }
    PyObject *out = PyTuple_Pack(2, shape, params);
    Py_DECREF(shape);
    Py_DECREF(params);
    return out;
fail:
    Py_DECREF(params);
    Py_XDECREF(parts);
    return NULL;
}

static PyMethodDef methods[] = {
    {"extract", extract, METH_O, "sql -> (shape, literals), or None for a text with a bare `?`"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine._lexer", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lexer(void) {
    QMARK = PyUnicode_InternFromString("?");
    EMPTY = PyUnicode_InternFromString("");
    if (QMARK == NULL || EMPTY == NULL)
        return NULL;
    return PyModule_Create(&module);
}
