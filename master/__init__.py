"""master: the source side of the server (node/ runs it with the replica side).

- `recovery`: the engine and the binlog made to agree at startup (the binlog is the truth).
- `commit`: the group commit pipeline and the WL#4398 hooks between its stages.
- `events`: a committed transaction as statement-based binlog events.
- `binlog_end`: the published binlog end position and its update signal (WL#5721).
- `dump`: `DumpSession`, one slave's binlog dump (WL#5721 Binlog_sender, WL#342 heartbeats).
- `ack_receiver`: the one task reading every dump connection (semi-sync acks).
- `role`: `MasterRole`: commands, source statements, variables.
"""
