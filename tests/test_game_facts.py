"""Each game's facts live in its own package (companion/rules/GAME): the table, the web and the twin read them from
the game's declarations (engine.Game), so adding a game edits no module outside it but those listed here, each with
why it names a game. The list may only shrink: a new module that names a game fails, and so does a listed one that
no longer does."""

import ast
from pathlib import Path

from companion.rules import load, names

ROOT = Path(__file__).resolve().parent.parent / "companion"
GAMES = tuple(names())

BOARDS = "the game's board geometry, generated: boards import no rules, so the board printed and sensed is the rules'"
PLAYERS = "scripted players that play each game to win: people, simulated"
WORKLOAD = "a benchmark's workload: the tables it measures"
EDITOR = "an editor of one game's data files: its page and its checks"
NAMING_GAMES = {
    "rules/__init__.py": "the registry: each game's name and package",
    "boards/__init__.py": "the registry of each game's own board",
    "boards/dakalio.py": BOARDS,
    "boards/orbit.py": BOARDS,
    "boards/orbital_battle.py": BOARDS,
    "boards/orbital_battle_maps.py": BOARDS,
    "boards/periorbis.py": BOARDS,
    "boards/solar_map.py": BOARDS,
    "boards/trajectory.py": BOARDS,
    "sim/goal_players.py": PLAYERS,
    "sim/orbit_player.py": PLAYERS,
    "sim/players.py": PLAYERS,
    "sim/game_layouts.py": "boards from real ORBIT games, for the camera's tests and bench",
    "bench/latency.py": WORKLOAD,
    "bench/messy.py": WORKLOAD,
    "bench/vision.py": WORKLOAD,
    "bench/vision_crops.py": WORKLOAD,
    "bench/vision_mounted.py": WORKLOAD,
    "bench/vision_spread.py": WORKLOAD,
    "web/loadgen.py": WORKLOAD,
    "web/editor_deck.py": EDITOR,
    "web/editor_periorbis.py": EDITOR,
    "web/editor_planet.py": EDITOR,
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _geometry(tree: ast.AST) -> set[int]:
    """Strings that are a link's kind ("orbit" is a kind of link on several boards), not a game."""
    found = set()
    for node in ast.walk(tree):
        kinds = isinstance(node, ast.Compare) and any(
            isinstance(side, ast.Attribute) and side.attr == "kind" for side in (node.left, *node.comparators)
        )
        prefix = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
        )
        if kinds or prefix:
            found.update(id(inner) for inner in ast.walk(node))
    return found


def games_named(source: str) -> set[str]:
    """The games a module names in its code (not its docstrings or comments): a string that is a game's name, or
    begins with it and a colon ("orbital_battle:planet3"), or an import of a game's rules or board module."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | _geometry(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found.update(g for g in GAMES if node.value == g or node.value.startswith(g + ":"))
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            parts = module.split(".")
            if parts[:2] in (["companion", "rules"], ["companion", "boards"]) and len(parts) > 2:
                found.update(g for g in GAMES if parts[2] == g or parts[2].startswith(g + "_"))
    return found


def test_only_the_listed_modules_outside_the_games_packages_name_a_game():
    naming = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        if any(module.startswith(f"rules/{game}/") for game in GAMES):
            continue
        found = games_named(path.read_text(encoding="utf-8"))
        if found:
            naming[module] = sorted(found)
    new = {module: found for module, found in naming.items() if module not in NAMING_GAMES}
    assert not new, f"these modules name a game: declare the fact in the game's package (engine.Game) instead: {new}"
    gone = sorted(set(NAMING_GAMES) - set(naming))
    assert not gone, f"these modules no longer name a game: take them off the list: {gone}"


def test_the_scan_finds_a_game_named_in_code_and_not_in_prose_or_a_links_kind():
    assert games_named('BOARD = {"dakalio": "mat"}') == {"dakalio"}
    assert games_named('spec = "orbital_battle:planet3"') == {"orbital_battle"}
    assert games_named("from companion.rules.periorbis.datafiles import load") == {"periorbis"}
    assert games_named("from companion.boards import orbital_battle_maps") == {"orbital_battle"}
    assert games_named('"""Trajectory\'s board: "trajectory"."""\n# the "orbit" game') == set()
    assert games_named('ways = [l for l in links if l.kind == "orbit" or l.kind.startswith("orbit")]') == set()


def test_every_game_declares_what_the_table_reads_of_it_soundly():
    for name in GAMES:
        game = load(name)
        if game.board_option is not None:  # a board of the table's own is one of its data sets
            assert game.data_options[game.board_option].kind == "file", name
        for side in game.board_sides:  # a side the game brings is a value of that option naming no file
            assert side in game.data_options[game.board_option or ""].built_in
            assert game.own_board(side).sites, side
        for option, takes in game.data_options.items():
            assert (takes.kind == "files") == bool(takes.keys), option
        state = game.setup(["red", "blue"], {}, 1)
        sites = {site.id for site in game.board(state).sites}
        for beside in game.beside:  # the layout names the sites beside by the prefix, never the board's own
            assert not any(site.startswith(beside.prefix) for site in sites)
        for surface in game.surfaces:
            assert all(
                site.id.startswith(tuple(b.prefix for b in game.beside))
                for site in game.surface(state, surface.id).sites
            )
        assert game.surface(state, "no such map") is None
