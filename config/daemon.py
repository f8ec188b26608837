"""What the master and slave configurations share: the frozen model and the loopback rule.

A configuration is built once, at the edge (cli/), and passed down; nothing below reads the
environment or files again. Every field carries its parser (config/values.py) and what `--help`
shows; the model refuses unknown fields, and a daemon refuses an empty root password unless it
listens only on a loopback address (127.0.0.0/8, ::1, localhost).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, model_validator

from config.values import checked, integer, is_loopback, parse_host, parse_path, parse_text

# Field types shared by both daemons (the defaults differ, so each model declares its own).
DataDir = Annotated[Path, checked(parse_path)]
BindAddress = Annotated[str, checked(parse_host)]
Port = Annotated[int, integer(0, 65535)]
ServerId = Annotated[int, integer(1, 4294967295)]
Password = Annotated[str, checked(parse_text)]
Count = Annotated[int, integer(0, 4294967295)]

BIND_HELP = "address of the MySQL protocol listener"
ROOT_PASSWORD_HELP = "password of `root`; empty is allowed only on a loopback bind address (127.0.0.0/8, ::1, localhost)"
METRICS_HELP = "Prometheus endpoint http://BIND:N/metrics; 0 = off"


class DaemonConfig(BaseModel):
    """Base of MasterConfig and SlaveConfig: frozen, strict about names, loopback rule."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    if TYPE_CHECKING:  # declared by each model, in INTERFACE.md's order
        bind_address: str
        root_password: str

    @model_validator(mode="after")
    def _root_password_only_on_loopback(self) -> DaemonConfig:
        if not self.root_password and not is_loopback(self.bind_address):
            raise ValueError(
                f"refusing an empty --root-password with --bind-address {self.bind_address!r}, "
                "which is not a loopback address: set --root-password or bind to 127.0.0.1, ::1 "
                "or localhost"
            )
        return self
