"""Protocol errors and the one table of MySQL error codes.

Who broke the rules decides the type:
- `RemoteProtocolError`: the peer sent something the protocol forbids. A server answers it with the
  ERR packet it carries (`code`, `sqlstate`, `message`) where the connection allows one, then drops
  the connection if `fatal`.
- `LocalProtocolError`: our own code misused an API (a bug on our side, never the peer's fault).
Parser exceptions (construct's, struct's, UnicodeDecodeError ...) never leave `protocol/`: the
parsing entry points catch them and raise `RemoteProtocolError` instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MySQLError:
    code: int
    sqlstate: str
    template: str

    def format(self, *args: object) -> str:
        return self.template % args if args else self.template


# The codes MySQL uses (include/mysqld_error.h); templates follow the server's wording.
ER_CANT_CREATE_FILE = MySQLError(1, "HY000", "Can't create/write to file '%s' (Errcode: %s)")
ER_CANT_GET_STAT = MySQLError(13, "HY000", "Can't get stat of '%s' (Errcode: %s)")
ER_WRONG_FIELD_TERMINATORS = MySQLError(1083, "42000", "Field separator argument is not what is expected; check the manual")
ER_TEXTFILE_NOT_READABLE = MySQLError(1085, "HY000", "The file '%s' must be in the database directory or be readable by all")
ER_FILE_EXISTS_ERROR = MySQLError(1086, "HY000", "File '%s' already exists")
ER_TABLE_NOT_LOCKED_FOR_WRITE = MySQLError(1099, "HY000", "Table '%s' was locked with a READ lock and can't be updated")
ER_TABLE_NOT_LOCKED = MySQLError(1100, "HY000", "Table '%s' was not locked with LOCK TABLES")
ER_WARN_DEPRECATED_SYNTAX = MySQLError(1287, "HY000", "'%s' is deprecated and will be removed in a future release. Please use %s instead")
ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT = MySQLError(
    1287, "HY000", "'%s' is deprecated and will be removed in a future release")
ER_AMBIGUOUS_FIELD_TERM = MySQLError(1475, "HY000", "First character of the FIELDS TERMINATED string is ambiguous; please use non-optional and non-empty FIELDS ENCLOSED BY")
ER_ERROR_ON_WRITE = MySQLError(1026, "HY000", "Error writing file '%s' (errno: %s)")
ER_KEY_NOT_FOUND = MySQLError(1032, "HY000", "Can't find record in '%s'")
ER_CON_COUNT_ERROR = MySQLError(1040, "08004", "Too many connections")
ER_HANDSHAKE_ERROR = MySQLError(1043, "08S01", "Bad handshake")
ER_DBACCESS_DENIED_ERROR = MySQLError(1044, "42000", "Access denied for user '%s'@'%s' to database '%s'")
ER_ACCESS_DENIED_ERROR = MySQLError(1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)")
ER_SECURE_TRANSPORT_REQUIRED = MySQLError(3159, "08004", "Connections using insecure transport are prohibited while --require_secure_transport=ON.")
ER_NO_DB_ERROR = MySQLError(1046, "3D000", "No database selected")
ER_UNKNOWN_COM_ERROR = MySQLError(1047, "08S01", "Unknown command")
ER_BAD_NULL_ERROR = MySQLError(1048, "23000", "Column '%s' cannot be null")
ER_BAD_DB_ERROR = MySQLError(1049, "42000", "Unknown database '%s'")
ER_TABLE_EXISTS_ERROR = MySQLError(1050, "42S01", "Table '%s' already exists")
ER_BAD_TABLE_ERROR = MySQLError(1051, "42S02", "Unknown table '%s'")
ER_SERVER_SHUTDOWN = MySQLError(1053, "08S01", "Server shutdown in progress")
ER_BAD_FIELD_ERROR = MySQLError(1054, "42S22", "Unknown column '%s' in '%s'")
ER_DUP_ENTRY = MySQLError(1062, "23000", "Duplicate entry '%s' for key '%s'")
ER_PARSE_ERROR = MySQLError(1064, "42000", "You have an error in your SQL syntax; %s")
ER_EMPTY_QUERY = MySQLError(1065, "42000", "Query was empty")
ER_DB_CREATE_EXISTS = MySQLError(1007, "HY000", "Can't create database '%s'; database exists")
ER_DB_DROP_EXISTS = MySQLError(1008, "HY000", "Can't drop database '%s'; database doesn't exist")
ER_NO_SUCH_THREAD = MySQLError(1094, "HY000", "Unknown thread id: %s")
ER_KILL_DENIED_ERROR = MySQLError(1095, "HY000", "You are not owner of thread %s")
ER_NO_TABLES_USED = MySQLError(1096, "HY000", "No tables used")
ER_UPDATE_TABLE_USED = MySQLError(1093, "HY000", "Table '%s' is specified twice, both as a target for '%s' and as a separate source for data")
ER_INVALID_GROUP_FUNC_USE = MySQLError(1111, "HY000", "Invalid use of group function")
ER_HOST_IS_BLOCKED = MySQLError(1129, "HY000", "Host '%s' is blocked because of many connection errors; unblock with 'mariadb-admin flush-hosts'")
ER_PASSWORD_NO_MATCH = MySQLError(1133, "28000", "Can't find any matching row in the user table")
ER_CONNECTION_KILLED = MySQLError(1927, "70100", "Connection was killed")
ER_UNKNOWN_ERROR = MySQLError(1105, "HY000", "%s")
ER_RECORD_FILE_FULL = MySQLError(1114, "HY000", "The table '%s' is full")
ER_NET_PACKET_TOO_LARGE = MySQLError(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
ER_NET_READ_ERROR = MySQLError(1158, "08S01", "Got an error reading communication packets")
ER_NET_PACKETS_OUT_OF_ORDER = MySQLError(1156, "08S01", "Got packets out of order")
ER_NONEXISTING_GRANT = MySQLError(1141, "42000", "There is no such grant defined for user '%s' on host '%s'")
ER_TABLEACCESS_DENIED_ERROR = MySQLError(1142, "42000", "%s command denied to user '%s'@'%s' for table `%s`.`%s`")
ER_COLUMNACCESS_DENIED_ERROR = MySQLError(1143, "42000", "%s command denied to user '%s'@'%s' for column '%s' in table '%s'")
ER_ILLEGAL_GRANT_FOR_TABLE = MySQLError(1144, "42000", "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used")
ER_NONEXISTING_TABLE_GRANT = MySQLError(1147, "42000", "There is no such grant defined for user '%s' on host '%s' on table '%s'")
ER_NONEXISTING_PROC_GRANT = MySQLError(1403, "42000", "There is no such grant defined for user '%s' on host '%s' on routine '%s'")
ER_NO_SUCH_USER = MySQLError(1449, "HY000", "The user specified as a definer ('%s'@'%s') does not exist")
ER_NO_SUCH_TABLE = MySQLError(1146, "42S02", "Table '%s.%s' doesn't exist")
ER_UNKNOWN_TABLE = MySQLError(1109, "42S02", "Unknown table '%s' in %s")
ER_NOT_ALLOWED_COMMAND = MySQLError(1148, "42000", "The used command is not allowed with this MariaDB version")
ER_WARN_TOO_FEW_RECORDS = MySQLError(1261, "01000", "Row %d doesn't contain data for all columns")
ER_WARN_TOO_MANY_RECORDS = MySQLError(1262, "01000", "Row %d was truncated; it contained more data than there were input columns")
ER_WARN_NULL_TO_NOTNULL = MySQLError(1263, "22004", "Column set to default value; NULL supplied to NOT NULL column '%s' at row %d")
ER_LOAD_INFILE_CAPABILITY_DISABLED = MySQLError(
    4166, "HY000", "The used command is not allowed because the MariaDB server or client has disabled the local infile capability")
ER_LOCK_WAIT_TIMEOUT = MySQLError(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction")
ER_SUBQUERY_NO_1_ROW = MySQLError(1242, "21000", "Subquery returns more than 1 row")
ER_SPECIFIC_ACCESS_DENIED_ERROR = MySQLError(1227, "42000", "Access denied; you need (at least one of) the %s privilege(s) for this operation")
ER_WRONG_USAGE = MySQLError(1221, "HY000", "Incorrect usage of %s and %s")
ER_LOCAL_VARIABLE = MySQLError(1228, "HY000", "Variable '%s' is a SESSION variable and can't be used with SET GLOBAL")
ER_GLOBAL_VARIABLE = MySQLError(1229, "HY000", "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL")
ER_WRONG_VALUE_FOR_VAR = MySQLError(1231, "42000", "Variable '%s' can't be set to the value of '%s'")
ER_WRONG_TYPE_FOR_VAR = MySQLError(1232, "42000", "Incorrect argument type to variable '%s'")
ER_NOT_SUPPORTED_YET = MySQLError(1235, "42000", "This version of MariaDB doesn't yet support '%s'")
ER_WRONG_OBJECT = MySQLError(1347, "HY000", "'%s.%s' is not of type '%s'")
ER_UNKNOWN_VIEW = MySQLError(4092, "42S02", "Unknown VIEW: '%s'")
ER_SP_STACK_TRACE = MySQLError(4094, "HY000", "At line %d in %s")
ER_NON_UPDATABLE_TABLE = MySQLError(1288, "HY000", "The target table %s of the %s is not updatable")
ER_TOO_BIG_SCALE = MySQLError(1425, "42000", "Too big scale specified for '%s'. Maximum is %s")
ER_TOO_BIG_PRECISION = MySQLError(1426, "42000", "Too big precision specified for '%s'. Maximum is %s")
ER_M_BIGGER_THAN_D = MySQLError(1427, "42000", "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s')")
ER_WARN_CANT_DROP_DEFAULT_KEYCACHE = MySQLError(1438, "HY000", "Cannot drop default keycache")
ER_VIEW_RECURSIVE = MySQLError(1462, "HY000", "`%s`.`%s` contains view recursion")
ER_NON_INSERTABLE_TABLE = MySQLError(1471, "HY000", "The target table %s of the %s is not insertable-into")
ER_ERROR_WHEN_EXECUTING_COMMAND = MySQLError(1220, "HY000", "Error when executing command %s: %s")
ER_MASTER_FATAL_ERROR_READING_BINLOG = MySQLError(1236, "HY000", "Got fatal error %s from master when reading data from binary log: '%s'")
ER_INCORRECT_GLOBAL_LOCAL_VAR = MySQLError(1238, "HY000", "Variable '%s' is a %s variable")
ER_VARIABLE_IS_READONLY = MySQLError(1621, "HY000", "%s variable '%s' is read-only. Use SET %s to assign the value")
ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_SQL_LOG_BIN = MySQLError(
    1694, "HY000", "Cannot modify @@session.sql_log_bin inside a transaction")
ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT = MySQLError(
    1679, "HY000", "Cannot modify @@session.binlog_format inside a transaction")
ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_GTID_DOMAIN_ID_SEQ_NO = MySQLError(
    1953, "HY000", "Cannot modify @@session.gtid_domain_id or @@session.gtid_seq_no inside a transaction")
# GTIDs (MariaDB's sql/rpl_gtid.cc, errmsg-utf8.txt; wording checked against MariaDB 10.11)
ER_MASTER_CONNECTION_NOT_FOUND = MySQLError(1617, "HY000", "There is no master connection '%s'")
ER_WARN_OPTION_IGNORED = MySQLError(1618, "HY000", "<%s> option ignored")
ER_WRONG_VALUE_FOR_TYPE = MySQLError(1411, "HY000", "Incorrect %s value: '%s' for function %s")
ER_DATA_OUT_OF_RANGE = MySQLError(1690, "22003", "%s value is out of range in '%s'")
ER_PERCENTILE_NOT_NUMERIC_TYPE = MySQLError(4101, "HY000", "Numeric datatype is required for %s function")
ER_PERCENTILE_RANGE = MySQLError(4103, "HY000", "Argument to the %s function does not belong to the range [0,1]")
ER_PERCENTILE_NOT_NUMERIC = MySQLError(4104, "HY000", "%s function only accepts arguments that can be converted to numerical types")
ER_SFORMAT = MySQLError(4183, "HY000", "SFORMAT error: %s")
ER_IMPLICIT_USING_GTID = MySQLError(4190, "HY000", "%s is implicitly changing the value of 'Using_Gtid' from '%s' to '%s'")
ER_INCORRECT_GTID_STATE = MySQLError(1941, "HY000", "Could not parse GTID list")
ER_SET_STATEMENT_NOT_SUPPORTED = MySQLError(1971, "42000", "The system variable %s cannot be set in SET STATEMENT.")
ER_DUPLICATE_GTID_DOMAIN = MySQLError(1943, "HY000", "GTID %s and %s conflict (duplicate domain id %s)")
ER_GTID_STRICT_OUT_OF_ORDER = MySQLError(
    1950, "HY000",
    "An attempt was made to binlog GTID %s which would create an out-of-order sequence number with existing GTID %s, "
    "and gtid strict mode is enabled",
)
# A GTID dump that cannot start (sql/sql_repl.cc): sent with code 1236, which tells the slave not to reconnect.
ER_GTID_DUMP_NOT_IN_BINLOG = MySQLError(
    1236, "HY000", "Error: connecting slave requested to start from GTID %s, which is not in the master's binlog"
)
ER_GTID_DUMP_DIVERGED = MySQLError(
    1236, "HY000",
    "Error: connecting slave requested to start from GTID %s, which is not in the master's binlog. Since the master's "
    "binlog contains GTIDs with higher sequence numbers, it probably means that the slave has diverged due to "
    "executing extra erroneous transactions",
)
ER_GTID_DUMP_BINLOG_HOLE = MySQLError(
    1236, "HY000",
    "The binlog on the master is missing the GTID %s requested by the slave (even though both a prior and a "
    "subsequent sequence number does exist), and GTID strict mode is enabled",
)
ER_GTID_DUMP_PURGED = MySQLError(
    1236, "HY000",
    "Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old and "
    "required binlog files have been purged.",
)
ER_UNKNOWN_SYSTEM_VARIABLE = MySQLError(1193, "HY000", "Unknown system variable '%s'")
ER_WARNING_NOT_COMPLETE_ROLLBACK = MySQLError(1196, "HY000",
                                              "Some non-transactional changed tables couldn't be rolled back")
ER_UNKNOWN_COLLATION = MySQLError(1273, "HY000", "Unknown collation: '%s'")
ER_UNKNOWN_CHARACTER_SET = MySQLError(1115, "42000", "Unknown character set: '%s'")
ER_KEY_DOES_NOT_EXISTS = MySQLError(1176, "42000", "Key '%s' doesn't exist in table '%s'")
ER_FEATURE_DISABLED = MySQLError(1289, "HY000", "The '%s' feature is disabled; you need MariaDB built with '%s' to "
                                                "have it working")
ER_INVALID_ON_UPDATE = MySQLError(1294, "HY000", "Invalid ON UPDATE clause for '%s' column")
ER_CONFLICTING_DECLARATIONS = MySQLError(1302, "HY000", "Conflicting declarations: '%s%s' and '%s%s'")
ER_COLLATION_CHARSET_MISMATCH = MySQLError(1253, "42000", "COLLATION '%s' is not valid for CHARACTER SET '%s'")
ER_UNKNOWN_LOCALE = MySQLError(1649, "HY000", "Unknown locale: '%s'")
ER_BASE64_DECODE_ERROR = MySQLError(1575, "HY000", "Decoding of base64 string failed")
# MariaDB's wording, for the default (unnamed) connection
ER_SLAVE_MUST_STOP = MySQLError(
    1198, "HY000", "This operation cannot be performed as you have a running slave ''; run STOP SLAVE '' first")
ER_MASTER_DELAY_VALUE_OUT_OF_RANGE = MySQLError(
    1729, "HY000", "The requested value %s for the master delay exceeds the maximum %s")
ER_RELAY_LOG_INIT = MySQLError(1380, "HY000", "Failed initializing relay log position: %s")
ER_BAD_SLAVE = MySQLError(1200, "HY000", "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO")
ER_PASSWD_LENGTH = MySQLError(1372, "HY000", "Password hash should be a %d-digit hexadecimal number")
ER_CANT_UPDATE_WITH_READLOCK = MySQLError(1223, "HY000", "Can't execute the query because you have a conflicting read lock")
ER_UDF_EXISTS = MySQLError(1125, "HY000", "Function '%s' already exists")
ER_CANT_OPEN_LIBRARY = MySQLError(1126, "HY000", "Can't open shared library '%s' (errno: %s, %s)")
ER_CANT_FIND_DL_ENTRY = MySQLError(1127, "HY000", "Can't find symbol '%s' in library")
ER_TOO_BIG_FOR_UNCOMPRESS = MySQLError(1256, "HY000", "Uncompressed data size too large; the maximum size is %d "
                                       "(probably, length of uncompressed data was corrupted)")
ER_ZLIB_Z_BUF_ERROR = MySQLError(1258, "HY000", "ZLIB: Not enough room in the output buffer "
                                 "(probably, length of uncompressed data was corrupted)")
ER_ZLIB_Z_DATA_ERROR = MySQLError(1259, "HY000", "ZLIB: Input data corrupted")
ER_INVALID_CHARACTER_STRING = MySQLError(1300, "HY000", "Invalid %s character string: '%s'")
ER_SP_DOES_NOT_EXIST = MySQLError(1305, "42000", "%s %s does not exist")
ER_PROCACCESS_DENIED_ERROR = MySQLError(1370, "42000", "%s command denied to user '%s'@'%s' for routine '%s'")
ER_SP_ALREADY_EXISTS = MySQLError(1304, "42000", "%s %s already exists")
ER_SP_WRONG_NO_OF_ARGS = MySQLError(1318, "42000", "Incorrect number of arguments for %s %s; expected %u, got %u")
ER_SP_NOT_VAR_ARG = MySQLError(1414, "42000", "OUT or INOUT argument %d for routine %s is not a variable or NEW pseudo-variable in BEFORE trigger")
ER_BINLOG_UNSAFE_ROUTINE = MySQLError(1418, "HY000", "This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA in its declaration and binary logging is enabled (you *might* want to use the less safe log_bin_trust_function_creators variable)")
ER_TRG_DOES_NOT_EXIST = MySQLError(1360, "HY000", "Trigger does not exist")
ER_TRG_ALREADY_EXISTS = MySQLError(1359, "HY000", "Trigger '%s' already exists")
ER_TRG_ON_VIEW_OR_TEMP_TABLE = MySQLError(1361, "HY000", "Trigger's '%s' is a view, temporary table or sequence")
ER_TRG_CANT_CHANGE_ROW = MySQLError(1362, "HY000", "Updating of %s row is not allowed in %strigger")
ER_TRG_NO_SUCH_ROW_IN_TRG = MySQLError(1363, "HY000", "There is no %s row in %s trigger")
ER_TRG_IN_WRONG_SCHEMA = MySQLError(1435, "HY000", "Trigger in wrong schema")
ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG = MySQLError(1442, "HY000", "Can't update table '%s' in stored function/trigger "
                                                    "because it is already used by statement which invoked this stored "
                                                    "function/trigger")
ER_BINLOG_CREATE_ROUTINE_NEED_SUPER = MySQLError(1419, "HY000", "You do not have the SUPER privilege and binary "
                                                 "logging is enabled (you *might* want to use the less safe "
                                                 "log_bin_trust_function_creators variable)")
ER_NO_TRIGGERS_ON_SYSTEM_SCHEMA = MySQLError(1465, "HY000", "Triggers can not be created on system tables")
ER_REFERENCED_TRG_DOES_NOT_EXIST = MySQLError(4031, "HY000", "Referenced trigger '%s' for the given action time and "
                                              "event type does not exist")
ER_EVENT_DOES_NOT_EXIST = MySQLError(1539, "HY000", "Unknown event '%s'")
ER_QUERY_INTERRUPTED = MySQLError(1317, "70100", "Query execution was interrupted")
ER_STATEMENT_TIMEOUT = MySQLError(1969, "70100", "Query execution was interrupted (max_statement_time exceeded)")
ER_CANNOT_USER = MySQLError(1396, "HY000", "Operation %s failed for %s")
ER_USER_CREATE_EXISTS = MySQLError(1973, "HY000", "Can't create user '%s'@'%s'; it already exists")
ER_USER_DROP_EXISTS = MySQLError(1974, "HY000", "Can't drop user '%s'@'%s'; it doesn't exist")
ER_INVALID_ROLE = MySQLError(1959, "OP000", "Invalid role specification %s")
ER_INVALID_CURRENT_USER = MySQLError(1960, "0L000", "The current user is invalid")
ER_ROLE_DROP_EXISTS = MySQLError(1976, "HY000", "Can't drop role '%s'; it doesn't exist")
ER_LOG_IN_USE = MySQLError(1378, "HY000", "A purgeable log is in use, will not purge")
ER_UNKNOWN_TARGET_BINLOG = MySQLError(1373, "HY000", "Target log not found in binlog index")
ER_NO_BINARY_LOGGING = MySQLError(1381, "HY000", "You are not using binary logging")
ER_NO_DEFAULT_FOR_FIELD = MySQLError(1364, "HY000", "Field '%s' doesn't have a default value")
ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION = MySQLError(1792, "25006", "Cannot execute statement in a READ ONLY transaction")
ER_AUTOINC_ERANGE = MySQLError(167, "22003", "Out of range value for column '%s' at row %d")  # (handler error)
# %s: BIGINT, BIGINT UNSIGNED or DOUBLE; then the expression as MariaDB prints it
ER_WARN_DATA_OUT_OF_RANGE = MySQLError(1264, "22003", "Out of range value for column '%s' at row %d")
WARN_DATA_TRUNCATED = MySQLError(1265, "01000", "Data truncated for column '%s' at row %d")
ER_TRUNCATED_WRONG_VALUE = MySQLError(1292, "22007", "Incorrect %s value: '%s' for column %s at row %d")
ER_WRONG_VALUE = MySQLError(1525, "HY000", "Incorrect %s value: '%s'")
ER_WRONG_FIELD_SPEC = MySQLError(1063, "42000", "Incorrect column specifier for column '%s'")
ER_INVALID_DEFAULT = MySQLError(1067, "42000", "Invalid default value for '%s'")
# a value of a type that does not convert to the column's (an integer into a UUID column)
ER_CANNOT_CAST_ON_ASSIGNMENT = MySQLError(4078, "HY000", "Cannot cast '%s' as '%s' in assignment of %s")
ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION = MySQLError(
    4078, "HY000", "Illegal parameter data types %s and %s for operation '%s'")
ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = MySQLError(1366, "22007", "Incorrect %s value: '%s' for column %s at row %d")
ER_DATA_TOO_LONG = MySQLError(1406, "22001", "Data too long for column '%s' at row %d")
ER_NOT_SUPPORTED_AUTH_MODE = MySQLError(1251, "08004", "Client does not support authentication protocol requested by server; consider upgrading MariaDB client")
ER_REVOKE_GRANTS = MySQLError(1269, "HY000", "Can't revoke all privileges for one or more of the requested users")
ER_MALFORMED_PACKET = MySQLError(1835, "HY000", "Malformed communication packet")
# The binary protocol (sql/sql_prepare.cc): "%.*s" of the statement id printed as %s.
ER_WRONG_ARGUMENTS = MySQLError(1210, "HY000", "Incorrect arguments to %s")
ER_UNKNOWN_STMT_HANDLER = MySQLError(1243, "HY000", "Unknown prepared statement handler (%s) given to %s")
ER_UNSUPPORTED_PS = MySQLError(1295, "HY000", "This command is not supported in the prepared statement protocol yet")
ER_PS_MANY_PARAM = MySQLError(1390, "HY000", "Prepared statement contains too many placeholders")
ER_STMT_HAS_NO_OPEN_CURSOR = MySQLError(1421, "HY000", "The statement (%s) has no open cursor.")
ER_MAX_PREPARED_STMT_COUNT_REACHED = MySQLError(1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %s)")
# engine/ (SQL on SQLite)
ER_DUP_FIELDNAME = MySQLError(1060, "42S21", "Duplicate column name '%s'")
ER_DUP_KEYNAME = MySQLError(1061, "42000", "Duplicate key name '%s'")
ER_KEY_COLUMN_DOES_NOT_EXIST = MySQLError(1072, "42000", "Key column '%s' doesn't exist in table")
ER_MULTIPLE_PRI_KEY = MySQLError(1068, "42000", "Multiple primary key defined")
ER_DIVISION_BY_ZERO = MySQLError(1365, "22012", "Division by 0")
# a string read as a number that is not one throughout (a warning; trailing spaces a note)
ER_TRUNCATED_NUMBER = MySQLError(1292, "22007", "Truncated incorrect %s value: '%s'")
WARN_OPTION_BELOW_LIMIT = MySQLError(1708, "HY000", "The value of '%s' should be no less than the value of '%s'")
ER_DATA_OVERFLOW = MySQLError(1916, "22003", "Got overflow when converting '%s' to %s. Value truncated")
ER_BAD_DATA = MySQLError(1918, "22007", "Encountered illegal value '%s' when converting to %s")
# a note on a statement binlogged as a statement that a replica may not apply alike (sql/share/errmsg)
ER_BINLOG_UNSAFE_STATEMENT = MySQLError(
    1592, "HY000", "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. %s")
ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT = MySQLError(1222, "21000", "The used SELECT statements have a different number of columns")
ER_TOO_MANY_ROWS = MySQLError(1172, "42000", "Result consisted of more than one row")
ER_SP_LILABEL_MISMATCH = MySQLError(1308, "42000", "%s with no matching label: %s")
ER_SP_LABEL_REDEFINE = MySQLError(1309, "42000", "Redefining label %s")
ER_SP_LABEL_MISMATCH = MySQLError(1310, "42000", "End-label %s without match")
ER_SP_BADRETURN = MySQLError(1313, "42000", "RETURN is only allowed in a FUNCTION")
ER_SP_DUP_VAR = MySQLError(1331, "42000", "Duplicate variable: %s")
ER_SP_CASE_NOT_FOUND = MySQLError(1339, "20000", "Case not found for CASE statement")
ER_SP_CURSOR_MISMATCH = MySQLError(1324, "42000", "Undefined CURSOR: %s")
ER_SP_CURSOR_ALREADY_OPEN = MySQLError(1325, "24000", "Cursor is already open")
ER_SP_CURSOR_NOT_OPEN = MySQLError(1326, "24000", "Cursor is not open")
ER_SP_WRONG_NO_OF_FETCH_ARGS = MySQLError(1328, "HY000", "Incorrect number of FETCH variables")
ER_SP_UNDECLARED_VAR = MySQLError(1327, "42000", "Undeclared variable: %s")
ER_SP_FETCH_NO_DATA = MySQLError(1329, "02000", "No data - zero rows fetched, selected, or processed")
ER_SP_DUP_COND = MySQLError(1332, "42000", "Duplicate condition: %s")
ER_SP_DUP_CURS = MySQLError(1333, "42000", "Duplicate cursor: %s")
ER_SP_VARCOND_AFTER_CURSHNDLR = MySQLError(1337, "42000", "Variable or condition declaration after cursor or handler declaration")
ER_SP_CURSOR_AFTER_HANDLER = MySQLError(1338, "42000", "Cursor declaration after handler declaration")
ER_SP_DUP_HANDLER = MySQLError(1413, "42000", "Duplicate handler declared in the same block")
ER_SIGNAL_BAD_CONDITION_TYPE = MySQLError(1646, "HY000", "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE")
ER_DA_INVALID_CONDITION_NUMBER = MySQLError(1758, "35000", "Invalid condition number")
ER_WRONG_PARAMCOUNT_TO_CURSOR = MySQLError(4080, "42000", "Incorrect parameter count to cursor '%s'")
ER_ALTER_OPERATION_NOT_SUPPORTED = MySQLError(1845, "0A000", "%s is not supported for this operation. Try %s")
ER_ALTER_OPERATION_NOT_SUPPORTED_REASON = MySQLError(1846, "0A000", "%s is not supported. Reason: %s. Try %s")
ER_WRONG_AUTO_KEY = MySQLError(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key")
ER_CANT_DROP_FIELD_OR_KEY = MySQLError(1091, "42000", "Can't DROP %s `%s`; check that it exists")
ER_DROP_INDEX_FK = MySQLError(1553, "HY000", "Cannot drop index '%s': needed in a foreign key constraint")
ER_WRONG_VALUE_COUNT_ON_ROW = MySQLError(1136, "21S01", "Column count doesn't match value count at row %d")
ER_NON_UNIQ_ERROR = MySQLError(1052, "23000", "Column '%s' in %s is ambiguous")
ER_UNKNOWN_STORAGE_ENGINE = MySQLError(1286, "42000", "Unknown storage engine '%s'")
ER_NONUNIQ_TABLE = MySQLError(1066, "42000", "Not unique table/alias: '%s'")
ER_WRONG_DB_NAME = MySQLError(1102, "42000", "Incorrect database name '%s'")
ER_WRONG_TABLE_NAME = MySQLError(1103, "42000", "Incorrect table name '%s'")
ER_TOO_MANY_DATABASES = MySQLError(1105, "HY000", "Too many databases in use at once: the embedded engine holds at most %d %s")
# engine/ foreign keys (InnoDB's wording; the parenthesis names the constraint as MariaDB does)
ER_ROW_IS_REFERENCED_TABLE = MySQLError(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails")  # DROP TABLE
ER_ROW_IS_REFERENCED_2 = MySQLError(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails (%s)")
ER_NO_REFERENCED_ROW_2 = MySQLError(1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (%s)")
ER_TRUNCATE_ILLEGAL_FK = MySQLError(1701, "42000", "Cannot truncate a table referenced in a foreign key constraint (%s)")
ER_WRONG_FK_DEF = MySQLError(1239, "42000", "Incorrect foreign key definition for '%s': %s")
ER_CANT_CREATE_TABLE = MySQLError(1005, "HY000", "Can't create table `%s`.`%s` (errno: %s)")
# slave/ (IO task, applier)
ER_CANT_CHANGE_TX_CHARACTERISTICS = MySQLError(
    1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress")
ER_SLAVE_FATAL_ERROR = MySQLError(1593, "HY000", "Fatal error: %s")
ER_SLAVE_RELAY_LOG_READ_FAILURE = MySQLError(1594, "HY000", "Relay log read failure: %s")
ER_SLAVE_RELAY_LOG_WRITE_FAILURE = MySQLError(1595, "HY000", "Relay log write failure: %s")
ER_SLAVE_HEARTBEAT_FAILURE = MySQLError(1623, "HY000", "Unexpected master's heartbeat data: %s")
ER_SLAVE_CONVERSION_FAILED = MySQLError(1677, "HY000", "Column %d of table '%s' cannot be converted from type '%s' to type '%s'")
ER_SLAVE_HEARTBEAT_VALUE_OUT_OF_RANGE_MAX = MySQLError(1704, "HY000", "The requested value for the heartbeat period exceeds the value of `slave_net_timeout' seconds. A sensible value for the period should be less than the timeout.")
ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE = MySQLError(1743, "HY000", "Replication event checksum verification failed while reading from network.")
ER_SLAVE_MASTER_COM_FAILURE = MySQLError(1597, "HY000", "Master command %s failed: %s")
CR_CONN_HOST_ERROR = MySQLError(2003, "HY000", "Can't connect to MySQL server on '%s' (%s)")
CR_SSL_CONNECTION_ERROR = MySQLError(2026, "HY000", "SSL connection error: %s")
CR_SERVER_LOST = MySQLError(2013, "HY000", "Lost connection to MySQL server during query")
ER_SUBQUERIES_NOT_SUPPORTED = MySQLError(1970, "42000", "%s does not support subqueries or stored functions")
ER_DUP_CONSTRAINT_NAME = MySQLError(1826, "HY000", "Duplicate %s constraint name '%s'")
ER_CONSTRAINT_FAILED = MySQLError(4025, "23000", "CONSTRAINT `%s` failed for `%s`.`%s`")
ER_INVALID_DEFAULT_PARAM = MySQLError(4032, "HY000", "Default/ignore value is not supported for such parameter usage")
ER_UNKNOWN_OPTION = MySQLError(1911, "HY000", "Unknown option '%s'")
ER_UNKNOWN_DATA_TYPE = MySQLError(4161, "HY000", "Unknown data type: '%s'")
ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT = MySQLError(1582, "42000", "Incorrect parameter count in the call to native function '%s'")
# MariaDB's JSON warnings (errors in a strict write): the argument's number, the function's name
ER_JSON_BAD_CHR = MySQLError(4036, "HY000", "Character disallowed in JSON in argument %d to function '%s' at position %d")
ER_JSON_EOS = MySQLError(4037, "HY000", "Unexpected end of JSON text in argument %d to function '%s'")
ER_JSON_SYNTAX = MySQLError(4038, "HY000", "Syntax error in JSON text in argument %d to function '%s' at position %d")
ER_JSON_ESCAPING = MySQLError(4039, "HY000", "Incorrect escaping in JSON text in argument %d to function '%s' at position %d")
ER_JSON_DEPTH = MySQLError(
    4040, "HY000", "Limit of %d on JSON nested structures depth is reached in argument %d to function '%s' at position %d")
ER_JSON_PATH_EOS = MySQLError(4041, "HY000", "Unexpected end of JSON path in argument %d to function '%s'")
ER_JSON_PATH_SYNTAX = MySQLError(4042, "HY000", "Syntax error in JSON path in argument %d to function '%s' at position %d")
ER_JSON_PATH_NO_WILDCARD = MySQLError(
    4044, "HY000", "Wildcards or range in JSON path not allowed in argument %d to function '%s'")
ER_JSON_ONE_OR_ALL = MySQLError(4046, "HY000", "Argument %d to function '%s' must be \"one\" or \"all\".")
ER_WRONG_NUMBER_OF_VALUES_IN_TVC = MySQLError(4099, "HY000", "The used table value constructor has a different number of values")
ER_EMPTY_ROW_IN_TVC = MySQLError(4141, "HY000", "Row with no elements is not allowed in table value constructor in this context")
ER_WITH_TIES_NEEDS_ORDER = MySQLError(4180, "HY000", "FETCH ... WITH TIES requires ORDER BY clause to be present")
ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED = MySQLError(
    1901, "HY000", "Function or expression '%s' cannot be used in the %s clause of `%s`")
ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN = MySQLError(1907, "HY000", "This is not yet supported for generated columns")
ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN = MySQLError(
    1906, "HY000", "The value specified for generated column '%s' in table '%s' has been ignored")
ER_OPTION_PREVENTS_STATEMENT = MySQLError(1290, "HY000", "The MariaDB server is running with the %s option so it cannot execute this statement")
# SIGNAL / RESIGNAL (sql_signal.cc); a signalled condition carries its own code and SQLSTATE
ER_SP_COND_MISMATCH = MySQLError(1319, "42000", "Undefined CONDITION: %s")
ER_SP_BAD_SQLSTATE = MySQLError(1407, "42000", "Bad SQLSTATE: '%s'")
ER_DUP_SIGNAL_SET = MySQLError(1641, "42000", "Duplicate condition information item '%s'")
ER_SIGNAL_WARN = MySQLError(1642, "01000", "Unhandled user-defined warning condition")
ER_SIGNAL_NOT_FOUND = MySQLError(1643, "02000", "Unhandled user-defined not found condition")
ER_SIGNAL_EXCEPTION = MySQLError(1644, "HY000", "Unhandled user-defined exception condition")
ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER = MySQLError(1645, "0K000", "RESIGNAL when handler not active")
ER_WARN_COND_ITEM_TRUNCATED = MySQLError(1647, "HY000", "Data truncated for condition item '%s'")
ER_COND_ITEM_TOO_LONG = MySQLError(1648, "HY000", "Data too long for condition item '%s'")


class ProtocolError(Exception):
    """Base of every error that leaves `protocol/`. Carries the MySQL error to report, if any."""

    def __init__(self, message: str, *, error: MySQLError = ER_UNKNOWN_ERROR, fatal: bool = True):
        super().__init__(message)
        self.message = message
        self.error = error
        self.fatal = fatal

    @property
    def code(self) -> int:
        return self.error.code

    @property
    def sqlstate(self) -> str:
        return self.error.sqlstate


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol."""


class LocalProtocolError(ProtocolError):
    """Our own code misused the protocol API."""


class SQLError(Exception):
    """A MySQL error to report to a client as an ERR packet (not a protocol violation).
    `warnings`: what the statement had warned of before it failed, which SHOW WARNINGS lists
    before the error (a SET's clamped value ahead of the variable it refused)."""

    warnings: tuple[tuple[str, int, str], ...] = ()
    trace: tuple[tuple[str, int, str], ...] = ()  # notes listed after it (a stored routine's 4094)
    items: tuple[tuple[str, str], ...] = ()  # the condition items SIGNAL set (CLASS_ORIGIN ...): (name, value)
    level: str = "Error"  # a stored program's condition: Warning / Note for one a handler took as such

    def __init__(self, error: MySQLError, *args: object, message: str | None = None):
        self.error = error
        self.message = message if message is not None else error.format(*args)
        super().__init__(f"ERROR {error.code} ({error.sqlstate}): {self.message}")

    @property
    def code(self) -> int:
        return self.error.code

    @property
    def sqlstate(self) -> str:
        return self.error.sqlstate


_SQLSTATES = {error.code: error.sqlstate for error in list(globals().values()) if isinstance(error, MySQLError)}


def sqlstate_of(code: int) -> str:
    """The SQLSTATE of an error code as the table gives it (a warning or note in the
    diagnostics area is kept by its code alone); HY000 for a code not in it, as MariaDB's."""
    return _SQLSTATES.get(code, "HY000")
