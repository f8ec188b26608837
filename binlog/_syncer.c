/* binlog._syncer: fsync calls on a thread that never takes the GIL (binlog/syncer.py).

Contract
- `start() -> (request_fd, done_fd)` starts one detached POSIX thread and hands the caller the
  write end of its request pipe and the read end of its answer pipe (both close-on-exec).
- A request is 8 bytes written to request_fd: a file descriptor and a kind (0: fsync(2),
  1: fdatasync(2), 2 and 3 below), two native int32. The thread takes requests in order and
  answers each with 8 bytes on done_fd: the same descriptor and 0, or the call's errno. Both messages are smaller
  than PIPE_BUF, so each is written whole and read in order.
- Kind 2 (fsync, then send): the 8 bytes are followed by a socket descriptor and a length (two
  native int32, 1 <= length <= SEND_MAX) and `length` bytes; the thread fsyncs the descriptor
  and, only once fsync(2) returned 0, writes the bytes whole to the socket (waiting for room up to
  SEND_WAIT_MS). The answer is the descriptor and fsync's errno when the fsync failed (nothing is
  sent), -1 and send's errno when the send failed (part of the bytes may have left: the caller
  drops the connection), else the descriptor and 0. The whole request is smaller than PIPE_BUF.
  Kind 3 (close): the descriptor is closed after everything requested before it; answered with
  it and 0. A caller that hands the thread a socket this way gives it a descriptor of its own
  (a dup) and takes it back only through kind 3, so that no send can reach a descriptor number
  reused meanwhile.
- Closing request_fd ends the thread once it has answered what it read before; it then closes
  done_fd's write end. An answer to a reader that closed done_fd is dropped (EPIPE: the thread
  runs with every signal blocked, so no SIGPIPE; signals stay the main thread's).
- The thread calls no Python API: the fsync and the answer wake nothing but the reader of
  done_fd, which is what `syncer.Syncer` waits on with the event loop.
- The caller keeps each descriptor open until its answer came (or accepts that a descriptor
  closed meanwhile is answered EBADF, or fsyncs a file that took its number: either is harmless).
*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "_send_whole.h"

typedef struct {
    int requests;
    int answers;
} Ends;

static int read_whole(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r == 0) return 0;  /* closed */
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += (size_t)r;
    }
    return 1;
}

static void write_whole(int fd, const void *buf, size_t n) {
    size_t put = 0;
    while (put < n) {
        ssize_t w = write(fd, (const char *)buf + put, n - put);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;  /* the reader is gone */
        }
        put += (size_t)w;
    }
}

enum { KIND_FSYNC, KIND_FDATASYNC, KIND_FSYNC_SEND, KIND_CLOSE, SEND_MAX = 2048, SEND_WAIT_MS = 10000 };

#define THREAD_NAME "semisync-fsync"

static void *serve(void *arg) {
    Ends ends = *(Ends *)arg;
    free(arg);
    int32_t request[2];
    char payload[SEND_MAX];
    while (read_whole(ends.requests, request, sizeof request) == 1) {
        int32_t answer[2] = {request[0], 0};
        if (request[1] == KIND_CLOSE) {
            close(request[0]);
        } else if (request[1] == KIND_FSYNC_SEND) {
            int32_t target[2];
            if (read_whole(ends.requests, target, sizeof target) != 1 || target[1] < 1 || target[1] > SEND_MAX ||
                read_whole(ends.requests, payload, (size_t)target[1]) != 1)
                break;  /* a malformed request: the caller's bug; stop serving (answers end) */
            if (fsync(request[0]) != 0) {
                answer[1] = (int32_t)errno;
            } else {
                int err = send_whole(target[0], payload, (size_t)target[1], SEND_WAIT_MS);
                if (err) {
                    answer[0] = -1;
                    answer[1] = err;
                }
            }
        } else {
            int rc = request[1] == KIND_FDATASYNC ? fdatasync(request[0]) : fsync(request[0]);
            answer[1] = rc == 0 ? 0 : (int32_t)errno;
        }
        write_whole(ends.answers, answer, sizeof answer);
    }
    close(ends.requests);
    close(ends.answers);
    return NULL;
}

static PyObject *start(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    int req[2], done[2];
    if (pipe2(req, O_CLOEXEC) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    if (pipe2(done, O_CLOEXEC) != 0) {
        int saved = errno;
        close(req[0]);
        close(req[1]);
        errno = saved;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Ends *ends = malloc(sizeof *ends);
    pthread_attr_t attr;
    pthread_t thread;
    int rc = ends == NULL ? ENOMEM : pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        ends->requests = req[0];
        ends->answers = done[1];
        /* the thread starts with every signal blocked (it inherits this mask): signals stay
           the main thread's, and an answer to a closed pipe is EPIPE, never a SIGPIPE */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&thread, &attr, serve, ends);
        if (rc == 0)  /* named before open() returns (ps, top and py-spy show it): it serves until
                         the requests pipe closes, so it is still there */
            pthread_setname_np(thread, THREAD_NAME);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        free(ends);
        close(req[0]);
        close(req[1]);
        close(done[0]);
        close(done[1]);
        errno = rc;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return Py_BuildValue("(ii)", req[1], done[0]);
}

static PyMethodDef methods[] = {
    {"start", start, METH_NOARGS, "start() -> (request_fd, done_fd): a new fsync thread."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "binlog._syncer",
    .m_doc = "fsync calls on a thread that never takes the GIL.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__syncer(void) { return PyModule_Create(&module); }
