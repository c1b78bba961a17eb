"""Trusting the table: where the page is served over http and https, and the CA certificate a phone installs to
trust the https one (GET /ca.crt, public: it is what a phone must accept, not a secret).

The QR code and the join address stay on plain http, which every phone opens at once; the page itself offers the
https address to a phone that trusts the table (docs/web.md, "Trusting the table").
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Request, Response, current_app

from companion.web.errors import BadInput

ORIGINS_KEY = "orrery.origins"
trust = Blueprint("trust", __name__)


@dataclass
class Origins:
    """The ports the app is served on (known once the server has bound them) and the CA behind the https one."""

    http_port: int | None = None
    https_port: int | None = None
    ca_pem: bytes | None = None
    ca_file: str = "orrery-table-ca.crt"


def origins() -> Origins:
    return current_app.extensions.get(ORIGINS_KEY) or Origins()


def https_port() -> int | None:
    return origins().https_port


def plain_base(request: Request) -> str:
    """The page's plain-http address for a request that came by either scheme: the QR code points there."""
    served = origins()
    if request.scheme == "http" or served.http_port is None:
        return request.host_url.replace("https://", "http://", 1)
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    port = "" if served.http_port == 80 else f":{served.http_port}"
    return f"http://{host}{port}/"


@trust.get("/ca.crt")
def ca_certificate() -> Response:
    served = origins()
    if served.ca_pem is None:
        raise BadInput("this table serves no https (companion serve --tls-dir), so it has no CA to trust", 404)
    response = Response(served.ca_pem, mimetype="application/x-x509-ca-cert")
    response.headers["Content-Disposition"] = f'attachment; filename="{served.ca_file}"'
    response.headers["Cache-Control"] = "no-cache"
    return response
