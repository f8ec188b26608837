/* engine._walframes: SQLite's "unix-excl" VFS with each WAL frame written in one system call.

Contract:

    register(version) -> bool

registers the VFS "unix-excl-frames" (not as the default) in the libsqlite3 that the sqlite3
module uses, and returns True (True again on a later call); False, having registered nothing,
when no libsqlite3 is already loaded as "libsqlite3.so.0" whose sqlite3_libversion_number() is
`version` (the sqlite3 module's sqlite_version_info as one number, 3040001 for 3.40.1: a module
that links SQLite statically does not load that library), or when that library has no
"unix-excl". engine.connections then opens every engine file through it, else through
"unix-excl" itself (the fallback: the same files, written the same way, one call more per frame).

What it is: a shim over unix-excl, which it opens every file with (unix-excl's own VFS object is
passed down, so its exclusive process lock and its WAL-index in memory are unchanged, and a
connection through either VFS shares the same locks). A file that is not a WAL is unix-excl's
file and nothing else: its methods are unix-excl's, the shim is not in its path. A WAL file
(SQLITE_OPEN_WAL) gets the shim's methods around unix-excl's, for one reason: SQLite writes a
WAL frame as two writes, the 24-byte frame header and then the page at the offset right after
it (wal.c, walWriteOneFrame: walWriteToLog twice), and no SQLite option joins them. The shim
holds a 24-byte write in the file's buffer; when the next call on the file is the write that
starts where the held bytes end, the header and that write go to unix-excl's xWrite as one
(one pwrite64). Every other call on the file first writes the held header as it would have been
written (any other write, then that write; a read, truncate, sync, file size, lock, file
control, shared-memory call, close), so the writes reach the file in SQLite's order with
SQLite's bytes, every sync covers what SQLite wrote before it, and a held header never outlives
its frame's two writes. One 24-byte write is never held: one at the offset the call just before
it read from, which is walRewriteChecksums re-reading a frame and rewriting its header, with no
page after it (held, the last one could outlast the commit under synchronous NORMAL, which
syncs nothing). xSectorSize and xDeviceCharacteristics touch no bytes and flush nothing.
A failed write of a held header is reported by the call that wrote it: its frame's page write
(SQLite fails the frame set at either write) or the call that flushed it. A file is used by one
connection at a time (SQLite's rule for a WAL handle), so its held header needs no lock.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_HEADER 24   /* a WAL frame header's size (wal.c WAL_FRAME_HDRSIZE) */
#define LARGEST_PAGE 65536
#define BASE_NAME "unix-excl"
#define NAME "unix-excl-frames"
#define NOTHING (-1)      /* no offset held, or the last call was no read */

typedef struct {
    sqlite3_file base;          /* its methods: wal_methods */
    sqlite3_file *real;         /* unix-excl's file, in the same allocation after this one */
    sqlite3_int64 held_at;      /* the held header's offset, or NOTHING */
    sqlite3_int64 read_at;      /* the last call's offset if it was a read, else NOTHING */
    unsigned char *buffer;      /* the held header, then room for the write joined to it */
    int room;                   /* the buffer's size */
} WalFile;

#define REAL_AT ((int)((sizeof(WalFile) + 7) & ~(size_t)7))

static sqlite3_vfs *base_vfs;   /* unix-excl, set once registered */

/* Writes the held header, if any. */
static int flush(WalFile *f)
{
    if (f->held_at == NOTHING)
        return SQLITE_OK;
    sqlite3_int64 at = f->held_at;
    f->held_at = NOTHING;
    return f->real->pMethods->xWrite(f->real, f->buffer, FRAME_HEADER, at);
}

/* Whatever the call, the held header goes out first and no read is the last call any more. */
static int before(sqlite3_file *file)
{
    WalFile *f = (WalFile *)file;
    f->read_at = NOTHING;
    return flush(f);
}

static int reserve(WalFile *f, int size)
{
    if (size <= f->room)
        return 1;
    unsigned char *grown = realloc(f->buffer, (size_t)size);
    if (grown == NULL)
        return 0;
    f->buffer = grown;
    f->room = size;
    return 1;
}

static int wal_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset)
{
    WalFile *f = (WalFile *)file;
    sqlite3_int64 read_at = f->read_at;
    f->read_at = NOTHING;
    if (f->held_at != NOTHING) {
        if (offset == f->held_at + FRAME_HEADER && amount <= LARGEST_PAGE
                && reserve(f, FRAME_HEADER + amount)) {
            sqlite3_int64 at = f->held_at;
            f->held_at = NOTHING;
            memcpy(f->buffer + FRAME_HEADER, data, (size_t)amount);
            return f->real->pMethods->xWrite(f->real, f->buffer, FRAME_HEADER + amount, at);
        }
        int rc = flush(f);
        if (rc != SQLITE_OK)
            return rc;
    }
    if (amount == FRAME_HEADER && offset != read_at && reserve(f, FRAME_HEADER)) {
        memcpy(f->buffer, data, FRAME_HEADER);
        f->held_at = offset;
        return SQLITE_OK;
    }
    return f->real->pMethods->xWrite(f->real, data, amount, offset);
}

static int wal_read(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    if (rc != SQLITE_OK)
        return rc;
    rc = f->real->pMethods->xRead(f->real, data, amount, offset);
    f->read_at = offset;
    return rc;
}

static int wal_close(sqlite3_file *file)
{
    WalFile *f = (WalFile *)file;
    int flushed = before(file);
    int rc = f->real->pMethods->xClose(f->real);
    free(f->buffer);
    f->buffer = NULL;
    f->room = 0;
    return flushed != SQLITE_OK ? flushed : rc;
}

static int wal_truncate(sqlite3_file *file, sqlite3_int64 size)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int wal_sync(sqlite3_file *file, int flags)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int wal_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int wal_lock(sqlite3_file *file, int level)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xLock(f->real, level);
}

static int wal_unlock(sqlite3_file *file, int level)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xUnlock(f->real, level);
}

static int wal_check_reserved_lock(sqlite3_file *file, int *out)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int wal_file_control(sqlite3_file *file, int op, void *arg)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}

static int wal_sector_size(sqlite3_file *file)
{
    WalFile *f = (WalFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int wal_device_characteristics(sqlite3_file *file)
{
    WalFile *f = (WalFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/* Shared memory and memory maps belong to the database file; a WAL file passes them on. */
static int wal_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **out)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    if (rc != SQLITE_OK)
        return rc;
    if (f->real->pMethods->iVersion < 2)
        return SQLITE_IOERR_SHMMAP;
    return f->real->pMethods->xShmMap(f->real, region, size, extend, out);
}

static int wal_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    if (rc != SQLITE_OK)
        return rc;
    if (f->real->pMethods->iVersion < 2)
        return SQLITE_IOERR_SHMLOCK;
    return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

static void wal_shm_barrier(sqlite3_file *file)
{
    WalFile *f = (WalFile *)file;
    if (f->real->pMethods->iVersion >= 2)
        f->real->pMethods->xShmBarrier(f->real);
}

static int wal_shm_unmap(sqlite3_file *file, int delete_flag)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    if (rc != SQLITE_OK || f->real->pMethods->iVersion < 2)
        return rc;
    return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}

static int wal_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out)
{
    WalFile *f = (WalFile *)file;
    *out = NULL;
    int rc = before(file);
    if (rc != SQLITE_OK || f->real->pMethods->iVersion < 3)
        return rc;
    return f->real->pMethods->xFetch(f->real, offset, amount, out);
}

static int wal_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page)
{
    WalFile *f = (WalFile *)file;
    int rc = before(file);
    if (rc != SQLITE_OK || f->real->pMethods->iVersion < 3)
        return rc;
    return f->real->pMethods->xUnfetch(f->real, offset, page);
}

static const sqlite3_io_methods wal_methods = {
    3,
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    wal_check_reserved_lock,
    wal_file_control,
    wal_sector_size,
    wal_device_characteristics,
    wal_shm_map,
    wal_shm_lock,
    wal_shm_barrier,
    wal_shm_unmap,
    wal_fetch,
    wal_unfetch,
};

static int vfs_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags)
{
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL))
        return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
    WalFile *f = (WalFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)((char *)file + REAL_AT);
    f->held_at = NOTHING;
    f->read_at = NOTHING;
    int rc = base_vfs->xOpen(base_vfs, name, f->real, flags, out_flags);
    /* SQLite closes a file whose open set its methods, failed or not (as unix-excl's does) */
    f->base.pMethods = f->real->pMethods != NULL ? &wal_methods : NULL;
    return rc;
}

/* The rest of the VFS is unix-excl's, called as unix-excl. */
static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    return base_vfs->xDelete(base_vfs, name, sync_dir);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return base_vfs->xAccess(base_vfs, name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out)
{
    (void)vfs;
    return base_vfs->xFullPathname(base_vfs, name, size, out);
}

static void *vfs_dl_open(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return base_vfs->xDlOpen(base_vfs, name);
}

static void vfs_dl_error(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    base_vfs->xDlError(base_vfs, size, out);
}

static void (*vfs_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void)
{
    (void)vfs;
    return base_vfs->xDlSym(base_vfs, handle, symbol);
}

static void vfs_dl_close(sqlite3_vfs *vfs, void *handle)
{
    (void)vfs;
    base_vfs->xDlClose(base_vfs, handle);
}

static int vfs_randomness(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    return base_vfs->xRandomness(base_vfs, size, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds)
{
    (void)vfs;
    return base_vfs->xSleep(base_vfs, microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return base_vfs->xCurrentTime(base_vfs, out);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int size, char *out)
{
    (void)vfs;
    return base_vfs->xGetLastError(base_vfs, size, out);
}

static int vfs_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return base_vfs->xCurrentTimeInt64(base_vfs, out);
}

static int vfs_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call)
{
    (void)vfs;
    return base_vfs->xSetSystemCall(base_vfs, name, call);
}

static sqlite3_syscall_ptr vfs_get_system_call(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return base_vfs->xGetSystemCall(base_vfs, name);
}

static const char *vfs_next_system_call(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return base_vfs->xNextSystemCall(base_vfs, name);
}

static sqlite3_vfs frames_vfs;

/* frames_vfs as unix-excl with the shim's open; each method unix-excl has not, the shim has not. */
static void fill(sqlite3_vfs *base)
{
    frames_vfs = *base;
    frames_vfs.pNext = NULL;
    frames_vfs.zName = NAME;
    frames_vfs.pAppData = NULL;
    frames_vfs.szOsFile = REAL_AT + base->szOsFile;
    frames_vfs.xOpen = vfs_open;
#define FORWARD(method, forwarder) frames_vfs.method = base->method != NULL ? forwarder : NULL
    FORWARD(xDelete, vfs_delete);
    FORWARD(xAccess, vfs_access);
    FORWARD(xFullPathname, vfs_full_pathname);
    FORWARD(xDlOpen, vfs_dl_open);
    FORWARD(xDlError, vfs_dl_error);
    FORWARD(xDlSym, vfs_dl_sym);
    FORWARD(xDlClose, vfs_dl_close);
    FORWARD(xRandomness, vfs_randomness);
    FORWARD(xSleep, vfs_sleep);
    FORWARD(xCurrentTime, vfs_current_time);
    FORWARD(xGetLastError, vfs_get_last_error);
    if (base->iVersion >= 2)
        FORWARD(xCurrentTimeInt64, vfs_current_time_int64);
    if (base->iVersion >= 3) {
        FORWARD(xSetSystemCall, vfs_set_system_call);
        FORWARD(xGetSystemCall, vfs_get_system_call);
        FORWARD(xNextSystemCall, vfs_next_system_call);
    }
#undef FORWARD
}

typedef int (*version_fn)(void);
typedef sqlite3_vfs *(*vfs_find_fn)(const char *);
typedef int (*vfs_register_fn)(sqlite3_vfs *, int);

static PyObject *reg(PyObject *self, PyObject *args)
{
    (void)self;
    int version;
    if (!PyArg_ParseTuple(args, "i", &version))
        return NULL;
    void *lib = dlopen("libsqlite3.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == NULL)
        Py_RETURN_FALSE;
    version_fn loaded = (version_fn)dlsym(lib, "sqlite3_libversion_number");
    vfs_find_fn find = (vfs_find_fn)dlsym(lib, "sqlite3_vfs_find");
    vfs_register_fn add = (vfs_register_fn)dlsym(lib, "sqlite3_vfs_register");
    int ok = 0;
    if (loaded != NULL && find != NULL && add != NULL && loaded() == version) {
        if (base_vfs != NULL) {
            ok = 1;
        } else {
            sqlite3_vfs *base = find(BASE_NAME);
            if (base != NULL && base->xOpen != NULL) {
                fill(base);
                base_vfs = base;
                ok = add(&frames_vfs, 0) == SQLITE_OK;
                if (!ok)
                    base_vfs = NULL;
            }
        }
    }
    dlclose(lib);
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"register", reg, METH_VARARGS, "Register the VFS \"" NAME "\" in the loaded libsqlite3; False if it cannot."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "engine._walframes", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walframes(void)
{
    return PyModule_Create(&module);
}
