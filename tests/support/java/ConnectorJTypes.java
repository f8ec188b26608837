// MariaDB Connector/J's view of column types: a table of many types written through
// PreparedStatement setters and read back through Statement and PreparedStatement, with each
// column's ResultSetMetaData and the Java object getObject returns. Run as a single-file program:
//   java -cp mariadb-java-client.jar ConnectorJTypes.java JDBC_URL DATABASE
// Prints one line per fact ("META col ...", "ROW n col class value"); the same program against
// two servers prints the same lines when the servers describe and send the same things.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class ConnectorJTypes {
    static final String[][] COLUMNS = {
        {"ti", "TINYINT"}, {"tu", "TINYINT UNSIGNED"}, {"b1", "TINYINT(1)"}, {"si", "SMALLINT"},
        {"mi", "MEDIUMINT"}, {"i", "INT"}, {"iu", "INT UNSIGNED"}, {"bi", "BIGINT"},
        {"bu", "BIGINT UNSIGNED"}, {"de", "DECIMAL(12,3)"}, {"fl", "FLOAT"}, {"db", "DOUBLE"},
        {"bt", "BIT(1)"}, {"b8", "BIT(8)"}, {"dt", "DATE"}, {"dtt", "DATETIME"}, {"dt6", "DATETIME(6)"},
        {"ts", "TIMESTAMP NULL"}, {"tm", "TIME"}, {"tm3", "TIME(3)"}, {"yr", "YEAR"},
        {"ch", "CHAR(5)"}, {"vc", "VARCHAR(30)"}, {"bn", "BINARY(4)"}, {"vb", "VARBINARY(10)"},
        {"tx", "TEXT"}, {"bl", "BLOB"}, {"en", "ENUM('x','y')"}, {"st", "SET('a','b')"},
        {"js", "JSON"},
    };

    static String show(Object o) {
        if (o == null) return "null";
        if (o instanceof byte[]) {
            StringBuilder sb = new StringBuilder("0x");
            for (byte b : (byte[]) o) sb.append(String.format("%02x", b));
            return sb.toString();
        }
        return o.toString();
    }

    static void describe(String label, ResultSetMetaData md) throws SQLException {
        for (int c = 1; c <= md.getColumnCount(); c++) {
            System.out.println("META " + label + " " + md.getColumnLabel(c) + " type=" + md.getColumnType(c)
                    + " name=" + md.getColumnTypeName(c) + " class=" + md.getColumnClassName(c)
                    + " precision=" + md.getPrecision(c) + " scale=" + md.getScale(c)
                    + " signed=" + md.isSigned(c) + " nullable=" + md.isNullable(c)
                    + " display=" + md.getColumnDisplaySize(c));
        }
    }

    static void dump(String label, ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        describe(label, md);
        int n = 0;
        while (rs.next()) {
            n++;
            for (int c = 1; c <= md.getColumnCount(); c++) {
                Object o = rs.getObject(c);
                System.out.println("ROW " + label + " " + n + " " + md.getColumnLabel(c) + " "
                        + (o == null ? "-" : o.getClass().getSimpleName()) + " " + show(o)
                        + " str=" + rs.getString(c));
            }
        }
        rs.close();
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            String db = args[1];
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS " + db);
                s.execute("USE " + db);
                StringBuilder ddl = new StringBuilder("CREATE TABLE types (id INT PRIMARY KEY AUTO_INCREMENT");
                for (String[] col : COLUMNS) ddl.append(", ").append(col[0]).append(' ').append(col[1]);
                s.execute(ddl.append(") CHARSET utf8mb4").toString());
            }
            StringBuilder ins = new StringBuilder("INSERT INTO types (");
            StringJoiner names = new StringJoiner(", "), marks = new StringJoiner(", ");
            for (String[] col : COLUMNS) { names.add(col[0]); marks.add("?"); }
            ins.append(names).append(") VALUES (").append(marks).append(")");
            try (PreparedStatement p = c.prepareStatement(ins.toString(), Statement.RETURN_GENERATED_KEYS)) {
                int k = 1;
                p.setByte(k++, (byte) -128); p.setInt(k++, 255); p.setBoolean(k++, true); p.setShort(k++, (short) -32768);
                p.setInt(k++, 8388607); p.setInt(k++, -2147483648); p.setLong(k++, 4294967295L); p.setLong(k++, Long.MIN_VALUE);
                p.setBigDecimal(k++, new BigDecimal("18446744073709551615")); p.setBigDecimal(k++, new BigDecimal("-123456789.125"));
                p.setFloat(k++, 1.5f); p.setDouble(k++, -2.25e100);
                p.setBoolean(k++, true); p.setInt(k++, 200);
                p.setDate(k++, java.sql.Date.valueOf("2024-02-29")); p.setTimestamp(k++, Timestamp.valueOf("2024-02-29 23:59:58"));
                p.setTimestamp(k++, Timestamp.valueOf("1999-12-31 23:59:59.123456")); p.setTimestamp(k++, Timestamp.valueOf("2030-01-01 00:00:01"));
                p.setTime(k++, Time.valueOf("12:34:56")); p.setString(k++, "-838:59:59.5"); p.setInt(k++, 2155);
                p.setString(k++, "ab"); p.setString(k++, "héllo ✓"); p.setBytes(k++, new byte[] {0, 1}); p.setBytes(k++, new byte[] {(byte) 0xff, 0, 0x27});
                p.setString(k++, "long text"); p.setBytes(k++, new byte[] {(byte) 0x80, 0x00, 0x5c}); p.setString(k++, "y"); p.setString(k++, "a,b");
                p.setString(k++, "{\"k\": [1, 2]}");
                p.addBatch();
                for (int i = 1; i <= COLUMNS.length; i++) p.setNull(i, Types.NULL);
                p.addBatch();
                int[] counts = p.executeBatch();
                System.out.println("BATCH " + Arrays.toString(counts));
                ResultSet keys = p.getGeneratedKeys();
                List<String> ids = new ArrayList<>();
                while (keys.next()) ids.add(keys.getString(1));
                System.out.println("KEYS " + ids);
            }
            try (Statement s = c.createStatement()) {
                dump("text", s.executeQuery("SELECT * FROM types ORDER BY id"));
                dump("expr", s.executeQuery("SELECT COUNT(*) AS n, SUM(i) AS s, AVG(de) AS a, MAX(dtt) AS m, "
                        + "CONCAT(ch, vc) AS cc, de * 2 AS d2, i + 1 AS i1, NOW() IS NOT NULL AS nn, CAST(bu AS CHAR) AS bc, "
                        + "CAST(1 AS UNSIGNED) AS cu FROM types"));
            }
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM types WHERE id >= ? ORDER BY id")) {
                p.setInt(1, 1);
                dump("prepared", p.executeQuery());
            }
            try (PreparedStatement p = c.prepareStatement("SELECT ? AS a, ? AS b, ? AS c, ? AS d, ? AS e")) {
                p.setBigDecimal(1, new BigDecimal("1.50")); p.setTimestamp(2, Timestamp.valueOf("2020-01-02 03:04:05"));
                p.setBytes(3, new byte[] {1, 2}); p.setLong(4, 7); p.setString(5, "x");
                dump("params", p.executeQuery());
            }
            DatabaseMetaData md = c.getMetaData();
            ResultSet cols = md.getColumns(db, null, "types", "%");
            while (cols.next()) {
                System.out.println("COLUMN " + cols.getString("COLUMN_NAME") + " " + cols.getInt("DATA_TYPE") + " "
                        + cols.getString("TYPE_NAME") + " size=" + cols.getString("COLUMN_SIZE")
                        + " digits=" + cols.getString("DECIMAL_DIGITS") + " nullable=" + cols.getString("IS_NULLABLE")
                        + " auto=" + cols.getString("IS_AUTOINCREMENT"));
            }
        }
    }
}
