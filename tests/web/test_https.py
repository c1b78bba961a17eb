"""The real app over https under aiohttp, beside plain http: a Python client that trusts only the table's CA reads
the API, acts, and follows the SSE stream exactly as over http; a client without the CA is refused."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from companion.errors import UserError
from companion.rules import Action
from companion.table.config import load_config
from companion.web.hostnames import Names, host_name, local_names
from companion.web.serve import Renewal, Tls, tls_settings
from companion.web.tableca import Folder, init, issue, load_authority, write_file

from .conftest import TOKEN, Stream, free_port, new_table
from .test_openapi import check


@pytest.fixture
def table_ca(tmp_path) -> Folder:
    folder = Folder(tmp_path / "tls")
    init(folder, local_names(), host_name())
    return folder


@pytest.fixture
def secure(tmp_path, table_ca):
    with new_table(tmp_path, Tls(table_ca.path, free_port())) as served:
        yield served


def trusting(folder: Folder) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(folder.ca_cert))


def request(port: int, path: str, context: ssl.SSLContext, method: str = "GET", body=None, host: str = "localhost",
            token: str | None = None, key: str = "") -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    connection = http.client.HTTPSConnection(host, port, timeout=10, context=context)
    headers = {"Content-Type": "application/json", **({"X-Orrery-Token": token, "X-Orrery-Phone": key} if token
                                                      else {})}  # fmt: skip
    connection.request(method, path, None if body is None else json.dumps(body).encode(), headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), data


def test_the_same_app_answers_over_https_to_a_client_that_trusts_only_the_table(secure, table_ca):
    port = secure.server.https_port
    assert port is not None and port != secure.port
    context = trusting(table_ca)
    for host in ("localhost", "127.0.0.1"):  # a DNS name and an address, both in the certificate
        status, _, body = request(port, "/healthz", context, host=host)
        assert status == 200 and json.loads(body)["https_port"] == port
    assert secure.get("/healthz")["https_port"] == port  # plain http tells the page where https is
    assert secure.get("/api/state")["https_port"] == port
    status, _, body = request(port, "/api/act", context, "POST", {"action": {"type": "end_turn"}, "actor": "red"},
                              token=TOKEN, key=secure.own_key())  # fmt: skip
    assert status == 200 and json.loads(body)["entry"]["actor"] == "red"
    status, _, body = request(port, "/api/act", context, "POST", {"action": {"type": "end_turn"}})
    assert status == 403  # the token guards https as it guards http


def test_a_client_without_the_table_ca_is_refused_and_https_goes_on(secure, table_ca):
    for _ in range(8):  # a phone's page probing https before it trusts the table, again and again
        with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer certificate"):
            request(secure.server.https_port, "/healthz", ssl.create_default_context())
    assert request(secure.server.https_port, "/healthz", trusting(table_ca))[0] == 200


def test_plain_http_into_the_https_port_and_silent_clients_do_not_stop_https(secure, table_ca):
    port = secure.server.https_port
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        plain.request("GET", "/healthz")
        plain.getresponse().read()
    plain.close()
    # Handshakes happen on the event loop, each with its own deadline, never in the accept path: twenty clients
    # that connect and say nothing (from addresses of their own) hold no phone's handshake.
    silent = [socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.3.{n}", 0)) for n in range(1, 21)]
    try:
        time.sleep(0.1)
        started = time.monotonic()
        status, _, _ = request(port, "/healthz", trusting(table_ca))
        assert status == 200 and time.monotonic() - started < 1.0
    finally:
        for sock in silent:
            sock.close()


def test_the_stream_over_https_is_the_stream_over_http(secure, table_ca):
    context = trusting(table_ca)
    port = secure.server.https_port
    over_https = Stream(port, context=context, host="localhost")
    over_http = Stream(secure.port)
    try:
        for stream in (over_https, over_http):
            stream.until("state")
        entry = secure.session.submit(Action.make("end_turn"), "phone", "red")
        got = [s.until("entry", lambda data: data["id"] == entry.id) for s in (over_https, over_http)]
        assert got[0] == got[1] and got[0]["data"]["id"] == entry.id
        assert over_https.until("state")["data"]["phase"]["actor"] == "blue"
    finally:
        over_https.close()
        over_http.close()
    replay = Stream(port, last_id=entry.id - 1, context=context, host="localhost")  # Last-Event-ID over https
    try:
        assert replay.until("entry")["data"]["id"] == entry.id
    finally:
        replay.close()


def test_delivery_and_handshake_over_https_against_http(secure, table_ca, capsys):
    """Commit to arrival on a stream, and the time to connect and get /healthz, by both schemes (figures printed)."""
    context = trusting(table_ca)
    port = secure.server.https_port
    streams = {"http": Stream(secure.port), "https": Stream(port, context=context, host="localhost")}
    sent: dict[int, float] = {}
    arrived: dict[str, dict[int, float]] = {scheme: {} for scheme in streams}

    def read(scheme: str, stream: Stream, count: int) -> None:
        while len(arrived[scheme]) < count:
            message = stream.until("entry", within=10)
            arrived[scheme][message["data"]["id"]] = time.perf_counter()

    for stream in streams.values():
        stream.until("state")
    count = 40
    readers = [threading.Thread(target=read, args=(s, st, count)) for s, st in streams.items()]
    for reader in readers:
        reader.start()
    session = secure.session
    for i in range(count):  # pause and resume: an announced entry each, whatever the game's phase
        started = time.perf_counter()
        sent[session.set_paused(i % 2 == 0, "phone", None).id] = started
        time.sleep(0.02)
    for reader in readers:
        reader.join(timeout=15)
    for stream in streams.values():
        stream.close()
    delays = {s: sorted((arrived[s][i] - sent[i]) * 1000 for i in sent) for s in streams}
    assert all(len(d) == count for d in delays.values()), {s: len(d) for s, d in delays.items()}

    connects: dict[str, list[float]] = {"http": [], "https": []}
    for _ in range(20):
        started = time.perf_counter()
        secure.get("/healthz")
        connects["http"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        request(port, "/healthz", context)
        connects["https"].append((time.perf_counter() - started) * 1000)
    with capsys.disabled():
        for scheme in streams:
            print(f"\n{scheme}: stream delivery median {statistics.median(delays[scheme]):.2f} ms, "
                  f"max {delays[scheme][-1]:.2f} ms; new connection + GET /healthz median "
                  f"{statistics.median(connects[scheme]):.2f} ms")  # fmt: skip
    assert statistics.median(delays["https"]) < 100 and statistics.median(connects["https"]) < 500


def test_the_ca_certificate_is_public_and_the_qr_stays_on_plain_http(secure, table_ca):
    status, headers, body = request(secure.server.https_port, "/ca.crt", trusting(table_ca))
    assert status == 200 and body == table_ca.ca_cert.read_bytes()
    assert headers["Content-Type"] == "application/x-x509-ca-cert"
    assert headers["Content-Disposition"] == f'attachment; filename="orrery-table-{host_name().lower()}.crt"'
    check("/ca.crt", "GET", status, headers["Content-Type"], body)  # as docs/openapi.json says
    status, headers, body = request(secure.server.https_port, "/api/state", trusting(table_ca))
    check("/api/state", "GET", status, headers["Content-Type"], json.loads(body))
    status, headers, body = request(secure.server.https_port, "/healthz", trusting(table_ca))
    check("/healthz", "GET", status, headers["Content-Type"], json.loads(body))
    status, data = secure.request("GET", "/ca.crt", token=None)  # no token needed, over plain http too
    assert status == 200 and data == table_ca.ca_cert.read_bytes()
    status, _, body = request(secure.server.https_port, "/api/qr", trusting(table_ca), token=TOKEN)
    assert status == 200 and json.loads(body)["url"] == f"http://localhost:{secure.port}/?t={TOKEN}"


def test_without_tls_there_is_no_https_port_and_no_ca(served):
    assert served.get("/healthz")["https_port"] is None and served.get("/api/state")["https_port"] is None
    status, data = served.request("GET", "/ca.crt", token=None)
    assert status == 404 and data == {"error": "this table serves no https (companion serve --tls-dir), so it has "
                                               "no CA to trust"}  # fmt: skip


def test_serving_re_issues_a_certificate_that_misses_an_address_and_keeps_the_ca(tmp_path):
    folder = Folder(tmp_path / "tls")
    init(folder, Names(("orrery.local",)), "orrery")  # made elsewhere: 127.0.0.1 is not in it
    ca = folder.ca_cert.read_bytes()
    with new_table(tmp_path, Tls(folder.path, free_port())) as served:
        status, _, _ = request(served.server.https_port, "/healthz", trusting(folder), host="127.0.0.1")
        assert status == 200 and folder.ca_cert.read_bytes() == ca


def test_the_tls_options_are_checked_before_anything_starts(tmp_path, table_ca):
    assert tls_settings(None, 8443, 8080) is None and tls_settings("none", 8443, 8080) is None
    assert tls_settings(str(table_ca.path), 8443, 8080) == Tls(table_ca.path, 8443)
    with pytest.raises(UserError, match=r"^--tls-port 8080 is the http port too"):
        tls_settings(str(table_ca.path), 8080, 8080)
    with pytest.raises(UserError, match=rf"^{tmp_path}/nothing/ca.crt: missing; make the table's CA with"):
        tls_settings(str(tmp_path / "nothing"), 8443, 8080)
    config = tmp_path / "table.toml"
    config.write_text(f'[web]\nport = 80\ntls_dir = "{table_ca.path}"\ntls_port = 443\n')
    loaded = load_config(config)
    assert (loaded.port, loaded.tls_dir, loaded.tls_port) == (80, str(table_ca.path), 443)
    config.write_text('[web]\ntls_port = "443"\n')
    with pytest.raises(UserError, match=r"table.toml: tls_port: expected int, found str$"):
        load_config(config)


def test_serve_with_tls_from_the_command_line_prints_both_addresses(tmp_path, table_ca):
    import subprocess
    import sys

    http_port, https_port = free_port(), free_port()
    argv = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(http_port),
            "--serial", "none", "--db", str(tmp_path / "t.db"), "--tls-dir", str(table_ca.path),
            "--tls-port", str(https_port)]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, body = request(https_port, "/healthz", trusting(table_ca))
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert status == 200 and json.loads(body)["https_port"] == https_port
    finally:
        process.terminate()
        out = process.communicate(timeout=10)[0]
    assert f"Phones that trust the table: https://127.0.0.1:{https_port}/" in out, out
    missing = subprocess.run([*argv[:-4], "--tls-dir", str(tmp_path / "none")], capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr == (f"companion: {tmp_path}/none/ca.crt: missing; make the table's CA with "
                              f"`companion tls init --dir {tmp_path}/none`\n")  # fmt: skip


def test_an_address_gained_while_serving_gets_a_certificate_without_a_restart(secure, table_ca, capsys):
    """The hotspot comes up after the companion: the certificate in use does not name its address until the renewal
    makes a new one from the same CA, and the next handshake presents it."""
    port, context = secure.server.https_port, trusting(table_ca)
    narrow = issue(load_authority(table_ca), Names(("orrery.local",)))  # as if made before 127.0.0.1 existed
    write_file(table_ca.server_cert, narrow.cert.public_bytes(serialization.Encoding.PEM), 0o644)
    write_file(
        table_ca.server_key,
        narrow.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        0o600,
    )
    secure.server.reload_certificate()
    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch"):
        request(port, "/healthz", context, host="127.0.0.1")
    ca = table_ca.ca_cert.read_bytes()
    renewal = Renewal(Tls(table_ca.path, port), secure.server, out=sys.stdout, every=60)
    renewal.tick(time.monotonic())  # not yet: it looks once a minute
    with pytest.raises(ssl.SSLCertVerificationError):
        request(port, "/healthz", context, host="127.0.0.1")
    renewal.tick(time.monotonic() + 61)
    assert request(port, "/healthz", context, host="127.0.0.1")[0] == 200
    assert table_ca.ca_cert.read_bytes() == ca
    assert "https: wrote " in capsys.readouterr().out
    table_ca.ca_key.unlink()  # a CA file gone while serving: said once a minute, the certificate in use stays
    renewal.tick(time.monotonic() + 200)
    assert "https: kept the certificate in use: " in capsys.readouterr().out
    assert request(port, "/healthz", context, host="127.0.0.1")[0] == 200


def test_the_demo_makes_a_ca_in_its_work_folder_and_serves_https(tmp_path):
    import re
    import signal
    import subprocess

    http_port, https_port = free_port(), free_port()
    argv = [sys.executable, "-m", "companion", "demo", "--host", "127.0.0.1", "--port", str(http_port), "--speed",
            "1", "--tls-dir", "--tls-port", str(https_port)]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    try:
        assert process.stdout is not None
        lines = []
        while not any(line.startswith("Phones that trust the table:") for line in lines):
            line = process.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        made = next(re.match(r"https: wrote (\S+)/ca.crt \(Orrery table ", line) for line in lines
                    if line.startswith("https: wrote"))  # fmt: skip
        assert made is not None and made.group(1).endswith("/tls"), lines
        folder = Folder(Path(made.group(1)))
        status, _, body = request(https_port, "/healthz", trusting(folder))
        assert status == 200 and json.loads(body)["https_port"] == https_port
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
