/* slave._receiver: a slave's binlog dump read, framed, checked, written to the relay log,
fsynced and acknowledged on a thread that never takes the GIL (slave/receiver.py is its Python
side, slave/io_task.py its user).

Contract
- `Receiver(sock, timeout_ms)` starts one thread on a dup of the connected socket `sock` (the
  thread's own descriptor, closed by `stop`). `wake_fd` is the read end of a pipe the thread
  writes a byte to whenever it queued a record; `take()` returns the queued records in order.
- The thread is paused until told what to do, and pauses again after every record but a
  BATCH that leaves the relay file below `max_size`:
  `go(relay_fd, relay_size, max_size, semisync, checksum, seq, after_ack, ack, ack_pos_at, data)`
  (fast mode) takes the dump's packets as protocol/_dumpscan.h decides, `data` (bytes the caller
  received and did not consume) first; `go_raw()` hands back the bytes the thread holds, else
  the next ones received, as they are (a RAW record). Only a paused thread may be told (else RuntimeError).
- Fast mode, per read(2) of the socket: every whole packet it takes is queued; their events are
  written back to back with one write(2) at the end of the relay file (a dup of `relay_fd`, whose
  size the caller says), then fsync(2); only after the fsync returned 0, and when one of them
  asked for an ack, the ack is written to the socket: `ack` (a whole ack packet from
  protocol.connection.ClientConnection.ack_template) with the last flagged event's log_pos as 8
  bytes little-endian at `ack_pos_at`. Then a BATCH record.
  The first packet it does not take ends the read: a HANDOFF record carries every byte from that
  packet on and the stream state (seq, after_ack) it had before it.
- Other records: CLOSED (the master closed: the bytes after the last packet taken), TIMEOUT
  (nothing received for timeout_ms), RECV_ERROR (errno), RAW (bytes), WRITE_FAILED (errno, and
  the file was cut back to where the batch began: nothing of it stays; no events, the batch
  in `data`),
  SYNC_FAILED (errno; the batch was written, is not durable, and nothing was sent), NOT_SENT
  (errno; the batch is written and durable, the ack did not leave whole: drop the connection).
  Each of them, but RAW, ends the thread's use of the connection: the caller stops it.
- `take()` and `stop()` return `Record`s, a struct sequence (made and read without a Python
  call): (kind, err, data, events, flagged, acked, seq, after_ack, paused). A written batch
  (BATCH, SYNC_FAILED, NOT_SENT) has its `events` as a list of bytes (one per event, in order),
  `flagged` the indexes of those that asked for an ack and `data` empty; every other kind has
  no events and its bytes in `data`. `acked` is the log_pos the ack named, or -1.
- `shutdown()` shuts the socket down (a read in progress ends: CLOSED). `stop()` ends the thread
  (shutting the socket down), waits for it with the GIL released, closes its descriptors and
  returns the records not taken yet: the caller accounts for every batch the thread wrote.
- The thread calls no Python API and runs with every signal blocked (an ack to a closed socket
  is EPIPE, never SIGPIPE).
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../binlog/_send_whole.h"

#include "../protocol/_dumpscan.h"

enum { R_BATCH, R_HANDOFF, R_CLOSED, R_TIMEOUT, R_RECV_ERROR, R_RAW, R_WRITE_FAILED, R_SYNC_FAILED, R_NOT_SENT };
enum { M_PAUSED, M_FAST, M_RAW };
enum { READ_CHUNK = 256 * 1024, ACK_MAX = 2048, SEND_WAIT_MS = 10000 };

typedef struct Record {
    struct Record *next;
    int kind, err;
    uint8_t *data;
    size_t len;
    uint32_t *lengths, *flagged;
    size_t n, nflag;
    long long acked;
    unsigned seq;
    int after_ack, paused;
} Record;

typedef struct {
    uint8_t *p;
    size_t len, cap;
} Buf;

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int started, stopping, mode;
    int sock, relay, wake[2];
    int timeout_ms;
    DumpStream st;
    long long relay_size, max_size;
    uint8_t ack[ACK_MAX];
    size_t ack_len, ack_pos_at;
    Buf in;                     /* bytes received, not taken yet (the thread's while it runs) */
    Record *head, *tail;
} Receiver;

static int buf_reserve(Buf *b, size_t more) {
    if (b->len + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : READ_CHUNK;
    while (cap < b->len + more) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_add(Buf *b, const void *data, size_t n) {
    if (n == 0) return 0;
    if (buf_reserve(b, n) != 0) return -1;
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

static void record_free(Record *r) {
    free(r->data);
    free(r->lengths);
    free(r->flagged);
    free(r);
}

/* queue a record (the thread's side) and wake the reader of wake[0] */
static void push(Receiver *self, Record *r) {
    pthread_mutex_lock(&self->mu);
    if (r->kind != R_BATCH || r->paused) self->mode = M_PAUSED;
    if (self->tail) self->tail->next = r; else self->head = r;
    self->tail = r;
    pthread_mutex_unlock(&self->mu);
    char one = 1;
    while (write(self->wake[1], &one, 1) < 0 && errno == EINTR) {}
}

static Record *record_new(int kind, int err) {
    Record *r = calloc(1, sizeof *r);
    if (r == NULL) abort();  /* no memory for a record: the thread cannot say so otherwise */
    r->kind = kind;
    r->err = err;
    r->acked = -1;
    return r;
}

/* the unconsumed bytes of `in` move into the record */
static void record_rest(Record *r, Buf *in) {
    r->len = in->len;
    if (r->len) {
        r->data = malloc(r->len);
        if (r->data == NULL) abort();
        memcpy(r->data, in->p, r->len);
    }
    in->len = 0;
}

static int write_whole(int fd, const uint8_t *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Fast mode: take the whole packets in `in`, write, fsync, ack, queue. */
static void take_packets(Receiver *self) {
    Buf *in = &self->in;
    Buf out = {0};
    size_t at = 0, n = 0, nflag = 0, cap = 0;
    uint32_t *lengths = NULL, *flagged = NULL;
    uint32_t ack_pos = 0;
    int handoff = 0;
    for (;;) {
        DumpEvent ev;
        long took = dumpscan_take(&self->st, in->p + at, in->len - at, &ev);
        if (took == 0) break;
        if (took < 0) {  /* left to the caller: `st` is the state before it */
            handoff = 1;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            lengths = realloc(lengths, cap * sizeof *lengths);
            flagged = realloc(flagged, cap * sizeof *flagged);
            if (lengths == NULL || flagged == NULL) abort();
        }
        if (buf_add(&out, ev.event, ev.event_len) != 0) abort();
        if (ev.need_ack) {
            flagged[nflag++] = (uint32_t)n;
            ack_pos = ev.log_pos;
        }
        lengths[n++] = (uint32_t)ev.event_len;
        at += (size_t)took;
    }
    /* the packets taken leave `in`; what is left waits for more bytes or goes with the HANDOFF */
    memmove(in->p, in->p + at, in->len - at);
    in->len -= at;
    if (n) {
        Record *r = record_new(R_BATCH, 0);
        r->data = out.p;
        r->len = out.len;
        r->lengths = lengths;
        r->n = n;
        r->flagged = flagged;
        r->nflag = nflag;
        int err = write_whole(self->relay, out.p, out.len);
        if (err) {
            r->kind = R_WRITE_FAILED;
            r->err = err;
            r->n = r->nflag = 0;
            if (ftruncate(self->relay, (off_t)self->relay_size) != 0) {
                /* the file stays longer: the caller's cut-back (RelayLog.cut_back) cuts it */
            }
            push(self, r);
            return;
        }
        if (fsync(self->relay) != 0) {
            r->kind = R_SYNC_FAILED;
            r->err = errno;
            push(self, r);
            return;
        }
        self->relay_size += (long long)out.len;
        if (nflag && self->ack_len) {
            uint8_t ack[ACK_MAX];
            memcpy(ack, self->ack, self->ack_len);
            for (int i = 0; i < 8; i++) ack[self->ack_pos_at + i] = i < 4 ? (uint8_t)(ack_pos >> (8 * i)) : 0;
            int serr = send_whole(self->sock, ack, self->ack_len, SEND_WAIT_MS);
            if (serr) {
                r->kind = R_NOT_SENT;
                r->err = serr;
                push(self, r);
                return;
            }
            r->acked = ack_pos;
        }
        r->seq = self->st.seq;
        r->after_ack = self->st.after_ack;
        r->paused = !handoff && self->relay_size >= self->max_size;
        push(self, r);
    } else {
        free(out.p);
        free(lengths);
        free(flagged);
    }
    if (handoff) {
        Record *h = record_new(R_HANDOFF, 0);
        h->seq = self->st.seq;
        h->after_ack = self->st.after_ack;
        record_rest(h, in);
        push(self, h);
    }
}

static void *serve(void *arg) {
    Receiver *self = arg;
    for (;;) {
        pthread_mutex_lock(&self->mu);
        while (!self->stopping && self->mode == M_PAUSED) pthread_cond_wait(&self->cv, &self->mu);
        int mode = self->stopping ? M_PAUSED : self->mode;
        pthread_mutex_unlock(&self->mu);
        if (mode == M_PAUSED) break;
        if (mode == M_RAW && self->in.len) {
            Record *r = record_new(R_RAW, 0);
            record_rest(r, &self->in);
            push(self, r);
            continue;
        }
        if (mode == M_FAST && self->in.len) {
            take_packets(self);
            pthread_mutex_lock(&self->mu);
            int paused = self->mode == M_PAUSED;
            pthread_mutex_unlock(&self->mu);
            if (paused) continue;
        }
        struct pollfd ready = {.fd = self->sock, .events = POLLIN};
        int rc = poll(&ready, 1, self->timeout_ms > 0 ? self->timeout_ms : -1);
        if (rc < 0) {
            if (errno == EINTR) continue;
            push(self, record_new(R_RECV_ERROR, errno));
            continue;
        }
        if (rc == 0) {
            push(self, record_new(R_TIMEOUT, 0));
            continue;
        }
        if (buf_reserve(&self->in, READ_CHUNK) != 0) abort();
        ssize_t got = recv(self->sock, self->in.p + self->in.len, self->in.cap - self->in.len, 0);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            push(self, record_new(R_RECV_ERROR, errno));
            continue;
        }
        if (got == 0) {
            Record *r = record_new(R_CLOSED, 0);
            record_rest(r, &self->in);
            push(self, r);
            continue;
        }
        self->in.len += (size_t)got;
        if (mode == M_FAST) {
            take_packets(self);
        } else {
            Record *r = record_new(R_RAW, 0);
            record_rest(r, &self->in);
            push(self, r);
        }
    }
    return NULL;
}

/* -- the Python side ------------------------------------------------------------------------ */

static int Receiver_init(Receiver *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"sock", "timeout_ms", NULL};
    int sock, timeout_ms;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ii", kwlist, &sock, &timeout_ms)) return -1;
    if (self->started) {
        PyErr_SetString(PyExc_RuntimeError, "Receiver already started");
        return -1;
    }
    self->sock = self->relay = self->wake[0] = self->wake[1] = -1;
    self->timeout_ms = timeout_ms;
    self->mode = M_PAUSED;
    pthread_mutex_init(&self->mu, NULL);
    pthread_cond_init(&self->cv, NULL);
    self->sock = fcntl(sock, F_DUPFD_CLOEXEC, 0);
    if (self->sock < 0 || pipe2(self->wake, O_CLOEXEC) != 0 ||
        fcntl(self->wake[0], F_SETFL, fcntl(self->wake[0], F_GETFL) | O_NONBLOCK) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    /* the socket stays non-blocking (the loop's): the thread polls before each read */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&self->thread, NULL, serve, self);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        errno = rc;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    self->started = 1;
    return 0;
}

static int set_data(Receiver *self, Py_buffer *data) {
    /* the caller's unconsumed bytes come before anything the thread still holds */
    Buf joined = {0};
    if (buf_add(&joined, data->buf, (size_t)data->len) != 0 ||
        buf_add(&joined, self->in.p, self->in.len) != 0) {
        free(joined.p);
        PyErr_NoMemory();
        return -1;
    }
    free(self->in.p);
    self->in = joined;
    return 0;
}

static int require_paused(Receiver *self) {
    if (!self->started || self->stopping) {
        PyErr_SetString(PyExc_RuntimeError, "the receiver is stopped");
        return -1;
    }
    if (self->mode != M_PAUSED) {
        PyErr_SetString(PyExc_RuntimeError, "the receiver is running: told only while paused");
        return -1;
    }
    return 0;
}

static PyObject *Receiver_go(Receiver *self, PyObject *args) {
    int relay, semisync, checksum, after_ack;
    unsigned seq;
    long long relay_size, max_size;
    Py_buffer ack, data;
    Py_ssize_t ack_pos_at;
    if (!PyArg_ParseTuple(args, "iLLppIpy*ny*", &relay, &relay_size, &max_size, &semisync, &checksum, &seq,
                          &after_ack, &ack, &ack_pos_at, &data))
        return NULL;
    PyObject *result = NULL;
    pthread_mutex_lock(&self->mu);
    if (require_paused(self) != 0) goto done;
    if (ack.len > ACK_MAX || (ack.len && (ack_pos_at < 0 || ack_pos_at + 8 > ack.len))) {
        PyErr_SetString(PyExc_ValueError, "ack template too long, or its position outside it");
        goto done;
    }
    int dup_fd = fcntl(relay, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    if (set_data(self, &data) != 0) {
        close(dup_fd);
        goto done;
    }
    if (self->relay >= 0) close(self->relay);
    self->relay = dup_fd;
    self->relay_size = relay_size;
    self->max_size = max_size;
    self->st.semisync = semisync;
    self->st.checksum = checksum;
    self->st.seq = seq & 0xFF;
    self->st.after_ack = after_ack;
    memcpy(self->ack, ack.buf, (size_t)ack.len);
    self->ack_len = (size_t)ack.len;
    self->ack_pos_at = (size_t)ack_pos_at;
    self->mode = M_FAST;
    pthread_cond_signal(&self->cv);
    result = Py_None;
    Py_INCREF(result);
done:
    pthread_mutex_unlock(&self->mu);
    PyBuffer_Release(&ack);
    PyBuffer_Release(&data);
    return result;
}

static PyObject *Receiver_go_raw(Receiver *self, PyObject *noargs) {
    (void)noargs;
    PyObject *result = NULL;
    pthread_mutex_lock(&self->mu);
    if (require_paused(self) == 0) {
        self->mode = M_RAW;
        pthread_cond_signal(&self->cv);
        result = Py_None;
        Py_INCREF(result);
    }
    pthread_mutex_unlock(&self->mu);
    return result;
}

static PyObject *u32_list(const uint32_t *v, size_t n) {
    PyObject *t = PyList_New((Py_ssize_t)n);
    if (t == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromUnsignedLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyList_SET_ITEM(t, (Py_ssize_t)i, x);
    }
    return t;
}

/* a record's events, each its own bytes object (the relay log's tail keeps them) */
static PyObject *events_list(const Record *r) {
    PyObject *t = PyList_New((Py_ssize_t)r->n);
    if (t == NULL) return NULL;
    size_t at = 0;
    for (size_t i = 0; i < r->n; i++) {
        PyObject *x = PyBytes_FromStringAndSize((const char *)r->data + at, (Py_ssize_t)r->lengths[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyList_SET_ITEM(t, (Py_ssize_t)i, x);
        at += r->lengths[i];
    }
    return t;
}

static PyTypeObject *RecordType;

enum { F_KIND, F_ERR, F_DATA, F_EVENTS, F_FLAGGED, F_ACKED, F_SEQ, F_AFTER_ACK, F_PAUSED, F_COUNT };

static PyStructSequence_Field record_fields[] = {
    {"kind", "BATCH, HANDOFF, CLOSED, ..."},
    {"err", "the errno of a failed read, write, fsync or send"},
    {"data", "the bytes received (HANDOFF, CLOSED, RAW) or of the batch whose write failed (WRITE_FAILED)"},
    {"events", "a written batch's events (BATCH, SYNC_FAILED, NOT_SENT), each a bytes object"},
    {"flagged", "the indexes in events of those that asked for an ack, ascending"},
    {"acked", "the log_pos the ack named, or -1 (none sent)"},
    {"seq", "the stream's next sequence id after the record"},
    {"after_ack", "the stream's last packet asked for an ack"},
    {"paused", "a BATCH after which the thread waits (the relay file reached its max size)"},
    {NULL, NULL},
};

static PyStructSequence_Desc record_desc = {
    "slave._receiver.Record", "One record of the receiver thread (see the module's contract).", record_fields, F_COUNT,
};

/* one record as a Record (a struct sequence: made and read without a Python call) */
static PyObject *record_object(const Record *r) {
    int batch = r->n > 0;  /* a written batch: its events one by one, no data */
    PyObject *item = PyStructSequence_New(RecordType);
    if (item == NULL) return NULL;
    PyObject *fields[F_COUNT] = {
        PyLong_FromLong(r->kind),
        PyLong_FromLong(r->err),
        PyBytes_FromStringAndSize(batch || r->data == NULL ? "" : (const char *)r->data, batch ? 0 : (Py_ssize_t)r->len),
        batch ? events_list(r) : PyList_New(0),
        u32_list(r->flagged, batch ? r->nflag : 0),
        PyLong_FromLongLong(r->acked),
        PyLong_FromUnsignedLong(r->seq),
        PyBool_FromLong(r->after_ack),
        PyBool_FromLong(r->paused),
    };
    int failed = 0;
    for (int i = 0; i < F_COUNT; i++) {
        if (fields[i] == NULL) failed = 1;
        PyStructSequence_SetItem(item, i, fields[i]);  /* the item owns it (NULL: left empty) */
    }
    if (failed) {
        Py_DECREF(item);
        return NULL;
    }
    return item;
}

static PyObject *records_list(Record *r) {
    PyObject *out = PyList_New(0);
    while (out != NULL && r != NULL) {
        PyObject *item = record_object(r);
        if (item == NULL || PyList_Append(out, item) != 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(item);
        r = r->next;
    }
    return out;
}

static Record *detach(Receiver *self) {
    pthread_mutex_lock(&self->mu);
    Record *r = self->head;
    self->head = self->tail = NULL;
    pthread_mutex_unlock(&self->mu);
    return r;
}

static PyObject *take_and_free(Receiver *self) {
    Record *r = detach(self);
    PyObject *out = records_list(r);
    while (r != NULL) {
        Record *next = r->next;
        record_free(r);
        r = next;
    }
    return out;
}

static PyObject *Receiver_take(Receiver *self, PyObject *noargs) {
    (void)noargs;
    char drain[256];
    if (self->wake[0] >= 0) {  /* non-blocking since the pipe was made */
        /* a short read emptied the pipe: no second read to see EAGAIN (a byte written after
           it leaves the pipe readable, and the loop calls take() again) */
        while (read(self->wake[0], drain, sizeof drain) == (ssize_t)sizeof drain) {}
    }
    return take_and_free(self);
}

static PyObject *Receiver_shutdown(Receiver *self, PyObject *noargs) {
    (void)noargs;
    if (self->sock >= 0) shutdown(self->sock, SHUT_RDWR);
    Py_RETURN_NONE;
}

static void end_thread(Receiver *self) {
    if (!self->started) return;
    pthread_mutex_lock(&self->mu);
    self->stopping = 1;
    pthread_cond_signal(&self->cv);
    pthread_mutex_unlock(&self->mu);
    if (self->sock >= 0) shutdown(self->sock, SHUT_RDWR);  /* a poll or recv in progress ends */
    pthread_join(self->thread, NULL);
    self->started = 0;
    if (self->sock >= 0) close(self->sock);
    if (self->relay >= 0) close(self->relay);
    if (self->wake[1] >= 0) close(self->wake[1]);
    self->sock = self->relay = self->wake[1] = -1;
}

static PyObject *Receiver_stop(Receiver *self, PyObject *noargs) {
    (void)noargs;
    Py_BEGIN_ALLOW_THREADS
    end_thread(self);
    Py_END_ALLOW_THREADS
    PyObject *out = take_and_free(self);
    if (self->wake[0] >= 0) {
        close(self->wake[0]);
        self->wake[0] = -1;
    }
    return out;
}

static PyObject *Receiver_wake_fd(Receiver *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->wake[0]);
}

static void Receiver_dealloc(Receiver *self) {
    Py_BEGIN_ALLOW_THREADS
    end_thread(self);
    Py_END_ALLOW_THREADS
    Record *r = detach(self);
    while (r != NULL) {
        Record *next = r->next;
        record_free(r);
        r = next;
    }
    if (self->wake[0] >= 0) close(self->wake[0]);
    free(self->in.p);
    pthread_mutex_destroy(&self->mu);
    pthread_cond_destroy(&self->cv);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Receiver_methods[] = {
    {"go", (PyCFunction)Receiver_go, METH_VARARGS,
     "go(relay_fd, relay_size, max_size, semisync, checksum, seq, after_ack, ack, ack_pos_at, data)"},
    {"go_raw", (PyCFunction)Receiver_go_raw, METH_NOARGS, "go_raw(): the bytes held and the next read as they are"},
    {"take", (PyCFunction)Receiver_take, METH_NOARGS, "take() -> the records queued, in order"},
    {"shutdown", (PyCFunction)Receiver_shutdown, METH_NOARGS, "shut the socket down"},
    {"stop", (PyCFunction)Receiver_stop, METH_NOARGS, "stop() -> the records not taken"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Receiver_getset[] = {
    {"wake_fd", (getter)Receiver_wake_fd, NULL, "the pipe the thread wakes its reader with", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ReceiverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "slave._receiver.Receiver",
    .tp_basicsize = sizeof(Receiver),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Receiver_init,
    .tp_dealloc = (destructor)Receiver_dealloc,
    .tp_methods = Receiver_methods,
    .tp_getset = Receiver_getset,
    .tp_doc = "A binlog dump's receiver thread (see the module's contract).",
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "slave._receiver",
    .m_doc = "A slave's binlog dump received, written, fsynced and acknowledged off the GIL.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__receiver(void) {
    if (PyType_Ready(&ReceiverType) < 0) return NULL;
    if (RecordType == NULL && (RecordType = PyStructSequence_NewType(&record_desc)) == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(RecordType);
    if (PyModule_AddObject(m, "Record", (PyObject *)RecordType) < 0) {
        Py_DECREF(RecordType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ReceiverType);
    if (PyModule_AddObject(m, "Receiver", (PyObject *)&ReceiverType) < 0) {
        Py_DECREF(&ReceiverType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "BATCH", R_BATCH);
    PyModule_AddIntConstant(m, "HANDOFF", R_HANDOFF);
    PyModule_AddIntConstant(m, "CLOSED", R_CLOSED);
    PyModule_AddIntConstant(m, "TIMEOUT", R_TIMEOUT);
    PyModule_AddIntConstant(m, "RECV_ERROR", R_RECV_ERROR);
    PyModule_AddIntConstant(m, "RAW", R_RAW);
    PyModule_AddIntConstant(m, "WRITE_FAILED", R_WRITE_FAILED);
    PyModule_AddIntConstant(m, "SYNC_FAILED", R_SYNC_FAILED);
    PyModule_AddIntConstant(m, "NOT_SENT", R_NOT_SENT);
    return m;
}
