"""Certificates and keys for loopback servers, made with the openssl command."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@dataclass(frozen=True)
class Authority:
    """A certificate authority in ``folder`` (ca.crt, ca.key) that signs loopback servers."""

    folder: Path

    @property
    def cert(self) -> Path:
        return self.folder / "ca.crt"

    @classmethod
    def create(cls, folder: Path) -> Authority:
        folder.mkdir(parents=True, exist_ok=True)
        _openssl(
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=fleetgen e2e CA",
            "-keyout",
            str(folder / "ca.key"),
            "-out",
            str(folder / "ca.crt"),
        )
        return cls(folder)

    def serving(self, name: str) -> tuple[Path, Path]:
        """A certificate and key for ``name`` served on 127.0.0.1 and localhost."""
        key, csr, crt = (self.folder / f"{name}.{ext}" for ext in ("key", "csr", "crt"))
        ext = self.folder / f"{name}.ext"
        ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        _openssl(
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            f"/CN={name}",
            "-keyout",
            str(key),
            "-out",
            str(csr),
        )
        _openssl(
            "x509",
            "-req",
            "-in",
            str(csr),
            "-CA",
            str(self.cert),
            "-CAkey",
            str(self.folder / "ca.key"),
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            str(ext),
            "-out",
            str(crt),
        )
        return crt, key


def signing_key(folder: Path) -> tuple[Path, Path]:
    """An RSA key pair (private, public) that signs service account tokens."""
    private, public = folder / "sa.key", folder / "sa.pub"
    _openssl("genrsa", "-out", str(private), "2048")
    _openssl("rsa", "-in", str(private), "-pubout", "-out", str(public))
    return private, public
