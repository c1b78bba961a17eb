"""The trust step in Debian's Chromium: a browser whose own NSS database trusts the table's CA (certutil, as a phone
that installed /ca.crt), and one that does not. orrery.test is mapped to 127.0.0.1 so that the origin is a LAN-like
name and not localhost, which browsers treat as secure even over plain http."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error, Page, expect, sync_playwright

from companion.web.hostnames import Names, host_name, local_names
from companion.web.serve import Tls
from companion.web.tableca import Folder, init

from .conftest import CHROMIUM, FLAGS, TOKEN, WatchedBrowser, free_port, new_table

HOST = "orrery.test"


@pytest.fixture(scope="module")
def table_ca(tmp_path_factory) -> Folder:
    folder = Folder(tmp_path_factory.mktemp("tls"))
    test_name = Names((HOST,))
    init(folder, local_names() | test_name, host_name(), extra=test_name)
    return folder


def nss_home(home: Path, ca: Path | None) -> Path:
    """A HOME whose ~/.pki/nssdb Chromium reads its trust from; with `ca`, trusted for websites."""
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True, capture_output=True)
    if ca is not None:
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "Orrery table", "-i", str(ca)],
                       check=True, capture_output=True)  # fmt: skip
    return home


@pytest.fixture(scope="module")
def playwright():
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: it is in .ci/apt-test (./run test installs it)"
    with sync_playwright() as driver:
        yield driver


def launch(playwright, home: Path) -> WatchedBrowser:
    """Chromium with its own HOME (its own certificate store), its pages watched for script errors."""
    return WatchedBrowser(playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, env={**os.environ, "HOME": str(home)},
        args=[*FLAGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"]))  # fmt: skip


@pytest.fixture(scope="module")
def trusting(playwright, table_ca, tmp_path_factory):
    browser = launch(playwright, nss_home(tmp_path_factory.mktemp("home"), table_ca.ca_cert))
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def untrusting(playwright, tmp_path_factory):
    browser = launch(playwright, nss_home(tmp_path_factory.mktemp("home"), None))
    yield browser
    browser.close()


@pytest.fixture
def secure(tmp_path, table_ca):
    with new_table(tmp_path, Tls(table_ca.path, free_port())) as served:
        served.http = f"http://{HOST}:{served.port}"
        served.https = f"https://{HOST}:{served.server.https_port}"
        yield served


def _page(browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 360, "height": 740}, accept_downloads=True)
    yield context.new_page()
    context.close()


@pytest.fixture
def trusted_page(trusting) -> Iterator[Page]:
    yield from _page(trusting)


@pytest.fixture
def untrusted_page(untrusting) -> Iterator[Page]:
    yield from _page(untrusting)


def join(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("#join")).to_be_visible()
    page.locator('#seats input[value="blue"]').check()
    page.click("#join-ok")
    expect(page.locator("#link")).to_have_text("live", timeout=5000)


def test_over_plain_http_the_page_offers_to_trust_the_table_and_switches_with_the_token(trusted_page, secure, table_ca):
    page = trusted_page
    join(page, f"{secure.http}/?t={TOKEN}")
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("window.orrery.secure.wakeLock") == "unavailable"  # no Wake Lock API over http
    hint = page.locator("#trust-hint")
    # This browser trusts the CA already, so the probe of the https page succeeds and the hint offers to switch.
    page.wait_for_function("window.orrery.secure.trusted === true")
    switch = hint.locator(".trust-switch")
    expect(switch).to_be_visible()
    assert switch.get_attribute("href") == f"{secure.https}/?t={TOKEN}"

    # The instructions and the certificate, from the dialog.
    page.evaluate("document.getElementById('trust').showModal()")
    expect(page.locator("#trust")).to_contain_text("iPhone and iPad")
    with page.expect_download() as download:
        page.click("#trust-download")
    assert Path(download.value.path()).read_bytes() == table_ca.ca_cert.read_bytes()
    expect(page.locator("#trust-status")).to_have_text("This phone trusts the table.")
    page.click("#trust button[value=close]")

    switch.click()
    page.wait_for_url(f"{secure.https}/")  # the token was read and taken out of the address bar
    assert page.evaluate("window.isSecureContext") is True
    assert page.evaluate("localStorage.getItem('orrery.token')") == TOKEN  # the https origin's own storage
    expect(page.locator("#join")).to_be_visible()  # a player here too: it asks for the seat
    expect(page.locator("#trust-hint")).to_have_count(0)  # nothing to offer on the secure page


def test_the_hint_before_trust_is_dismissable_and_stays_dismissed(untrusted_page, secure):
    page = untrusted_page
    page.goto(f"{secure.http}/")
    hint = page.locator("#trust-hint")
    expect(hint.locator(".trust-text")).to_have_text("Keep the screen awake and reload offline: trust this table")
    page.wait_for_function("window.orrery.secure.trusted === false")  # the certificate is refused
    expect(hint.locator(".trust-switch")).to_be_hidden()
    hint.locator(".trust-text").click()
    expect(page.locator("#trust")).to_be_visible()
    expect(page.locator("#trust-status")).to_have_text("This phone does not trust the table yet.")
    assert page.locator("#trust-download").get_attribute("href") == "/ca.crt"
    page.click("#trust button[value=close]")
    hint.locator(".trust-close").click()
    expect(hint).to_be_hidden()
    page.reload()
    page.wait_for_function("window.orrery.secure.trusted === false")
    expect(page.locator("#trust-hint")).to_be_hidden()


def test_over_https_the_page_is_secure_keeps_the_screen_awake_and_reloads_offline(trusted_page, secure):
    page = trusted_page
    page.goto(f"{secure.https}/")
    expect(page.locator("#link")).to_have_text("live", timeout=5000)
    assert page.evaluate("window.isSecureContext") is True
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10000)
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{secure.https}/sw.js"
    page.wait_for_function("window.orrery.secure.wakeLock !== 'not asked'")
    assert page.evaluate("window.orrery.secure.wakeLock") == "held"
    expect(page.locator("#trust-hint")).to_have_count(0)

    secure.server.stop()
    response = page.reload()
    assert response is not None and response.from_service_worker
    expect(page.locator("#toast")).to_contain_text("Cannot reach the companion")  # the script ran, from cache
    expect(page.locator("#banner")).to_be_visible()


def test_the_offline_shell_holds_every_module_the_page_imports():
    """The service worker's cached shell: a module of the page left out of it and, offline, no script runs."""
    static = Path(__file__).resolve().parents[2] / "companion" / "web" / "static"
    shell = set(re.findall(r'"(/static/[\w.]+)"', (static / "sw.js").read_text()))
    wanted, todo = set(), ["main.js"]
    while todo:
        module = todo.pop()
        if f"/static/{module}" not in wanted:
            wanted.add(f"/static/{module}")
            todo += re.findall(r'^import .* from "\./([\w.]+)";', (static / module).read_text(), re.MULTILINE)
    assert wanted - shell == set()


def test_a_browser_without_the_table_ca_gets_no_secure_page(untrusted_page, secure):
    page = untrusted_page
    with pytest.raises(Error, match="ERR_CERT_AUTHORITY_INVALID"):
        page.goto(f"{secure.https}/")
