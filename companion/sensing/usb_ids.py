"""The USB ids a reed grid's Arduino may show, in one place: the host's port discovery and the udev rule
(`companion firmware udev-rule`, deploy/60-orrery.rules) both come from this list.

Genuine boards have their own ids (Arduino LLC 2341, Arduino SRL 2A03; as the Arduino core's boards.txt lists them
for the Uno and the Mega 2560). Nanos and clones carry a USB-serial bridge chip whose id says nothing about what is
behind it (a CH340 may be a GPS or a 3D printer), so a port is only taken for a grid once it speaks the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UsbId:
    vid: int
    pid: int
    name: str
    bridge: bool  # a generic USB-serial chip (any device may sit behind it), not an Arduino's own id


USB_IDS = (
    UsbId(0x2341, 0x0043, "Arduino Uno R3", False),
    UsbId(0x2341, 0x0001, "Arduino Uno (first revision)", False),
    UsbId(0x2A03, 0x0043, "Arduino Uno R3 (arduino.org)", False),
    UsbId(0x2341, 0x0243, "Arduino Uno R3 (2015 onwards)", False),
    UsbId(0x2341, 0x006A, "Arduino Uno R3 (SMD)", False),
    UsbId(0x2341, 0x0042, "Arduino Mega 2560 R3", False),
    UsbId(0x2341, 0x0010, "Arduino Mega 2560", False),
    UsbId(0x2A03, 0x0042, "Arduino Mega 2560 R3 (arduino.org)", False),
    UsbId(0x2A03, 0x0010, "Arduino Mega 2560 (arduino.org)", False),
    UsbId(0x2341, 0x0210, "Arduino Mega 2560 R3 (2016 onwards)", False),
    UsbId(0x2341, 0x0242, "Arduino Mega 2560 R3 (2016 onwards)", False),
    UsbId(0x1A86, 0x7523, "CH340 USB serial (Nano and Mega clones)", True),
    UsbId(0x1A86, 0x5523, "CH341 USB serial (clones)", True),
    UsbId(0x1A86, 0x55D4, "CH9102 USB serial (newer clones)", True),
    UsbId(0x1A86, 0x7522, "CH340K USB serial (clones)", True),
    UsbId(0x10C4, 0xEA60, "CP2102 USB serial (clones)", True),
    UsbId(0x0403, 0x6001, "FTDI FT232R USB serial (Nano before 2015)", True),
    UsbId(0x0403, 0x6015, "FTDI FT231X USB serial (clones)", True),
)

BY_ID = {(u.vid, u.pid): u for u in USB_IDS}


def describe(vid: int | None, pid: int | None) -> UsbId | None:
    """The entry for a port's USB id (None: not a board the grid runs on, or no USB id at all)."""
    if vid is None or pid is None:
        return None
    return BY_ID.get((vid, pid))
