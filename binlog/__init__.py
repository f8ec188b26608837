"""Binlog and relay log files: the writer, readers, the `.index`, torn-tail recovery.

File I/O for binlogs lives here (protocol/events.py stays sans-IO). See `binlog.writer` for who
may call what and what is durable when, `binlog.reader` for readers and recovery.
"""

from binlog.index import file_name, index_path, next_file_name, read_index, write_index
from binlog.reader import (
    BinlogFileError,
    ScanResult,
    cut_file,
    file_checksum,
    iter_all,
    iter_checked,
    iter_events,
    iter_range,
    scan_file,
    truncate_torn_tail,
)
from binlog.writer import BinlogWriter, EventSpec

__all__ = [
    "BinlogFileError",
    "BinlogWriter",
    "EventSpec",
    "ScanResult",
    "cut_file",
    "file_checksum",
    "file_name",
    "index_path",
    "iter_all",
    "iter_checked",
    "iter_events",
    "iter_range",
    "next_file_name",
    "read_index",
    "scan_file",
    "truncate_torn_tail",
    "write_index",
]
