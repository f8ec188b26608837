"""What the master and slave configurations share: the frozen model and the loopback rule.

A configuration is built once, at the edge (cli/), and passed down; nothing below reads the
environment or files again. Every field carries its parser (config/values.py) and what `--help`
shows; the model refuses unknown fields, and a daemon refuses an empty root password unless it
listens only on a loopback address (127.0.0.0/8, ::1, localhost).

Passwords can stay off the command line (where every local user reads them in
/proc/PID/cmdline): `--root-password-file` / `--master-password-file` name a file whose first
line is the password, read here once; giving both a password and its file is refused.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, model_validator

from config.values import (
    checked,
    integer,
    is_loopback,
    parse_host,
    parse_optional_path,
    parse_path,
    parse_text,
    read_password_file,
)

# Field types shared by both daemons (the defaults differ, so each model declares its own).
DataDir = Annotated[Path, checked(parse_path)]
BindAddress = Annotated[str, checked(parse_host)]
Port = Annotated[int, integer(0, 65535)]
ServerId = Annotated[int, integer(1, 4294967295)]
Password = Annotated[str, checked(parse_text)]
Count = Annotated[int, integer(0, 4294967295)]
PasswordFile = Annotated[Path | None, checked(parse_optional_path)]
ConnectErrors = Annotated[int, integer(1, 4294967295)]
OptionalPath = Annotated[Path | None, checked(parse_optional_path)]

BIND_HELP = "address of the MySQL protocol listener"
ROOT_PASSWORD_HELP = "password of `root`; empty is allowed only on a loopback bind address (127.0.0.0/8, ::1, localhost)"
METRICS_HELP = "Prometheus endpoint http://BIND:N/metrics; 0 = off"
ROOT_PASSWORD_FILE_HELP = "read root's password from the first line of this file (keeps it off the command line)"
MAX_CONNECT_ERRORS_HELP = (
    "a host (other than 127.0.0.1 and ::1) whose connections fail this many times in a row during the "
    "handshake is blocked (1129) until FLUSH HOSTS, 1-4294967295"
)
SSL_GENERATED = "a self-signed pair generated in the datadir"  # INTERFACE.md's default
SSL_CERT_HELP = "server certificate (PEM) for TLS; with neither --ssl-cert nor --ssl-key, a CA (ca.pem) and a certificate it signed are made in the datadir at first start"
SSL_KEY_HELP = "private key (PEM) of --ssl-cert"
SSL_CA_HELP = "CA certificate (PEM) the server trusts (the generated ca.pem by default)"
REQUIRE_SECURE_TRANSPORT_HELP = "refuse logins over connections without TLS (3159)"
# (password field, the field naming its file), for the fields a model has
PASSWORD_FILES = (("root_password", "root_password_file"), ("master_password", "master_password_file"))


class DaemonConfig(BaseModel):
    """Base of MasterConfig and SlaveConfig: frozen, strict about names, loopback rule."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    if TYPE_CHECKING:  # declared by each model, in INTERFACE.md's order
        bind_address: str
        root_password: str

    @model_validator(mode="before")
    @classmethod
    def _passwords_from_files(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for name, file_field in PASSWORD_FILES:
            path = parse_optional_path(data.get(file_field)) if file_field in cls.model_fields else None
            if path is None:
                continue
            flag, file_flag = (f"--{n.replace('_', '-')}" for n in (name, file_field))
            if data.get(name) not in (None, ""):
                raise ValueError(f"{flag} and {file_flag} are both set: keep one")
            try:
                data = {**data, name: read_password_file(path)}
            except ValueError as exc:
                raise ValueError(f"{file_flag}: {exc}") from None
        return data

    @model_validator(mode="after")
    def _ssl_cert_with_its_key(self) -> DaemonConfig:
        cert, key = getattr(self, "ssl_cert", None), getattr(self, "ssl_key", None)
        if (cert is None) != (key is None):
            raise ValueError("--ssl-cert and --ssl-key go together: give both or neither")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # refused at start, not at first use
        if cert is not None:
            try:
                context.load_cert_chain(cert, key)
            except (OSError, ssl.SSLError) as exc:
                raise ValueError(f"--ssl-cert {cert} / --ssl-key {key}: cannot be loaded ({exc})") from None
        ca = getattr(self, "ssl_ca", None)
        if ca is not None:
            try:
                context.load_verify_locations(cafile=str(ca))
            except (OSError, ssl.SSLError) as exc:
                raise ValueError(f"--ssl-ca {ca}: cannot be loaded ({exc})") from None
        return self

    @model_validator(mode="after")
    def _root_password_only_on_loopback(self) -> DaemonConfig:
        if not self.root_password and not is_loopback(self.bind_address):
            raise ValueError(
                f"refusing an empty --root-password with --bind-address {self.bind_address!r}, "
                "which is not a loopback address: set --root-password or bind to 127.0.0.1, ::1 "
                "or localhost"
            )
        return self
