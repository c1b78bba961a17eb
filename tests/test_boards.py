import json
import math

import pytest

from companion.boards import BoardFileError, default_board, load_board
from companion.boards import trajectory as geometry
from companion.boards.files import board_to_json, save_board


@pytest.fixture(scope="module")
def board():
    return default_board("trajectory")


def test_sixty_spaces_on_four_orbits(board):
    assert len(board.sites) == 60
    assert [len(board.orbits[str(n)]) for n in (1, 2, 3, 4)] == [4, 8, 16, 32]


def test_spaces_sit_at_the_published_angles_and_radii(board):
    centre = board.width / 2
    for orbit, size in enumerate(geometry.ORBIT_SIZES, start=1):
        radius = centre * 0.235 * 1.587 ** (orbit - 1)
        for space in range(size):
            site = board.site(f"o{orbit}s{space}")
            angle = math.degrees(math.atan2(site.y - centre, site.x - centre)) % 360
            assert angle == pytest.approx(360 / size * (space + 0.5), abs=0.01)
            assert math.hypot(site.x - centre, site.y - centre) == pytest.approx(radius, abs=0.01)


def test_transfer_paths_run_ahead_in_the_orbit_direction(board):
    for orbit in (1, 2, 3):
        size = geometry.ORBIT_SIZES[orbit - 1]
        for k in range(size):
            out = {link.b for link in board.links_from(f"o{orbit}s{k}", "transfer-out")}
            assert out == {geometry.site_id(orbit + 1, 2 * k + 1), geometry.site_id(orbit + 1, 2 * k + 2)}
            for source in (geometry.site_id(orbit + 1, 2 * k - 1), geometry.site_id(orbit + 1, 2 * k)):
                assert [link.b for link in board.links_from(source, "transfer-in")] == [f"o{orbit}s{k}"]
            # Outward targets lie ahead (counter-clockwise) of the inner space by a quarter and three quarters.
            d = 360 / size
            a = (k + 0.5) * d
            angles = sorted(geometry.space_angle(orbit + 1, geometry.parse_site(s)[1]) % 360 for s in out)
            assert angles == pytest.approx(sorted([(a + d / 4) % 360, (a + 3 * d / 4) % 360]))


def test_every_space_has_its_two_orbit_neighbours(board):
    for site in board.sites:
        along = {link.b for link in board.links_from(site.id, "orbit")}
        orbit, space = geometry.parse_site(site.id)
        assert along == {geometry.site_id(orbit, space - 1), geometry.site_id(orbit, space + 1)}


def test_infestation_points_and_corner_fiducials(board):
    assert [s.id for s in board.with_tag("infestation")] == ["o4s6", "o4s14", "o4s22", "o4s30"]
    assert [f.id for f in board.fiducials] == list(range(12))
    for fiducial in board.fiducials:
        # Markers sit clear of the outer orbit's pieces (30 mm across) in the corners, on the board.
        assert fiducial.size / 2 < fiducial.x < 600 - fiducial.size / 2
        assert math.hypot(fiducial.x - 300, fiducial.y - 300) - fiducial.size / 2 * math.sqrt(2) > 282 + 15


def test_board_file_round_trip(tmp_path, board):
    path = tmp_path / "board.json"
    save_board(board, path)
    assert load_board(path) == board


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["links"].append({"a": "o1s0", "b": "nowhere", "kind": "orbit", "directed": False}),
            "board.links[172]: no site 'nowhere'",
        ),
        (lambda d: d["sites"].append(dict(d["sites"][0])), "board.sites[60].id: 'o1s0' is used twice"),
        (lambda d: d["sites"][0].update(x="left"), "board.sites[0].x: expected a number, got 'left'"),
        (lambda d: d["sites"][0].update(x=900), "board.sites[0] (o1s0) lies outside the board"),
        (lambda d: d["orbits"]["1"].append("o9s9"), "board.orbits.1: no site 'o9s9'"),
        (
            lambda d: [d["sites"][i].update(label="Far Point") for i in (3, 5)],
            "board.sites[5] (o2s1): the name 'Far Point' is already o1s3's; give each site a name of its own",
        ),
        (
            lambda d: [d["sites"][i].update(label=label) for i, label in ((3, "Far Point"), (5, "far  point"))],
            "board.sites[5] (o2s1): the name 'far  point' is already o1s3's; give each site a name of its own",
        ),
    ],
)
def test_bad_board_files_name_the_file_and_the_place(tmp_path, board, mutate, message):
    data = board_to_json(board)
    mutate(data)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BoardFileError) as error:
        load_board(path)
    assert str(error.value) == f"{path}: {message}"


def test_unreadable_board_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{")
    with pytest.raises(BoardFileError, match=r"broken\.json: not valid JSON"):
        load_board(path)
    with pytest.raises(BoardFileError, match=r"missing\.json: cannot read it"):
        load_board(tmp_path / "missing.json")


def test_a_solar_map_of_a_groups_own_gives_the_game_its_rings_radius_and_start_hexes():
    from dataclasses import replace

    import pytest

    from companion.boards.solar_map import SolarMapError, read_solar, solar_board

    board = solar_board((1, 2, 3, 4, 5, 6, 7), 7, 14)
    solar = read_solar(board)
    assert (solar.radius, solar.rings) == (7, (1, 2, 3, 4, 5, 6, 7))
    assert (solar.starts["1"], solar.starts["8"]) == ("r1s0", "r7s21")

    def wrong(board, text):
        with pytest.raises(SolarMapError) as raised:
            read_solar(board)
        assert str(raised.value).startswith(text) and "\n" not in str(raised.value), str(raised.value)

    wrong(replace(board, sites=board.sites[:-1]), "hex r7s41 is missing")
    wrong(replace(board, orbits={**board.orbits, "3": board.orbits["2"]}), "orbit 3: ring 2 is not outside orbit 2")
    wrong(replace(board, orbits={**board.orbits, "4": board.orbits["4"][1:]}), "orbit 4: must be one whole ring")
    moved = tuple(replace(s, tags=(*s.tags, "planet-3")) if s.id == "r1s0" else
                  replace(s, tags=tuple(t for t in s.tags if t != "planet-3")) for s in board.sites)  # fmt: skip
    wrong(replace(board, sites=moved), "planet 3: its start hex ring 1 hex 0 is not on its orbit (ring 3)")
    twice = tuple(replace(s, tags=(*s.tags, "planet-8")) if s.id == "r7s0" else
                  replace(s, tags=tuple(t for t in s.tags if t != "planet-8")) for s in board.sites)  # fmt: skip
    wrong(replace(board, sites=twice), "planet 8: starts on ring 7 hex 0, where another planet starts")
