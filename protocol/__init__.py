"""Sans-IO MySQL client/server and replication wire formats.

Nothing in this package touches a socket, a file, a clock or an event loop: callers feed bytes in
and take typed values out, or hand typed values in and take bytes out. `construct` is used only
here. The only exception type that leaves this package is `protocol.errors.ProtocolError` (and its
subclasses); parser exceptions are translated at the boundary.
"""
