"""The app factory: one Flask app per table, its blueprints, no global state, never the Werkzeug debugger."""

from __future__ import annotations

from flask import Flask, request

from companion.web import errors
from companion.web.api import api
from companion.web.body import BODY_BYTES, taken
from companion.web.context import KEY, Extension, WebSettings
from companion.web.editor import editor
from companion.web.editor_deck import decks
from companion.web.editor_library import shelf
from companion.web.editor_periorbis import periorbis
from companion.web.editor_planet import planets
from companion.web.guides import guides
from companion.web.health import health
from companion.web.pages import pages
from companion.web.phone_camera import phone_camera
from companion.web.phones import phones
from companion.web.summary import summaries
from companion.web.table import Table
from companion.web.trust import ORIGINS_KEY, Origins, trust


def create_app(table: Table, settings: WebSettings | None = None, origins: Origins | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)  # pages.py serves the static files with its own headers
    app.config.update(DEBUG=False, PROPAGATE_EXCEPTIONS=False, JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=BODY_BYTES)
    app.extensions[KEY] = Extension(table, settings or WebSettings())
    app.extensions[ORIGINS_KEY] = origins or Origins()  # the server fills in its ports once it has bound them
    errors.install(app)
    # /events is the server's own (events.py)
    for blueprint in (pages, api, phones, guides, health, trust, summaries, phone_camera, editor, decks, planets,
                      periorbis, shelf):  # fmt: skip
        app.register_blueprint(blueprint)

    @app.before_request
    def _body_limit() -> None:
        """Each view's own limit (body.takes), as the server's door applies it: the app is bounded on its own too."""
        view = app.view_functions.get(request.endpoint or "")
        if view is not None:
            request.max_content_length = max(1, taken(view, table)[0])

    return app
