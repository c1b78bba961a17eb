"""The reed switch the grid is designed for, from its datasheet, and where it lies under a site.

Part: Littelfuse MACD-14, a normally-open reed switch in a 14 mm glass (datasheet "MACD-14 14mm Close-Differential
Reed Switch": glass 14.00 mm long at most and 2.28 mm across at most, tin-plated leads 0.51 mm thick, 44.30 mm from
lead end to lead end; made in sensitivity bins across 10-30 AT, such as MACD-14-10-15). Other 14 mm reeds of the same
class fit the same holes if their glass is no longer and their leads no shorter.

The leads are bent at right angles to go down through the base. Reed makers ask for the bend at least 3 mm from the
glass, with the lead held in pliers between the bend and the glass (a bend at the seal cracks it); a lead bent over a
pliers' jaw takes an inner radius of about its own thickness. So the centre of each bent lead lies at least
3 + 0.51 + 0.26 mm from the glass, and the two holes must be at least 14.00 + 2 x 3.77 = 21.53 mm apart: 22.86 mm
(nine steps of 2.54 mm, so perfboard makes the jig) leaves 0.67 mm to spare at each end.

Where it lies: every reed the same way, along the board's x axis, one END of its glass under the site's centre and the
glass running to +x (hardware/MAGNETS.md: a disc magnet over the middle of the glass is in the reed's dead zone). The
two holes are then at HOLES[0] and HOLES[1] mm along x from the site's centre. hardware/tools/schematic.py draws the
KiCad footprint from these numbers, `companion print board GAME --reeds` the holes on the overlay.
"""

from __future__ import annotations

PART = "Littelfuse MACD-14"
PART_BIN = "MACD-14-10-15"  # the 10-15 AT bin: hardware/MAGNETS.md's reach table chooses it
GLASS_LENGTH = 14.00  # mm, maximum
GLASS_DIAMETER = 2.28  # mm, maximum
LEAD_DIAMETER = 0.51  # mm
OVERALL_LENGTH = 44.30  # mm, nominal, lead end to lead end
BEND_FROM_GLASS = 3.0  # mm, the makers' least distance from the glass to a bend
BEND_RADIUS = LEAD_DIAMETER  # mm, inside radius of a bend made over a pliers' jaw
PITCH = 22.86  # mm between the two holes: 9 x 2.54
HOLE_DRILL = 1.5  # mm: the 0.51 mm lead with room for a bend 0.5 mm off; the footprint's pad is 2.2 mm
PAD = 2.2  # mm, the footprint's round pad
GLASS_START = 0.0  # mm along x from the site's centre to the near end of the glass
HOLES = (GLASS_START + GLASS_LENGTH / 2 - PITCH / 2, GLASS_START + GLASS_LENGTH / 2 + PITCH / 2)


def least_pitch() -> float:
    """The least hole spacing that keeps both bends where the makers allow them."""
    return GLASS_LENGTH + 2 * (BEND_FROM_GLASS + BEND_RADIUS + LEAD_DIAMETER / 2)


def lead_below_bend() -> float:
    """How much of each lead goes down through the base after its bend (mm): the lead's length beyond the glass, less
    the run to the bend and the quarter turn of the bend itself."""
    lead = (OVERALL_LENGTH - GLASS_LENGTH) / 2
    run = (PITCH - GLASS_LENGTH) / 2 - BEND_RADIUS - LEAD_DIAMETER / 2
    quarter_turn = 3.1416 / 2 * (BEND_RADIUS + LEAD_DIAMETER / 2)
    return lead - run - quarter_turn
