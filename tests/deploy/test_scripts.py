"""The deploy scripts without a Pi: shellcheck on every shell script, systemd-analyze on the unit, the Avahi file,
and the hotspot against an nmcli that records what it is asked (the real one needs NetworkManager and a radio)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HOTSPOT = DEPLOY / "hotspot.sh"


def shell_scripts() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    paths = {ROOT / p for p in tracked.split()} | set(DEPLOY.glob("*.sh"))
    return sorted(p for p in paths if p.is_file() and re.match(rb"#!.*\b(ba)?sh\b", p.read_bytes()[:40]))


def test_every_shell_script_passes_shellcheck():
    scripts = shell_scripts()
    assert {DEPLOY / "install.sh", DEPLOY / "hotspot.sh", ROOT / "run"} <= set(scripts)
    deploy = [str(p) for p in scripts if p.parent == DEPLOY]
    # deploy/ is held to every note; the older scripts to warnings (./run splits package lists into words on purpose).
    for argv in (
        ["shellcheck", *deploy],
        ["shellcheck", "--severity=warning", *map(str, set(scripts) - set(map(Path, deploy)))],
    ):
        result = subprocess.run(argv, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout


def test_the_unit_verifies_and_keeps_its_promises(tmp_path):
    # systemd-analyze checks that ExecStart exists: give it a root where the installed command does.
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    command = root / "opt" / "orrery" / "bin" / "companion"
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    unit_dir = root / "etc" / "systemd" / "system"
    unit_dir.mkdir(parents=True)
    (unit_dir / "orrery.service").write_text((DEPLOY / "orrery.service").read_text())
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "/etc/systemd/system/orrery.service"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and "orrery.service" not in result.stderr, result.stderr
    unit = (DEPLOY / "orrery.service").read_text()
    for line in (
        "Restart=on-failure",
        "After=network-online.target avahi-daemon.service",
        "Wants=network-online.target",
        "StandardOutput=journal",
        "User=orrery",
        "AmbientCapabilities=CAP_NET_BIND_SERVICE",
        "EnvironmentFile=-/etc/default/orrery",
        "WantedBy=multi-user.target",
    ):
        assert line in unit.splitlines(), line
    assert (
        "companion serve --host 0.0.0.0 --port ${ORRERY_PORT} --tls-dir ${ORRERY_TLS_DIR} \\\n"
        "    --tls-port ${ORRERY_TLS_PORT}" in unit
    )
    assert "Environment=ORRERY_PORT=80 ORRERY_TLS_PORT=443 ORRERY_TLS_DIR=/var/lib/orrery/tls" in unit


def test_the_avahi_file_announces_the_page():
    service = ET.parse(DEPLOY / "avahi-orrery.service").getroot()
    assert service.tag == "service-group"
    assert service.findtext("service/type") == "_http._tcp" and service.findtext("service/port") == "80"
    # install.sh swaps the port in by this exact text.
    assert "<port>80</port>" in (DEPLOY / "avahi-orrery.service").read_text()


@pytest.fixture
def nmcli(tmp_path: Path) -> Path:
    """An nmcli on PATH that logs its arguments and keeps a list of connections in files."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "nmcli"
    script.write_text(r"""#!/bin/bash
echo "$*" >> "$NMCLI_LOG"
touch "$NMCLI_DB"
case "$*" in
  "-t -f RUNNING general") echo running ;;
  "-t -f NAME connection show"|"-t -f NAME connection show --active") cat "$NMCLI_DB" ;;
  "connection add "*) set -- "$@"; while [ "$1" != con-name ]; do shift; done; echo "$2" >> "$NMCLI_DB"
    while [ "$1" != ssid ]; do shift; done; echo "$2" > "$NMCLI_DB.ssid" ;;
  "-g 802-11-wireless.ssid connection show "*) cat "$NMCLI_DB.ssid" ;;
  "connection delete "*) grep -vx "$3" "$NMCLI_DB" > "$NMCLI_DB.new" || true; mv "$NMCLI_DB.new" "$NMCLI_DB" ;;
  "connection up "*) ;;
  "-g IP4.ADDRESS connection show "*) echo 10.42.0.1/24 ;;
  *) echo "nmcli: unexpected $*" >&2; exit 1 ;;
esac
""")
    script.chmod(0o755)
    return bin_dir


def hotspot(tmp_path: Path, bin_dir: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ORRERY_STATE": str(tmp_path / "state"),
        "NMCLI_LOG": str(tmp_path / "nmcli.log"),
        "NMCLI_DB": str(tmp_path / "nmcli.db"),
    }
    if bin_dir is not None:
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
    else:
        env["PATH"] = "/usr/bin:/bin"  # Debian's nmcli would be in /usr/bin: this machine has none
    return subprocess.run(["bash", str(HOTSPOT), *args], capture_output=True, text=True, env=env)


def test_hotspot_on_makes_an_access_point_and_writes_the_qr_for_the_page(tmp_path, nmcli):
    result = hotspot(tmp_path, nmcli, "on", "--ssid", "Table;1", "--password", "moon,rock:42")
    assert result.returncode == 0, result.stderr
    wifi = json.loads((tmp_path / "state" / "wifi.json").read_text())
    assert wifi == {
        "ssid": "Table;1",
        "password": "moon,rock:42",
        "security": "WPA",
        "qr": r"WIFI:T:WPA;S:Table\;1;P:moon\,rock\:42;;",
        "address": "10.42.0.1",
        "url": "http://10.42.0.1/",
    }
    assert oct((tmp_path / "state" / "wifi.json").stat().st_mode & 0o777) == "0o640"
    add = next(line for line in (tmp_path / "nmcli.log").read_text().splitlines() if line.startswith("connection add"))
    for words in (
        "ifname wlan0",
        "con-name orrery-hotspot",
        "autoconnect yes",
        "ssid Table;1",
        "802-11-wireless.mode ap",
        "ipv4.method shared",
        "wifi-sec.key-mgmt wpa-psk",
        "wifi-sec.psk moon,rock:42",
    ):
        assert words in add


def test_hotspot_again_keeps_the_password_and_replaces_the_connection(tmp_path, nmcli):
    first = hotspot(tmp_path, nmcli, "on")
    assert first.returncode == 0, first.stderr
    password = json.loads((tmp_path / "state" / "wifi.json").read_text())["password"]
    assert re.fullmatch(r"[a-km-np-z2-9]{12}", password)
    assert hotspot(tmp_path, nmcli, "on", "--ifname", "wlan1").returncode == 0
    wifi = json.loads((tmp_path / "state" / "wifi.json").read_text())
    assert (wifi["ssid"], wifi["password"]) == ("Orrery", password)
    log = (tmp_path / "nmcli.log").read_text()
    assert log.count("connection delete orrery-hotspot") == 1 and log.count("connection add") == 2
    assert (tmp_path / "nmcli.db").read_text().split() == ["orrery-hotspot"]
    off = hotspot(tmp_path, nmcli, "off")
    assert off.stdout.strip() == "Hotspot off"
    assert not (tmp_path / "state" / "wifi.json").exists() and (tmp_path / "nmcli.db").read_text() == ""


def test_hotspot_status_needs_no_root_and_no_wifi_json(tmp_path, nmcli):
    assert hotspot(tmp_path, nmcli, "on", "--ssid", "Table 3", "--password", "moon rock").returncode == 0
    (tmp_path / "state" / "wifi.json").unlink()  # as a user without sudo sees it: the service's file, unreadable
    status = hotspot(tmp_path, nmcli, "status")
    assert (status.returncode, status.stdout, status.stderr) == (0, "Hotspot on: Table 3 at http://10.42.0.1/\n", "")
    assert hotspot(tmp_path, nmcli, "off").returncode == 0
    assert hotspot(tmp_path, nmcli, "status").stdout == "Hotspot off\n"


def test_hotspot_refuses_a_short_password_and_a_missing_network_manager(tmp_path, nmcli):
    result = hotspot(tmp_path, nmcli, "on", "--password", "short")
    assert result.returncode == 1
    assert result.stderr.strip() == "hotspot.sh: --password must be 8 to 63 characters (WPA2)"
    result = hotspot(tmp_path, None, "on", "--password", "long enough")
    assert result.returncode == 1 and "nmcli not found" in result.stderr
    assert not (tmp_path / "nmcli.log").exists()


def test_hotspot_qr_escapes_the_special_characters():
    result = subprocess.run(
        ["bash", str(HOTSPOT), "qr", "--ssid", 'a\\b"c', "--password", "x;y,z:w12"], capture_output=True, text=True
    )
    assert result.stdout == 'WIFI:T:WPA;S:a\\\\b\\"c;P:x\\;y\\,z\\:w12;;\n'
