"""How the rules name things to players, and why a slide does not end where a player put the ship."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.dakalio.mat import Mat, Way
from companion.rules.dakalio.slide import Obstacles, slide
from companion.rules.words import a as a
from companion.rules.words import plural as plural

NOTHING_STOPS = "the ship would slide off through the Control Zone and nothing stops it"


def who(player: str) -> str:
    return player[:1].upper() + player[1:]


def spot_role(board: Mat, spot: str) -> str:
    """ "the Station f6", "the Control Zone spot a5", "e3"."""
    if spot in board.stations:
        return f"the Station {spot}"
    if spot in board.ports:
        return f"the Port {spot}"
    if spot in board.control:
        return f"the Control Zone spot {spot}"
    return spot


def obstacle(blocked: Obstacles, spot: str) -> str:
    what = blocked[spot]
    return "the Load Zone" if what == "load" else f"the {what} on {spot}"


def why_not(board: Mat, blocked: Obstacles, start: str, ways: Iterable[Way], to: str, portals: tuple[str, ...]) -> str:
    """Why no slide from `start` along `ways` (nor through the portals) ends on `to`, in a player's words."""
    if to in board.load_zone:
        return "ships cannot move into the Load Zone"
    if to in blocked:
        return f"{to} is not empty: {obstacle(blocked, to)} is there"
    if to == start:
        return "a move must end on another spot"
    slides = [slide(board, blocked, way) for way in ways]
    for sl in slides:
        if to in sl.path and to != start:
            if sl.loops:
                return NOTHING_STOPS
            stopper = obstacle(blocked, sl.blocker)
            return f"nothing stops the ship on {to}: it would slide on to {sl.stop}, before {stopper}"
    for sl in slides:
        if to in board.loops[sl.way.loop]:
            assert sl.blocker is not None  # a slide that loops passes every spot of its line
            if sl.stop is None:
                return f"the ship cannot move towards {to}: {obstacle(blocked, sl.blocker)} is in the way"
            return f"the ship would stop on {sl.stop}, before {obstacle(blocked, sl.blocker)}, and never reach {to}"
    if len(portals) == 2:
        for sl in slides:
            for portal in (p for p in sl.path if p in portals and p != start):
                exit_ = portals[1] if portal == portals[0] else portals[0]
                if exit_ in blocked:
                    return f"the portal on {exit_} is taken by a ship, so there is no clear way through the portals"
                reason = why_not(board, blocked, start, board.ways[exit_], to, ())
                if "not along a line" not in reason:
                    return f"through the portal on {exit_}: {reason}"
        return f"{to} is not along a line from {start}, and the portals do not lead there"
    return f"{to} is not along a line from {start}"
