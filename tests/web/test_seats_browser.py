"""The host's seats on the page, in Chromium at 360 x 740: a phone is lost, another asks for its seat, and the host
gives it with one tap; the lost phone's page says so and acts for it no more; the host frees a seat from Seats at
the table (screenshots under artifacts/web)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import ARTIFACTS, TOKEN


def joined(browser, served, seat: str) -> Page:
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    page.goto(f"{served.base}/?t={TOKEN}")
    page.locator(f'#seats input[value="{seat}"]').check()
    page.click("#join-ok")
    expect(page.locator("body.seated")).to_have_count(1)
    return page


def test_the_host_gives_a_lost_phone_s_seat_to_the_phone_that_asks_and_frees_a_seat(browser, served):
    host = joined(browser, served, "red")  # the first phone to join: the host
    lost = joined(browser, served, "blue")
    newcomer = served.join()
    assert served.post("/api/seats/ask", {"seat": "blue"}, key=newcomer)[0] == 202
    give = host.locator("#asks button", has_text="Give Blue now")
    expect(give).to_be_visible()
    expect(lost.locator("#asks .ask p").first).to_have_text("A watching phone asks to play Blue.")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    host.screenshot(path=str(ARTIFACTS / "seats-host-ask-360.png"))
    give.click()
    expect(lost.locator("#seat-lost-text")).to_have_text(
        "Blue is now played on another phone. This phone no longer acts for Blue."
    )
    expect(lost.locator("body.seated")).to_have_count(0)
    lost.screenshot(path=str(ARTIFACTS / "seats-lost-phone-360.png"))
    expect(host.locator("#log li").first).to_have_text("Blue is now played on another phone: the host gave it.")
    assert served.table.seats.holder("blue") == served.table.seats.phone(newcomer).id
    host.click("[data-open=settings]")
    host.click("#seat-control-open")
    rows = host.locator("#seat-rows li")
    expect(rows).to_have_text(["Red · this phone", "Blue · another phoneFree Blue's seat"])
    host.screenshot(path=str(ARTIFACTS / "seats-host-dialog-360.png"))
    host.click("#seat-rows button")
    host.click("#confirm-yes")
    expect(rows.nth(1)).to_have_text("Blue · free: any phone may take it")
    assert served.table.seats.holder("blue") is None
    expect(host.locator("#log li").first).to_have_text("The host freed Blue's seat: any phone may take it.")
