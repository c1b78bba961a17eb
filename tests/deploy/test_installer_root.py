"""deploy/install.sh in fresh Debian roots (debootstrap), from the wheelhouse deploy/wheelhouse.py makes (pip asks
no index). On Debian 13, Trixie (Raspberry Pi OS's release now): a newcomer without sudo is told what to do, it
installs, the companion runs from the installed environment as the service runs it, a second run changes nothing, the
documented commands a user runs without sudo work or say in one line that they need it, and the state survives an
uninstall and a reinstall but not a purge. On Debian 12, Bookworm: with its Debian packages in place, it installs with
no network at all, and runs.

About four minutes for both once the roots and the wheels are cached (each debootstrap adds about half a minute).
`pytest -m "not deploy_root"` leaves them out locally; CI runs them.
"""

from __future__ import annotations

import re
import time

import pytest

from companion import __version__

from .installed import INSTALL, PACKAGES, installed, summary, table_ca

pytestmark = pytest.mark.deploy_root


def debian_packages(root) -> None:
    """What Debian 12's offline install takes for granted: the installer's Debian packages, from apt."""
    root.run("apt-get", "update", "-qq")
    root.run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES)


@pytest.fixture(scope="module")
def releases(roots):
    """Both roots made at once, Debian 12's with its packages, while Debian 13's test runs."""
    return {"trixie": roots.make("trixie"), "bookworm": roots.make("bookworm", then=debian_packages)}


def test_on_debian_13_it_installs_runs_changes_nothing_twice_and_keeps_the_state_until_a_purge(releases):
    root = releases["trixie"].result()
    root.run("useradd", "--create-home", "--shell", "/bin/bash", "you")
    # A newcomer on a machine without sudo (Debian installed with a root password) learns what to do in one line.
    newcomer = root.run("bash", "/src/run", "demo", user="you", check=False)
    assert newcomer.returncode == 1 and newcomer.stdout == "", newcomer.stdout
    assert (
        newcomer.stderr == "./run: the Debian packages python3 python3-venv are missing and this machine has no "
        "sudo: install them as root (su -c 'apt-get install -y python3 python3-venv'), then ./run demo again\n"
    )

    started = time.monotonic()
    first = root.run(*INSTALL)
    first_seconds = time.monotonic() - started
    assert f"\n  installed {' '.join(PACKAGES)}\n" in first.stdout
    ca = installed(root, first)
    # The Pi builds its own firmware from the installed sources with the packages the installer put there.
    build = root.run("/opt/orrery/bin/companion", "firmware", "build", "--board", "nano", "--out", "/tmp/fw")
    assert build.stdout.strip() == "built /tmp/fw/nano/reed_grid.hex"
    without_sudo(root)

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
    print(
        first.stdout,
        f"installer on Debian 13: first run {first_seconds:.0f} s, second run {second_seconds:.1f} s",
        sep="\n",
    )

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


def without_sudo(root) -> None:
    """The commands README and the user guide show without sudo, run by a user without it: each works or says in
    one line what to run instead."""
    root.run("sh", "-c", "mknod /tmp/ttyACM9 c 166 9 && chgrp dialout /tmp/ttyACM9 && chmod 660 /tmp/ttyACM9")
    service_file = r"companion: /var/lib/orrery/\S+: permission denied \(/var/lib/orrery belongs to orrery\): "
    for argv, says in (
        (["/opt/orrery/bin/companion", "token", "show"],
         service_file + "sudo -u orrery /opt/orrery/bin/companion token show"),
        (["/opt/orrery/bin/companion", "data", "list", "--db", "/var/lib/orrery/orrery.db"],
         service_file + "sudo -u orrery /opt/orrery/bin/companion data list --db /var/lib/orrery/orrery.db"),
        (["/opt/orrery/bin/companion", "firmware", "check", "--port", "/tmp/ttyACM9"],
         re.escape("companion: firmware check: /tmp/ttyACM9: permission denied: only root and the group dialout may "
                   "open it (sudo usermod -aG dialout $USER, then log in again)")),
        (["bash", "/src/deploy/hotspot.sh", "status"],
         re.escape("hotspot.sh: nmcli not found: the hotspot needs NetworkManager (sudo apt install network-manager)")),
        (["bash", "/src/deploy/install.sh"], re.escape("install.sh: run it as root (sudo /src/deploy/install.sh)")),
        (["/opt/orrery/bin/companion", "camera", "check"],
         re.escape("companion: picamera2 is not installed for /usr/bin/python3: ") + ".*"),
    ):  # fmt: skip
        result = root.run(*argv, user="you", check=False)
        assert result.returncode != 0 and result.stdout == "", result.stdout
        assert re.fullmatch(says + "\n", result.stderr), result.stderr


def test_on_debian_12_it_installs_with_no_network_at_all_from_the_wheelhouse_and_runs(releases):
    root = releases["bookworm"].result()
    started = time.monotonic()
    first = root.run(*INSTALL, network=False)
    first_seconds = time.monotonic() - started
    assert "\n  installed python3" not in first.stdout  # nothing left for apt: the network was not needed
    installed(root, first)
    again = root.run(*INSTALL, network=False)
    assert summary(again) == "orrery: unchanged", again.stdout
    print(f"installer on Debian 12, offline: first run {first_seconds:.0f} s")
