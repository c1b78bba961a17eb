"""ORBIT's camera: the piece registry against the dictionary and the box, and rendered boards from real games (ships
stacked on planets and stations, a dual game's second ships) read by the real vision as the referee gets them."""

from __future__ import annotations

import json
import math
from collections import Counter
from importlib import resources

import numpy as np
import pytest

from companion.errors import UserError
from companion.rules import load
from companion.rules.engine import points_to, unpointed
from companion.rules.orbit.data import load_deck
from companion.rules.orbit.state import COLOURS, NEBULA_CHIPS
from companion.sensing.pieces import default_registry, dictionary_size, load_registry
from companion.sensing.vision import Vision
from companion.sim.game_layouts import ORBIT_TABLES, board_layouts
from companion.sim.render import Renderer
from companion.sim.render_camera import HARSH, NORMAL, frame_size, overhead_camera, sim_profile
from companion.sim.render_scene import Placed, Scene, layout_scene
from companion.sim.render_truth import covered, visible
from companion.sim.table_setup import game_board
from companion.table.observation import Observation, SiteReading
from companion.table.observe import camera_view

GAME = load("orbit")


@pytest.fixture(scope="module")
def orbit():
    return default_registry("orbit")


@pytest.fixture(scope="module")
def layouts():
    return board_layouts("orbit", ORBIT_TABLES, 48, 1)


@pytest.fixture(scope="module")
def cameras(orbit):
    """Per board side: the board, its 1080p camera, the renderer and the vision."""
    out = {}
    for side in ("front", "back"):
        board = game_board("orbit", {"board": side})
        camera = overhead_camera(board.width, board.height, *frame_size(board.height, orbit.sticker_mm))
        out[side] = (
            board,
            camera,
            Renderer(board, orbit.dictionary),
            Vision(board, orbit, sim_profile(camera, board.name)),
        )
    return out


def test_the_registry_fits_16h5_and_the_box(orbit):
    stickers = [e.sticker for e in orbit.entries if e.sticker is not None]
    assert orbit.dictionary == "DICT_APRILTAG_16h5" and dictionary_size(orbit.dictionary) == 30
    assert len(stickers) == len(set(stickers)) == 16 and all(0 <= s < 30 for s in stickers)
    assert not {17, 26} & set(stickers)  # the two ids that read worst under blur are kept spare
    kinds = Counter(e.piece for e in orbit.entries)
    assert all(kinds[f"planet-{c}"] == 1 and kinds[f"ship-{c}"] == 1 for c in COLOURS)
    bag = load_deck("").stations
    assert {k: kinds[f"station-{k}"] for k in bag} == bag and kinds["prism"] == 1 and kinds["nebula"] == NEBULA_CHIPS
    marked = {e.piece for e in orbit.entries if e.sticker is not None}
    assert marked == {f"{kind}-{c}" for kind in ("planet", "ship") for c in COLOURS}
    # Colour tells the nebula chips apart once calibrated; the tiles' colours are shared, so never.
    assert orbit.identifiable(()) == marked
    assert orbit.identifiable({"pink", "light-grey", "dark-grey"}) == marked | {"nebula"}


def test_the_box_has_a_piece_for_every_layout_name_of_real_games(orbit, layouts):
    kinds = Counter(e.piece for e in orbit.entries)
    for _, layout in layouts:
        needed = Counter(unpointed(GAME.physical_piece(p)) for pieces in layout.values() for p in pieces)
        assert not needed - kinds, needed - kinds


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sticker_dictionary": "DICT_NONE"}, "sticker_dictionary: 'DICT_NONE' is not an OpenCV marker dictionary"),
        ({"stacking": "sideways"}, "stacking: 'sideways' is not one of"),
        ({"sticker_mm": "big"}, "sticker_mm and tallest_stack_mm must be numbers"),
        ({"piece0": {"sticker": 30}}, "pieces[0].sticker: DICT_APRILTAG_16h5 has ids 0 to 29, not 30"),
    ],
)
def test_a_bad_registry_is_one_line_naming_the_field(tmp_path, change, message):
    data = json.loads(resources.files("companion.sensing").joinpath("pieces_orbit.json").read_text())
    for key, value in change.items():
        if key == "piece0":
            data["pieces"][0].update(value)
        else:
            data[key] = value
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UserError) as error:
        load_registry(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


def test_orbit_needs_1080p_and_trajectory_720p(orbit):
    trajectory = default_registry("trajectory")
    assert frame_size(600.0, trajectory.sticker_mm) == (1280, 720)
    assert frame_size(700.0, orbit.sticker_mm) == (1920, 1080)


def _read(cameras, orbit, table, layout, rng, conditions):
    """The rendered board's scene, the frame's report and what the referee gets from it."""
    board, camera, renderer, vision = cameras[str(table.options.get("board", "front"))]
    scene, hidden = layout_scene(board, orbit, camera, layout, rng, conditions, GAME.physical_piece)
    assert not hidden  # the box has every piece, and riders stack as high as they come
    rendered = renderer.render(scene)
    report = vision.process(rendered.image)
    assert report.reliable, report.reason
    return board, scene, rendered, report, camera_view(report, orbit, board)


def _contradicted(board, layout, view) -> list[str]:
    """Sites whose reading, as the referee compares it, contradicts the board."""
    shown = Observation(camera_pieces=view.pieces)
    wrong = []
    for site in {s.id for s in board.sites} - view.unreliable:
        reading = SiteReading(None, tuple(view.stacks.get(site, ())), partial=site in view.partial)
        expected = tuple(layout.get(site, ()))
        if not reading.agrees_with(expected, shown.shown(expected, GAME.physical_piece)):
            wrong.append(site)
    return wrong


def test_boards_of_real_games_are_read_piece_by_piece(orbit, layouts, cameras, match):
    """Every sticker in view is read on its site, nothing is invented, and every site's reading agrees with the board
    (exact, or partial on a ship hiding the planet or tile under it), a planet's arrow included where it is read."""
    rng = np.random.default_rng(11)
    stacks = Counter()
    read = arrows = 0
    normal = [pair for index, pair in enumerate(layouts) if index % 4]  # three in four, of every kind of table
    for table, layout in normal:
        board, scene, rendered, report, view = _read(cameras, orbit, table, layout, rng, NORMAL)
        in_view = visible(scene, rendered)
        seen, extra = match(report.sightings, scene.pieces)
        for piece in scene.pieces:
            if piece.entry.sticker is None:
                continue
            sighting = seen.pop(piece.entry.id, None)
            if in_view[piece.entry.id]:
                assert sighting is not None and sighting.site == piece.site, (piece.entry.id, piece.site, sighting)
                read += 1
            else:
                assert covered(scene, piece)  # nothing else hides a sticker on this table
        assert not [s for s in extra if s.sticker is not None], f"pieces that are not there: {extra}"
        assert not _contradicted(board, layout, view)
        arrows += sum(bool(points_to(p)) for stack in view.stacks.values() for p in stack)
        for site, pieces in layout.items():
            kinds = tuple(p.split("-")[0] for p in pieces)
            stacks[(*kinds[:1], len(kinds) - 1)] += len(pieces) > 1
            if len(pieces) > 1 and pieces[-1].startswith("ship"):
                assert site in view.partial and GAME.physical_piece(pieces[-1]) in view.stacks[site]
    assert read > 300 and arrows > 100
    assert stacks[("planet", 1)] > 20 and stacks[("planet", 2)] > 0 and stacks[("station", 1)] > 0
    assert any(p.count("-") == 2 for _, layout in normal for ps in layout.values() for p in ps)  # dual ships


def test_in_harsh_light_stickers_may_be_missed_but_never_misplaced(orbit, layouts, cameras, match):
    rng = np.random.default_rng(12)
    missed = total = 0
    for table, layout in layouts[::4]:
        _, scene, rendered, report, _ = _read(cameras, orbit, table, layout, rng, HARSH)
        in_view = visible(scene, rendered)
        seen, extra = match(report.sightings, scene.pieces)
        for piece in scene.pieces:
            sighting = seen.get(piece.entry.id)
            if piece.entry.sticker is None or not in_view[piece.entry.id]:
                continue
            total += 1
            missed += sighting is None
            assert sighting is None or sighting.site == piece.site
        assert not [s for s in extra if s.sticker is not None]
    assert missed <= 0.03 * total


def test_the_top_of_a_tall_stack_at_the_board_edge_is_put_on_its_site(orbit, cameras):
    """A planet and four ships (a dual game's pile-up) on the outer ring: the top ship stands 54 mm up, hiding what
    is under it. Traced at a lone ship's height it would land about 17 mm outwards, off its site."""
    board, camera, renderer, vision = cameras["front"]
    site = max((s for s in board.sites if s.id.startswith("r8")), key=lambda s: math.hypot(s.x - 350, s.y - 350))
    layout = {site.id: ("planet-gray", "ship-red", "ship-green", "ship-blue", "ship-yellow")}
    scene, _ = layout_scene(board, orbit, camera, layout, np.random.default_rng(3))
    report = vision.process(renderer.render(scene).image)
    top = next(s for s in report.sightings if s.piece == "ship-yellow")
    assert [s.piece for s in report.sightings] == ["ship-yellow"] and top.site == site.id
    view = camera_view(report, orbit)
    assert site.id in view.partial and view.stacks[site.id] == ("ship-yellow",)
    piece = next(p for p in scene.pieces if p.entry.piece == "ship-yellow")
    assert piece.z0 + piece.entry.height == pytest.approx(54.0)
    flat = vision.pose.to_board(
        camera.project(np.array([[piece.x, piece.y, 54.0]])), 12.0, camera.matrix, camera.distortion
    )[0]
    assert math.dist(flat, (site.x, site.y)) > 16.2  # beyond the site tolerance: the height search is needed


def test_a_lone_ship_off_every_site_is_never_put_on_a_site_at_a_stack_height(orbit, cameras):
    """A ship standing alone beside an outer site, 10 mm outwards and 14 mm aside: off the site at its own height.
    Higher up its trace passes within the site tolerance of the site, but no stack the box can make puts a top
    squarely there: it is read off every site, where it stands, and the site is left unread, not filled."""
    board, camera, renderer, vision = cameras["front"]
    site = max((s for s in board.sites if s.id.startswith("r8")), key=lambda s: math.hypot(s.x - 350, s.y - 350))
    out = np.array([site.x - 350, site.y - 350]) / math.hypot(site.x - 350, site.y - 350)
    x, y = np.array([site.x, site.y]) + 10 * out + 14 * np.array([-out[1], out[0]])
    ship = Placed(orbit.kind("ship-red"), float(x), float(y), 0.4)
    report = vision.process(renderer.render(Scene(board, camera, (ship,))).image)
    assert [(s.piece, s.site) for s in report.sightings] == [("ship-red", None)]
    assert math.dist((report.sightings[0].x, report.sightings[0].y), (x, y)) < 3
    assert site.id in report.unreliable_sites()
    # At a stack's height (a planet and three ships under it) its trace would have put it on the site.
    high = vision.pose.to_board(camera.project(np.array([[x, y, 12.0]])), 54.0, camera.matrix, camera.distortion)[0]
    assert 5.4 < math.dist(high, (site.x, site.y)) < 16.2 < math.dist((x, y), (site.x, site.y))


def test_a_lone_ship_is_never_put_on_a_stack_made_of_pieces_read_elsewhere(orbit, cameras):
    """A ship standing alone beyond an outer site, where the top of a planet and three ships on that site, 4 mm off
    its centre, would be seen: its sticker alone cannot tell the two apart. But the other seven ships stand on sites
    of their own, read: no stack the box has left reaches that height, so it is read off every site, where it
    stands (a tilted camera's trace slides further up a stack, over more sites, than this overhead one's)."""
    board, camera, renderer, vision = cameras["front"]
    site = max((s for s in board.sites if s.id.startswith("r8")), key=lambda s: math.hypot(s.x - 350, s.y - 350))
    out = np.array([site.x - 350, site.y - 350]) / math.hypot(site.x - 350, site.y - 350)
    seen_at = camera.project(np.array([[*(np.array([site.x, site.y]) + 4 * out), 54.0]]))  # squarely on the site
    x, y = vision.pose.to_board(seen_at, 12.0, camera.matrix, camera.distortion)[0]
    assert min(math.dist((x, y), (s.x, s.y)) for s in board.sites) > 16.2  # off every site at its own height
    others = [e for e in orbit.entries if e.piece.startswith("ship-") and e.piece != "ship-red"]
    inner = sorted((s for s in board.sites if s.id.startswith("r3")), key=lambda s: s.id)[::2]
    assert len(others) == 7 and len(inner) >= 7
    ships = (
        Placed(orbit.kind("ship-red"), float(x), float(y), 0.4),
        *(Placed(e, s.x, s.y, 0.3 * k, site=s.id) for k, (e, s) in enumerate(zip(others, inner, strict=False))),
    )
    report = vision.process(renderer.render(Scene(board, camera, ships)).image)
    red = next(s for s in report.sightings if s.piece == "ship-red")
    assert red.site is None and math.dist((red.x, red.y), (x, y)) < 3
    assert sorted((s.piece, s.site) for s in report.sightings if s.piece != "ship-red") == sorted(
        (p.entry.piece, p.site) for p in ships[1:]
    )


def test_nebula_chips_are_found_by_their_calibrated_colour_and_station_tiles_never(orbit, cameras, tmp_path, capsys):
    import cv2

    from companion.sensing.vision_profile import load_profile, save_profile

    from .test_calibration import calibrate, error_line

    board, camera, renderer, _ = cameras["front"]
    nebulas = ["r3s2", "r5s13", "r6s20", "r8s40"]
    layout = {site: ("nebula",) for site in nebulas}
    layout |= {"r2s4": ("station-hand", "ship-red"), "r4s6": ("station-portal",), "r1s0": ("planet-red",)}
    scene, _ = layout_scene(board, orbit, camera, layout, np.random.default_rng(4))
    cv2.imwrite(str(tmp_path / "laid-out.png"), renderer.render(scene).image)
    save_profile(sim_profile(camera, board.name), tmp_path / "profile.json")
    args = [
        "colours",
        "--board",
        "orbit",
        "--image",
        str(tmp_path / "laid-out.png"),
        "--profile",
        str(tmp_path / "profile.json"),
        "--layout",
        str(tmp_path / "layout.json"),
        "--out",
        str(tmp_path / "p.json"),
    ]
    (tmp_path / "layout.json").write_text(json.dumps({"r4s6": "station-portal-1"}))
    assert calibrate(args) == 2
    assert "is dark-grey, as station-cannon, station-fuel are: colour cannot tell them apart" in error_line(capsys)
    assert not (tmp_path / "p.json").exists()
    (tmp_path / "layout.json").write_text(json.dumps({site: f"nebula-{i + 1}" for i, site in enumerate(nebulas[:2])}))
    assert calibrate(args) == 0
    profile = load_profile(tmp_path / "p.json")
    assert set(profile.colours) == {"pink"}
    vision = Vision(board, orbit, profile)
    for seed in (5, 6):
        scene, _ = layout_scene(board, orbit, camera, layout, np.random.default_rng(seed))
        view = camera_view(vision.process(renderer.render(scene).image), orbit)
        assert "nebula" in view.pieces and "station-hand" not in view.pieces
        assert {site: stack for site, stack in view.stacks.items()} == {
            **{site: ("nebula",) for site in nebulas},
            "r2s4": ("ship-red",),
            "r1s0": ("planet-red",),
        }
        assert view.partial == {"r2s4"}
        assert not _contradicted(board, layout, view)
    grey = profile.with_colours({**profile.colours, "light-grey": profile.colours["pink"]})
    assert "station-hand" not in Vision(board, orbit, grey).identifies  # a colour two kinds share says nothing
