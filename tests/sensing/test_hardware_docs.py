"""hardware/ is built from: its reach table is the model's output, and the model behaves as a magnet does."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, HARDWARE / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _model():
    return _tool("magnet_reach")


def test_the_reach_table_in_magnets_md_is_the_models_output():
    assert _model().reach_table() in (HARDWARE / "MAGNETS.md").read_text()


def test_the_model_has_a_dead_zone_over_the_glass_and_grows_with_the_magnet():
    model = _model()
    assert model.reach(6, 2, 1.18, 15, offset=0.0) == 0.0  # centred: the two halves of the glass cancel
    end = model.reach(6, 2, 1.18, 15, offset=model.END_UNDER)
    assert model.reach(6, 2, 1.18, 15, offset=2.5) < end
    assert model.reach(6, 3, 1.18, 15, offset=7.0) > end > model.reach(5, 2, 1.18, 15, offset=7.0)
    assert model.reach(6, 2, 1.30, 15, offset=7.0) >= end
    assert model.reach(6, 2, 1.18, 10, offset=7.0) > end  # a more sensitive reed


def test_the_threshold_is_what_the_rating_coil_puts_along_the_blades():
    """Rated the way makers rate reeds: a coil's field grows with its ampere-turns, and a coil as short as the stated
    one puts well under a long coil's mu0 x AT / length along the blades."""
    model = _model()
    assert model.coil_field(20) == pytest.approx(2 * model.coil_field(10))
    ratio = model.coil_field(1) / (model.MU0 / 0.010)
    assert 0.55 < ratio < 0.75


def test_the_next_sites_reed_is_nearest_along_the_glass():
    """The ghost columns look only round 180 degrees: over all directions the worst is there."""
    model = _model()
    for args in ((8, 2, 1.18, 10, 27.7), (10, 3, 1.18, 10, 36.0)):
        everywhere = model.neighbour_reach(*args, angles=range(0, 360, 15))
        assert everywhere == model.neighbour_reach(*args) > 0


def test_the_schematics_and_harness_drawing_are_the_scripts_output():
    drawings = _tool("schematic").drawings()
    for name, svg in drawings.items():
        assert (HARDWARE / name).read_text() == svg, "regenerate: python3 hardware/tools/schematic.py hardware/"
    mega = drawings["schematic-mega.svg"]
    assert ">D22<" in mega and ">A15<" in mega and mega.count("<ellipse") == 256  # one reed per crossing
    assert drawings["schematic-uno.svg"].count("<polygon") == 64  # one diode per crossing
    netlist = drawings["reed-grid-mega.net"]
    assert netlist.count('(comp (ref "D') == 256 and netlist.count("(net (code") == 16 + 16 + 256 + 2
    assert '(name "ROW0_D22") (node (ref "J1") (pin "1")) (node (ref "D1") (pin "1"))' in netlist


def _schematic_nets(path: Path) -> tuple[dict[str, set[tuple[str, str]]], dict[str, tuple[str, str]]]:
    """The nets of a KiCad 6 schematic as KiCad joins them, read with kiutils: wire ends, pin ends and labels at the
    same point are one node, wires join their two ends, labels of one name join. Returns {net label or first pin:
    {(reference, pin)}} and {reference: (value, footprint)}."""
    from kiutils.schematic import Schematic

    sheet = Schematic.from_file(str(path))
    parent: dict[tuple, tuple] = {}

    def find(a: tuple) -> tuple:
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def join(a: tuple, b: tuple) -> None:
        parent[find(a)] = find(b)

    def point(x: float, y: float) -> tuple:
        return ("at", round(x, 3), round(y, 3))

    lib_pins = {
        lib.libId: [(p.number, p.position.X, p.position.Y) for unit in lib.units for p in unit.pins]
        for lib in sheet.libSymbols
    }
    parts, pin_points = {}, []
    for symbol in sheet.schematicSymbols:
        assert not symbol.position.angle and not symbol.mirror, "the check reads unrotated symbols only"
        fields = {p.key: p.value for p in symbol.properties}
        parts[fields["Reference"]] = (fields["Value"], fields["Footprint"])
        for number, x, y in lib_pins[symbol.libId]:
            at = point(symbol.position.X + x, symbol.position.Y - y)  # library y points up, the sheet's down
            join(("pin", fields["Reference"], number), at)
            pin_points.append(at)
    wires = [w for w in sheet.graphicalItems if w.type == "wire"]
    ends = set()
    for wire in wires:
        a, b = (point(p.X, p.Y) for p in wire.points)
        join(a, b)
        ends |= {a, b}
    # KiCad also joins an end lying inside another wire; the generator cuts its wires so that never happens, and this
    # check, which joins ends only, would miss it: make sure.
    for wire in wires:
        (x1, y1), (x2, y2) = ((p.X, p.Y) for p in wire.points)
        for _, x, y in ends | set(pin_points):
            inside = (x1 == x2 == x and min(y1, y2) < y < max(y1, y2)) or (
                y1 == y2 == y and min(x1, x2) < x < max(x1, x2)
            )
            assert not inside, f"an end at ({x}, {y}) lies inside a wire"
    for label in sheet.labels:
        at = point(label.position.X, label.position.Y)
        assert at in ends, f"label {label.text} is not on a wire end"
        join(("label", label.text), at)
    groups: dict[tuple, set] = {}
    names: dict[tuple, str] = {}
    for node in list(parent):
        root = find(node)
        if node[0] == "pin":
            groups.setdefault(root, set()).add(node[1:])
        elif node[0] == "label":
            assert names.setdefault(root, node[1]) == node[1], f"two labels on one net: {node[1]}"
    return {names.get(root, min(pins)[0] + min(pins)[1]): pins for root, pins in groups.items()}, parts


def _netlist(text: str) -> tuple[dict[str, set[tuple[str, str]]], dict[str, tuple[str, str]]]:
    nets = {
        m[0]: set(re.findall(r'\(node \(ref "([^"]+)"\) \(pin "([^"]+)"\)\)', m[1]))
        for m in re.findall(r'\(net \(code "\d+"\) \(name "([^"]+)"\) (.*)\)$', text, re.M)
    }
    parts = {
        m[0]: (m[1], m[2])
        for m in re.findall(r'\(comp \(ref "([^"]+)"\) \(value "([^"]+)"\) \(footprint "([^"]+)"\)\)', text)
    }
    return nets, parts


@pytest.mark.parametrize("board", ["mega", "uno"])
def test_the_kicad_schematic_joins_what_the_netlist_joins(board):
    """The .kicad_sch is read as KiCad reads it, not as the generator wrote it: its nets, found from the wires, pins
    and labels on the sheet, are the netlist's, part for part, and the Arduino's pins sit on the nets named for them."""
    schematic_nets, schematic_parts = _schematic_nets(HARDWARE / f"reed-grid-{board}.kicad_sch")
    netlist_nets, netlist_parts = _netlist((HARDWARE / f"reed-grid-{board}.net").read_text())
    assert {ref: part for ref, part in schematic_parts.items() if ref != "A1"} == netlist_parts
    on_the_grid = {name: {node for node in pins if node[0] != "A1"} for name, pins in schematic_nets.items()}
    assert sorted(map(sorted, on_the_grid.values())) == sorted(map(sorted, netlist_nets.values()))
    for name, pins in netlist_nets.items():
        if not name.startswith("Net-"):
            assert on_the_grid[name] == pins, name  # named nets carry the netlist's names
    arduino = {pin: name for name, pins in schematic_nets.items() for ref, pin in pins if ref == "A1"}
    rows = 16 if board == "mega" else 8
    assert len(arduino) == 2 * rows + 2 and arduino["5V"] == "+5V" and arduino["GND"] == "GND"
    assert all(name.endswith("_" + pin) for pin, name in arduino.items() if pin not in ("5V", "GND"))


def test_the_pdfs_are_the_drawings_rendered():
    module = _tool("schematic")
    for name, svg in module.PDFS.items():
        assert (HARDWARE / name).read_bytes() == module.pdf(HARDWARE / svg), "regenerate: hardware/tools/schematic.py"
