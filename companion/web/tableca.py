"""The table's own certificate authority (CA), and the https certificate it signs for the companion's server.

A table has no internet, so no public CA can vouch for it. Each table makes its own CA once and a phone trusts it
once; the phone then trusts every server certificate the CA signs, including the ones made again when the machine's
addresses change. The CA's name constraints permit only local names (.local, the host name, localhost) and private
addresses: its key stays on the table (the service needs it to sign again) and could not vouch for a public site.

A folder holds four PEM files: ca.crt (what phones trust, 20 years), ca.key, server.crt (825 days, the longest that
Apple's devices accept from a CA a person installed) and server.key. Keys are written 0600, every file atomically,
and a file that is there is kept.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from companion.atomic import write_atomically
from companion.errors import UserError
from companion.web.hostnames import NO_NAMES, Names, dns_name

CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY = "ca.crt", "ca.key", "server.crt", "server.key"
CA_LIFETIME = dt.timedelta(days=7305)
SERVER_LIFETIME = dt.timedelta(days=825)
RENEW_BEFORE = dt.timedelta(days=30)  # a server certificate closer than this to its end is made again
BACKDATE = dt.timedelta(days=1)  # a Pi has no clock battery: tolerate a phone whose clock is a little behind
# Where a table's server may be: private, link-local, shared (CGNAT, some phone hotspots) and loopback networks.
PERMITTED_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8",
    "fc00::/7", "fe80::/10", "::1/128"))  # fmt: skip
PERMITTED_DOMAINS = ("local", "localhost")

Key = ec.EllipticCurvePrivateKey
Now = Callable[[], dt.datetime]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True)
class Issued:
    """A certificate and its private key."""

    cert: x509.Certificate
    key: Key


class Authority(Issued):
    @property
    def name(self) -> str:
        return str(self.cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value)

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate, as phones and browsers show it."""
        return self.cert.fingerprint(hashes.SHA256()).hex(":").upper()

    def permits(self, names: Names) -> Names:
        """The part of `names` the CA's name constraints allow it to vouch for."""
        try:
            constraints = self.cert.extensions.get_extension_for_class(x509.NameConstraints).value
        except x509.ExtensionNotFound:
            return names
        domains = [g.value for g in constraints.permitted_subtrees or () if isinstance(g, x509.DNSName)]
        networks = [g.value for g in constraints.permitted_subtrees or () if isinstance(g, x509.IPAddress)]
        return Names(
            tuple(d for d in names.dns if any(d == p or d.endswith("." + p) for p in domains)),
            tuple(ip for ip in names.ips if any(ip in n for n in networks if n.version == ip.version)),
        )


class Server(Issued):
    @property
    def names(self) -> Names:
        alt = self.cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        return Names(tuple(alt.get_values_for_type(x509.DNSName)), tuple(alt.get_values_for_type(x509.IPAddress)))

    @property
    def not_after(self) -> dt.datetime:
        return self.cert.not_valid_after_utc


class Folder:
    """The four files of a table's TLS folder."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.ca_cert, self.ca_key = self.path / CA_CERT, self.path / CA_KEY
        self.server_cert, self.server_key = self.path / SERVER_CERT, self.path / SERVER_KEY


# Making certificates.
def new_key() -> Key:
    return ec.generate_private_key(ec.SECP256R1())  # small and fast on a Pi; every phone browser takes it


def make_authority(hostname: str, extra: Names = NO_NAMES, now: dt.datetime | None = None) -> Authority:
    """A CA named after the table, limited to local names (its host name and any `extra` ones) and private addresses."""
    now = now or utcnow()
    key = new_key()
    host = dns_name(hostname) or "orrery"
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Orrery table {host}"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Orrery table companion")])  # fmt: skip
    domains = dict.fromkeys((*PERMITTED_DOMAINS, host, *extra.dns))
    networks = [*PERMITTED_NETWORKS, *(ipaddress.ip_network(ip) for ip in extra.ips)]
    permitted = [x509.DNSName(d) for d in domains] + [x509.IPAddress(n) for n in dict.fromkeys(networks)]
    public = key.public_key()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + CA_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.NameConstraints(permitted_subtrees=permitted, excluded_subtrees=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    return Authority(cert, key)


def issue(authority: Authority, names: Names, now: dt.datetime | None = None) -> Server:
    """A server certificate for `names` (those the CA permits), signed by the CA."""
    now = now or utcnow()
    names = authority.permits(names)
    if not names:
        raise UserError(f"{authority.name} may vouch for none of the names asked for")
    key = new_key()
    public = key.public_key()
    alt: list[x509.GeneralName] = [x509.DNSName(d) for d in names.dns] + [x509.IPAddress(i) for i in names.ips]
    ski = authority.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, str((*names.dns, *names.ips)[0]))]))
        .issuer_name(authority.cert.subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now - BACKDATE + SERVER_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False)
        .sign(authority.key, hashes.SHA256())
    )  # fmt: skip
    return Server(cert, key)


# Files.
def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: Key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())  # fmt: skip


def write_file(path: Path, data: bytes, mode: int) -> None:
    """A certificate or key written all at once with its mode from the start; a failure is one line naming it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # the keys' folder is the service's alone
        write_atomically(path, data, mode)
    except OSError as error:
        raise UserError(f"{path}: cannot write it ({error.strerror or error})") from None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: missing") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read it ({error.strerror or error})") from None


def _load_cert(path: Path) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(_read(path))
    except ValueError:
        raise UserError(f"{path}: not a PEM certificate") from None


def _load_key(path: Path) -> Key:
    try:
        key = serialization.load_pem_private_key(_read(path), password=None)
    except (ValueError, TypeError):
        raise UserError(f"{path}: not an unencrypted PEM private key") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise UserError(f"{path}: not an elliptic-curve key (the table's keys are P-256)")
    return key


def _matches(cert: x509.Certificate, key: Key) -> bool:
    return cert.public_key() == key.public_key()


def load_authority(folder: Folder) -> Authority:
    """The folder's CA; one line naming the file for anything missing or wrong."""
    if not folder.ca_cert.exists() and not folder.ca_key.exists():
        raise UserError(f"{folder.ca_cert}: missing; make the table's CA with `companion tls init --dir {folder.path}`")
    cert = _load_cert(folder.ca_cert)
    try:
        is_ca = cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        is_ca = False
    if not is_ca:
        raise UserError(f"{folder.ca_cert}: not a CA certificate")
    key = _load_key(folder.ca_key)
    if not _matches(cert, key):
        raise UserError(f"{folder.ca_key}: not the key of {folder.ca_cert}")
    return Authority(cert, key)


def load_server(folder: Folder, authority: Authority) -> Server:
    """The folder's server certificate and key, checked against each other and against the CA."""
    cert, key = _load_cert(folder.server_cert), _load_key(folder.server_key)
    if not _matches(cert, key):
        raise UserError(f"{folder.server_key}: not the key of {folder.server_cert}")
    try:
        cert.verify_directly_issued_by(authority.cert)
    except (ValueError, TypeError, InvalidSignature):
        raise UserError(f"{folder.server_cert}: not signed by {folder.ca_cert}") from None
    try:
        cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        raise UserError(f"{folder.server_cert}: names no host (no subject alternative names)") from None
    return Server(cert, key)


def _save_server(folder: Folder, server: Server) -> None:
    write_file(folder.server_key, _key_pem(server.key), 0o600)  # the key first: a cert never waits for it
    write_file(folder.server_cert, _pem(server.cert), 0o644)


def _until(cert: x509.Certificate) -> str:
    return cert.not_valid_after_utc.date().isoformat()


# What the commands and the server do.
def init(folder: Folder, names: Names, hostname: str, extra: Names = NO_NAMES, now: Now = utcnow) -> list[str]:
    """Make whatever is missing: the CA (named after `hostname`, also permitting `extra` names), then the server
    certificate for `names`. Files that are there are kept. One line per file: written or kept."""
    lines: list[str] = []
    have_cert, have_key = folder.ca_cert.exists(), folder.ca_key.exists()
    if have_cert != have_key:
        present, absent = (folder.ca_cert, folder.ca_key) if have_cert else (folder.ca_key, folder.ca_cert)
        raise UserError(f"{absent}: missing, but {present} is there; restore it, or move both away to make a new "
                        "CA that every phone must trust again")  # fmt: skip
    if have_cert:
        authority = load_authority(folder)
        lines.append(f"kept {folder.ca_cert} ({authority.name}, until {_until(authority.cert)})")
    else:
        authority = make_authority(hostname, extra, now())
        write_file(folder.ca_key, _key_pem(authority.key), 0o600)
        write_file(folder.ca_cert, _pem(authority.cert), 0o644)
        lines.append(f"wrote {folder.ca_cert} ({authority.name}, until {_until(authority.cert)}) and its key")
    if folder.server_cert.exists() or folder.server_key.exists():
        server = load_server(folder, authority)
        lines.append(f"kept {folder.server_cert} ({server.names}, until {_until(server.cert)})")
    else:
        server = issue(authority, names | extra, now())
        _save_server(folder, server)
        lines.append(f"wrote {folder.server_cert} ({server.names}, until {_until(server.cert)}) and its key")
    return lines


def renew(folder: Folder, names: Names, now: Now = utcnow, reason: str = "") -> str:
    """A new server certificate from the same CA for `names` and every name the old one had (phones that reached
    the table by an old address still can); the CA is kept, so phones keep trusting the table."""
    authority = load_authority(folder)
    with contextlib.suppress(UserError):  # a missing or broken server certificate is what renewing replaces
        names = load_server(folder, authority).names | names
    server = issue(authority, names, now())
    _save_server(folder, server)
    return f"wrote {folder.server_cert} ({server.names}, until {_until(server.cert)}){reason}"


def why_renew(folder: Folder, names: Names, now: Now = utcnow) -> str | None:
    """Why the server certificate must be made again for `names` now, or None when it serves as it is. Names the
    CA may not vouch for (a public address, say) are not asked for."""
    authority = load_authority(folder)
    if not folder.server_cert.exists():
        return " (there was none)"
    try:
        server = load_server(folder, authority)
    except UserError as error:
        return f" (the old one was unusable: {error})"
    missing = authority.permits(names) - server.names
    if missing:
        return f" (new: {missing})"
    if server.not_after - now() < RENEW_BEFORE:
        return f" (the old one ended {_until(server.cert)})"
    return None


def ensure(folder: Folder, names: Names, now: Now = utcnow) -> str | None:
    """Before serving: the server certificate made again when it does not cover `names` or is about to end; a line
    saying so, or None. The CA must be there (`companion tls init`)."""
    reason = why_renew(folder, names, now)
    return None if reason is None else renew(folder, names, now, reason)


def describe(folder: Folder, names: Names, now: Now = utcnow) -> list[str]:
    """What `companion tls show` prints: the CA a phone trusts and the certificate the server presents."""
    authority = load_authority(folder)
    lines = [f"CA: {authority.name} ({folder.ca_cert}), until {_until(authority.cert)}",
             f"  SHA-256 fingerprint {authority.fingerprint}"]  # fmt: skip
    try:
        server = load_server(folder, authority)
    except UserError as error:
        return [*lines, f"Server certificate: {error}"]
    lines.append(f"Server certificate ({folder.server_cert}), until {_until(server.cert)}: {server.names}")
    reason = why_renew(folder, names, now)
    lines.append("  covers this machine's names now" if reason is None else f"  to be made again{reason}")
    left_out = names - authority.permits(names)
    if left_out:
        lines.append(f"  left out, since the CA may not vouch for them: {left_out}")
    return lines


def check_permitted(folder: Folder, asked: Names) -> None:
    """Names a person asked for by hand must be ones the folder's CA (when there is one) may vouch for."""
    if not folder.ca_cert.exists():
        return
    authority = load_authority(folder)
    refused = asked - authority.permits(asked)
    if refused:
        raise UserError(
            f"--name {refused}: {authority.name} ({folder.ca_cert}) may not vouch for it; its names are "
            "local ones and private addresses, and the ones it was made with"
        )


def ca_pem(folder: Folder) -> bytes:
    return _pem(load_authority(folder).cert)
