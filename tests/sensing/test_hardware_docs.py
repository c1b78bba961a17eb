"""hardware/ is built from: its reach table is the model's output, and the model behaves as a magnet does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def _model():
    spec = importlib.util.spec_from_file_location("magnet_reach", HARDWARE / "tools" / "magnet_reach.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reach_table_in_magnets_md_is_the_models_output():
    assert _model().reach_table() in (HARDWARE / "MAGNETS.md").read_text()


def test_the_model_has_a_dead_zone_over_the_glass_and_grows_with_the_magnet():
    model = _model()
    assert model.reach(6, 2, 1.18, 15, offset=0.0) == 0.0  # centred: the two halves of the glass cancel
    end = model.reach(6, 2, 1.18, 15, offset=6.0)
    assert model.reach(6, 2, 1.18, 15, offset=2.5) < end
    assert model.reach(6, 3, 1.18, 15, offset=6.0) > end > model.reach(5, 2, 1.18, 15, offset=6.0)
    assert model.reach(6, 2, 1.30, 15, offset=6.0) >= end
    assert model.reach(6, 2, 1.18, 10, offset=6.0) > end  # a more sensitive reed


def test_the_schematics_and_harness_drawing_are_the_scripts_output():
    spec = importlib.util.spec_from_file_location("schematic", HARDWARE / "tools" / "schematic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    drawings = module.drawings()
    for name, svg in drawings.items():
        assert (HARDWARE / name).read_text() == svg, "regenerate: python3 hardware/tools/schematic.py hardware/"
    mega = drawings["schematic-mega.svg"]
    assert ">D22<" in mega and ">A15<" in mega and mega.count("<ellipse") == 256  # one reed per crossing
    assert drawings["schematic-uno.svg"].count("<polygon") == 64  # one diode per crossing
    netlist = drawings["reed-grid-mega.net"]
    assert netlist.count('(comp (ref "D') == 256 and netlist.count('(net (code') == 16 + 16 + 256 + 2
    assert '(name "ROW0_D22") (node (ref "J1") (pin "1")) (node (ref "D1") (pin "1"))' in netlist
