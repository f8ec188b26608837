"""`semisync master` / `semisync slave` options: --help against INTERFACE.md, one-line refusals
from the real console script, and what reaches the daemon's `run(config)`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.daemon_options import daemon_missing, serve
from cli.main import cli
from config import MasterConfig, SlaveConfig, WaitPoint

ROOT = Path(__file__).resolve().parents[2]
INTERFACE_CANDIDATES = [ROOT / "docs" / "INTERFACE.md", ROOT.parent / "shared" / "INTERFACE.md"]


def semisync(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run the installed console script (as a user would), without SEMISYNC_* from our environment."""
    script = shutil.which("semisync")
    argv = [script] if script else [sys.executable, "-c", "from cli.main import main; main()"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SEMISYNC_")}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*argv, *args], cwd=cwd, env={**clean, **(env or {})}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


# --- --help lists every INTERFACE.md option with its default ----------------------------------


def interface_options(command: str) -> list[tuple[str, str, str]]:
    """(flag, metavar or "", default as the table writes it) for each row of `semisync <command>`."""
    path = next((p for p in INTERFACE_CANDIDATES if p.exists()), None)
    if path is None:
        pytest.skip("INTERFACE.md not found next to the checkout")
    section = path.read_text().split(f"### `semisync {command} [OPTIONS]`")[1].split("###")[0]
    options = []
    for row in section.splitlines():
        if not row.startswith("| `--"):
            continue
        # `--a X`, `--b Y` | `1`, `2` -- a row may hold several options; "\|" is a literal bar
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        flags = re.findall(r"`(--[a-z0-9-]+)((?: [^`]+)?)`", cells[0])
        defaults = [d.strip().replace("`", "") for d in cells[1].split(",")]
        assert len(defaults) in (1, len(flags)), row
        for (flag, metavar), default in zip(flags, defaults * len(flags), strict=False):
            options.append((flag, metavar.strip().replace("\\|", "|"), default))
    assert len(options) >= 14, "INTERFACE.md's table was not understood"
    return options


def help_blocks(text: str) -> dict[str, str]:
    """--help's option list as {flag: its whole entry, whitespace normalised}."""
    blocks: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if match := re.match(r"\s{1,4}(?:-\w, )?(--[a-z0-9-]+)", line):
            current = match[1]
            blocks[current] = ""
        if current:
            blocks[current] += " " + line.strip()
    return {flag: " ".join(block.split()) for flag, block in blocks.items()}


@pytest.mark.parametrize("command", ["master", "slave"])
def test_help_lists_every_interface_option_with_its_default(tmp_path, command):
    result = semisync(command, "--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    blocks = help_blocks(result.stdout)
    for flag, metavar, default in interface_options(command):
        assert flag in blocks, f"{flag} missing from `semisync {command} --help`"
        if metavar:
            assert blocks[flag].startswith(f"{flag} {metavar} "), blocks[flag]
        if default == "required":
            assert "[required]" in blocks[flag], blocks[flag]
        else:
            assert f"[default: {default}]" in blocks[flag], blocks[flag]
    assert "--config FILE" in result.stdout and "SEMISYNC_" in result.stdout


def security_options() -> dict[str, tuple[str, str]]:
    """{flag: (metavar or "", default)} of INTERFACE.md's "Security and failure options (both
    daemons)" table (a row naming several flags gives its metavar to the last)."""
    path = next((p for p in INTERFACE_CANDIDATES if p.exists()), None)
    if path is None:
        pytest.skip("INTERFACE.md not found next to the checkout")
    section = path.read_text().split("## Security and failure options (both daemons)")[1].split("\n## ")[0]
    options = {}
    for row in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        if row.startswith("| `--"):
            for flag, metavar in re.findall(r"`(--[a-z0-9-]+)((?: [^`]+)?)`", cells[0]):
                options[flag] = (metavar.strip().replace("\\|", "|"), cells[1].replace("`", ""))
    assert "--max-connect-errors" in options, "INTERFACE.md's security table was not understood"
    return options


# INTERFACE.md's "Roles, GTIDs and failover": options of the one server named outside the tables
ROLE_OPTIONS = {"--log-slave-updates", "--read-only", "--init-rpl-role", "--gtid-domain-id", "--gtid-strict-mode"}
# options INTERFACE.md does not name, each a MariaDB server option under MariaDB's name
MARIADB_OPTIONS = {"--relay-log-purge", "--secure-file-priv"}
# options of ours INTERFACE.md does not name (the README's tables do): tuning without a MariaDB
# counterpart of that name
OUR_OPTIONS = {"--slave-commit-wait-usec"}


def test_every_model_field_is_an_interface_option():
    """The other direction: no option that INTERFACE.md does not promise (or names differently):
    the union of both commands' tables (each accepts the other's options, "Roles, GTIDs and
    failover"), plus the security options both daemons share."""
    security = security_options()
    either = {flag for command in ("master", "slave") for flag, _, _ in interface_options(command)}
    for command, model in (("master", MasterConfig), ("slave", SlaveConfig)):
        promised = {flag for flag, _, _ in interface_options(command)}
        ours = {"--" + name.replace("_", "-") for name in model.model_fields}
        assert ours - either <= set(security) | ROLE_OPTIONS | MARIADB_OPTIONS | OUR_OPTIONS, command
        assert promised <= ours and either <= ours, command
    assert set(MasterConfig.model_fields) == set(SlaveConfig.model_fields)
    assert {"--root-password-file", "--master-password-file", "--max-connect-errors"} <= {
        "--" + name.replace("_", "-") for name in SlaveConfig.model_fields}


@pytest.mark.parametrize("command", ["master", "slave"])
def test_help_shows_the_security_options_defaults(tmp_path, command):
    result = semisync(command, "--help", cwd=tmp_path)
    blocks = help_blocks(result.stdout)
    security = security_options()
    model = MasterConfig if command == "master" else SlaveConfig
    for name in model.model_fields:
        flag = "--" + name.replace("_", "-")
        if flag in security and flag not in {f for f, _, _ in interface_options(command)}:
            metavar, default = security[flag]
            if metavar:
                assert blocks[flag].startswith(f"{flag} {metavar} "), blocks[flag]
            assert f"[default: {default}]" in blocks[flag], blocks[flag]


# --- refusals from the real console script ---------------------------------------------------


def assert_one_line_refusal(result: subprocess.CompletedProcess, expected: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr == expected + "\n"
    assert result.stdout == ""


def test_bad_enum_on_the_command_line(tmp_path):
    result = semisync("master", "--rpl-semi-sync-master-wait-point=SOMETIMES", cwd=tmp_path)
    assert_one_line_refusal(
        result,
        "semisync master: invalid value 'SOMETIMES' for --rpl-semi-sync-master-wait-point: "
        "allowed AFTER_SYNC, AFTER_COMMIT",
    )


def test_bad_value_in_the_environment_even_with_a_good_file(tmp_path):
    (tmp_path / "slave.toml").write_text("server_id = 2\nslave_net_timeout = 5\n")
    env = {"SEMISYNC_RPL_SEMI_SYNC_SLAVE_ENABLED": "sometimes"}
    result = semisync("slave", "--config", "slave.toml", cwd=tmp_path, env=env)
    assert_one_line_refusal(
        result,
        "semisync slave: invalid value 'sometimes' for --rpl-semi-sync-slave-enabled "
        "(from SEMISYNC_RPL_SEMI_SYNC_SLAVE_ENABLED): allowed ON, OFF, 1, 0, TRUE, FALSE",
    )


def test_unknown_key_in_the_config_file(tmp_path):
    (tmp_path / "m.toml").write_text("rpl_semi_sync_master_wait_pont = 'AFTER_SYNC'\n")
    result = semisync("master", "--config", str(tmp_path / "m.toml"), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert "unknown option 'rpl_semi_sync_master_wait_pont'" in result.stderr


def test_empty_root_password_on_a_public_address(tmp_path):
    result = semisync("slave", "--server-id", "3", "--bind-address", "0.0.0.0", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("semisync slave: refusing an empty --root-password")


def test_slave_without_server_id(tmp_path):
    result = semisync("slave", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("semisync slave: --server-id is required")


# --- what reaches run(config) -----------------------------------------------------------------


@pytest.fixture
def daemons(monkeypatch):
    """A stand-in `node.main` module recording the configuration each command hands it."""
    received: dict[str, object] = {}
    module = types.ModuleType("node.main")

    def run(config: object) -> None:
        received["slave" if isinstance(config, SlaveConfig) else "master"] = config

    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "node.main", module)
    return received


def invoke(args: list[str], env: dict[str, str] | None = None, code: int = 0):
    clean = {k: None for k in os.environ if k.startswith("SEMISYNC_")}
    result = CliRunner().invoke(cli, args, env={**clean, **(env or {})})
    assert result.exit_code == code, result.output
    return result


def test_options_not_typed_leave_environment_and_file_in_charge(tmp_path, daemons):
    config_file = tmp_path / "master.toml"
    config_file.write_text("port = 3400\nserver_id = 40\nrpl_semi_sync_master_timeout = 40\n")
    env = {"SEMISYNC_SERVER_ID": "50", "SEMISYNC_RPL_SEMI_SYNC_MASTER_TIMEOUT": "50"}
    invoke(["master", "--config", str(config_file), "--rpl-semi-sync-master-timeout", "60"], env)
    config = daemons["master"]
    assert isinstance(config, MasterConfig)
    assert (config.port, config.server_id, config.rpl_semi_sync_master_timeout) == (3400, 50, 60)
    assert config.log_bin == "mysql-bin"


def test_mysqld_spellings_on_the_command_line(daemons):
    invoke(
        [
            "master",
            "--rpl_semi_sync_master_timeout=123",  # underscores
            "--rpl-semi-sync-source-wait-point", "after_commit",  # MySQL 8 name
            "--rpl-semi-sync-master-enabled",  # bare boolean = ON
            "--skip-rpl-semi-sync-master-wait-no-slave",  # skip- = OFF
        ]
    )  # fmt: skip
    config = daemons["master"]
    assert config.rpl_semi_sync_master_timeout == 123
    assert config.rpl_semi_sync_master_wait_point is WaitPoint.AFTER_COMMIT
    assert config.rpl_semi_sync_master_enabled is True
    assert config.rpl_semi_sync_master_wait_no_slave is False

    invoke(["slave", "--server_id=5", "--enable-rpl-semi-sync-replica-enabled", "--master-host=db"])
    slave = daemons["slave"]
    assert isinstance(slave, SlaveConfig)
    assert (slave.server_id, slave.rpl_semi_sync_slave_enabled, slave.master_host) == (
        5,
        True,
        "db",
    )


def test_a_daemon_that_is_not_built_is_reported_with_exit_1(monkeypatch):
    monkeypatch.setitem(sys.modules, "node.main", None)  # import fails as if absent
    result = invoke(["master"], code=1)
    assert "node.main is missing" in result.output


def test_a_missing_import_inside_the_daemon_is_a_bug_not_hidden():
    for missing in ("nosuchdep", "m", "master.ack_receiver"):
        inner = ModuleNotFoundError(f"No module named '{missing}'", name=missing)
        with pytest.raises(ModuleNotFoundError):
            daemon_missing("master", "node.main", inner)


def test_serve_awaits_a_coroutine_and_exits_with_an_int_status():
    async def run() -> int:
        return 3

    with pytest.raises(SystemExit) as exited:
        serve(run())
    assert exited.value.code == 3
    serve(None)  # a plain function that returned normally: nothing to do

    async def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as exited:
        serve(interrupted())
    assert exited.value.code == 130
