#!/usr/bin/env bash
# An optional Wi-Fi hotspot on the Pi, through NetworkManager, so that phones join the table without a router:
#   sudo deploy/hotspot.sh on [--ssid NAME] [--password WORDS] [--ifname wlan0] [--band bg|a]
#   sudo deploy/hotspot.sh off
#   deploy/hotspot.sh status
#   deploy/hotspot.sh qr --ssid NAME --password WORDS     print the Wi-Fi QR payload only
# The hotspot comes back after every reboot until "off". The Pi's Wi-Fi then serves the hotspot only: keep Ethernet
# (or nothing) for the internet. "on" keeps the password of the last hotspot unless given one, so phones that saved
# the network rejoin, and writes $ORRERY_STATE/wifi.json (default /var/lib/orrery/wifi.json) for the phone page:
#   {"ssid": "Orrery", "password": "...", "security": "WPA", "qr": "WIFI:T:WPA;S:Orrery;P:...;;",
#    "address": "10.42.0.1", "url": "http://10.42.0.1/"}
# "qr" is the payload phones' cameras understand (ZXing's Wi-Fi format); "url" works where .local names do not.
set -euo pipefail

CONNECTION=orrery-hotspot
STATE=${ORRERY_STATE:-/var/lib/orrery}
WIFI_JSON="$STATE/wifi.json"
PORT_CONFIG=/etc/default/orrery

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
die() { echo "hotspot.sh: $*" >&2; exit 1; }

# The Wi-Fi QR format escapes \ ; , : and " with a backslash.
wifi_escape() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//;/\\;}
  s=${s//,/\\,}
  s=${s//:/\\:}
  s=${s//\"/\\\"}
  printf '%s' "$s"
}

qr_payload() { printf 'WIFI:T:WPA;S:%s;P:%s;;' "$(wifi_escape "$1")" "$(wifi_escape "$2")"; }

check_credentials() {
  local ssid=$1 password=$2
  if [ -z "$ssid" ] || [ "${#ssid}" -gt 32 ]; then die "--ssid must be 1 to 32 characters"; fi
  if [ "${#password}" -lt 8 ] || [ "${#password}" -gt 63 ]; then die "--password must be 8 to 63 characters (WPA2)"; fi
}

# Twelve letters and digits without the look-alikes (l 1 0 o), easy to type from a card on the table.
new_password() {
  local password=""
  while [ "${#password}" -lt 12 ]; do
    password+=$(head -c 64 /dev/urandom | tr -dc 'a-km-np-z2-9' || true)
  done
  printf '%s' "${password:0:12}"
}

saved() {  # saved FIELD: a field of the last wifi.json, or nothing
  [ -f "$WIFI_JSON" ] || return 0
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$WIFI_JSON" "$1" \
    2> /dev/null || true
}

need_nmcli() {
  command -v nmcli > /dev/null || die "nmcli not found: the hotspot needs NetworkManager (sudo apt install network-manager)"
  [ "$(nmcli -t -f RUNNING general)" = running ] || die "NetworkManager is not running (sudo systemctl start NetworkManager)"
}

page_url() {  # page_url ADDRESS: the page's address on the hotspot, with the service's port unless 80
  local address=$1 port=""
  if [ -r "$PORT_CONFIG" ]; then port=$(sed -n 's/^ORRERY_PORT=\([0-9]\+\)$/\1/p' "$PORT_CONFIG" | tail -1); fi
  if [ -z "$port" ] || [ "$port" = 80 ]; then echo "http://$address/"; else echo "http://$address:$port/"; fi
}

hotspot_address() {  # the Pi's address on the hotspot, from NetworkManager (anyone may ask)
  local address
  address=$(nmcli -g IP4.ADDRESS connection show "$CONNECTION" | head -1)
  address=${address%%/*}
  echo "${address:-10.42.0.1}"
}

write_wifi_json() {
  local ssid=$1 password=$2 address=$3 url
  url=$(page_url "$address")
  mkdir -p "$STATE"
  # Written beside and renamed, so the page never reads half a file; readable by the service only (the password).
  python3 - "$WIFI_JSON.new" "$ssid" "$password" "$(qr_payload "$ssid" "$password")" "$address" "$url" <<'EOF'
import json, sys
path, ssid, password, qr, address, url = sys.argv[1:]
with open(path, "w") as out:
    json.dump({"ssid": ssid, "password": password, "security": "WPA", "qr": qr, "address": address, "url": url},
              out, indent=1)
    out.write("\n")
EOF
  chmod 640 "$WIFI_JSON.new"
  if id orrery > /dev/null 2>&1; then chown orrery:orrery "$WIFI_JSON.new"; fi
  mv -f "$WIFI_JSON.new" "$WIFI_JSON"
}

hotspot_on() {
  local ssid="" password="" ifname=wlan0 band=bg
  while [ $# -gt 0 ]; do
    case "$1" in
      --ssid) ssid=${2?--ssid needs a name}; shift ;;
      --password) password=${2?--password needs a value}; shift ;;
      --ifname) ifname=${2?--ifname needs an interface}; shift ;;
      --band) band=${2?--band needs bg or a}; shift ;;
      *) usage ;;
    esac
    shift
  done
  [ "$band" = bg ] || [ "$band" = a ] || die "--band must be bg (2.4 GHz, every phone) or a (5 GHz)"
  [ "$(id -u)" -eq 0 ] || die "run it as root (sudo $0 on)"
  [ -n "$ssid" ] || ssid=$(saved ssid)
  [ -n "$ssid" ] || ssid=Orrery
  [ -n "$password" ] || password=$(saved password)
  [ -n "$password" ] || password=$(new_password)
  check_credentials "$ssid" "$password"
  need_nmcli
  if nmcli -t -f NAME connection show | grep -qx "$CONNECTION"; then
    nmcli connection delete "$CONNECTION" > /dev/null
  fi
  # ipv4.method shared: NetworkManager runs DHCP and DNS for the phones and gives the Pi 10.42.0.1.
  nmcli connection add type wifi ifname "$ifname" con-name "$CONNECTION" autoconnect yes \
    connection.autoconnect-priority 100 ssid "$ssid" 802-11-wireless.mode ap 802-11-wireless.band "$band" \
    ipv4.method shared ipv6.method disabled wifi-sec.key-mgmt wpa-psk wifi-sec.psk "$password" > /dev/null
  nmcli connection up "$CONNECTION" > /dev/null || die "NetworkManager could not start the hotspot on $ifname"
  local address
  address=$(hotspot_address)
  write_wifi_json "$ssid" "$password" "$address"
  echo "Hotspot $ssid is on (password $password); phones open $(page_url "$address") or http://orrery.local/"
  echo "The page's Wi-Fi QR code: $WIFI_JSON"
}

hotspot_off() {
  [ "$(id -u)" -eq 0 ] || die "run it as root (sudo $0 off)"
  need_nmcli
  if nmcli -t -f NAME connection show | grep -qx "$CONNECTION"; then
    nmcli connection delete "$CONNECTION" > /dev/null
    echo "Hotspot off"
  else
    echo "No hotspot to turn off"
  fi
  rm -f "$WIFI_JSON"
}

# Status needs no root: NetworkManager tells anyone the network's name and address (wifi.json is the service's).
hotspot_status() {
  need_nmcli
  if nmcli -t -f NAME connection show --active | grep -qx "$CONNECTION"; then
    echo "Hotspot on: $(nmcli -g 802-11-wireless.ssid connection show "$CONNECTION") at $(page_url "$(hotspot_address)")"
  else
    echo "Hotspot off"
  fi
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
  on) hotspot_on "$@" ;;
  off) hotspot_off ;;
  status) hotspot_status ;;
  qr)
    ssid="" password=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --ssid) ssid=${2?--ssid needs a name}; shift ;;
        --password) password=${2?--password needs a value}; shift ;;
        *) usage ;;
      esac
      shift
    done
    check_credentials "$ssid" "$password"
    qr_payload "$ssid" "$password"
    echo
    ;;
  *) usage ;;
esac
