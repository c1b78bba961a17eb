"""Identity by kind: pieces of a kind share one sticker, sized to fit the piece, and the camera reports kinds at
sites, however many pieces of a kind stand on the board."""

from __future__ import annotations

import json
import math
from collections import Counter
from importlib import resources

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.rules.trajectory.state import FUEL_REFIT_TOKENS, HABITAT_TOKENS, RINGS, StationKind
from companion.sensing.pieces import CODES_BY_STRENGTH, default_registry, dictionary_size, load_registry
from companion.sensing.vision import Vision
from companion.sim.render_camera import sim_profile
from companion.sim.render_scene import Placed, Scene
from companion.table.observation import Observation, SiteReading
from companion.table.observe import camera_view

GAMES = ("trajectory", "orbit", "dakalio", "periorbis")


def _polygon(n: int, radius: float, turn: float = 0.0) -> np.ndarray:
    """A regular polygon with a flat edge along each axis when n is a multiple of 4 (how the pieces are cut)."""
    angles = turn + math.pi / n + np.arange(n) * 2 * math.pi / n
    return np.column_stack([radius * np.cos(angles), radius * np.sin(angles)]).astype(np.float32)


@pytest.mark.parametrize("game", GAMES)
def test_every_sticker_lies_on_its_piece_with_its_margin(game):
    """Measured here by area (what of the sticker and its white margin lies on the piece's top face), apart from the
    registry's own edge test."""
    sides = {"square": 4, "octagon": 8, "ring": 8, "disc": 24}
    for entry in default_registry(game).entries:
        if entry.sticker is None:
            continue
        top = _polygon(sides[entry.shape], entry.radius)
        if entry.label_mm:
            t = np.linspace(0, 2 * math.pi, 96, endpoint=False)
            printed = np.column_stack([entry.label_mm / 2 * np.cos(t), entry.label_mm / 2 * np.sin(t)])
        else:
            h = entry.sticker_mm * 4 / 6  # the marker's 6 cells and a white cell each side: 8 cells
            printed = np.array([(-h, -h), (h, -h), (h, h), (-h, h)])
        printed = (printed + np.array([0.0, -entry.sticker_offset])).astype(np.float32)
        inside, _ = cv2.intersectConvexConvex(top, printed)
        assert inside >= cv2.contourArea(printed) - 0.5, f"{game}: {entry.id}'s sticker overhangs its piece"
        assert entry.sticker_fits()


@pytest.mark.parametrize("game", GAMES)
def test_a_game_needs_a_code_per_kind_not_per_piece(game):
    registry = default_registry(game)
    kinds = {e.piece for e in registry.entries if e.sticker is not None}
    codes = {e.sticker for e in registry.entries if e.sticker is not None}
    assert len(codes) == len(kinds) <= dictionary_size(registry.dictionary)
    for kind in kinds:  # every piece of a kind carries the kind's sticker, and only that kind does
        assert len({e.sticker for e in registry.entries if e.piece == kind}) == 1
        assert registry.by_sticker()[registry.kind(kind).sticker].piece == kind


@pytest.mark.parametrize("game", [*GAMES, "orbital_battle"])
def test_a_game_uses_the_codes_that_read_best_and_the_strongest_on_its_smallest_stickers(game):
    """The per-code sweep's ranking: the codes a game leaves spare all read worse than those it uses, and a kind with
    a smaller sticker never carries a weaker code than one with a larger."""
    registry = default_registry(game)
    rank = {code: i for i, code in enumerate(CODES_BY_STRENGTH[registry.dictionary])}
    kinds = {e.piece: e for e in registry.entries if e.sticker is not None}
    used = {e.sticker for e in kinds.values()}
    assert max(rank[c] for c in used) < min((rank[c] for c in set(rank) - used), default=len(rank))
    for a in kinds.values():
        for b in kinds.values():
            if a.sticker_mm < b.sticker_mm:
                assert rank[a.sticker] < rank[b.sticker], (a.piece, b.piece)


def test_trajectorys_box_has_every_ring_and_upgrade_the_rules_allow():
    """A hard game's third habitat and all eight rings are in the box, each kind of station its own sticker."""
    registry = default_registry("trajectory")
    counts = Counter(e.piece for e in registry.entries)
    assert counts["station-storage"] == RINGS and counts["station-habitat"] == HABITAT_TOKENS
    assert counts["station-fuel-depot"] == counts["station-refit"] == FUEL_REFIT_TOKENS
    for kind in StationKind.__args__:
        name = f"station-{kind.replace('_', '-')}"
        assert counts[name] >= 1 and registry.kind(name).sticker is not None
    # Stickers fit the pieces: the infestor's octagon takes a smaller one than a ship's square.
    assert registry.kind("infestor-metal").sticker_mm < registry.kind("ship-red").sticker_mm


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({1: {"sticker": 6}}, "pieces[1].sticker: sticker 6 is given to 'ship-red' and 'ship-green'"),
        (
            {1: {"piece": "ship-red", "id": "ship-red-2", "colour": "red", "sticker": 6, "height": 20.0}},
            "a 'ship-red' unlike pieces[0] in height (",
        ),
        ({0: {"sticker_mm": 22.0}}, "pieces[0]: its 22 mm sticker does not fit on its square of radius 17 mm"),
        ({0: {"sticker_mm": -1}}, "pieces[0].sticker_mm: must be above 0"),
    ],
)
def test_a_registry_whose_kinds_do_not_hold_together_is_refused(tmp_path, change, message):
    data = json.loads(resources.files("companion.sensing").joinpath("pieces_trajectory.json").read_text())
    for index, fields in change.items():
        data["pieces"][index].update(fields)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UserError) as error:
        load_registry(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_three_habitats_and_five_rings_are_read_as_kinds_at_their_sites(board, registry, renderer, camera):
    """More pieces of a kind than a one-code-per-piece plan could name: each is read on its site, and the table
    takes 'a storage ring at s' for any storage ring the layout puts there."""
    kinds = ["station-habitat"] * 3 + ["station-storage"] * 5 + ["infestor-ice"] * 3
    used: Counter[str] = Counter()
    sites = [s for s in board.sites if s.id.startswith(("o2", "o3"))][::2]
    pieces = []
    for kind, site in zip(kinds, sites, strict=False):
        entries = [e for e in registry.entries if e.piece == kind]
        entry = entries[used[kind]]
        used[kind] += 1
        pieces.append(Placed(entry, site.x, site.y, 0.4 * len(pieces), 0.0, site.id, 0))
    scene = Scene(board, camera, tuple(pieces))
    report = Vision(board, registry, sim_profile(camera, board.name)).process(renderer.render(scene).image)
    assert report.reliable, report.reason
    assert sorted((s.piece, s.site) for s in report.sightings) == sorted((p.entry.piece, p.site) for p in pieces)
    assert all(s.confidence > 0.8 for s in report.sightings)  # several of a kind are no sign of a misread
    view = camera_view(report, registry)
    layout = {p.site: (p.entry.piece,) for p in pieces}
    observation = Observation({site: SiteReading(True, view.stacks.get(site)) for site in layout}, 1.0, view.pieces)
    assert all(observation.agrees(site, expected) for site, expected in layout.items())
    upgraded = dict(layout, **{pieces[3].site: ("station-fuel-depot",)})  # the layout says a ring was upgraded
    assert not observation.agrees(pieces[3].site, upgraded[pieces[3].site])
