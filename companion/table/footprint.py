"""An action's footprint: the board changes it implies, derived from the layouts before and after it.

Nothing here is written per game: whatever a game's `layout` says before and after an action is compared site by
site. A footprint says which sites change and how (`Change`), and in player terms which pieces leave a site and
arrive at another, are taken off the board, are set down new, or turn (the same piece in the box, named for a new
part or orientation). A board is *part way* through a footprint when every site it touches reads as it was, as it
will be, or between the two (one of two pieces taken off a stack, a piece in the hand between two sites), and
nothing else on the board has changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from companion.rules.engine import Layout, points_to, unpointed
from companion.table.observation import Observation, SiteReading, aligned, same_piece
from companion.table.words import listing, piece_words

Physical = Callable[[str], str]
MAX_STEPS = 4  # steps of what is left said one by one


@dataclass(frozen=True)
class Change:
    """One site the action changes: its pieces before and after, bottom to top (layout names)."""

    site: str
    before: tuple[str, ...]
    after: tuple[str, ...]

    @cached_property
    def undisturbed(self) -> tuple[str, ...]:
        """The pieces at the bottom of the stack both before and after: no hand needs to lift them. A piece that
        stays but stands above one that leaves or arrives (a ship on the spot an ORBIT planet moves onto: the planet
        goes under it) is lifted while the move is made."""
        same = 0
        for below, above in zip(self.before, self.after, strict=False):
            if below != above:
                break
            same += 1
        return self.before[:same]

    @cached_property
    def either(self) -> tuple[str, ...]:
        """Every piece that stands on the site at some point of the move."""
        return tuple((Counter(self.before) | Counter(self.after)).elements())

    @cached_property
    def leaving(self) -> tuple[str, ...]:
        return _less(self.before, self.after)

    @cached_property
    def arriving(self) -> tuple[str, ...]:
        return _less(self.after, self.before)


@dataclass(frozen=True)
class Footprint:
    """The changes an action makes to the board, one per site, in site order."""

    changes: tuple[Change, ...]

    @cached_property
    def sites(self) -> frozenset[str]:
        return frozenset(c.site for c in self.changes)

    def moved(self, physical: Physical = same_piece) -> tuple[tuple[str, str, str], ...]:
        """(piece, from, to) for each piece that leaves one site and arrives at another."""
        return self.pairs(physical)[0]

    def removed(self, physical: Physical = same_piece) -> tuple[tuple[str, str], ...]:
        """(piece, site) for each piece taken off the board."""
        return self.pairs(physical)[1]

    def added(self, physical: Physical = same_piece) -> tuple[tuple[str, str], ...]:
        """(piece, site) for each piece set down new."""
        return self.pairs(physical)[2]

    def turned(self, physical: Physical = same_piece) -> tuple[tuple[str, str, str], ...]:
        """(before, after, site) for a piece that stays but is named anew (turned, or playing a new part)."""
        return self.pairs(physical)[3]

    def pairs(self, physical: Physical = same_piece) -> tuple[tuple, tuple, tuple, tuple]:
        """(moved, removed, added, turned), worked out once per footprint and way of naming pieces: a state's
        footprints are kept while its boards are judged, and each judgement reads them again."""
        found = self._paired.get(physical)
        if found is None:
            found = self._paired[physical] = _pairs(self.changes, physical)
        return found

    @cached_property
    def _paired(self) -> dict[Physical, tuple[tuple, tuple, tuple, tuple]]:
        return {}

    def __bool__(self) -> bool:
        return bool(self.changes)


def footprint(before: Layout, after: Layout) -> Footprint:
    """The footprint of going from layout `before` to layout `after`."""
    # A stack that is the very object it was is unchanged (a layout worked out from the one before shares them);
    # only the rest are compared, as tuples (a site absent and a site empty are alike).
    maybe = [s for s, pieces in after.items() if before.get(s) is not pieces]
    maybe += [s for s in before if s not in after]
    changes = []
    for s in sorted(maybe):
        was, now = tuple(before.get(s, ())), tuple(after.get(s, ()))
        if was != now:
            changes.append(Change(s, was, now))
    return Footprint(tuple(changes))


def _less(pieces: tuple[str, ...], others: tuple[str, ...]) -> tuple[str, ...]:
    """The pieces not matched one for one by others, each kind in the order it first appears (as Counter
    subtraction gives them): counted on the stack itself, as a site's stack is a few pieces and every legal action
    of a state asks this of the sites it changes."""
    if not others:
        return tuple(sorted(pieces, key=pieces.index))
    left: list[str] = []
    for p in dict.fromkeys(pieces):
        left += [p] * (pieces.count(p) - others.count(p))
    return tuple(left)


def _pairs(changes: Iterable[Change], physical: Physical):
    """Pairs each piece that leaves a site with one of the same kind arriving elsewhere (a move), or at the same
    site under another name (a turn); the rest are removals and additions."""
    leaving = [(p, c.site) for c in changes for p in c.leaving]
    arriving = [(p, c.site) for c in changes for p in c.arriving]
    if len(leaving) == 1 == len(arriving) and leaving[0][0] == arriving[0][0] and leaving[0][1] != arriving[0][1]:
        return ((leaving[0][0], leaving[0][1], arriving[0][1]),), (), (), ()  # one piece moved: most actions
    moved, turned = [], []
    box = lambda name: unpointed(physical(name))  # noqa: E731 - the piece itself, whichever way it points
    for piece, source in list(leaving):
        same = [(q, s) for q, s in arriving if q == piece and s != source]
        same += [(q, s) for q, s in arriving if q != piece and box(q) == box(piece) and s != source]
        turn = [(q, s) for q, s in arriving if s == source and q != piece and box(q) == box(piece)]
        match = same[:1] or turn[:1]
        if not match:
            continue
        leaving.remove((piece, source))
        arriving.remove(match[0])
        if match[0][1] == source:
            turned.append((piece, match[0][0], source))
        else:
            moved.append((piece, source, match[0][1]))
    return tuple(moved), tuple(leaving), tuple(arriving), tuple(turned)


# How far a board has come through a footprint.
def site_reached(change: Change, reading: SiteReading, observation: Observation, physical: Physical) -> str | None:
    """Where one changed site stands: "done" (it reads as after), "between" (as before, or part way), or None
    when its reading fits no point of the move."""
    shown = observation.shown
    if reading.agrees_with(change.after, shown(change.after, physical)):
        return "done"
    if reading.agrees_with(change.before, shown(change.before, physical)):
        return "between"
    kept, either = change.undisturbed, change.either
    if reading.occupied is not None and (bool(kept) if not reading.occupied else not either):
        return None  # empty where a piece stays untouched throughout, or occupied where nothing ever stands
    if reading.pieces is not None:
        # A piece set down here (not one turned where it stands) may point any way part way: a hand turns its
        # arrow once it is down.
        turned = {unpointed(physical(p)) for p in change.leaving}
        loose = {unpointed(physical(p)) for p in change.arriving} - turned

        def free(names: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(unpointed(p) if unpointed(p) in loose else p for p in names)

        seen, high = map(Counter, aligned(free(reading.pieces), free(shown(either, physical))))
        low = Counter(aligned(free(reading.pieces), free(shown(kept, physical)))[1])
        if seen - high or (not reading.partial and low - seen):
            return None
    return "between"


def progress(
    fp: Footprint, observation: Observation, physical: Physical = same_piece
) -> tuple[bool, tuple[Change, ...]]:
    """(fits, still to do): whether every known site of the footprint reads at some point of the move, and the
    changes whose site does not yet read as after. Sites the sensors do not cover count as done. A hand lifts a
    piece before it sets it down: a board where the move has set down a piece that none of its lifts accounts for
    (a moved piece at its target while its origin still holds it: another piece, a ship entering from the reserve)
    is not this move part way done."""
    reached, untouched, arrived = _read(fp, observation, physical)
    if any(r is None for r in reached.values()):
        return False, ()
    todo = tuple(change for change in fp.changes if reached.get(change.site, "done") != "done")
    if todo and unaccounted(fp, untouched, arrived, physical):
        return False, ()
    return True, todo


def reached_sites(fp: Footprint, observation: Observation, physical: Physical = same_piece) -> frozenset[str]:
    """The sites of the footprint that read as some point of the move, less those where it has set down a piece
    that none of its lifts accounts for: what a move the board contradicts elsewhere may still have done."""
    reached, untouched, arrived = _read(fp, observation, physical)
    return frozenset(s for s, r in reached.items() if r is not None) - unaccounted(fp, untouched, arrived, physical)


def _read(
    fp: Footprint, observation: Observation, physical: Physical
) -> tuple[dict[str, str | None], dict[str, bool], set[str]]:
    """Where each known site of the footprint stands (site_reached), the sites that read as before the move only
    (untouched: True where the sensor tells which piece stands there) and those that read as after it only
    (arrived)."""
    reached: dict[str, str | None] = {}
    untouched: dict[str, bool] = {}
    arrived: set[str] = set()
    for change in fp.changes:
        reading = observation.sites.get(change.site)
        if reading is None:
            continue
        reached[change.site] = now = site_reached(change, reading, observation, physical)
        if now is None:
            return reached, untouched, arrived
        as_before = reading.agrees_with(change.before, observation.shown(change.before, physical))
        if now != "done":
            # Read as before by a sensor that would tell a piece gone from it: the grid feels a site taken, not how
            # many stand on it, so a stack with its top lifted off reads as before to it.
            if as_before and (reading.pieces is not None or len(change.before) < 2):
                untouched[change.site] = reading.pieces is not None
        elif not as_before:
            arrived.add(change.site)
    return reached, untouched, arrived


def unaccounted(
    fp: Footprint, untouched: dict[str, bool], arrived: set[str], physical: Physical = same_piece
) -> set[str]:
    """The `arrived` sites where the move sets down a piece that none of its lifts accounts for (pieces are
    conserved): of each kind, more pieces stand at their targets than have left their sites or come new to the
    board (a move's pieces of one kind may be set down on each other's targets, so they are counted, not
    paired). Those are the targets whose own origin still holds its piece. An origin that a sensor reads only as
    taken (a reed) may hold another piece the move has lifted and not yet set on its target (set down beside it,
    to be nudged over): each such piece accounts for one of those origins, whatever its kind."""
    moved, removed, added, _ = fp.pairs(physical)
    box = lambda piece: unpointed(physical(piece))  # noqa: E731 - the piece itself, whichever way it points
    supply: Counter[str] = Counter(box(p) for p, _ in added)
    supply.update(box(p) for p, origin in removed if origin not in untouched)
    supply.update(box(p) for p, origin, _ in moved if origin not in untouched)
    demand: Counter[str] = Counter(box(p) for p, site in added if site in arrived)
    demand.update(box(p) for p, _, target in moved if target in arrived)
    short = {kind: count - supply[kind] for kind, count in demand.items() if count > supply[kind]}
    spare = sum(max(0, count - demand[kind]) for kind, count in supply.items())  # lifted, not at their targets
    for kind in sorted(short):
        blind = sum(
            1 for p, origin, target in moved if box(p) == kind and target in arrived and not untouched.get(origin, True)
        )
        covered = min(short[kind], blind, spare)
        spare -= covered
        if covered == short[kind]:
            del short[kind]
    return {target for p, origin, target in moved if box(p) in short and origin in untouched and target in arrived}


def still_to_do(
    fp: Footprint,
    todo: Iterable[Change],
    name: Callable[[str], str],
    physical: Physical = same_piece,
    observation: Observation | None = None,
) -> list[str]:
    """What is left of a move in player words, one step per piece, for the changes `todo` of the footprint `fp`:
    "move the red ship from A to B", "take the amber ship off g4: it leaves the board", "put the red ship on B"
    (its way there half made). Where the camera reads a site (`observation`), only the pieces it does not see there
    yet are named: a piece that stays on its site but was lifted while another went under it (a ship where an ORBIT
    planet advances) is to be put back, not the planet already set down. Beyond MAX_STEPS steps, the first ones and
    how many more."""
    left = {change.site for change in todo}
    lacking = _lacking(todo, observation, physical)
    moved, removed, added, turned = fp.pairs(physical)
    words = lambda piece: f"the {piece_words(physical(piece))}"  # noqa: E731

    def wanted(piece: str, site: str) -> bool:  # still to set down on `site`, as far as the sensors tell
        if site not in left:
            return False
        shown = observation.shown((piece,), physical) if observation is not None else ()
        return site not in lacking or not shown or lacking[site][unpointed(shown[0])] > 0

    lifted = {change.site: _lifted(change, physical) for change in todo}

    def under(site: str) -> str:
        """What a piece set on `site` goes under (nothing where the sensors cannot tell)."""
        if site in lacking or not lifted[site]:
            return ""
        return " under " + listing([f"the {piece_words(p)}" for p in lifted[site]])

    steps = []
    for piece, a, b in moved:
        if a in left and wanted(piece, b):
            steps.append(f"move {words(piece)} from {name(a)} to {name(b)}{under(b)}")
        elif a in left:
            steps.append(f"take {words(piece)} off {name(a)}")
        elif wanted(piece, b):
            steps.append(f"put {words(piece)} on {name(b)}{under(b)}")
    steps += [f"take {words(p)} off {name(s)}: it leaves the board" for p, s in removed if s in left]
    steps += [f"put {words(p)} on {name(s)}{under(s)}" for p, s in added if wanted(p, s)]
    steps += [
        f"turn {words(a)} on {name(s)} to "
        + (f"point to {name(points_to(b))}" if points_to(b) else f"show {piece_words(b)}")
        for a, b, s in turned
        if s in left
    ]
    steps += [
        f"put the {piece_words(p)} back on {name(site)}"
        for site in sorted(lacking)
        for p in lifted[site]
        if lacking[site][unpointed(p)] > 0
    ]
    if len(steps) > MAX_STEPS:
        steps = [*steps[: MAX_STEPS - 1], f"{len(steps) - MAX_STEPS + 1} more pieces as the move says"]
    return steps


def _lifted(change: Change, physical: Physical) -> list[str]:
    """The pieces (as in the box) that stay on the change's site but stand above one set down or taken away there,
    so a hand lifts them while the move is made."""
    above = Counter(change.after[len(change.undisturbed) :]) & Counter(change.before) & Counter(change.after)
    return [unpointed(physical(p)) for p in above.elements()]


def _lacking(todo: Iterable[Change], observation: Observation | None, physical: Physical) -> dict[str, Counter[str]]:
    """Per site still to change whose whole stack the camera reads: the pieces (as in the box, whichever way they
    point) the move leaves there that it does not see yet."""
    out: dict[str, Counter[str]] = {}
    for change in todo:
        reading = observation.reading(change.site) if observation is not None else None
        if reading is None or reading.pieces is None or reading.partial:
            continue
        expected = Counter(unpointed(p) for p in observation.shown(change.after, physical))
        out[change.site] = expected - Counter(unpointed(p) for p in reading.pieces)
    return out


def sentence(steps: list[str]) -> str:
    """Steps as one sentence with a capital and a full stop."""
    text = listing(steps) if steps else "nothing"
    return text[0].upper() + text[1:] + "."
