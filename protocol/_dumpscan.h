/* protocol/_dumpscan.h: the packets of a binlog dump as a slave receives them, taken one at a
time, sans I/O (bytes in, a decision out). Included by slave/_receiver.c, whose thread frames
and checks a dump with it without the GIL.

Contract (the compiled twin of what the Python path decides for one event packet:
protocol.connection.ClientConnection.next_binlog_payloads for the framing and the sequence ids,
the semi-sync slave plugin's header split (protocol.semisync_wire.split_semisync_headers), and
slave.io_task.IoTask._queue_event's checks; tests/unit/test_slave_receiver.py holds the two
paths to the same relay log bytes and acks):

    long dumpscan_take(DumpStream *st, const uint8_t *buf, size_t len, DumpEvent *out)

looks at the packet at buf[0..len). It returns the packet's whole length (header included) when
it takes it: an event packet (OK byte) with the expected sequence id (the next one, or 1 after
a packet that asked for an ack), on a semi-sync stream the EF magic and a flag of 0 or 1, whose
event has a whole v4 header, an event_size equal to its length, a log_pos other than 0, no
LOG_EVENT_ARTIFICIAL_F, is not a FORMAT_DESCRIPTION, ROTATE or heartbeat, and (`checksum`) ends
with a CRC32 that matches. `out` then holds the event (inside `buf`), whether it asked for an ack
and its log_pos, and `st` has moved past it. It returns 0 when the packet is not whole yet
(nothing decided) and -1 when it leaves the packet to the Python path (which verifies it, raises
or decides it): a packet of 16 MiB or more, anything else above, an ERR or EOF. Nothing of a
packet it does not take changes `st`.
Layouts: the MySQL packet header, the semi-sync header (protocol/semisync_wire.py) and the binlog
v4 event header (protocol/events.py); the constants are checked against them by the tests.
*/
#ifndef SEMISYNC_DUMPSCAN_H
#define SEMISYNC_DUMPSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

enum {
    DS_PACKET_HEADER = 4, DS_PACKET_MAX = 0xFFFFFF, DS_OK = 0x00,
    DS_SEMISYNC_MAGIC = 0xEF, DS_SEMISYNC_HEADER = 2,
    DS_EVENT_HEADER = 19, DS_TYPE_AT = 4, DS_EVENT_SIZE_AT = 9, DS_LOG_POS_AT = 13, DS_FLAGS_AT = 17,
    DS_ARTIFICIAL_F = 0x20, DS_CHECKSUM_LEN = 4,
    DS_T_ROTATE = 4, DS_T_FD = 15, DS_T_HEARTBEAT = 27, DS_T_HEARTBEAT_V2 = 41,
};

/* zlib's CRC-32 of a message followed by its own CRC-32 (little-endian), whatever the message */
#define DS_CRC32_RESIDUE 0x2144DF1Cu

typedef struct {
    int semisync;      /* packets carry the semi-sync header */
    int checksum;      /* events end with a CRC32 */
    unsigned seq;      /* the sequence id the next packet should have */
    int after_ack;     /* the last packet asked for an ack: the master may restart at 1 */
} DumpStream;

typedef struct {
    const uint8_t *event;
    size_t event_len;
    int need_ack;
    uint32_t log_pos;
} DumpEvent;

static inline uint32_t ds_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline long dumpscan_take(DumpStream *st, const uint8_t *buf, size_t len, DumpEvent *out) {
    if (len < DS_PACKET_HEADER) return 0;
    size_t plen = (size_t)buf[0] | (size_t)buf[1] << 8 | (size_t)buf[2] << 16;
    unsigned seq = buf[3];
    if (plen == DS_PACKET_MAX) return -1;
    if (len < DS_PACKET_HEADER + plen) return 0;
    if (!(seq == st->seq || (st->after_ack && seq == 1))) return -1;
    const uint8_t *p = buf + DS_PACKET_HEADER;
    if (plen < 1 || p[0] != DS_OK) return -1;
    size_t skip = 1;
    int need_ack = 0;
    if (st->semisync) {
        if (plen < 1 + DS_SEMISYNC_HEADER || p[1] != DS_SEMISYNC_MAGIC || p[2] > 1) return -1;
        need_ack = p[2];
        skip += DS_SEMISYNC_HEADER;
    }
    const uint8_t *ev = p + skip;
    size_t elen = plen - skip;
    if (elen < DS_EVENT_HEADER) return -1;
    unsigned type = ev[DS_TYPE_AT];
    uint32_t log_pos = ds_le32(ev + DS_LOG_POS_AT);
    unsigned flags = (unsigned)ev[DS_FLAGS_AT] | (unsigned)ev[DS_FLAGS_AT + 1] << 8;
    if (ds_le32(ev + DS_EVENT_SIZE_AT) != elen || log_pos == 0 || (flags & DS_ARTIFICIAL_F) ||
        type == DS_T_ROTATE || type == DS_T_FD || type == DS_T_HEARTBEAT || type == DS_T_HEARTBEAT_V2)
        return -1;
    if (st->checksum && (elen < DS_EVENT_HEADER + DS_CHECKSUM_LEN ||
                         crc32(0L, ev, (uInt)elen) != DS_CRC32_RESIDUE))
        return -1;
    st->seq = (seq + 1) & 0xFF;
    st->after_ack = st->semisync && need_ack;
    out->event = ev;
    out->event_len = elen;
    out->need_ack = need_ack;
    out->log_pos = log_pos;
    return (long)(DS_PACKET_HEADER + plen);
}

#endif
