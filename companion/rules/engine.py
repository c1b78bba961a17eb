"""The contract every game engine meets.

A game is a stateless object whose methods are pure functions of plain values: `setup` makes the first state,
`phase` says who acts and what the table should do, `legal_actions` generates what may be done, `check` explains in
a player's words why an action may not be done, `apply` returns the next state and the events the phones announce,
`layout` says where every tracked piece must stand, `ledger` gives the books, `outcome` the end.

State, actions and events are immutable values that round-trip through JSON (see codec.py); chance comes only from
the Rng inside the state. Setup is the only step that may read a file: every state carries the `Material` it was set
up on (its board and data, read once, with their version), so a game replays exactly from its first state and its
action list, whatever has become of the files since.

    >>> from companion.rules import load
    >>> game = load("trajectory")
    >>> state = game.setup(["red", "blue"], {"difficulty": "easy"}, seed=7)
    >>> game.phase(state).actor
    'red'
    >>> state, events = game.apply(state, Action.make("draw"))
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar

from companion import codec
from companion.boards.model import Board
from companion.rules.rng import Rng

S = TypeVar("S")
T = TypeVar("T")
JSON = Any


class IllegalAction(Exception):
    """An action the rules forbid; `reason` is a sentence a player understands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ActionError(IllegalAction, codec.CodecError):
    """An action whose arguments do not fit the game's schema: refused like an illegal action (a player's
    mistake), and a codec error (the form is wrong, as in a bad file or request)."""


class SetupError(ValueError):
    """Players or options that no game can start from; the message names the option and what is wrong."""


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Action:
    """One thing a player (or the table, in an automatic phase) does: a type and its named arguments.

    Hashable, so the referee can compare sets of actions; `Action.make("move", to="o3s5")`.
    """

    type: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, type: str, **args: Any) -> Action:
        return cls(type, tuple(sorted((k, _freeze(v)) for k, v in args.items() if v is not None)))

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        return default

    def __getitem__(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        raise KeyError(name)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type, **{k: _thaw(v) for k, v in self.args}}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Action:
        if not isinstance(data, Mapping):
            raise codec.CodecError(f"action: expected an object, got {data!r}")
        if not isinstance(data.get("type"), str):
            raise codec.CodecError("action: missing its 'type' (a string such as \"move\")")
        return cls.make(data["type"], **{k: v for k, v in data.items() if k != "type"})

    def __str__(self) -> str:
        args = " ".join(f"{k}={_thaw(v)}" for k, v in self.args)
        return f"{self.type} {args}".strip()


@dataclass(frozen=True)
class Event:
    """Something the phones announce: a kind, the sentence to show and speak, and the facts behind it."""

    type: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type, "text": self.text, "data": codec.to_json(self.data)}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Event:
        return cls(str(data["type"]), str(data["text"]), dict(data.get("data", {})))


@dataclass(frozen=True)
class Phase:
    """Where the game stands: the phase, the step within it, who acts (None: the table as a whole), a prompt."""

    name: str
    actor: str | None
    prompt: str
    step: str = ""
    round: int = 0

    def to_json(self) -> dict[str, JSON]:
        return codec.to_json(self)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: a result ("won", "lost", "drawn"), the winners, and why."""

    result: str
    winners: tuple[str, ...]
    reason: str

    def to_json(self) -> dict[str, JSON]:
        return codec.to_json(self)


Layout = dict[str, tuple[str, ...]]
"""Site id -> the pieces that must stand there, bottom to top."""

POINTS_TO = ">"
"""A layout name for a piece whose arrow the rules follow: `planet-red>r1s1` is the red planet pointing to r1s1."""


def pointing(piece: str, site: str) -> str:
    """The layout name of `piece` with its arrow pointing to `site` (no site: the arrow is not settled yet)."""
    return f"{piece}{POINTS_TO}{site}" if site else piece


def unpointed(name: str) -> str:
    """A layout name without the way its arrow points: the piece itself."""
    return name.partition(POINTS_TO)[0]


def points_to(name: str) -> str | None:
    """The site a pointing piece's arrow points to, or None."""
    return name.partition(POINTS_TO)[2] or None


Ledger = dict[str, dict[str, Any]]
"""{"players": {player: {counter: value}}, "table": {counter: value}}"""


@dataclass(frozen=True)
class MusterKind:
    """One kind a player may buy several of at once: the value the purchases name, its name in words, its cost,
    how many may be bought now at most, and how many the game suggests."""

    kind: str
    name: str
    cost: int
    most: int
    suggested: int = 0


@dataclass(frozen=True)
class Muster:
    """Purchases chosen by how many of each kind (a starting force): the points there are to spend and the kinds.
    `Game.muster_actions` turns the chosen numbers into the legal actions that buy them, one by one."""

    points: int
    kinds: tuple[MusterKind, ...]

    def to_json(self) -> dict[str, JSON]:
        return codec.to_json(self)


def version_of(data: JSON) -> str:
    """The version of a piece of data: the first 16 hex digits of the SHA-256 of its canonical JSON (keys sorted, no
    spaces, UTF-8, a whole number written without a fraction: 100.0 as 100). Equal data, equal version, however its
    file was laid out; any change, another version."""
    text = json.dumps(_canonical(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _canonical(data: JSON) -> JSON:
    if isinstance(data, float) and data.is_integer():
        return int(data)
    if isinstance(data, dict):
        return {key: _canonical(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_canonical(value) for value in data]
    return data


@dataclass(frozen=True, eq=False)
class Material:
    """What a game was set up on: its board and the data it read (a deck, maps, data files), as read at setup, and
    their `version` (version_of their JSON form). Each game subclasses it with its own fields (frozen, eq=False);
    two materials are equal when their versions are, so comparing and hashing states stays cheap, and the rules'
    caches may be keyed on a material. A state's JSON names its material by version (`Game.state_to_json`): a
    table keeps the whole material once per game, in the game's first state (`whole=True`)."""

    version: str

    @classmethod
    def of(cls, **parts: Any) -> Self:
        """The material of these parts, with their version."""
        return cls(version=version_of(codec.to_json(parts)), **parts)

    def board_of(self) -> Board:
        """The board the game was set up on."""
        board = getattr(self, "board", None)
        if not isinstance(board, Board):
            raise TypeError(f"{type(self).__name__} carries no board")
        return board

    def derived(self, name: str, make: Callable[[Material], T]) -> T:
        """What the rules work out from the material once (a board's topology), kept with it: asked for on every
        move, it costs a look-up (the material is frozen; what is kept is outside its fields and version)."""
        found = self.__dict__.get(name)
        if found is None:
            found = self.__dict__[name] = make(self)
        return found

    def parts(self) -> dict[str, Any]:
        """The material without its version."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "version"}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.version == self.version  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self.version)


# What a game tells the table about itself: its options that name boards and data sets, the boards it lays beside
# its own, and how its books read. The table, the web and the twin read these; none of them names a game.


@dataclass(frozen=True)
class DataOption:
    """An option that names data a table may supply: one file, a folder, or a file per key (`keys`: each key and
    what it is called, "planet 3"). `built_in`: the values naming the game's own data (None: the option left out)."""

    kind: Literal["file", "folder", "files"]
    built_in: tuple[Any, ...] = (None,)
    keys: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Beside:
    """A board the game lays beside its own, each on a reed grid of its own: `board` names it for
    `companion.boards.default_board` ("orbital_battle:planet3"), `prefix` begins its sites' names in the layout
    ("p3:"), `name` says it ("planet 3")."""

    board: str
    prefix: str
    name: str


@dataclass(frozen=True)
class Surface:
    """A map beside the board that the page may open (Orbital Battle's planet surfaces), by id and name."""

    id: str
    name: str


@dataclass(frozen=True)
class OptionWords:
    """What the New game form calls an option: a label, a line saying what it does, a name for each choice.
    `advanced`: only a table set up its own way needs it (JSON: seats by angle, where it put its planets), so the
    form folds it away; `player`: its value is one of the game's players."""

    label: str
    help: str = ""
    choices: Mapping[str, str] = field(default_factory=dict)
    advanced: bool = False
    player: bool = False


def read_option_words(path: Path) -> dict[str, OptionWords]:
    """A game's options.json (beside its game.py): option name -> its words. Read once, when the game is imported."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {option: OptionWords(**words) for option, words in raw.items()}


ShowCounter = Callable[[Any, Callable[[Any], str]], str]
"""A counter's value in words, given the table's words for any value in it (a site id -> its name, a seat -> the
player's name)."""


class Game(ABC, Generic[S]):
    """A game engine. Subclasses are stateless: every method is a pure function of its arguments."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    state_type: ClassVar[type]
    # Action types a player makes by moving pieces, which the referee recognises on the board (automatic phases
    # included). Every other action is declared on a phone (a card drawn, a station built), and the table then
    # makes the board match the layout that follows.
    board_moves: ClassVar[frozenset[str]]
    # Each action type -> its arguments: name -> type (codec.whole, codec.text, Literal, tuple...), or
    # codec.Maybe(type) for one that may be left out. Every action is read through it (decode_action), so a number
    # is a bounded whole number and no unknown argument reaches the rules or the log.
    actions: ClassVar[Mapping[str, Mapping[str, Any]]]
    # The mark each kind of piece carries on the phones' map: the start of a layout name (before the owner's colour)
    # -> one or two characters, each mark meaning one kind; "" for none (a piece told by its own colour). A kind
    # not listed shows the first letter of its name.
    marks: ClassVar[Mapping[str, str]] = {}

    # What the table, the web and the twin know of the game, declared here and nowhere else:
    # The option that names the board it is played on (a board file, or one of `board_sides`); None: always its own.
    board_option: ClassVar[str | None] = None
    # Values of the board option naming boards the game brings, each as the phones say it; the first is its own.
    board_sides: ClassVar[Mapping[str, str]] = {}
    # The board as the phones name it when it is the game's own ("the solar map"; "": "TITLE's own board").
    board_words: ClassVar[str] = ""
    # True when its board's sites are fixed (hexes, numbered spaces): the editor starts from no empty board.
    fixed_sites: ClassVar[bool] = False
    # Options that name data a table may supply (files, folders), by option name.
    data_options: ClassVar[Mapping[str, DataOption]] = {}
    # Boards laid beside its own, each on a grid of its own (their sites are in the layout under their prefix).
    beside: ClassVar[tuple[Beside, ...]] = ()
    # Maps the page may open beside the board (see `surface`).
    surfaces: ClassVar[tuple[Surface, ...]] = ()
    # The books: a label for a counter whose own name would not say it (None: players do not need it), and
    # counters said in a way of their own.
    ledger_labels: ClassVar[Mapping[str, str | None]] = {}
    ledger_shown: ClassVar[Mapping[str, ShowCounter]] = {}
    # Every option in the players' words, for the New game form and the books (its package's options.json).
    option_words: ClassVar[Mapping[str, OptionWords]] = {}

    @abstractmethod
    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> S:
        """The first state; raises SetupError for players or options that cannot start a game."""

    @abstractmethod
    def phase(self, state: S) -> Phase: ...

    @abstractmethod
    def legal_actions(self, state: S) -> Iterator[Action]:
        """Every action that `check` accepts in this state (declared variants included)."""

    @abstractmethod
    def _check(self, state: S, action: Action) -> None:
        """Raise IllegalAction unless `action` is legal; the game is known not to be over."""

    @abstractmethod
    def _apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """The next state and its events, for an action `_check` accepted."""

    @abstractmethod
    def layout(self, state: S) -> Layout: ...

    def board_after(self, state: S, action: Action, before: Layout) -> tuple[Layout, S | None]:
        """The layout after a legal `action` in `state` (`before` is `layout(state)`), and the state it leads to
        when working the layout out needed it (None: whoever needs the state applies the action). Always equal to
        `layout(apply(state, action)[0])`; a game may work it out from the sites the action touches, skipping the
        parts of `apply` that move no piece (the referee asks it of every legal action after each move)."""
        result = self._apply(state, action)[0]
        return self.layout(result), result

    @abstractmethod
    def ledger(self, state: S) -> Ledger: ...

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None: ...

    def material(self, state: S) -> Material:
        """What the state was set up on: its board and data, with their version."""
        found = getattr(state, "material", None)
        if not isinstance(found, Material):
            raise TypeError(f"{type(state).__name__} carries no material")
        return found

    def board(self, state: S) -> Board:
        """The board the state was set up on, as the rules read it."""
        return self.material(state).board_of()

    def own_board(self, side: str = "") -> Board:
        """A board the game brings: `side` is one of `board_sides` ("" or unknown: its own, the first)."""
        from companion.boards import default_board

        return default_board(self.name)

    def counted(self, state: S, phase: Phase) -> str:
        """The banner's count of where the game stands, as the game's rulebook counts it ("Round 3" of the table,
        Orbital Battle's "Turn 3", Periorbis's "Turn 3 of 12"), or "" where it counts nothing."""
        return f"Round {phase.round}" if phase.round else ""

    def surface(self, state: S, surface: str) -> Board | None:
        """One of `surfaces` as the state has it, its sites named as the layout names them (None: no such map)."""
        return None

    def physical_piece(self, name: str) -> str:
        """The piece in the box that a layout name stands for, as a camera tells pieces apart: the name itself,
        unless the game names a piece by the part it plays (ORBIT's `ship-blue-red` is Red's blue spaceship). The
        way a pointing piece points (`planet-red>r1s1`, see `pointing`) is kept: a camera can read it."""
        return name

    def group(self, state: S, action: Action) -> str | None:
        """The heading a player looks for this action under when there are many of its type (ORBIT: a card by the
        first planet symbol printed on it), or None: the page groups by the action's arguments."""
        return None

    def said(self, state: S, key: str, value: Any) -> str | None:
        """An argument's value in players' words where the value is a code the table never sees (ORBIT's card
        "c01": what the card does; Periorbis's ship "1-7": its level and price), or None: the value says itself."""
        return None

    def parts(self, state: S, action: Action, key: str) -> tuple[str, ...] | None:
        """The name of each element of a list argument where each is somebody's (Orbital Battle's dice: "Red's die",
        "Blue's die"), or None: they are numbered."""
        return None

    def aimed_at(self, state: S, action: Action) -> tuple[str, ...]:
        """The sites of the pieces an action acts on without moving them (Orbital Battle: an attack's target), so
        that a tap there on the map offers it; () for most actions."""
        return ()

    def muster(self, state: S) -> Muster | None:
        """Purchases the player to act may choose by numbers now (Orbital Battle's starting forces), or None."""
        return None

    def muster_actions(self, state: S, counts: Mapping[str, int]) -> tuple[Action, ...]:
        """The legal actions, in order, that buy `counts` (kind -> how many) of `muster(state)`; IllegalAction with
        a player's reason when they cannot all be bought (points, counters or room)."""
        raise IllegalAction(f"{self.title} buys nothing by numbers")

    def hidden(self, state: S) -> Any:
        """What the rulebook keeps from the players in `state`: the generator (and the order of the decks a game
        shuffled at setup). An action that changes it takes a chance: nothing a phone sees before it is applied
        may depend on the result."""
        return getattr(state, "rng", None)

    def conceal(self, state: S, rng: Rng) -> S:
        """`state` with everything `hidden` covers drawn afresh from `rng` (a generator no phone knows): what an
        action does to it is what may be shown of that action before it is applied."""
        return dataclasses.replace(state, rng=rng) if hasattr(state, "rng") else state  # type: ignore[type-var]

    def decode_action(self, data: Any) -> Action:
        """An action from its JSON form, its arguments checked against the game's schema; ActionError (one line,
        naming the argument) for anything else, an unknown type included."""
        if not isinstance(data, Mapping):
            raise ActionError(f"action: expected an object, got {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ActionError("action: missing its 'type' (a string such as \"move\")")
        fields = self.actions.get(kind)
        if fields is None:
            shown = repr(kind if len(kind) <= 40 else kind[:37] + "...")
            raise ActionError(f"{self.title} has no action {shown} (actions: {', '.join(self.actions)})")
        args = {k: v for k, v in data.items() if k != "type"}
        try:
            return Action.make(kind, **codec.decode_fields(fields, args, kind))
        except codec.CodecError as error:
            raise ActionError(str(error)) from None

    def check(self, state: S, action: Action) -> None:
        """Raise IllegalAction with a reason a player understands unless `action` is legal now."""
        if self.outcome(state) is not None:
            raise IllegalAction("the game is over")
        self._check(state, action)

    def is_legal(self, state: S, action: Action) -> bool:
        try:
            self.check(state, action)
        except IllegalAction:
            return False
        return True

    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """Check `action`, then return the next state and the events to announce. The given state is unchanged."""
        self.check(state, action)
        return self._apply(state, action)

    def state_to_json(self, state: S, whole: bool = False) -> JSON:
        """The state's JSON: its material named by version ("material": "3f2a..."), or with `whole` the material
        itself (a table keeps it once per game, in the first state)."""
        material = self.material(state)
        data = {f.name: codec.to_json(getattr(state, f.name)) for f in dataclasses.fields(state)  # type: ignore[arg-type]
                if f.name != "material"}  # fmt: skip
        data["material"] = codec.to_json(material) if whole else material.version
        return data

    def state_from_json(self, data: JSON, material: Material | None = None) -> S:
        """A state from its JSON: with the whole material in it (its version checked against its content), or named
        by version, when `material` must be the one of that version (a CodecError otherwise)."""
        if not isinstance(data, Mapping):
            raise codec.CodecError(f"state: expected an object, got {type(data).__name__}")
        named = data.get("material")
        if isinstance(named, Mapping):
            state = codec.from_json(self.state_type, data, "state")
            found = self.material(state)
            if version_of(codec.to_json(found.parts())) != found.version:
                raise codec.CodecError(f"state.material: its content is not version {found.version}")
            return state
        if material is None or (named is not None and named != material.version):
            raise codec.CodecError(
                f"state.material: set up on material {named!r}, which is not given"
                + ("" if material is None else f" (given: {material.version})")
            )
        rest = {key: value for key, value in data.items() if key != "material"}
        return codec.from_json(self.state_type, rest, "state", given={"material": material})

    def replay(
        self, players: Sequence[str], options: Mapping[str, Any], seed: int, actions: Iterable[Action]
    ) -> tuple[S, list[Event]]:
        """The state after playing `actions` from a fresh setup, and every event on the way."""
        return self.replay_from(self.setup(players, options, seed), actions)

    def replay_from(self, state: S, actions: Iterable[Action]) -> tuple[S, list[Event]]:
        """The state after playing `actions` from `state` (a game's first state: no file is read again), and every
        event on the way."""
        events: list[Event] = []
        for action in actions:
            state, new = self.apply(state, action)
            events.extend(new)
        return state, events


Handler = Callable[[Any, Action], tuple[Any, list[Event]]]


def handler_for(handlers: Mapping[str, Handler], title: str, action: Action) -> Handler:
    """The rule that applies an action of this type; an unknown type is refused, naming the game's actions."""
    try:
        return handlers[action.type]
    except KeyError:
        raise IllegalAction(f"{title} has no action {action.type!r} (actions: {', '.join(handlers)})") from None


Seed = codec.whole(0, 2**53 - 1)  # what a game may start from: a number a phone's JavaScript holds exactly


def read_seed(seed: Any) -> int:
    """A game's seed, or a SetupError naming it (a phone or the host may give any number)."""
    try:
        return codec.from_json(Seed, seed, "seed")
    except codec.CodecError as error:
        raise SetupError(str(error)) from None


def read_options(kind: type[S], options: Mapping[str, Any]) -> S:
    """A game's options dataclass from plain data, as a SetupError naming the option when it does not fit."""
    try:
        return codec.from_json(kind, dict(options), "options")
    except codec.CodecError as error:
        raise SetupError(str(error)) from None
