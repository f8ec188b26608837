/* binlog._syncer: fsync calls on a thread that never takes the GIL (binlog/syncer.py).

Contract
- `start() -> (request_fd, done_fd)` starts one detached POSIX thread and hands the caller the
  write end of its request pipe and the read end of its answer pipe (both close-on-exec).
- A request is 8 bytes written to request_fd: a file descriptor and a kind (0: fsync(2),
  1: fdatasync(2)), two native int32. The thread takes requests in order and answers each with
  8 bytes on done_fd: the same descriptor and 0, or the call's errno. Both messages are smaller
  than PIPE_BUF, so each is written whole and read in order.
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
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

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

static void *serve(void *arg) {
    Ends ends = *(Ends *)arg;
    free(arg);
    int32_t request[2];
    while (read_whole(ends.requests, request, sizeof request) == 1) {
        int rc = request[1] ? fdatasync(request[0]) : fsync(request[0]);
        int32_t answer[2] = {request[0], rc == 0 ? 0 : (int32_t)errno};
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
