"""What the installer's tests check on every release and machine: its report, and what a first install leaves."""

from __future__ import annotations

import re
import subprocess

from cryptography import x509

from companion import __version__
from companion.firmware_tools import udev_rules

from .conftest import ROOT, DebianRoot

INSTALL = ("bash", "/src/deploy/install.sh", "--no-hardware", "--wheels", "/wheels")
# The Debian packages the installer asks apt for, as it lists them.
PACKAGES = re.search(r"^PACKAGES=\((.*)\)$", (ROOT / "deploy" / "install.sh").read_text(), re.MULTILINE)[1].split()


def summary(result: subprocess.CompletedProcess[str]) -> str:
    """The installer's "orrery: ..." line."""
    return next(line for line in reversed(result.stdout.splitlines()) if line.startswith("orrery: "))


def table_ca(root: DebianRoot) -> bytes:
    """The installer's CA: the table's own name, the service's files, keys private to it."""
    stat = root.run("sh", "-c", "cd /var/lib/orrery/tls && stat -c '%n %U %G %a' . ca.crt ca.key server.crt server.key")
    assert stat.stdout.splitlines() == [". orrery orrery 700", "ca.crt orrery orrery 644", "ca.key orrery orrery 600",
                                        "server.crt orrery orrery 644", "server.key orrery orrery 600"]  # fmt: skip
    pem = root.run("cat", "/var/lib/orrery/tls/ca.crt").stdout.encode()
    name = x509.load_pem_x509_certificate(pem).subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value
    assert name == "Orrery table orrery"
    return pem


def installed(root: DebianRoot, first: subprocess.CompletedProcess[str], within: float = 30.0) -> bytes:
    """What a first install leaves, on any release: its report, the program, the service user, the unit, the system
    files, and the service's command answering over http and https. Returns the table's CA."""
    # One indented line per change, and the summary counts them all.
    assert summary(first) == f"orrery: {first.stdout.count(chr(10) + '  ')} changes", first.stdout
    assert "The page: http://orrery.local/" in first.stdout
    assert (
        "Phones that trust the table: https://orrery.local/ (the table's certificate: "
        "http://orrery.local/ca.crt)" in first.stdout
    )
    assert "\n  wrote /var/lib/orrery/tls/ca.crt (Orrery table orrery, until " in first.stdout
    assert f"\n  installed companion {__version__} into /opt/orrery\n" in first.stdout
    assert "install.sh: made for" not in first.stderr, first.stderr  # Debian 13 and 12 are its own

    assert root.run("/opt/orrery/bin/companion", "--version").stdout.strip() == f"companion {__version__}"
    assert set(root.run("id", "-nG", "orrery").stdout.split()) == {"orrery", "dialout", "video", "gpio"}
    assert root.run("getent", "passwd", "orrery").stdout.split(":")[5:] == ["/var/lib/orrery", "/usr/sbin/nologin\n"]
    assert root.run("stat", "-c", "%U %G %a", "/var/lib/orrery").stdout.split() == ["orrery", "orrery", "750"]
    assert root.run("systemctl", "is-enabled", "orrery.service").stdout.strip() == "enabled"
    verify = root.run("systemd-analyze", "verify", "/etc/systemd/system/orrery.service", check=False)
    assert verify.returncode == 0 and "orrery.service" not in verify.stderr, verify.stderr
    assert (root.path / "etc/udev/rules.d/60-orrery.rules").read_text().startswith(udev_rules())
    assert "<port>80</port>" in (root.path / "etc/avahi/services/orrery.service").read_text()
    assert (root.path / "etc/hostname").read_text() == "orrery\n"
    ca = table_ca(root)
    # The installed service's command, as its user, answering the page's health check (`within` seconds: an
    # emulated arm64 root starts it many times slower).
    health = root.health(within)
    assert health.http["version"] == __version__ and health.http["sensors"]["mode"] == "phones alone", health
    assert health.https is not None and health.https["https_port"] == health.http["https_port"] is not None
    return ca
