// MariaDB Connector/J against a server: connect, DDL, DML, PreparedStatement batches and
// DatabaseMetaData. Run as a single-file program:
//   java -cp mariadb-java-client.jar ConnectorJProbe.java JDBC_URL DATABASE
// Prints one line per step, "STEP <name> OK <detail>" or "STEP <name> FAIL <exception>", and
// goes on after a failure so that one run shows every step; exit status 0 when all passed.
import java.sql.*;
import java.util.*;

public class ConnectorJProbe {
    interface Step { String run() throws Exception; }

    static int failures = 0;

    static void step(String name, Step body) {
        try {
            System.out.println("STEP " + name + " OK " + body.run());
        } catch (Throwable e) {
            failures++;
            String msg = String.valueOf(e.getMessage()).replace('\n', ' ');
            System.out.println("STEP " + name + " FAIL " + e.getClass().getSimpleName() + ": " + msg);
        }
        System.out.flush();
    }

    static String rows(ResultSet rs, String... columns) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (String c : columns) row.add(String.valueOf(rs.getString(c)));
            out.add(String.join(",", row));
        }
        rs.close();
        return String.join(";", out);
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String db = args[1];
        Connection[] holder = new Connection[1];
        step("connect", () -> {
            holder[0] = DriverManager.getConnection(url);
            DatabaseMetaData md = holder[0].getMetaData();
            return md.getDatabaseProductName() + " " + md.getDatabaseProductVersion();
        });
        Connection c = holder[0];
        if (c == null) System.exit(1);
        step("ddl", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS " + db);
                s.execute("USE " + db);
                s.execute("CREATE TABLE parent (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL, UNIQUE KEY uk_name (name))");
                s.execute("CREATE TABLE child (id INT PRIMARY KEY AUTO_INCREMENT, parent_id INT NOT NULL, qty INT, "
                        + "KEY ix_parent (parent_id), CONSTRAINT fk_parent FOREIGN KEY (parent_id) REFERENCES parent (id))");
            }
            return "created";
        });
        step("dml", () -> {
            try (Statement s = c.createStatement()) {
                int n = s.executeUpdate("INSERT INTO parent (name) VALUES ('a'), ('b')", Statement.RETURN_GENERATED_KEYS);
                ResultSet keys = s.getGeneratedKeys();
                keys.next();
                long first = keys.getLong(1);
                int u = s.executeUpdate("UPDATE parent SET name = 'bb' WHERE name = 'b'");
                ResultSet rs = s.executeQuery("SELECT id, name FROM parent ORDER BY id");
                return "inserted=" + n + " first_id=" + first + " updated=" + u + " rows=" + rows(rs, "id", "name");
            }
        });
        step("prepared", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT name FROM parent WHERE id = ?")) {
                p.setInt(1, 1);
                return rows(p.executeQuery(), "name");
            }
        });
        step("batch", () -> {
            try (PreparedStatement p = c.prepareStatement("INSERT INTO child (parent_id, qty) VALUES (?, ?)")) {
                for (int i = 0; i < 5; i++) {
                    p.setInt(1, 1 + i % 2);
                    p.setInt(2, i * 10);
                    p.addBatch();
                }
                int[] counts = p.executeBatch();
                int sum = 0;
                for (int k : counts) sum += (k == Statement.SUCCESS_NO_INFO ? 1 : k);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), sum(qty) FROM child")) {
                    rs.next();
                    return "batch=" + counts.length + " counted=" + sum + " rows=" + rs.getLong(1) + " sum=" + rs.getLong(2);
                }
            }
        });
        step("transaction", () -> {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO parent (name) VALUES ('rolled back')");
                c.rollback();
                s.executeUpdate("INSERT INTO parent (name) VALUES ('c')");
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
            try (Statement s = c.createStatement()) {
                return rows(s.executeQuery("SELECT name FROM parent ORDER BY id"), "name");
            }
        });
        DatabaseMetaData md = c.getMetaData();
        step("getTables", () -> rows(md.getTables(db, null, "%", new String[] {"TABLE"}), "TABLE_NAME"));
        step("getColumns", () -> rows(md.getColumns(db, null, "child", "%"), "COLUMN_NAME", "TYPE_NAME", "IS_NULLABLE"));
        step("getPrimaryKeys", () -> rows(md.getPrimaryKeys(db, null, "child"), "COLUMN_NAME"));
        step("getImportedKeys", () -> rows(md.getImportedKeys(db, null, "child"), "PKTABLE_NAME", "PKCOLUMN_NAME", "FKCOLUMN_NAME"));
        step("getIndexInfo", () -> rows(md.getIndexInfo(db, null, "parent", false, false), "INDEX_NAME", "COLUMN_NAME", "NON_UNIQUE"));
        c.close();
        System.exit(failures == 0 ? 0 : 1);
    }
}
