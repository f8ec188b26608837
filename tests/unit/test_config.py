"""MasterConfig / SlaveConfig and their loader: defaults, precedence, refusals in one line."""

from __future__ import annotations

import itertools
from pathlib import Path

import pydantic
import pytest

from config import (
    BinlogChecksum,
    ConfigError,
    MasterConfig,
    SlaveConfig,
    WaitPoint,
    load_master_config,
    load_slave_config,
)

LOADERS = {"master": load_master_config, "slave": load_slave_config}
REQUIRED = {"master": {}, "slave": {"server_id": "2"}}


def load(command, cli=None, file_text=None, env=None, tmp_path=None):
    """The configuration `semisync <command>` would build from these three sources."""
    config_file = None
    if file_text is not None:
        config_file = tmp_path / "semisync.toml"
        config_file.write_text(file_text)
    given = f"{cli} {file_text} {env}"
    required = {k: v for k, v in REQUIRED[command].items() if k not in given.lower()}
    cli_values = {**required, **(cli or {})}
    return LOADERS[command](cli_values, config_file, env or {})


def refusal(command, cli=None, file_text=None, env=None, tmp_path=None) -> str:
    with pytest.raises(ConfigError) as caught:
        load(command, cli, file_text, env, tmp_path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"semisync {command}: ")
    return message


def test_master_defaults_are_interface_md():
    config = load_master_config({}, None, {})
    assert config == MasterConfig()
    assert config.datadir == Path("./data/master")
    assert (config.bind_address, config.port, config.server_id) == ("127.0.0.1", 3306, 1)
    assert (config.root_password, config.log_bin) == ("", "mysql-bin")
    assert (config.max_binlog_size, config.sync_binlog) == (1073741824, 1)
    assert config.binlog_checksum is BinlogChecksum.CRC32
    assert config.binlog_error_action == "ABORT_SERVER"
    assert load_master_config({"binlog_error_action": "ignore_error"}, None, {}).binlog_error_action == "IGNORE_ERROR"
    assert config.rpl_semi_sync_master_enabled is False
    assert config.rpl_semi_sync_master_timeout == 10000
    assert config.rpl_semi_sync_master_wait_for_slave_count == 1
    assert config.rpl_semi_sync_master_wait_no_slave is True
    assert config.rpl_semi_sync_master_wait_point is WaitPoint.AFTER_SYNC
    assert config.rpl_semi_sync_master_trace_level == 32
    assert config.metrics_port == 0


def test_slave_defaults_are_interface_md():
    config = load_slave_config({"server_id": "2"}, None, {})
    assert config.datadir == Path("./data/slave")
    assert (config.bind_address, config.port, config.server_id) == ("127.0.0.1", 3307, 2)
    assert config.master_host is None
    assert (config.master_port, config.master_user, config.master_password) == (3306, "repl", "")
    assert (config.slave_net_timeout, config.master_heartbeat_period) == (60, 30)
    assert config.master_connect_retry == 60
    assert config.rpl_semi_sync_slave_enabled is False
    assert (config.sync_relay_log, config.relay_log, config.metrics_port) == (1, "relay-bin", 0)


def test_configs_are_frozen_and_refuse_unknown_fields():
    config = MasterConfig()
    with pytest.raises(pydantic.ValidationError):
        config.port = 1  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError):
        MasterConfig(rpl_semi_sync_master_timout=5)  # type: ignore[call-arg]
    with pytest.raises(pydantic.ValidationError):
        SlaveConfig()  # type: ignore[call-arg]  # server_id is required


# (command, option, file value, environment value, command-line value, typed result of each)
PRECEDENCE = [
    ("master", "port", "3310", "3311", "3312", (3310, 3311, 3312)),
    ("master", "rpl_semi_sync_master_timeout", "500", "600", "700", (500, 600, 700)),
    ("master", "rpl_semi_sync_master_enabled", "true", "OFF", "on", (True, False, True)),
    ("master", "rpl_semi_sync_master_wait_point", '"after_commit"', "AFTER_SYNC", "AFTER_COMMIT",
     (WaitPoint.AFTER_COMMIT, WaitPoint.AFTER_SYNC, WaitPoint.AFTER_COMMIT)),
    ("master", "datadir", '"/f"', "/e", "/c", (Path("/f"), Path("/e"), Path("/c"))),
    ("slave", "server_id", "7", "8", "9", (7, 8, 9)),
    ("slave", "master_host", '"f.example"', "e.example", "c.example", ("f.example", "e.example", "c.example")),
    ("slave", "slave_net_timeout", "10", "20.5", "30", (10, 20.5, 30)),
    ("slave", "rpl_semi_sync_slave_enabled", "1", "off", "TRUE", (True, False, True)),
]  # fmt: skip


@pytest.mark.parametrize("command, name, in_file, in_env, on_cli, results", PRECEDENCE)
def test_command_line_beats_environment_beats_file_beats_default(
    tmp_path, command, name, in_file, in_env, on_cli, results
):
    from_file, from_env, from_cli = results
    env = {f"SEMISYNC_{name.upper()}": in_env}
    file_text = f"{name} = {in_file}\n"
    layers = [load(command).model_dump()[name], *results]
    # each layer changes the value, otherwise a layer that is ignored would go unnoticed
    assert all(lower != upper for lower, upper in itertools.pairwise(layers))

    assert getattr(load(command, file_text=file_text, tmp_path=tmp_path), name) == from_file
    assert getattr(load(command, env=env, file_text=file_text, tmp_path=tmp_path), name) == from_env
    both = load(command, {name: on_cli}, file_text, env, tmp_path)
    assert getattr(both, name) == from_cli
    # an option not typed (None from click) leaves the layers below in charge
    assert getattr(load(command, {name: None}, file_text, env, tmp_path), name) == from_env


def test_layers_mix_option_by_option(tmp_path):
    config = load(
        "master",
        cli={"port": "4000"},
        env={"SEMISYNC_SERVER_ID": "9", "SEMISYNC_PORT": "5000"},
        file_text='server_id = 8\nlog_bin = "binlog"\nport = 6000\n',
        tmp_path=tmp_path,
    )
    assert (config.port, config.server_id, config.log_bin) == (4000, 9, "binlog")
    assert config.rpl_semi_sync_master_timeout == 10000


def test_heartbeat_period_defaults_to_half_the_net_timeout_from_any_layer(tmp_path):
    assert load("slave", env={"SEMISYNC_SLAVE_NET_TIMEOUT": "10"}).master_heartbeat_period == 5
    from_file = load("slave", file_text="slave_net_timeout = 3", tmp_path=tmp_path)
    assert from_file.master_heartbeat_period == 1.5
    assert load("slave", {"master_heartbeat_period": "0"}).master_heartbeat_period == 0
    assert load("slave", {"master_heartbeat_period": "0.25"}).master_heartbeat_period == 0.25


def test_mysql8_source_names_are_accepted_in_file_and_environment(tmp_path):
    file_text = 'rpl_semi_sync_source_enabled = "ON"\nrpl_semi_sync_source_timeout = 250\n'
    config = load(
        "master",
        env={"SEMISYNC_RPL_SEMI_SYNC_SOURCE_WAIT_FOR_SLAVE_COUNT": "3"},
        file_text=file_text,
        tmp_path=tmp_path,
    )
    assert config.rpl_semi_sync_master_enabled is True
    assert config.rpl_semi_sync_master_timeout == 250
    assert config.rpl_semi_sync_master_wait_for_slave_count == 3
    slave = load("slave", env={"SEMISYNC_RPL_SEMI_SYNC_REPLICA_ENABLED": "on"})
    assert slave.rpl_semi_sync_slave_enabled is True


def test_one_option_under_both_names_in_one_layer_is_refused(tmp_path):
    message = refusal(
        "master",
        file_text="rpl_semi_sync_master_timeout = 1\nrpl_semi_sync_source_timeout = 2\n",
        tmp_path=tmp_path,
    )
    assert "--rpl-semi-sync-master-timeout is set twice" in message


@pytest.mark.parametrize("word", ["ON", "off", "1", "0", "TRUE", "false", "True", "oN"])
def test_boolean_syntax_in_every_layer(tmp_path, word):
    expected = word.upper() in ("ON", "1", "TRUE")
    name = "rpl_semi_sync_master_wait_no_slave"
    assert getattr(load("master", {name: word}), name) is expected
    assert getattr(load("master", env={f"SEMISYNC_{name.upper()}": word}), name) is expected
    in_file = load("master", file_text=f'{name} = "{word}"', tmp_path=tmp_path)
    assert getattr(in_file, name) is expected


# (command, option, bad value, what the refusal says is allowed)
BAD_VALUES = [
    ("master", "rpl_semi_sync_master_wait_point", "SOMETIMES", "allowed AFTER_SYNC, AFTER_COMMIT"),
    ("master", "binlog_checksum", "MD5", "allowed NONE, CRC32"),
    ("master", "binlog_error_action", "REPLAY_FROM_BINLOG", "allowed ABORT_SERVER, IGNORE_ERROR"),
    ("master", "rpl_semi_sync_master_enabled", "YES", "allowed ON, OFF, 1, 0, TRUE, FALSE"),
    ("master", "rpl_semi_sync_master_wait_no_slave", "2", "allowed ON, OFF, 1, 0, TRUE, FALSE"),
    ("master", "rpl_semi_sync_master_wait_for_slave_count", "0", "allowed integers 1-65535"),
    ("master", "rpl_semi_sync_master_wait_for_slave_count", "65536", "allowed integers 1-65535"),
    ("master", "rpl_semi_sync_master_timeout", "-1", "allowed integers 0-4294967295"),
    ("master", "rpl_semi_sync_master_trace_level", "lots", "allowed integers 0-4294967295"),
    ("master", "max_binlog_size", "2G", "allowed integers 4096-1073741824"),
    ("master", "max_binlog_size", "100", "allowed integers 4096-1073741824"),
    ("master", "sync_binlog", "1.5", "allowed integers 0-4294967295"),
    ("master", "port", "65536", "allowed integers 0-65535"),
    ("master", "server_id", "0", "allowed integers 1-4294967295"),
    ("master", "metrics_port", "http", "allowed integers 0-65535"),
    ("master", "log_bin", "logs/mysql-bin", "allowed a file basename without '/'"),
    ("master", "bind_address", "a b", "allowed a host name or IP address"),
    ("slave", "server_id", "0", "allowed integers 1-4294967295"),
    ("slave", "master_port", "0", "allowed integers 1-65535"),
    ("slave", "master_heartbeat_period", "0.0001", "allowed 0 (disabled) or seconds 0.001-4294967"),
    (
        "slave",
        "master_heartbeat_period",
        "4294968",
        "allowed 0 (disabled) or seconds 0.001-4294967",
    ),
    ("slave", "slave_net_timeout", "0", "allowed seconds 0.001-31536000"),
    ("slave", "master_connect_retry", "never", "allowed seconds 0.001-31536000"),
    ("slave", "rpl_semi_sync_slave_enabled", "maybe", "allowed ON, OFF, 1, 0, TRUE, FALSE"),
    ("slave", "sync_relay_log", "-5", "allowed integers 0-4294967295"),
    ("slave", "relay_log", "", "allowed a file basename without '/'"),
]


@pytest.mark.parametrize("command, name, bad, allowed", BAD_VALUES)
def test_bad_value_on_the_command_line_is_refused_in_one_line(command, name, bad, allowed):
    flag = "--" + name.replace("_", "-")
    expected = f"semisync {command}: invalid value '{bad}' for {flag}: {allowed}"
    assert refusal(command, {name: bad}) == expected


@pytest.mark.parametrize("command, name, bad, allowed", BAD_VALUES[::3])
def test_bad_value_from_environment_or_file_names_where_it_was_set(
    tmp_path, command, name, bad, allowed
):
    flag = "--" + name.replace("_", "-")
    env_name = f"SEMISYNC_{name.upper()}"
    assert refusal(command, env={env_name: bad}) == (
        f"semisync {command}: invalid value '{bad}' for {flag} (from {env_name}): {allowed}"
    )
    file_text = f'{name} = "{bad}"\n'
    where = f"{name} in {tmp_path / 'semisync.toml'}"
    assert refusal(command, file_text=file_text, tmp_path=tmp_path) == (
        f"semisync {command}: invalid value '{bad}' for {flag} ({where}): {allowed}"
    )


def test_toml_values_of_the_wrong_type_are_refused_not_converted(tmp_path):
    message = refusal("master", file_text="rpl_semi_sync_master_timeout = true", tmp_path=tmp_path)
    assert "invalid value 'true' for --rpl-semi-sync-master-timeout" in message
    message = refusal("master", file_text="root_password = 1234", tmp_path=tmp_path)
    assert message.endswith(": allowed a string")


def test_a_refused_value_stays_on_one_line(tmp_path):
    message = refusal("master", file_text='log_bin = """a\nb/c"""', tmp_path=tmp_path)
    assert "invalid value 'a\\nb/c' for --log-bin" in message


def test_unknown_file_keys_are_refused_by_name(tmp_path):
    file_text = "rpl_semi_sync_master_timout = 5\nport = 3310\nfrobnicate = 1\n"
    message = refusal("master", file_text=file_text, tmp_path=tmp_path)
    assert "unknown option 'rpl_semi_sync_master_timout'" in message
    assert "did you mean rpl_semi_sync_master_timeout?" in message
    assert "'frobnicate'" in message and str(tmp_path / "semisync.toml") in message
    message = refusal("slave", file_text="server_id = 2\nlog_bin_x = 'x'", tmp_path=tmp_path)
    assert "unknown option 'log_bin_x'" in message and "did you mean log_bin?" in message


def test_unreadable_or_malformed_file_is_refused(tmp_path):
    missing = tmp_path / "absent.toml"
    with pytest.raises(ConfigError, match=r"^semisync master: cannot read --config .*absent.toml"):
        load_master_config({}, missing, {})
    message = refusal("master", file_text="port = = 1", tmp_path=tmp_path)
    assert "is not valid TOML" in message


def test_other_environment_variables_are_ignored():
    config = load("master", env={"SEMISYNC_FROBNICATE": "1", "PORT": "1", "semisync_port": "5"})
    assert config.port == 3306


def test_missing_server_id_on_the_slave_is_refused():
    message = str(pytest.raises(ConfigError, load_slave_config, {}, None, {}).value)
    assert message.startswith("semisync slave: --server-id is required")
    assert "\n" not in message


@pytest.mark.parametrize("command", ["master", "slave"])
@pytest.mark.parametrize("address", ["0.0.0.0", "::", "10.1.2.3", "db.example.com"])
def test_empty_root_password_off_loopback_is_refused(command, address):
    message = refusal(command, {"bind_address": address})
    assert "--root-password" in message and repr(address) in message
    config = load(command, {"bind_address": address, "root_password": "s3cret"})
    assert config.bind_address == address


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_empty_root_password_on_loopback_is_allowed(address):
    assert load("master", {"bind_address": address}).root_password == ""
    assert load("slave", env={"SEMISYNC_BIND_ADDRESS": address}).bind_address == address


def test_the_two_presets_differ_only_in_defaults():
    """One server, two presets (INTERFACE.md "Roles, GTIDs and failover"): the same options,
    read_only OFF / ON, the slave's port, datadir and required server_id."""
    master, slave = load("master"), load("slave")
    differ = {name for name in MasterConfig.model_fields if getattr(master, name) != getattr(slave, name)}
    assert differ == {"datadir", "port", "server_id", "read_only"}
    assert (master.read_only, slave.read_only) == (False, True)
    assert (master.port, slave.port) == (3306, 3307)
    assert master.log_slave_updates is True and slave.log_slave_updates is True
    assert slave.log_bin == master.log_bin == "mysql-bin"


def test_each_preset_takes_the_other_ones_options(tmp_path):
    master = load("master", cli={"master_host": "db1", "master_port": "3310", "relay_log": "r",
                                 "sync_relay_log": "0", "rpl_semi_sync_slave_enabled": "ON",
                                 "read_only": "on", "log_slave_updates": "OFF"})
    assert (master.master_host, master.master_port, master.relay_log, master.sync_relay_log) == ("db1", 3310, "r", 0)
    assert master.rpl_semi_sync_slave_enabled and master.read_only and not master.log_slave_updates
    slave = load("slave", cli={"log_bin": "binlog", "sync_binlog": "0", "max_binlog_size": "64M",
                               "binlog_checksum": "none", "binlog_error_action": "ignore_error",
                               "rpl_semi_sync_master_enabled": "ON", "read_only": "OFF"})
    assert (slave.log_bin, slave.sync_binlog, slave.max_binlog_size) == ("binlog", 0, 64 << 20)
    assert slave.binlog_checksum is BinlogChecksum.NONE and str(slave.binlog_error_action) == "IGNORE_ERROR"
    assert slave.rpl_semi_sync_master_enabled and not slave.read_only
    password_file = tmp_path / "pw"
    password_file.write_text("s3cret\n")
    assert load("master", cli={"master_password_file": str(password_file)}).master_password == "s3cret"
    message = refusal("master", cli={"log_slave_updates": "maybe"})
    assert message == "semisync master: invalid value 'maybe' for --log-slave-updates: allowed ON, OFF, 1, 0, TRUE, FALSE"
