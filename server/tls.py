"""TLS for the MySQL protocol port: the certificate files, the server context, and one
connection's TLS layer.

Contract
- `certificate_files(datadir, cert, key, ca)`: the files the server uses. With neither
  `--ssl-cert` nor `--ssl-key` given, a self-signed CA and a server certificate it signed are
  made in the datadir at first start, as mysqld's auto_generate_certs (`ca.pem`, `ca-key.pem`,
  `server-cert.pem`, `server-key.pem`; 0600 as every datadir file; the server certificate names
  localhost, this host and the loopback addresses) and reused afterwards. Given files are used as
  they are (a cert without its key, or the reverse, is refused at start).
- `TlsChannel` is the TLS layer of one connection over memory buffers (ssl.SSLObject): the
  session that owns the socket feeds it the bytes it reads (`receive` -> plain bytes) and passes
  every write through it (`encrypt`), so the socket keeps one reader and one writer, whatever
  event loop runs it, and the bytes that arrived with the SSLRequest are not lost. Handshake
  records the channel produces while receiving (`outgoing`) must be written by the reader.
  Plain bytes come out of at most what was read, so the session's memory bounds hold.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

CA_CERT, CA_KEY = "ca.pem", "ca-key.pem"
SERVER_CERT, SERVER_KEY = "server-cert.pem", "server-key.pem"
_VALID_DAYS = 3650  # mysqld's auto-generated certificates last ten years


@dataclass(frozen=True)
class CertificateFiles:
    cert: Path
    key: Path
    ca: Path | None


def certificate_files(datadir: Path, cert: Path | None, key: Path | None, ca: Path | None) -> CertificateFiles:
    """The files to use (see the module contract); generates them when none were given."""
    if cert is not None and key is not None:
        return CertificateFiles(Path(cert), Path(key), Path(ca) if ca is not None else None)
    if cert is not None or key is not None:
        raise ValueError("--ssl-cert and --ssl-key go together: give both or neither")
    paths = [datadir / name for name in (CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY)]
    if not all(p.exists() for p in paths):
        generate_certificates(datadir)
    return CertificateFiles(datadir / SERVER_CERT, datadir / SERVER_KEY, Path(ca) if ca is not None else datadir / CA_CERT)


def generate_certificates(datadir: Path) -> None:
    """A self-signed CA and a server certificate signed by it (ECDSA P-256, SHA-256: made in
    milliseconds, unlike RSA keys)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def make(subject: str, issuer_name: x509.Name | None, signer: ec.EllipticCurvePrivateKey | None, ca: bool):
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
        builder = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(issuer_name or name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=_VALID_DAYS))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            names: list[x509.GeneralName] = [x509.DNSName("localhost"), x509.DNSName(socket.gethostname())]
            names += [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "::1")]
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        cert = builder.sign(signer or key, hashes.SHA256())
        return key, cert, name

    ca_key, ca_cert, ca_name = make("semisync_Auto_Generated_CA_Certificate", None, None, True)
    server_key, server_cert, _ = make("semisync_Auto_Generated_Server_Certificate", ca_name, ca_key, False)

    def key_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    files = {
        CA_KEY: (key_bytes(ca_key), 0o600),
        SERVER_KEY: (key_bytes(server_key), 0o600),
        CA_CERT: (ca_cert.public_bytes(serialization.Encoding.PEM), 0o600),
        SERVER_CERT: (server_cert.public_bytes(serialization.Encoding.PEM), 0o600),
    }
    for name, (data, mode) in files.items():
        path = datadir / name
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)


def server_context(files: CertificateFiles) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(files.cert, files.key)
    if files.ca is not None:
        context.load_verify_locations(cafile=str(files.ca))
    return context


def client_context(ca: Path | None, verify_server_cert: bool) -> ssl.SSLContext:
    """The context of a replication client (CHANGE MASTER TO MASTER_SSL=1 ...): the master's
    certificate is checked against MASTER_SSL_CA when given, its name only when
    MASTER_SSL_VERIFY_SERVER_CERT=1."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = verify_server_cert
    if ca is not None:
        context.load_verify_locations(cafile=str(ca))
        context.verify_mode = ssl.CERT_REQUIRED
    elif verify_server_cert:
        context.load_default_certs()
        context.verify_mode = ssl.CERT_REQUIRED
    else:
        context.verify_mode = ssl.CERT_NONE
    return context


class TlsChannel:
    """One connection's TLS layer over memory buffers (see the module contract)."""

    def __init__(self, context: ssl.SSLContext, *, server_side: bool, server_hostname: str | None = None) -> None:
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._ssl = context.wrap_bio(self._incoming, self._outgoing, server_side=server_side,
                                     server_hostname=server_hostname)
        self.handshake_done = False
        self.peer_closed = False  # the peer sent close_notify

    def receive(self, data: bytes) -> bytes:
        """Bytes read from the socket (b"" = EOF) -> the plain bytes they complete. Raises
        ssl.SSLError when the peer's TLS is wrong (a failed handshake, a bad record)."""
        if data:
            self._incoming.write(data)
        else:
            self._incoming.write_eof()
        if not self.handshake_done:
            try:
                self._ssl.do_handshake()
            except ssl.SSLWantReadError:
                return b""
            self.handshake_done = True
        chunks = []
        while True:
            try:
                chunk = self._ssl.read(1 << 16)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                self.peer_closed = True
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def start(self) -> None:
        """Client side: begin the handshake (its first flight is then in `outgoing()`)."""
        try:
            self._ssl.do_handshake()
            self.handshake_done = True
        except ssl.SSLWantReadError:
            pass

    def outgoing(self) -> bytes:
        """TLS records waiting to be written (handshake messages, session tickets, alerts)."""
        return self._outgoing.read()

    def encrypt(self, data: bytes) -> bytes:
        self._ssl.write(data)
        return self._outgoing.read()

    @property
    def cipher(self) -> str:
        info = self._ssl.cipher()
        return info[0] if info else ""

    @property
    def version(self) -> str:
        return self._ssl.version() or ""
