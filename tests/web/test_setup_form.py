"""The New game form speaks the players' words: every option of every game has a label, a line on what it does and
names for its choices; options only a table set up its own way needs are folded away; a player option offers the
players ticked. Checked on the words table and in Debian's Chromium against a served table."""

from __future__ import annotations

import dataclasses
import re
import typing

import pytest
from playwright.sync_api import expect

from companion.rules import load, names
from companion.table.datasets import data_options
from companion.web.options import option_fields

from .conftest import ARTIFACTS
from .test_browser import join


@pytest.mark.parametrize("name", names())
def test_every_option_of_every_game_is_described_in_words(name):
    fields = option_fields(load(name), {option: ["ours"] for option in data_options(name)})
    assert fields, name
    for field in fields:
        assert field["name"] in load(name).option_words, f"{name}: option {field['name']} has no words"
        assert "_" not in field["label"] and field["label"][0].isupper()
        if field["kind"] == "choice" and field["name"] not in data_options(name):  # sets have their names
            labels = field.get("labels") or []
            assert len(labels) == len(field["choices"]) and all(label[0].isupper() for label in labels), field
        assert field["advanced"] == (field["kind"] == "json"), f"{name}: {field['name']} is typed JSON but not folded"
    declared = {f.name for f in dataclasses.fields(typing.get_type_hints(load(name).state_type)["options"])}
    assert set(load(name).option_words) == declared  # file options too, and nothing stale


def test_the_form_names_options_in_words_and_starts_dakalio_with_the_chosen_first_player(browser, served):
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    join(page, served, "red")
    page.click('button[data-open="setup"]')
    page.select_option("#setup-game", "orbit")
    options = page.locator("#setup-options")
    expect(options).to_contain_text("Hyper Accelerator Engine")
    expect(options.locator('select[data-option="mode"] option')).to_have_text(
        ["Everyone for themselves", "Partnership", "Dual spaceship"]
    )
    assert not re.search(r"\w_\w|JSON", options.locator(":scope > label").all_inner_texts().__str__())
    expect(options.locator("details")).not_to_have_attribute("open", "")
    expect(options.locator('details input[data-option="second_colours"]')).to_be_hidden()
    for box in options.locator("label.option.bool").all():
        assert box.bounding_box()["height"] >= 44
    for pill in page.locator("#setup-players label").all():
        assert pill.bounding_box()["height"] >= 44
    page.select_option("#setup-game", "dakalio")
    first = options.locator('select[data-option="first"]')
    expect(first.locator("option")).to_have_text(["The companion draws", "red", "green"])
    page.locator('#setup-players input[value="green"]').uncheck()
    page.locator('#setup-players input[value="blue"]').check()
    expect(first.locator("option")).to_have_text(["The companion draws", "red", "blue"])
    first.select_option(label="blue")
    assert page.evaluate("document.querySelector('#setup').scrollWidth <= 360")
    page.locator("#setup").screenshot(path=str(ARTIFACTS / "new-game-dakalio-360.png"))
    page.click("#setup-start")
    page.click("#confirm-yes")
    expect(page.locator("#setup")).to_be_hidden()
    state = served.session.state
    assert served.session.game.name == "dakalio" and state.first == "blue" and state.players == ("red", "blue")
    page.context.close()
