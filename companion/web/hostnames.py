"""The names and addresses a phone may use to reach this machine: orrery.local, the host name (bare and .local),
localhost, and the machine's current IPv4 addresses (a hotspot's address included while it is up)."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import ifaddr

from companion.errors import UserError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
MDNS_NAME = "orrery.local"  # deploy/install.sh names the Pi "orrery" by default, and Avahi announces orrery.local
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


@dataclass(frozen=True)
class Names:
    """DNS names and IP addresses, each kept once, in a stable order."""

    dns: tuple[str, ...] = ()
    ips: tuple[IPAddress, ...] = ()

    def __or__(self, other: Names) -> Names:
        return Names(tuple(dict.fromkeys((*self.dns, *other.dns))), tuple(dict.fromkeys((*self.ips, *other.ips))))

    def __le__(self, other: Names) -> bool:
        return set(self.dns) <= set(other.dns) and set(self.ips) <= set(other.ips)

    def __sub__(self, other: Names) -> Names:
        return Names(tuple(d for d in self.dns if d not in other.dns), tuple(i for i in self.ips if i not in other.ips))

    def __bool__(self) -> bool:
        return bool(self.dns or self.ips)

    def __str__(self) -> str:
        return ", ".join([*self.dns, *map(str, self.ips)])


NO_NAMES = Names()


def dns_name(text: str) -> str | None:
    """`text` as a lower-case DNS name, or None when it is not one (a host name with an underscore, say)."""
    name = text.strip().rstrip(".").lower()
    return name if name and len(name) <= 253 and all(_LABEL.match(label) for label in name.split(".")) else None


def parse_names(texts: Iterable[str]) -> Names:
    """Names a person gave (`--name`): each an IP address or a DNS name; one line naming a bad one."""
    dns: list[str] = []
    ips: list[IPAddress] = []
    for text in texts:
        try:
            ips.append(ipaddress.ip_address(text.strip()))
            continue
        except ValueError:
            pass
        name = dns_name(text)
        if name is None:
            raise UserError(f"--name {text!r}: neither an IP address nor a host name")
        dns.append(name)
    return Names(tuple(dict.fromkeys(dns)), tuple(dict.fromkeys(ips)))


def host_name() -> str:
    return socket.gethostname().split(".")[0]


def current_addresses() -> tuple[IPAddress, ...]:
    """Every IPv4 address of every interface, and ::1. Other IPv6 addresses are left out: link-local ones need a
    zone a browser's address bar cannot carry, and temporary ones change every day."""
    found: list[IPAddress] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                found.append(ipaddress.IPv4Address(ip.ip))
            elif ip.ip[0] == "::1":
                found.append(ipaddress.IPv6Address("::1"))
    return tuple(dict.fromkeys(sorted(found, key=lambda a: (a.version, a))))


def local_names(hostname: str | None = None, extra: Names = NO_NAMES) -> Names:
    """What the table's certificate should cover now."""
    host = dns_name(hostname if hostname is not None else host_name())
    dns = [MDNS_NAME, *([host, f"{host}.local"] if host else []), "localhost"]
    return Names(tuple(dict.fromkeys(dns)), current_addresses()) | extra
