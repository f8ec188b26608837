"""setuptools (the rest of the configuration is in pyproject.toml): the C parts, each optional
(without a C compiler the install goes on without it, and its Python twin is used):
- `pipeline/_binlog_scan.c`, the scanner of the `binlog` Spark source, a plain C library loaded
  with ctypes by `pipeline/native.py` (else the source's numpy decoder);
- `engine/_lexer.c`, the literal extractor of every statement (`engine.lexer.extract`; else
  `engine.lexer._literals_py`);
- `binlog/_syncer.c`, the fsync thread of `binlog.syncer.NativeSyncer` (a slave's relay log;
  else the IO task's Python thread lane);
- `protocol/_eventscan.c`, a read's events checked and followed in one call on a slave's IO task
  (`protocol.eventscan`; else the IO task's per-event path);
- `protocol/_rows.c`, a result set's rows encoded in one call (`protocol.binary
  .BinaryRowEncoder.encode_rows`, `protocol.messages.ResultSet.payloads`; else their per-value
  paths), a response's packets framed in one (`protocol.packets.frame_payloads`; else its
  loop) and a kept read's rows both encoded and framed in one (`protocol.binary
  .BinaryRowEncoder.answer`; else those two);
- `protocol/_framing.c` (linked with zlib), a commit group's binlog events encoded in one call
  (`protocol.events.encode_events`) and a dump's batch of them framed as packets in one
  (`protocol.connection.ServerConnection.send_events`; else their per-event loops);
- `engine/_collation.c`, utf8mb4_general_ci as a SQLite collation (`engine.collation.register`;
  else `engine.collation.compare`, a Python call per comparison);
- `protocol/_position.c`, `BinlogPosition` as a compiled type (`protocol.position`; else
  `protocol.position.PyBinlogPosition`);
- `slave/_receiver.c` (with `protocol/_dumpscan.h`, linked with zlib), the thread that reads,
  writes, fsyncs and acks a slave's dump (`slave.receiver.NativeReceiver`; else the IO task
  reads on its loop);
- `engine/_walframes.c` (with SQLite's header, `sqlite3.h`; it calls the libsqlite3 the sqlite3
  module loaded, it links none), the engine files' VFS that writes each WAL frame in one system
  call (`engine.connections.VFS`, "unix-excl-frames"; else SQLite's "unix-excl")."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("pipeline._binlog_scan", ["pipeline/_binlog_scan.c"], optional=True,
              extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"]),
    Extension("engine._lexer", ["engine/_lexer.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("binlog._syncer", ["binlog/_syncer.c"], optional=True, depends=["binlog/_send_whole.h"],
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("protocol._eventscan", ["protocol/_eventscan.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("protocol._rows", ["protocol/_rows.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("protocol._framing", ["protocol/_framing.c"], optional=True, libraries=["z"],
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("protocol._position", ["protocol/_position.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("engine._collation", ["engine/_collation.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("slave._receiver", ["slave/_receiver.c"], optional=True, libraries=["z"],
              depends=["protocol/_dumpscan.h", "binlog/_send_whole.h"], extra_compile_args=["-O2", "-Wall", "-Wextra"]),
    Extension("engine._walframes", ["engine/_walframes.c"], optional=True,
              extra_compile_args=["-O2", "-Wall", "-Wextra"]),
])
