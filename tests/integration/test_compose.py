"""Dockerfile and docker-compose.yml, checked statically (no Docker engine here), and the compose
services' very commands run on loopback as a working semi-sync cluster."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.support.daemons import ROOT, wait_for
from tests.support.net import free_ports

COMPOSE = ROOT / "docker-compose.yml"


def test_dockerfile_is_slim_nonroot_and_healthchecked():
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    instructions = [line.split()[0] for line in lines if line and not line.startswith("#")]
    assert lines[next(i for i, line in enumerate(lines) if line.startswith("FROM"))] == "FROM python:3.11-slim"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert "HEALTHCHECK" in instructions and "ENTRYPOINT" in instructions
    # the compiled parts are built (a compiler while pip runs, the extension checked) and the
    # compiler does not stay in the image
    text = " ".join(lines)
    install = text.index("pip install --no-cache-dir .")
    assert text.index("apt-get install -y --no-install-recommends gcc libc6-dev zlib1g-dev libsqlite3-dev") < install
    built = '(cd / && python -c "import engine._lexer, engine._walframes, binlog._syncer, protocol._eventscan, protocol._framing, protocol._rows, slave._receiver")'
    assert install < text.index(built) < text.index("apt-get purge -y --auto-remove gcc libc6-dev zlib1g-dev libsqlite3-dev")
    # every package of pyproject is copied into the image
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    for pkg in packages:
        assert any(line.startswith(f"COPY {pkg} ") for line in lines), f"Dockerfile does not copy {pkg}/"


def compose_config(env: dict[str, str]) -> dict:
    out = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    return yaml.safe_load(out.stdout)


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="docker-compose not installed (make test installs it)")
def test_docker_compose_config_accepts_the_file():
    config = compose_config(dict(os.environ))
    assert {"master", "slave1", "slave2", "prometheus"} <= set(config["services"])
    assert "grafana" in config["services"] or "grafana" in COMPOSE.read_text()


def loopback_command(service: dict, datadir) -> tuple[list[str], dict[str, str]]:
    """The service's command, as run on one host: service names -> 127.0.0.1, /data -> datadir."""
    args = []
    for arg in service["command"]:
        arg = arg.replace("--datadir=/data", f"--datadir={datadir}")
        arg = arg.replace("--bind-address=0.0.0.0", "--bind-address=127.0.0.1")
        arg = arg.replace("--master-host=master", "--master-host=127.0.0.1")
        args.append(arg)
    env = {k: str(v) for k, v in (service.get("environment") or {}).items()}
    return args, env


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("docker-compose"), reason="docker-compose not installed (make test installs it)")
def test_compose_commands_form_a_semisync_cluster(tmp_path):
    ports = free_ports(6)
    names = ["MASTER_PORT", "SLAVE1_PORT", "SLAVE2_PORT", "MASTER_METRICS_PORT", "SLAVE1_METRICS_PORT", "SLAVE2_METRICS_PORT"]
    env = {**os.environ, **dict(zip(names, map(str, ports), strict=True)), "ROOT_PASSWORD": "composepw"}
    services = compose_config(env)["services"]
    procs = []
    try:
        for name in ("master", "slave1", "slave2"):
            args, service_env = loopback_command(services[name], tmp_path / name)
            log = open(tmp_path / f"{name}.log", "wb")
            procs.append(subprocess.Popen([sys.executable, "-m", "cli.main", *args], stdout=log, stderr=subprocess.STDOUT,
                                          env={**os.environ, **service_env}, cwd=ROOT))
        import pymysql

        def q(port, sql):
            conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="composepw", autocommit=True,
                                   connect_timeout=3)
            try:
                with conn.cursor() as cur:
                    cur.execute(sql)
                    return list(cur.fetchall())
            finally:
                conn.close()

        def clients():
            return int(dict(q(ports[0], "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'"))["Rpl_semi_sync_master_clients"])

        def logs() -> str:
            return "\n".join(
                f"--- {name} (exit {p.poll()}):\n" + (tmp_path / f"{name}.log").read_text(errors="replace")[-2000:]
                for name, p in zip(("master", "slave1", "slave2"), procs, strict=False)
            )

        wait_for(lambda: clients() == 2, timeout=90, message=lambda: "2 semi-sync clients\n" + logs())
        q(ports[0], "CREATE DATABASE c")
        q(ports[0], "CREATE TABLE c.t (id INT PRIMARY KEY)")
        q(ports[0], "INSERT INTO c.t VALUES (1), (2), (3)")
        for port in ports[1:3]:
            wait_for(lambda p=port: q(p, "SELECT COUNT(*) FROM c.t") == [(3,)], timeout=30)
        assert dict(q(ports[0], "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'"))["Rpl_semi_sync_master_status"] == "ON"
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
