"""deploy/install.sh in a fresh Debian 12 root (debootstrap): it installs, the companion runs from the installed
environment, a second run changes nothing, and the state survives an uninstall and a reinstall but not a purge.

About two to four minutes once the root and the wheels are cached (the first run of debootstrap takes longer).
`pytest -m "not deploy_root"` leaves it out locally; CI runs it.
"""

from __future__ import annotations

import subprocess
import time

import pytest
from cryptography import x509

from companion import __version__
from companion.firmware_tools import udev_rules

pytestmark = pytest.mark.deploy_root
INSTALL = ("bash", "/src/deploy/install.sh", "--no-hardware", "--wheels", "/wheels")


def summary(result: subprocess.CompletedProcess[str]) -> str:
    """The installer's "orrery: ..." line."""
    return next(line for line in reversed(result.stdout.splitlines()) if line.startswith("orrery: "))


def table_ca(root) -> bytes:
    """The installer's CA: the table's own name, the service's files, keys private to it."""
    stat = root.run("sh", "-c", "cd /var/lib/orrery/tls && stat -c '%n %U %G %a' . ca.crt ca.key server.crt server.key")
    assert stat.stdout.splitlines() == [". orrery orrery 700", "ca.crt orrery orrery 644", "ca.key orrery orrery 600",
                                        "server.crt orrery orrery 644", "server.key orrery orrery 600"]  # fmt: skip
    pem = root.run("cat", "/var/lib/orrery/tls/ca.crt").stdout.encode()
    name = x509.load_pem_x509_certificate(pem).subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value
    assert name == "Orrery table orrery"
    return pem


def test_install_twice_then_uninstall_keeps_state_and_purge_removes_it(debian_root):
    root = debian_root
    started = time.monotonic()
    first = root.run(*INSTALL)
    first_seconds = time.monotonic() - started
    # One indented line per change, and the summary counts them all.
    assert summary(first) == f"orrery: {first.stdout.count(chr(10) + '  ')} changes", first.stdout
    assert "The page: http://orrery.local/" in first.stdout
    assert "Phones that trust the table: https://orrery.local/ (the table's certificate: " \
           "http://orrery.local/ca.crt)" in first.stdout
    assert "\n  wrote /var/lib/orrery/tls/ca.crt (Orrery table orrery, until " in first.stdout

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
    # The Pi builds its own firmware from the installed sources with the packages the installer put there.
    build = root.run("/opt/orrery/bin/companion", "firmware", "build", "--board", "nano", "--out", "/tmp/fw")
    assert build.stdout.strip() == "built /tmp/fw/nano/reed_grid.hex"
    ca = table_ca(root)
    health = root.health()  # the installed service's command, as its user, answering the page's health check
    assert health.http["version"] == __version__ and health.http["sensors"]["mode"] == "phones alone", health
    assert health.https is not None and health.https["https_port"] == health.http["https_port"] is not None

    before = root.manifest()
    started = time.monotonic()
    second = root.run(*INSTALL)
    second_seconds = time.monotonic() - started
    assert summary(second) == "orrery: unchanged", second.stdout
    after = root.manifest()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert changed == [], changed[:20]
    assert table_ca(root) == ca  # the CA phones trust is never made again
    again = root.health()  # and it still answers after the second run, over https with the same CA
    assert again.http["version"] == __version__ and again.https is not None and again.https["ok"]
    print(first.stdout, f"installer: first run {first_seconds:.0f} s, second run {second_seconds:.1f} s", sep="\n")

    # Another port: the mDNS announcement follows the settings, and only it changes.
    root.run("sed", "-i", "s/^ORRERY_PORT=80$/ORRERY_PORT=8080/", "/etc/default/orrery")
    moved = root.run(*INSTALL)
    assert summary(moved) == "orrery: 1 change", moved.stdout
    assert "  wrote /etc/avahi/services/orrery.service\n" in moved.stdout
    assert "The page: http://orrery.local:8080/" in moved.stdout
    assert "<port>8080</port>" in (root.path / "etc/avahi/services/orrery.service").read_text()

    # A game in the state directory and an edited setting survive an uninstall and a reinstall.
    root.run("sh", "-c", "printf 'a game' > /var/lib/orrery/orrery.db")
    root.run("sed", "-i", "s/^ORRERY_CAMERA=0$/ORRERY_CAMERA=picamera/", "/etc/default/orrery")
    removed = root.run(*INSTALL[:2], "--uninstall", "--no-hardware")
    assert summary(removed) == "orrery: 5 changes", removed.stdout  # disabled, and four removed
    assert removed.stdout.count("\n  removed ") == 4
    assert not (root.path / "opt/orrery").exists() and not (root.path / "etc/systemd/system/orrery.service").exists()
    assert root.run(*INSTALL[:2], "--uninstall", "--no-hardware").stdout.splitlines()[-1] == "orrery: unchanged"
    assert "the certificate authority phones trust" in removed.stdout
    root.run(*INSTALL)
    assert table_ca(root) == ca  # kept by the uninstall, taken up again by the reinstall
    assert root.run("cat", "/var/lib/orrery/orrery.db").stdout == "a game"
    assert {"ORRERY_CAMERA=picamera", "ORRERY_PORT=8080"} <= set((root.path / "etc/default/orrery").read_text().split())
    assert root.run("stat", "-c", "%U", "/var/lib/orrery/orrery.db").stdout.strip() == "orrery"

    purged = root.run(*INSTALL[:2], "--uninstall", "--purge", "--no-hardware")
    assert "removed user orrery" in purged.stdout
    assert not (root.path / "var/lib/orrery").exists() and not (root.path / "etc/default/orrery").exists()
    assert root.run("id", "orrery", check=False).returncode == 1
