"""The table's CA and its server certificate: names, lifetimes, name constraints that a real path validation honours,
key permissions, re-issue on a new address that keeps the CA, and one clear line for bad files."""

from __future__ import annotations

import datetime as dt
import ipaddress
import stat

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from companion.cli import main
from companion.errors import UserError
from companion.web.hostnames import Names, local_names, parse_names
from companion.web.tableca import (
    CA_LIFETIME,
    SERVER_LIFETIME,
    Folder,
    check_permitted,
    ensure,
    init,
    load_authority,
    load_server,
    new_key,
    renew,
    utcnow,
)

HOST = "orrery"
NAMES = Names(("orrery.local", "orrery", "localhost"), (ipaddress.ip_address("127.0.0.1"),))
HOTSPOT = ipaddress.ip_address("10.42.0.1")


@pytest.fixture
def folder(tmp_path):
    made = Folder(tmp_path / "tls")
    init(made, NAMES, HOST)
    return made


def verify(folder: Folder, name: x509.GeneralName, at: dt.datetime | None = None) -> None:
    """A real RFC 5280 path validation (cryptography's verifier, the one pyca ships for this): the server
    certificate for `name`, chained to the CA as the only trusted root."""
    ca = load_authority(folder).cert
    server = load_server(folder, load_authority(folder)).cert
    builder = PolicyBuilder().store(Store([ca])).time(at or utcnow())
    builder.build_server_verifier(name).verify(server, [])


def test_init_makes_a_ca_named_after_the_table_and_a_certificate_for_its_names(folder):
    authority = load_authority(folder)
    assert authority.name == "Orrery table orrery"
    assert authority.cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    lifetime = authority.cert.not_valid_after_utc - authority.cert.not_valid_before_utc
    assert lifetime == CA_LIFETIME + dt.timedelta(days=1)  # back-dated a day for a phone whose clock lags
    constraints = authority.cert.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical
    permitted = {g.value for g in constraints.value.permitted_subtrees}
    assert {"local", "localhost", "orrery", ipaddress.ip_network("192.168.0.0/16")} <= permitted

    server = load_server(folder, authority)
    assert server.names == NAMES
    assert server.cert.not_valid_after_utc - server.cert.not_valid_before_utc == SERVER_LIFETIME  # Apple's limit
    usage = server.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.SERVER_AUTH]
    for name in (x509.DNSName("orrery.local"), x509.DNSName("localhost"), x509.IPAddress(NAMES.ips[0])):
        verify(folder, name)
    with pytest.raises(VerificationError):
        verify(folder, x509.IPAddress(HOTSPOT))  # not one of its names (yet)
    with pytest.raises(VerificationError):
        verify(folder, x509.DNSName("orrery.local"), utcnow() + SERVER_LIFETIME)  # ended


def test_keys_are_private_and_a_second_init_keeps_every_file(folder):
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.path.iterdir()}
    assert modes == {"ca.crt": 0o644, "ca.key": 0o600, "server.crt": 0o644, "server.key": 0o600}
    assert stat.S_IMODE(folder.path.stat().st_mode) == 0o700
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.path.iterdir()}
    lines = init(folder, NAMES | Names(ips=(HOTSPOT,)), "another")
    assert [line.split()[0] for line in lines] == ["kept", "kept"]
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.path.iterdir()} == before


def test_a_new_address_gets_a_new_server_certificate_from_the_same_ca(folder):
    ca_before = folder.ca_cert.read_bytes(), folder.ca_key.read_bytes()
    note = ensure(folder, NAMES | Names(ips=(HOTSPOT,)))
    assert note is not None and note.startswith(f"wrote {folder.server_cert}") and "(new: 10.42.0.1)" in note
    assert (folder.ca_cert.read_bytes(), folder.ca_key.read_bytes()) == ca_before  # phones keep trusting it
    verify(folder, x509.IPAddress(HOTSPOT))
    verify(folder, x509.IPAddress(NAMES.ips[0]))  # the old names stay
    assert stat.S_IMODE(folder.server_key.stat().st_mode) == 0o600
    assert ensure(folder, NAMES | Names(ips=(HOTSPOT,))) is None  # covered now: nothing changes
    assert ensure(folder, NAMES) is None  # an address that went away is no reason either
    assert sorted(p.name for p in folder.path.iterdir()) == ["ca.crt", "ca.key", "server.crt", "server.key"]


def test_names_the_ca_may_not_vouch_for_are_left_out_and_cause_no_churn(folder):
    public = Names(("example.com",), (ipaddress.ip_address("8.8.8.8"),))
    assert ensure(folder, NAMES | public) is None
    with pytest.raises(UserError, match=r"^--name example.com, 8.8.8.8: Orrery table orrery .* may not vouch"):
        check_permitted(folder, public)
    check_permitted(folder, Names(("game.local",), (HOTSPOT,)))


def test_the_name_constraints_bite_even_for_a_certificate_the_ca_signed(folder):
    """Were the CA's key stolen from the Pi, a certificate it signs for a public site is refused by validation."""
    authority = load_authority(folder)
    key = new_key()
    now = utcnow()
    subject = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "bank.example")])
    forged = (x509.CertificateBuilder().subject_name(subject).issuer_name(authority.cert.subject)
              .public_key(key.public_key()).serial_number(1).not_valid_before(now - dt.timedelta(days=1))
              .not_valid_after(now + dt.timedelta(days=30))
              .add_extension(x509.SubjectAlternativeName([x509.DNSName("bank.example")]), critical=False)
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(authority.key.public_key()),
                             critical=False)
              .sign(authority.key, hashes.SHA256()))  # fmt: skip
    verifier = PolicyBuilder().store(Store([authority.cert])).build_server_verifier(x509.DNSName("bank.example"))
    with pytest.raises(VerificationError, match="name constraint"):
        verifier.verify(forged, [])


def test_a_certificate_near_its_end_is_made_again(folder):
    ends = load_server(folder, load_authority(folder)).not_after
    assert ensure(folder, NAMES, now=lambda: ends - dt.timedelta(days=31)) is None
    note = ensure(folder, NAMES, now=lambda: ends - dt.timedelta(days=29))
    assert note is not None and "the old one ended" in note
    assert load_server(folder, load_authority(folder)).not_after > ends


def test_an_extra_name_at_init_is_permitted_and_covered(tmp_path):
    folder = Folder(tmp_path / "tls")
    init(folder, NAMES, HOST, extra=parse_names(["orrery.test"]))
    verify(folder, x509.DNSName("orrery.test"))
    with pytest.raises(UserError, match=r"^--name 'no_such!': neither an IP address nor a host name$"):
        parse_names(["no_such!"])


def test_local_names_cover_the_mdns_name_the_host_and_loopback():
    names = local_names("Table-1")
    assert names.dns == ("orrery.local", "table-1", "table-1.local", "localhost")
    assert ipaddress.ip_address("127.0.0.1") in names.ips and all(
        ip.version == 4 or str(ip) == "::1" for ip in names.ips
    )


@pytest.mark.parametrize(("damage", "message"), [
    (lambda f: f.ca_cert.write_text("not a certificate"), "{ca_cert}: not a PEM certificate"),
    (lambda f: f.ca_key.unlink(), "{ca_key}: missing"),
    (lambda f: f.ca_key.write_bytes(f.server_key.read_bytes()), "{ca_key}: not the key of {ca_cert}"),
    (lambda f: f.ca_cert.write_bytes(f.server_cert.read_bytes()), "{ca_cert}: not a CA certificate"),
    (lambda f: f.ca_key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
     "{ca_key}: not an unencrypted PEM private key"),
])  # fmt: skip
def test_a_bad_or_missing_ca_file_is_one_line_naming_it_and_changes_nothing(folder, damage, message):
    damage(folder)
    before = {p.name: p.read_bytes() for p in folder.path.iterdir()}
    expected = message.format(ca_cert=folder.ca_cert, ca_key=folder.ca_key)
    for attempt in (lambda: ensure(folder, NAMES), lambda: renew(folder, NAMES), lambda: init(folder, NAMES, HOST)):
        with pytest.raises(UserError) as raised:
            attempt()
        assert str(raised.value).startswith(expected) and "\n" not in str(raised.value)
    assert {p.name: p.read_bytes() for p in folder.path.iterdir()} == before


def test_a_missing_ca_says_how_to_make_one(tmp_path):
    with pytest.raises(UserError, match=r"ca.crt: missing; make the table's CA with `companion tls init --dir "):
        ensure(Folder(tmp_path / "none"), NAMES)


def test_a_broken_or_foreign_server_certificate_is_made_again_naming_what_was_wrong(folder, tmp_path):
    folder.server_cert.write_text("garbage")
    note = ensure(folder, NAMES)
    assert note is not None and f"the old one was unusable: {folder.server_cert}: not a PEM certificate" in note
    verify(folder, x509.DNSName("orrery.local"))
    other = Folder(tmp_path / "other")
    init(other, NAMES, "other")
    folder.server_cert.write_bytes(other.server_cert.read_bytes())
    folder.server_key.write_bytes(other.server_key.read_bytes())
    note = ensure(folder, NAMES)
    assert note is not None and f"{folder.server_cert}: not signed by {folder.ca_cert}" in note
    verify(folder, x509.DNSName("orrery.local"))
    folder.server_key.unlink()
    assert "not the key" not in (ensure(folder, NAMES) or "")  # a lost key: made again with its certificate
    verify(folder, x509.DNSName("orrery.local"))


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(UserError, match=rf"^{blocked}/ca.key: cannot write it"):
        init(Folder(blocked), NAMES, HOST)


def test_the_command_inits_shows_and_renews(tmp_path, capsys):
    folder = tmp_path / "tls"
    assert main(["tls", "init", "--dir", str(folder), "--hostname", "table7", "--name", "10.42.0.1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"wrote {folder}/ca.crt (Orrery table table7, until ")
    assert out[1].startswith(f"wrote {folder}/server.crt (orrery.local, table7, table7.local, localhost, ")
    assert "10.42.0.1" in out[1]
    assert main(["tls", "show", "--dir", str(folder), "--hostname", "table7"]) == 0
    shown = capsys.readouterr().out
    assert "CA: Orrery table table7" in shown and "SHA-256 fingerprint " in shown
    assert "covers this machine's names now" in shown
    ca = (folder / "ca.crt").read_bytes()
    assert main(["tls", "renew", "--dir", str(folder), "--hostname", "table7", "--name", "game.local"]) == 0
    assert "game.local" in capsys.readouterr().out and (folder / "ca.crt").read_bytes() == ca
    assert main(["tls", "renew", "--dir", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err == (f"companion: {tmp_path}/empty/ca.crt: missing; make the table's CA with "
                                       f"`companion tls init --dir {tmp_path}/empty`\n")  # fmt: skip
