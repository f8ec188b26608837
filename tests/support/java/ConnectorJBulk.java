// MariaDB Connector/J batches sent as COM_STMT_BULK_EXECUTE (useBulkStmts=true): INSERT batches
// of several column types, a batch that meets a duplicate key, UPDATE and DELETE batches, then
// the table and the session's Com_stmt_execute (one per INSERT batch, one per UPDATE/DELETE row
// when the server ran the batch in bulk). Run as a single-file program:
//   java -cp mariadb-java-client.jar ConnectorJBulk.java JDBC_URL DATABASE
// Prints one line per step; the lines are compared between servers.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class ConnectorJBulk {
    static void print(String what, int[] counts) {
        System.out.println(what + " " + Arrays.toString(counts));
    }

    static void batch(Connection c, String what, String sql, Object[][] rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) ps.setObject(i + 1, row[i]);
                ps.addBatch();
            }
            try {
                print(what, ps.executeBatch());
            } catch (BatchUpdateException e) {
                System.out.println(what + " error " + e.getErrorCode() + " " + e.getSQLState() + " "
                        + e.getMessage().replace('\n', ' '));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            Statement st = c.createStatement();
            st.execute("CREATE DATABASE " + args[1]);
            st.execute("USE " + args[1]);
            st.execute("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(20), d DECIMAL(10,2), "
                    + "ts DATETIME(3), b VARBINARY(8), n BIGINT)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (s, d, ts, b, n) VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 0; i < 40; i++) {
                    ps.setString(1, "row " + i + " \u00e9'\\");
                    ps.setBigDecimal(2, new BigDecimal(i + ".25").negate());
                    ps.setTimestamp(3, Timestamp.valueOf("2024-01-02 03:04:05.123"));
                    ps.setBytes(4, new byte[] {(byte) i, 0, (byte) 255});
                    if (i % 3 == 0) ps.setNull(5, Types.BIGINT); else ps.setLong(5, Long.MAX_VALUE - i);
                    ps.addBatch();
                }
                print("insert", ps.executeBatch());
            }
            batch(c, "duplicate", "INSERT INTO t (id, s) VALUES (?, ?)",
                  new Object[][] {{100, "kept?"}, {1, "duplicate"}});
            batch(c, "update", "UPDATE t SET s = ?, n = n + ? WHERE id = ?",
                  new Object[][] {{"u1", -1, 1}, {"u2", -2, 2}, {"none", 0, 999}});
            batch(c, "delete", "DELETE FROM t WHERE id = ? OR id = ?",
                  new Object[][] {{3, 4}, {5, 998}});
            batch(c, "replace", "REPLACE INTO t (id, s) VALUES (?, ?)",
                  new Object[][] {{6, "r6"}, {200, "r200"}});
            c.setAutoCommit(false);
            batch(c, "in a transaction", "INSERT INTO t (id, s) VALUES (?, ?)",
                  new Object[][] {{300, "t300"}, {301, "t301"}});
            c.rollback();
            c.setAutoCommit(true);
            try (ResultSet rs = st.executeQuery("SELECT id, s, d, ts, HEX(b), n FROM t ORDER BY id")) {
                while (rs.next()) {
                    System.out.println("ROW " + rs.getInt(1) + " " + rs.getString(2) + " " + rs.getString(3) + " "
                            + rs.getString(4) + " " + rs.getString(5) + " " + rs.getString(6));
                }
            }
            try (ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Com_stmt_execute'")) {
                while (rs.next()) System.out.println("STATUS " + rs.getString(1) + " " + rs.getString(2));
            }
        }
    }
}
