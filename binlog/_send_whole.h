/* binlog/_send_whole.h: bytes written whole to a non-blocking socket from a thread that never
takes the GIL (binlog/_syncer.c's acks after an fsync, slave/_receiver.c's acks). Waits for room
up to wait_ms at a time; returns 0, or the errno that stopped it (ETIMEDOUT: no room in time;
part of the bytes may have left: the caller drops the connection). MSG_NOSIGNAL: a closed peer
is EPIPE, never SIGPIPE. */
#ifndef SEMISYNC_SEND_WHOLE_H
#define SEMISYNC_SEND_WHOLE_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>

static int send_whole(int sock, const void *buf, size_t n, int wait_ms) {
    const char *p = buf;
    while (n) {
        ssize_t w = send(sock, p, n, MSG_NOSIGNAL);
        if (w >= 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return errno;
        struct pollfd room = {.fd = sock, .events = POLLOUT};
        int ready = poll(&room, 1, wait_ms);
        if (ready == 0) return ETIMEDOUT;
        if (ready < 0 && errno != EINTR) return errno;
    }
    return 0;
}

#endif
