"""LOAD DATA LOCAL INFILE's pieces without a server: the statement's parse, the file cut into
rows and fields by MySQL's rules (server/load_data.py), and the protocol's LOCAL INFILE exchange
(protocol/connection.py: the 0xFB request, the file's packets, the empty one, then the answer).
tests/integration/test_load_data_mariadb.py compares whole loads with MariaDB's."""

from __future__ import annotations

import pytest

from protocol.connection import LocalInfileData, LocalInfileEnd, ServerState
from protocol.errors import LocalProtocolError, SQLError
from protocol.messages import OK, Capability, ComQuery
from protocol.packets import encode_packet
from server.load_data import LoadData, parse, split_rows
from tests.unit.test_connection import login, pump


def test_parse_reads_every_clause_and_refuses_what_is_not_supported():
    load = parse("LOAD DATA LOCAL INFILE '/f.csv' REPLACE INTO TABLE d.t CHARACTER SET utf8mb4 "
                 "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' "
                 "LINES STARTING BY 'x' TERMINATED BY '\\r\\n' IGNORE 2 ROWS (a, `b`)")
    assert load == LoadData("/f.csv", "d", "t", "REPLACE", ",", '"', "\\", "\r\n", "x", 2, ["a", "b"],
                            optionally=True)
    assert parse("LOAD DATA LOCAL INFILE 'f' INTO TABLE t") == LoadData("f", None, "t")
    assert parse("LOAD DATA INFILE 'f' IGNORE INTO TABLE t") == LoadData("f", None, "t", "IGNORE", local=False)
    for sql in ("LOAD XML LOCAL INFILE 'f' INTO TABLE t", "LOAD XML INFILE 'f' INTO TABLE t",
                "LOAD DATA LOCAL INFILE 'f' INTO TABLE t CHARACTER SET latin1"):
        with pytest.raises(SQLError) as refused:
            parse(sql)
        assert refused.value.code == 1235, sql
    assert parse("LOAD DATA INFILE 'f' INTO TABLE t (@a, b, @`c`) SET d = CONCAT(@a, ','), e = (1, 2) > (0, 1)") \
        == LoadData("f", None, "t", columns=["@a", "b", "@c"], assignments=[("d", "CONCAT(@a, ',')"),
                                                                           ("e", "(1, 2) > (0, 1)")], local=False)
    with pytest.raises(SQLError) as bad:
        parse("LOAD DATA LOCAL INFILE 'f' INTO t")
    assert bad.value.code == 1064


def test_rows_and_fields_by_mysqls_rules():
    csv = LoadData("f", None, "t", fields_terminated=",", enclosed='"')
    text = 'h1,h2\n1,"a,b"\n2,"q""x"\n3,"e\\"x"\n4,\\N\n5,NULL\n6,"NULL"\n7,\n\\N,x\\ty\n8'
    assert split_rows(text, LoadData("f", None, "t", fields_terminated=",", enclosed='"', ignore_lines=1)) == [
        ["1", "a,b"], ["2", 'q"x'], ["3", 'e"x'], ["4", None], ["5", None], ["6", "NULL"], ["7", ""],
        [None, "x\ty"], ["8"]]
    assert split_rows("a,b\n", csv) == [["a", "b"]]  # (the last terminator ends no row)
    tab = LoadData("f", None, "t")  # the defaults: tab, newline, backslash, no quotes
    assert split_rows("1\tNULL\t\\N\t\\0\n", tab) == [["1", "NULL", None, "\0"]]
    starting = LoadData("f", None, "t", fields_terminated=";", lines_terminated="|", lines_starting="xx ")
    assert split_rows("xx 1;a|junk|pre xx 2;b|", starting) == [["1", "a"], ["2", "b"]]
    # IGNORE n LINES counts lines to their terminator, prefix or not, an escaped one passed over
    # (MariaDB 10.11 loads rows 1, 2 and 3 of this file)
    headed = LoadData("f", None, "t", fields_terminated=",", lines_terminated="\r\n", lines_starting=">",
                      ignore_lines=1)
    assert split_rows("header\r\n>1,a\r\nno prefix\r\n>2,b\r\n>3,c\r\n", headed) == [["1", "a"], ["2", "b"], ["3", "c"]]
    assert split_rows("h\\\n1\n2\n", LoadData("f", None, "t", ignore_lines=1)) == [["2"]]


def test_the_local_infile_exchange():
    server, client = login(client_caps=None)
    server.capabilities |= Capability.CLIENT_LOCAL_FILES  # (as a client that allows LOCAL sets it)
    [command] = pump(encode_packet(ComQuery("LOAD DATA LOCAL INFILE 'f' INTO TABLE t").encode(), 0)[0], server)
    request = server.request_local_infile("f")
    assert request == encode_packet(b"\xfbf", 1)[0]
    assert server.state is ServerState.LOCAL_INFILE
    file_packets = encode_packet(b"1\t2\n", 2)[0] + encode_packet(b"3\t4\n", 3)[0] + encode_packet(b"", 4)[0]
    events = pump(file_packets, server)
    assert events == [LocalInfileData(b"1\t2\n"), LocalInfileData(b"3\t4\n"), LocalInfileEnd()]
    assert server.state is ServerState.RESPONDING
    assert server.send(OK(2)) == encode_packet(OK(2).encode(server.capabilities), 5)[0]
    assert server.state is ServerState.COMMAND


def test_no_local_infile_request_to_a_client_that_did_not_allow_it():
    server, _ = login()
    server.capabilities &= ~Capability.CLIENT_LOCAL_FILES
    pump(encode_packet(ComQuery("LOAD DATA LOCAL INFILE 'f' INTO TABLE t").encode(), 0)[0], server)
    with pytest.raises(LocalProtocolError):
        server.request_local_infile("f")
