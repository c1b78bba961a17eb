#!/usr/bin/env bash
# Installs the Orrery companion as a service on Raspberry Pi OS (64-bit) Trixie or Bookworm, or Debian 13 or 12, from
# this checkout:
#   sudo deploy/install.sh                    install or upgrade; run it again after `git pull`
#   sudo deploy/install.sh --uninstall        remove the program, keep the games and profiles in /var/lib/orrery
#   sudo deploy/install.sh --uninstall --purge   remove those too, the settings and the orrery user
# Options:
#   --no-hardware    skip what needs a running systemd or udev (starting the service, reloading udev and Avahi,
#                    the running host name), so that it can run in a chroot or while building an image
#   --wheels DIR     install the Python packages from this directory of wheels only, asking no package index
#                    (deploy/wheelhouse.py DIR makes it on any machine with the internet)
#   --hostname NAME  the name phones use, http://NAME.local (default orrery; --hostname "" keeps the current one)
# It also makes the table's own certificate authority for https (in /var/lib/orrery/tls) once: phones trust it, so
# no later run replaces it; an uninstall keeps it and only --purge removes it.
# Every step checks before it changes anything; a run that changes nothing ends with "orrery: unchanged".
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/orrery
STATE=/var/lib/orrery
TLS=$STATE/tls
CONFIG=/etc/default/orrery
UNIT=/etc/systemd/system/orrery.service
AVAHI=/etc/avahi/services/orrery.service
UDEV=/etc/udev/rules.d/60-orrery.rules
SERVICE_USER=orrery
GROUPS_WANTED=(dialout video gpio)
PACKAGES=(python3 python3-venv ca-certificates avahi-daemon make gcc-avr avr-libc arduino-core-avr avrdude)
# Raspberry Pi OS ships these (the Pi camera, and GPIO on the Pi 5); Debian does not, so they are installed when apt
# knows them. The virtual environment sees the system's packages for lgpio; the Pi camera is read by the system's own
# Python (its picamera2 is built against the system's numpy, not the environment's), and checked here once installed.
PI_PACKAGES=(python3-picamera2 python3-lgpio)

hardware=1 uninstall=0 purge=0 wheels="" hostname=orrery
while [ $# -gt 0 ]; do
  case "$1" in
    --no-hardware) hardware=0 ;;
    --uninstall) uninstall=1 ;;
    --purge) purge=1 ;;
    --wheels) wheels=$(cd "${2:?--wheels needs a directory}" && pwd); shift ;;
    --hostname) hostname=${2?--hostname needs a name}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run it as root (sudo $0)" >&2; exit 1; }
[ "$purge" -eq 0 ] || [ "$uninstall" -eq 1 ] || { echo "install.sh: --purge goes with --uninstall" >&2; exit 2; }
if [ -n "$hostname" ] && ! [[ "$hostname" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
  echo "install.sh: --hostname must be lower-case letters, digits and inner hyphens, not '$hostname'" >&2; exit 2
fi

changes=0
did() { echo "  $*"; changes=$((changes + 1)); }

# put FILE MODE: writes standard input to FILE unless FILE already holds exactly that; true if it wrote.
put() {
  local file=$1 mode=$2 tmp
  tmp=$(mktemp)
  cat > "$tmp"
  if [ -f "$file" ] && cmp -s "$tmp" "$file" && [ "$(stat -c %a "$file")" = "$mode" ]; then
    rm -f "$tmp"
    return 1
  fi
  mkdir -p "$(dirname "$file")"
  install -m "$mode" "$tmp" "$file"
  rm -f "$tmp"
  did "wrote $file"
}

summary() {
  case "$changes" in
    0) echo "orrery: unchanged" ;;
    1) echo "orrery: 1 change" ;;
    *) echo "orrery: $changes changes" ;;
  esac
}

remove() {
  local path
  for path in "$@"; do
    if [ -e "$path" ] || [ -L "$path" ]; then rm -rf "$path"; did "removed $path"; fi
  done
}

have_systemctl() { command -v systemctl > /dev/null; }

apt_packages() {
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  # A fresh image may have no package lists yet: update before asking apt about the optional packages.
  local updated=0
  if [ ${#missing[@]} -gt 0 ]; then apt-get update -qq; updated=1; fi
  for pkg in "${PI_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "ok installed" \
      && apt-cache show "$pkg" > /dev/null 2>&1; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$updated" -eq 1 ] || apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
    did "installed ${missing[*]}"
  fi
}

service_user() {
  # The gpio group owns the GPIO chips on Raspberry Pi OS; on Debian 12 it is made here and given them by udev.
  getent group gpio > /dev/null || { groupadd --system gpio; did "created group gpio"; }
  if ! id "$SERVICE_USER" > /dev/null 2>&1; then
    useradd --system --user-group --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin \
      --comment "Orrery table companion" "$SERVICE_USER"
    did "created user $SERVICE_USER"
  fi
  local group
  for group in "${GROUPS_WANTED[@]}"; do
    if ! id -nG "$SERVICE_USER" | tr ' ' '\n' | grep -qx "$group"; then
      usermod -a -G "$group" "$SERVICE_USER"
      did "added $SERVICE_USER to $group"
    fi
  done
}

state_dir() {
  local dir
  for dir in "$STATE" "$STATE/profiles"; do
    if [ ! -d "$dir" ]; then
      install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 750 "$dir"
      did "created $dir"
    fi
  done
  # After a purge and a reinstall the user may have a new id: give it back whatever it left behind.
  if [ -n "$(find "$STATE" \( ! -user "$SERVICE_USER" -o ! -group "$SERVICE_USER" \) -print -quit)" ]; then
    chown -R "$SERVICE_USER:$SERVICE_USER" "$STATE"
    did "gave $STATE to $SERVICE_USER"
  fi
  if [ "$(stat -c %a "$STATE")" != 750 ]; then chmod 750 "$STATE"; did "made $STATE private to $SERVICE_USER"; fi
}

# The package, the firmware sources and the options, staged outside the checkout (building writes into the source
# tree) and fingerprinted so that an unchanged checkout is not reinstalled.
companion_venv() {
  local stage stamp
  stage=$(mktemp -d)
  tar -C "$SRC" --exclude=__pycache__ --exclude='*.pyc' --exclude='*.egg-info' --exclude=build \
    -cf - pyproject.toml README.md companion firmware | tar -C "$stage" -xf -
  stamp="$( (cd "$stage" && find . -type f | LC_ALL=C sort | xargs sha256sum; python3 --version;
    echo "wheels=${wheels:+yes}") | sha256sum | cut -c1-32)"
  if [ -x "$PREFIX/bin/python" ] && [ "$(cat "$PREFIX/.installed" 2> /dev/null)" = "$stamp" ]; then
    rm -rf "$stage"
    return
  fi
  [ -x "$PREFIX/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX"
  local pip=("$PREFIX/bin/python" -m pip install --quiet --no-cache-dir --upgrade)
  [ -z "$wheels" ] || pip+=(--no-index --find-links "$wheels")
  "${pip[@]}" "${stage}[pi]"
  rm -rf "$PREFIX/share/orrery/firmware"
  mkdir -p "$PREFIX/share/orrery"
  cp -r "$stage/firmware" "$PREFIX/share/orrery/firmware"
  rm -rf "$stage"
  echo "$stamp" > "$PREFIX/.installed"
  did "installed $("$PREFIX/bin/companion" --version) into $PREFIX"
}

# The Pi camera's stack, checked as the service will use it: one line that says what it found, or what is wrong.
pi_camera_check() {
  pi_camera=""
  # Wherever it came from (apt, as a rule): the system's Python finds picamera2, without importing it yet.
  python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("picamera2") is None)' || return 0
  if pi_camera=$(runuser -u "$SERVICE_USER" -- "$PREFIX/bin/companion" camera check picamera 2>&1); then
    pi_camera="The Pi camera: $pi_camera"
  else
    echo "install.sh: the Pi camera will not work: ${pi_camera#companion: }" >&2
    pi_camera=""
  fi
}

settings() {
  # Written once: the owner's edits survive upgrades and reinstalls (uninstall --purge removes it).
  [ -f "$CONFIG" ] || put "$CONFIG" 644 <<'EOF' || true
# Settings of the Orrery companion service; `sudo systemctl restart orrery` after a change.
# deploy/install.sh writes this file once and leaves it alone afterwards.
ORRERY_PORT=80
# https for phones that trust the table's certificate authority (its certificate: http://orrery.local/ca.crt);
# ORRERY_TLS_DIR=none serves plain http only.
ORRERY_TLS_PORT=443
ORRERY_TLS_DIR=/var/lib/orrery/tls
# The grid's port: /dev/orrery-grid is the name the udev rule gives the Arduino; "auto" finds it by its USB id.
ORRERY_SERIAL=/dev/orrery-grid
# The camera: a USB webcam's index (0), "picamera" for the Pi camera, or "none".
ORRERY_CAMERA=0
# More options for `companion serve`, e.g. ORRERY_ARGS="--game orbit --players red,blue"
ORRERY_ARGS=
EOF
}

# config_port [NAME DEFAULT]: a port from the settings (ORRERY_PORT, 80 unless told otherwise).
config_port() {
  local name=${1:-ORRERY_PORT} port
  port=$(sed -n "s/^$name=\([0-9]\+\)\$/\1/p" "$CONFIG" | tail -1)
  echo "${port:-${2:-80}}"
}

# The table's certificate authority and the server certificate it signs, made as the service user where missing.
# An existing CA is never replaced: every phone that trusts the table trusts it. The service makes the server
# certificate again by itself when the machine's addresses change.
table_certificate() {
  local out line
  out=$(runuser -u "$SERVICE_USER" -- "$PREFIX/bin/companion" tls init --dir "$TLS" \
    --hostname "${hostname:-$(cat /etc/hostname)}")
  while IFS= read -r line; do
    case "$line" in wrote*) did "$line" ;; esac
  done <<< "$out"
}

system_files() {
  unit_changed=0 avahi_changed=0 udev_changed=0
  put "$UNIT" 644 < "$SRC/deploy/orrery.service" && unit_changed=1
  # Input by redirection, not a pipe: put must run in this shell to count its change.
  put "$AVAHI" 644 < <(sed "s|<port>80</port>|<port>$(config_port)</port>|" "$SRC/deploy/avahi-orrery.service") \
    && avahi_changed=1
  put "$UDEV" 644 < <(
    "$PREFIX/bin/companion" firmware udev-rule
    echo "# Debian 12 leaves the GPIO chips to root; Raspberry Pi OS gives them to gpio already (the same rule)."
    echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"'
    echo 'KERNEL=="gpiomem", GROUP="gpio", MODE="0660"'
  ) && udev_changed=1
  return 0
}

host_name() {
  hostname_changed=0
  [ -n "$hostname" ] || return 0
  if [ "$(cat /etc/hostname 2> /dev/null)" != "$hostname" ]; then
    echo "$hostname" > /etc/hostname
    hostname_changed=1
    did "named the machine $hostname (/etc/hostname)"
  fi
  # Debian resolves its own name through the 127.0.1.1 line; sudo complains when it is stale.
  if ! grep -qE "^127\.0\.1\.1[[:space:]]+$hostname\$" /etc/hosts; then
    { grep -v '^127\.0\.1\.1[[:space:]]' /etc/hosts || true; printf '127.0.1.1\t%s\n' "$hostname"; } > /etc/hosts.new
    cat /etc/hosts.new > /etc/hosts && rm -f /etc/hosts.new
    did "pointed 127.0.1.1 at $hostname in /etc/hosts"
  fi
  if [ "$hardware" -eq 1 ] && [ "$(hostname)" != "$hostname" ]; then
    hostname "$hostname"
    hostname_changed=1
    did "set the running host name to $hostname"
  fi
}

enable_service() {
  have_systemctl || { echo "install.sh: systemctl not found; start $PREFIX/bin/companion serve yourself" >&2; return; }
  if ! systemctl is-enabled --quiet orrery.service 2> /dev/null; then
    systemctl enable --quiet orrery.service 2> /dev/null
    did "enabled orrery.service"
  fi
  [ "$hardware" -eq 1 ] || return 0
  if [ "$udev_changed" -eq 1 ]; then udevadm control --reload && udevadm trigger --subsystem-match=tty; fi
  if [ "$avahi_changed" -eq 1 ] || [ "$hostname_changed" -eq 1 ]; then systemctl reload-or-restart avahi-daemon; fi
  if [ "$unit_changed" -eq 1 ]; then systemctl daemon-reload; fi
  if [ "$changes" -gt 0 ]; then
    systemctl restart orrery.service
    echo "  restarted orrery.service"
  elif ! systemctl is-active --quiet orrery.service; then
    systemctl start orrery.service
    did "started orrery.service"
  fi
}

install_all() {
  echo "Installing the Orrery companion from $SRC"
  local release
  release=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2> /dev/null || true)
  case "$release" in
    trixie | bookworm) ;;
    *) echo "install.sh: made for Debian 13 and 12 (Raspberry Pi OS Trixie and Bookworm), not '$release'; trying" >&2 ;;
  esac
  apt_packages
  service_user
  state_dir
  companion_venv
  pi_camera_check
  table_certificate
  settings
  system_files
  host_name
  enable_service
  local name url port secure
  name="${hostname:-$(cat /etc/hostname)}.local"
  url="http://$name"
  port=$(config_port)
  [ "$port" = 80 ] || url+=":$port"
  secure="https://$name"
  port=$(config_port ORRERY_TLS_PORT 443)
  [ "$port" = 443 ] || secure+=":$port"
  summary
  echo "The page: $url/ (logs: journalctl -u orrery)"
  echo "Phones that trust the table: $secure/ (the table's certificate: $url/ca.crt)"
  [ -z "$pi_camera" ] || echo "$pi_camera"
}

uninstall_all() {
  echo "Removing the Orrery companion"
  if have_systemctl && [ -f "$UNIT" ]; then
    if [ "$hardware" -eq 1 ]; then systemctl stop orrery.service 2> /dev/null || true; fi
    if systemctl is-enabled --quiet orrery.service 2> /dev/null; then
      systemctl disable --quiet orrery.service && did "disabled orrery.service"
    fi
  fi
  remove "$UNIT" "$AVAHI" "$UDEV" "$PREFIX"
  if [ "$purge" -eq 1 ]; then
    remove "$STATE" "$CONFIG"
    if id "$SERVICE_USER" > /dev/null 2>&1; then userdel "$SERVICE_USER"; did "removed user $SERVICE_USER"; fi
  elif [ -d "$STATE" ]; then
    echo "  kept $STATE (games, profiles, Wi-Fi, the certificate authority phones trust) and $CONFIG;" \
      "--purge removes them"
  fi
  if [ "$hardware" -eq 1 ] && have_systemctl; then
    systemctl daemon-reload
    udevadm control --reload || true
    systemctl reload-or-restart avahi-daemon 2> /dev/null || true
  fi
  summary
}

if [ "$uninstall" -eq 1 ]; then uninstall_all; else install_all; fi
