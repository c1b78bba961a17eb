"""The referee: which legal action explains what the board shows now?

Pure rules, a state and an observation in; a ruling out. Every legal action that changes the board has a footprint
(footprint.py): the sites it changes, from the layouts before and after it. A settled board is compared with the
game's layout; the sites that disagree must all lie in an action's footprint for that action to explain them:

- unchanged: the board agrees with the game (a piece lifted and put back, a hovering hand);
- explained: the board shows the whole footprint of actions that all leave the same state: it is booked. An action
  declared on the phones (a station built, a ship bought) is booked from the board alone only when the camera has
  named every piece it sets down; otherwise it is asked about, with one choice;
- ambiguous: whole footprints of actions that book differently (a card flight or a friendship tile, two costs),
  or a whole footprint that is also the start of a larger move: the phones are asked, one choice per outcome;
- in_progress: the board shows part of one or more footprints and nothing that contradicts them (a ship moved
  onto its victim, the victim not yet taken off): nothing is booked, and `todo` says what is still to do;
- in_hand: the board shows a whole footprint only because the sensors cannot feel where a lifted piece went (onto
  a site already taken, off the board), while the same lift also begins moves that would set the piece down where
  they can: the piece may still be in the hand. Nothing is booked yet; the table waits for the landing, a phone,
  or a hold window (loop.py);
- mismatch: nothing legal explains the board: `fixes` say, site by site, how to put the game's board back.

A change is never guessed: where the sensors cannot tell two outcomes apart, the phones decide. What a state's
actions lead to is worked out once per state (`Referee.prepare`) and indexed by the sites each footprint touches,
so a settled board is explained from the sites that changed, not by applying every action again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from companion.rules import Action, Game
from companion.rules.engine import Layout, points_to, unpointed
from companion.table.footprint import Change, Footprint, footprint, progress, reached_sites, sentence, still_to_do
from companion.table.observation import Observation, aligned, same_piece
from companion.table.words import listing, piece_words

Verdict = Literal["unchanged", "explained", "in_progress", "in_hand", "ambiguous", "mismatch"]
MAX_SHOWN = 3  # moves in progress described one by one; beyond that the text says how many fit


@dataclass(frozen=True)
class Fix:
    """One thing to put right: a site, what the sensors see there and what the rules expect there."""

    site: str
    seen: str
    expected: tuple[str, ...]
    advice: str


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    actions: tuple[Action, ...] = ()  # explained: the action; ambiguous, in_progress, in_hand: one per distinct
    # outcome (in_hand: the moves the board shows whole, each booked once the piece is known to be where it says)
    fixes: tuple[Fix, ...] = ()  # mismatch: how to make the board match the game again
    todo: tuple[str, ...] = ()  # in_progress: what is still to do, one sentence per move that fits; mismatch:
    # what to check where moves under way tie (no advice to put back what one of them may have done); in_hand: what
    # is in the hand ("In hand: the red ship from orbit 2 space 3.")
    sites: tuple[str, ...] = ()  # in_progress: the sites still to change; mismatch: the sites to check; in_hand:
    # the sites the piece was lifted from
    landings: tuple[str, ...] = ()  # in_hand: where each of `actions` says the piece went ("It landed on b4.")
    unfelt: bool = False  # explained: a piece it moves left a site with no sensor feeling where it went


@dataclass(frozen=True)
class Candidate:
    """A legal action that changes the board, with the layout it leads to and its footprint."""

    action: Action
    after: Layout
    footprint: Footprint
    declared: bool  # made on a phone (not one of Game.board_moves): booked from the board only if the camera names it
    # The state it leads to, worked out when first asked for (most candidates are never booked nor compared).
    leads_to: Callable[[], Any] = field(default=lambda: None, compare=False, repr=False)

    @cached_property
    def result(self) -> Any:
        """The state the action leads to: two actions with equal results are the same move."""
        return self.leads_to()


def _applied(game: Game, state: Any, action: Action) -> Callable[[], Any]:
    """The state a legal action leads to, when asked for."""
    return lambda: game._apply(state, action)[0]


def disagreements(
    layout: Layout, observation: Observation, sites: Iterable[str], physical: Callable[[str], str] = same_piece
) -> list[str]:
    """The sites among `sites` whose readings contradict `layout`; `physical` names the piece in the box a layout
    name stands for (Game.physical_piece)."""
    return [s for s in sites if not observation.agrees(s, tuple(layout.get(s, ())), physical)]


def _changed(layout: Layout, observation: Observation, physical: Callable[[str], str]) -> list[str]:
    """`disagreements` over every site a sensor reads, the grid-only sites and the empty ones (most of a board)
    compared directly."""
    changed = []
    for site, reading in observation.sites.items():
        expected = layout.get(site)
        if reading.pieces is None or (not expected and not reading.pieces):
            if reading.occupied is not None and reading.occupied != bool(expected):
                changed.append(site)
        elif not observation.agrees(site, tuple(expected or ()), physical):
            changed.append(site)
    return changed


def board_actions(game: Game, state: Any) -> list[tuple[Action, Layout]]:
    """Legal board moves (see Game.board_moves) that change where pieces stand, with the layout each leads to."""
    return [(c.action, c.after) for c in Referee(game).prepare(state).candidates if not c.declared]


@dataclass
class Prepared:
    """What one state's legal actions do to the board, indexed by site."""

    state: Any
    layout: Layout
    candidates: tuple[Candidate, ...]
    by_site: dict[str, tuple[int, ...]]


class Referee:
    """Judges settled boards for a game; keeps what it worked out for the last state (the table holds one state at
    a time, and judges it again at every settled board until a move is booked)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._prepared: Prepared | None = None

    def prepare(self, state: Any) -> Prepared:
        """Every legal action that changes the board in `state`, with its footprint (cached for the last state)."""
        cached = self._prepared
        if cached is not None and (cached.state is state or cached.state == state):
            return cached
        game = self.game
        before = game.layout(state)
        candidates = []
        by_site: dict[str, list[int]] = {}
        if game.outcome(state) is None:
            for action in game.legal_actions(state):
                after, result = game.board_after(state, action, before)  # legal_actions has checked it
                fp = footprint(before, after)
                if not fp:
                    continue
                fp.pairs(game.physical_piece)  # worked out now, while hands move, not when a board is judged
                for site in fp.sites:
                    by_site.setdefault(site, []).append(len(candidates))
                leads_to = (lambda r=result: r) if result is not None else _applied(game, state, action)
                candidates.append(Candidate(action, after, fp, action.type not in game.board_moves, leads_to))
        self._prepared = Prepared(state, before, tuple(candidates), {s: tuple(i) for s, i in by_site.items()})
        return self._prepared

    def judge(self, state: Any, observation: Observation, name: Callable[[str], str] | None = None) -> Ruling:
        """Compare the settled board with the game; `name(site)` turns a site id into words for the advice."""
        name = name or (lambda site: site)
        physical = self.game.physical_piece
        prepared = self.prepare(state)
        changed = _changed(prepared.layout, observation, physical)
        if not changed:
            # An arrow the game does not know yet (a planet stopped at a fork) that the camera reads: the action
            # that points it so, if one does; otherwise the board agrees with the game.
            pointed = _newly_pointed(prepared.layout, observation, physical)
            whole, partway = self._fitting(prepared, pointed, observation) if pointed else ([], [])
            if whole:
                return self._whole(prepared, whole, partway, observation, name)
            return Ruling("unchanged")
        whole, partway = self._fitting(prepared, changed, observation)
        if whole:
            return self._whole(prepared, whole, partway, observation, name)
        if partway:
            return self._partway(prepared, partway, name, observation)
        # Never advise putting back what a legal move under way has done: the sites that a move's footprint
        # explains part way (a ship already moved while a neighbour was knocked off) are left out of the advice.
        # Where moves tie, only what none of them explains is certain; the rest is named, not put back.
        explained, unsure, lifted = _under_way(prepared, observation, changed, physical)
        # What is left may be a second move under way (two hands at once). Pieces are conserved: a second move must
        # show a lift of its own, and so must the first; else the piece one of them sets down (a piece come new to
        # the board, as far as it knows) may be the very one the other lifted (dropped, or set where no move takes
        # it). Then only the first move, which explains most pieces set down, is under way, and what the other
        # would explain is out of place: the piece lifted is named, to be put back.
        moves = 1
        for _ in range(2):
            rest = [site for site in changed if site not in explained and site not in unsure]
            if not rest or not explained:
                break
            more, doubt, also_lifted = _under_way(prepared, observation, rest, physical)
            if not more and not doubt:
                break
            if not (lifted and also_lifted):
                break
            explained, unsure, moves = explained | more, unsure | doubt, moves + 1
        wrong = [site for site in changed if site not in explained and site not in unsure]
        if not wrong and not unsure and moves > 1:
            # Every change is a part of some legal move, each with its own lift, but no one move: several are under
            # way at once.
            return Ruling(
                "in_progress",
                todo=("Finish one move at a time: the board shows more than one begun.",),
                sites=tuple(sorted(changed)),
            )
        if not wrong and not unsure:
            wrong = changed
        fixes = tuple(_fixes(prepared.layout, observation, wrong, name, physical))
        if not unsure:
            return Ruling("mismatch", fixes=fixes)
        places = listing([name(site) for site in sorted(unsure)])
        check = (
            f"Check {places}: a move under way explains part of what stands there, so which piece is out of "
            "place is not certain."
        )
        return Ruling("mismatch", fixes=fixes, todo=(check,), sites=tuple(sorted(unsure)))

    def _fitting(
        self, prepared: Prepared, changed: list[str], observation: Observation
    ) -> tuple[list[int], list[tuple[int, tuple]]]:
        """The candidates whose footprint covers every changed site (by the site index): those the board shows
        whole, and those it shows part way with what is still to do."""
        pools = sorted((set(prepared.by_site.get(site, ())) for site in changed), key=len)
        indices = set.intersection(*pools) if pools else set()
        whole: list[int] = []
        partway: list[tuple[int, tuple]] = []
        for index in sorted(indices):
            fits, todo = progress(prepared.candidates[index].footprint, observation, self.game.physical_piece)
            if fits and todo:
                partway.append((index, todo))
            elif fits:
                whole.append(index)
        return whole, partway

    def _partway(
        self, prepared: Prepared, partway: list[tuple[int, tuple]], name: Callable[[str], str], observation: Observation
    ) -> Ruling:
        """Part of one or more footprints on the board: nothing booked; what is still to do, in words."""
        physical = self.game.physical_piece
        todo: dict[str, None] = {}
        for index, steps in partway:
            steps_left = still_to_do(prepared.candidates[index].footprint, steps, name, physical, observation)
            todo[sentence(steps_left)] = None
            if len(todo) > MAX_SHOWN:
                todo = {f"Finish the move: {len(partway)} moves fit what the board shows so far.": None}
                break
        sites = sorted({change.site for _, steps in partway for change in steps})
        actions = tuple(prepared.candidates[i].action for i, _ in partway)
        return Ruling("in_progress", actions, todo=tuple(todo), sites=tuple(sites))

    def _whole(
        self,
        prepared: Prepared,
        whole: list[int],
        partway: list[tuple[int, tuple]],
        observation: Observation,
        name: Callable[[str], str],
    ) -> Ruling:
        """Whole footprints on the board: book one outcome the board alone tells, ask about the rest; or, while the
        lifted piece may still land where the sensors would feel it, wait for it (in hand)."""
        candidates = prepared.candidates
        # One outcome per state the actions lead to; of actions with one outcome, the board move (a declared action
        # that leaves the same state is the same move).
        chosen = _outcomes([candidates[i] for i in sorted(whole, key=lambda i: candidates[i].declared)])
        # A move whose start is this whole footprint may still be under way: one over more sites, or over the same
        # sites with some already done (an ORBIT exchange half made is a friendship tile's flight whole).
        chosen_sites = {c.footprint.sites for c in chosen}
        larger = _outcomes(
            [candidates[i] for i, todo in partway if _starts_with(candidates[i].footprint, len(todo), chosen_sites)]
        )
        physical = self.game.physical_piece
        if (
            not larger
            and any(_unconfirmed(c, observation, physical) for c in chosen)
            and any(change.arriving for _, todo in partway for change in todo)
            and _lifted(chosen, physical)
        ):
            # The same lift begins moves that would still set a piece down where a sensor feels it: the piece may be
            # in the hand, not where the moves shown whole put it (on a site a piece already takes, off the board).
            # A piece turned where it stands (a planet steered at a fork) was never lifted.
            return self._in_hand(chosen, observation, name)
        if (
            len(chosen) == 1
            and not larger
            and (not chosen[0].declared or _named(chosen[0], observation, self.game.physical_piece))
        ):
            return Ruling(
                "explained", (chosen[0].action,), unfelt=_unconfirmed(chosen[0], observation, self.game.physical_piece)
            )
        return Ruling("ambiguous", tuple(c.action for c in (*chosen, *larger)))

    def _in_hand(self, chosen: list[Candidate], observation: Observation, name: Callable[[str], str]) -> Ruling:
        """The pieces lifted (what the moves shown whole take off a site that now reads empty of them), and where each
        move says they went, in words."""
        physical = self.game.physical_piece
        lifted = _lifted(chosen, physical)
        landings = []
        for candidate in chosen:
            moved = candidate.footprint.pairs(physical)[0]
            places = [_on(candidate.footprint, target, name, physical) for _, _, target in moved]
            landings.append(f"It landed on {listing(places)}." if places else "It left the board.")
        held = listing([f"the {piece_words(physical(piece))} from {name(site)}" for piece, site in lifted])
        sites = tuple(sorted({site for _, site in lifted}))
        return Ruling(
            "in_hand",
            tuple(c.action for c in chosen),
            todo=(f"In hand: {held}.",),
            sites=sites,
            landings=tuple(landings),
        )


def _lifted(chosen: list[Candidate], physical: Callable[[str], str]) -> dict[tuple[str, str], None]:
    """The pieces the moves take off a site (moved elsewhere or off the board), each with the site, in order."""
    lifted: dict[tuple[str, str], None] = {}
    for candidate in chosen:
        moved, removed, _, _ = candidate.footprint.pairs(physical)
        for piece, source, _ in moved:
            lifted[(piece, source)] = None
        for piece, source in removed:
            lifted[(piece, source)] = None
    return lifted


def _on(fp: Footprint, site: str, name: Callable[[str], str], physical: Callable[[str], str]) -> str:
    """A site a piece is set on, in words: by what stands there already, if anything ("the metal planet at orbit 1
    space 2")."""
    before = next((change.before for change in fp.changes if change.site == site), ())
    return f"the {piece_words(physical(before[0]))} at {name(site)}" if before else name(site)


def _unconfirmed(candidate: Candidate, observation: Observation, physical: Callable[[str], str]) -> bool:
    """Does the move take a piece off a site with no sensor confirming where it went: off the board, or onto a site
    that reads as it did before (a reed already closed by another piece, a sticker the camera does not see)?"""
    fp = candidate.footprint
    if fp.removed(physical):
        return True
    for change in fp.changes:
        if not change.arriving:
            continue
        reading = observation.sites.get(change.site)
        if reading is None or reading.agrees_with(change.before, observation.shown(change.before, physical)):
            return True
    return False


def _starts_with(fp: Footprint, left: int, starts: set[frozenset[str]]) -> bool:
    """Is a move with `left` of its changes still to do a larger move whose start is one of the footprints over
    `starts`: one over more sites, or over the same sites with some already done?"""
    sites = fp.sites
    if left < len(fp.changes) and sites in starts:
        return True
    return any(sites > start for start in starts)


def _under_way(
    prepared: Prepared, observation: Observation, changed: list[str], physical: Callable[[str], str]
) -> tuple[frozenset[str], frozenset[str], bool]:
    """The changed sites that a legal move, read part way, explains, those that are not certain, and whether every
    such move shows a lift of its own (a site it takes a piece off that reads it gone): of the moves that fit,
    those that explain most pieces set down (a hand sets pieces down on purpose; a piece gone may have been knocked
    off), then most sites. When several such moves tie, a site all of them explain is explained, and a site some of
    them explain is unsure: advice to put it back could undo the move being made. A move with a piece still to set
    down counts even when a piece has turned up elsewhere (set down beside its site, dropped: to the grid any
    piece), so the advice is to take that piece off, never to put back what the move has lifted; unless the camera
    names the piece still to set down there: that is where the piece went. A move that the board contradicts at
    some of its sites (a piece dropped on one) explains the others, but never a piece at its target while the
    piece it moves there has not left its site: pieces are conserved, that is another piece."""
    best: list[tuple[frozenset[str], bool]] = []
    best_key = (0, 0, 0)
    gained = frozenset(site for site in changed if _gained(prepared.layout, observation, site, physical))
    indices = {i for site in changed for i in prepared.by_site.get(site, ())}
    for index in sorted(indices):
        fp = prepared.candidates[index].footprint
        covered = frozenset(changed) & fp.sites
        key = _key(fp, covered, gained, changed, physical, observation)
        if key < best_key or (key == best_key and any(covered == c for c, _ in best)):
            continue
        fits, todo = progress(fp, observation, physical)
        if not fits:
            # Part way but for a few sites (a piece dropped on one, another knocked onto one): the sites it reads
            # well at are its doing, the others are what is wrong.
            covered &= reached_sites(fp, observation, physical)
            key = _key(fp, covered, gained, changed, physical, observation)
            if not covered or key < best_key or (key == best_key and any(covered == c for c, _ in best)):
                continue
        elif _landed_elsewhere(todo, gained - covered, observation, physical):
            continue
        lifts = any(change.leaving and change.site in covered - gained for change in fp.changes)
        best = [*best, (covered, lifts)] if key == best_key else [(covered, lifts)]
        best_key = key
    if not best:
        return frozenset(), frozenset(), False
    explained = frozenset.intersection(*(c for c, _ in best))
    return explained, frozenset.union(*(c for c, _ in best)) - explained, all(lifts for _, lifts in best)


def _key(
    fp: Footprint,
    covered: frozenset[str],
    gained: frozenset[str],
    changed: list[str],
    physical: Callable[[str], str],
    observation: Observation,
) -> tuple[int, int, int]:
    """How well a move part way explains the board: the pieces set down it accounts for, then those of them the
    camera names where the move sets them (a piece the grid alone feels may be any piece: one knocked there), then
    the sites. A piece it has lifted that no sensor yet feels at its target (in the hand, or dropped on the way) may
    be a piece set down elsewhere, as much as a piece new to the board may be."""
    in_air = sum(1 for _, origin, target in fp.pairs(physical)[0] if origin in covered and target not in changed)
    named = 0
    for change in fp.changes:
        seen = observation.reading(change.site).pieces if change.site in covered & gained else None
        if seen and {unpointed(physical(p)) for p in change.arriving} & {unpointed(p) for p in seen}:
            named += 1
    return len(covered & gained) + min(in_air, len(gained - covered)), named, len(covered)


def _landed_elsewhere(
    todo: Iterable[Change], elsewhere: Iterable[str], observation: Observation, physical: Callable[[str], str]
) -> bool:
    """Does the camera see a piece the move has still to set down on one of the `elsewhere` sites?"""
    waiting = {unpointed(physical(piece)) for change in todo for piece in change.arriving}
    for site in elsewhere:
        pieces = observation.reading(site).pieces
        if pieces and waiting & {unpointed(p) for p in pieces}:
            return True
    return False


def _newly_pointed(layout: Layout, observation: Observation, physical: Callable[[str], str]) -> list[str]:
    """Sites where the camera, reading exactly, sees a piece point a way the game has not settled (its layout name
    does not point at all)."""
    out = []
    for site, reading in observation.sites.items():
        if reading.pieces is None or reading.partial:
            continue
        unsettled = {p for p in observation.shown(tuple(layout.get(site, ())), physical) if not points_to(p)}
        if any(points_to(p) and unpointed(p) in unsettled for p in reading.pieces):
            out.append(site)
    return out


def _gained(layout: Layout, observation: Observation, site: str, physical: Callable[[str], str]) -> bool:
    """Has a piece been set down on the site: does it hold more pieces than the game has there, or does the camera
    see one there the game does not have (a partial reading sees a stack's top: a piece set onto it)?"""
    reading = observation.reading(site)
    expected = tuple(layout.get(site, ()))
    if reading.pieces is not None:
        seen, shown = aligned(reading.pieces, observation.shown(expected, physical))
        return len(reading.pieces) > len(expected) or bool(Counter(seen) - Counter(shown))
    return bool(reading.occupied) and not expected


def _outcomes(candidates: list[Candidate]) -> list[Candidate]:
    """The first candidate of each distinct resulting state, in order."""
    found: list[Candidate] = []
    for candidate in candidates:
        if not any(candidate.result == other.result for other in found):
            found.append(candidate)
    return found


def _named(candidate: Candidate, observation: Observation, physical: Callable[[str], str]) -> bool:
    """True when the camera has read every site the action changes and can name every piece it sets down: what
    tells a declared action from a piece knocked onto (or off) the board. A reading that may hide pieces under those
    it saw (partial) vouches only for the top of the stack, which is always in view: it names a piece set down on
    top (an ORBIT ship flown by a card onto a planet), never one set under others; and one taken away only where
    the camera sees it on another site and the box holds one of it (the ships of an ORBIT exchange, each seen
    where the other stood), so it cannot hide here."""
    for change in candidate.footprint.changes:
        reading = observation.reading(change.site)
        if reading.pieces is None:
            return False
        if any(observation.shown((piece,), physical) == () for piece in change.arriving):
            return False
        if reading.partial and not (
            _set_on_top(change)
            and all(observation.seen_elsewhere(piece, change.site, physical) for piece in change.leaving)
        ):
            return False
        # A stack that may reach out of the frame has no top in view: only the pieces read there are named.
        seen = Counter(unpointed(p) for p in reading.pieces)
        if (
            reading.partial
            and not reading.top
            and Counter(unpointed(p) for p in observation.shown(change.arriving, physical)) - seen
        ):
            return False
    return True


def _set_on_top(change: Change) -> bool:
    """Does the change set pieces down only on top of what stays on its site (taking some away or not)?"""
    arriving = change.arriving
    return Counter(change.after[len(change.after) - len(arriving) :]) == Counter(arriving)


def judge(game: Game, state: Any, observation: Observation, name: Any = None) -> Ruling:
    """The referee's ruling on one settled board (see Referee.judge, which also keeps the state's work)."""
    return Referee(game).judge(state, observation, name)


def _pieces(pieces: Iterable[str]) -> str:
    """Pieces in words: "the red ship and the metal planet"."""
    return listing([f"the {piece_words(piece)}" for piece in pieces])


def _fixes(
    layout: Layout,
    observation: Observation,
    sites: Iterable[str],
    name: Any,
    physical: Callable[[str], str] = same_piece,
) -> list[Fix]:
    fixes = []
    for site in sorted(disagreements(layout, observation, sites, physical)):
        reading = observation.reading(site)
        expected = tuple(layout.get(site, ()))
        shown = observation.shown(expected, physical)
        where = name(site)
        seen = reading.pieces
        # What the camera saw that should not be there, and what it should have seen (a partial reading may hide
        # pieces under those it saw, so only an empty one says a piece is missing).
        seen_as, shown_as = aligned(seen, shown) if seen is not None else ([], [])
        extra = list((Counter(seen_as) - Counter(shown_as)).elements())
        missing = []
        if seen is not None and not (reading.partial and seen):
            missing = list((Counter(shown_as) - Counter(seen_as)).elements())
        turned = [p for p in extra if points_to(p)] if len(extra) == len(missing) == 1 else []
        if turned and unpointed(turned[0]) == unpointed(missing[0]) and points_to(missing[0]):
            what = ", ".join(seen or ())
            advice = f"turn the {piece_words(missing[0])} on {where} to point to {name(points_to(missing[0]))}"
        elif extra or missing:
            parts = [f"take {_pieces(extra)} off {where}"] if extra else []
            parts += [f"put {_pieces(missing)} on {where}"] if missing else []
            advice, what = " and ".join(parts), ", ".join(seen or ()) or "nothing"
        elif seen is not None and (seen or shown):
            # The camera sees what it should: a piece the grid cannot feel, or a switch stuck. (Where it can show none
            # of what stands there, as a station cannon without a sticker, it has nothing to say: the grid's word.)
            what, advice = ", ".join(seen) or "nothing", f"check {where}: the grid and the camera disagree there"
        elif reading.occupied:
            what, advice = "a piece", f"take the piece off {where}: nothing should stand there"
        else:
            what, advice = "nothing", f"put {_pieces(physical(p) for p in expected)} back on {where}"
        fixes.append(Fix(site, what, expected, advice[0].upper() + advice[1:] + "."))
    return fixes
