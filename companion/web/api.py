"""The JSON API (docs/openapi.json): reading the game, and what a phone may do: a seat's moves, undo and pause
from the phone that holds the seat; a new game and a new table code from the host's (guard.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.rules import Action, load, names
from companion.table.session import CannotResume
from companion.table.store import StoreError
from companion.web.boardmap import board_json
from companion.web.body import field, json_body, whole_arg
from companion.web.calibration import snapshot_jpeg
from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.guard import check_token, requires_host, requires_phone, requires_seat, the_phone
from companion.web.inputs import inputs as legal_inputs
from companion.web.join import join_url, qr_svg
from companion.web.options import option_fields
from companion.web.phones import acting_seat, seat_name
from companion.web.surfaces import surface_json, surfaces
from companion.web.trust import https_port, plain_base

api = Blueprint("api", __name__, url_prefix="/api")


def _turn(actor: str | None) -> None:
    """A phone acts for its own seat: on another seat's turn it may not act (the table's own phases are any seated
    phone's)."""
    session = table().session
    due = session.game.phase(session.state).actor
    if due is not None and actor != due:
        mine = f"{seat_name(actor)}'s phone" if actor else "this phone"
        raise BadInput(f"it is {seat_name(due)}'s turn: {mine} cannot act for them", 409)


def _action(data: dict[str, Any]) -> Action:
    return table().session.game.decode_action(field(data, "action", dict))


def _done(entry: Any) -> Response:
    return jsonify(entry=table().entry_json(entry), state=table().state())


@api.get("/state")
def state() -> Response:
    return jsonify({**table().state(), "https_port": https_port()})


@api.get("/log")
def log() -> Response:
    """The log of one game (default: the one in play), entries after `after`."""
    after, game_id = whole_arg("after", 0), whole_arg("game", table().session.record.id)
    entries = table().logbook.entries(after, game_id)
    with table().logbook.reader() as store:
        last = store.last_entry_id()
    return jsonify(game_id=game_id, entries=entries, last=last)


@api.get("/ledger")
def ledger() -> Response:
    session = table().session
    return jsonify(session.game.ledger(session.state))


@api.get("/board")
def board() -> Response:
    """The board for the map, with the maps the page may open beside it (`surfaces`); ?surface=ID: one of those."""
    session = table().session
    surface = request.args.get("surface")
    if surface is None:
        marks = dict(session.game.marks)
        return jsonify({**board_json(table().board()), "surfaces": surfaces(session.record.game), "marks": marks})
    drawn = surface_json(session.game, session.state, surface)
    if drawn is None:
        raise BadInput(f"surface: this game has no map {surface!r}", 404)
    return jsonify({**drawn, "marks": dict(session.game.marks)})


@api.get("/inputs")
def inputs() -> Response:
    """Every legal action now, split into declared inputs (phone) and board moves (board), each with its sentence,
    the sites it changes and its arguments in words; `made_by` names the state they were made from, as the states a
    phone is sent do, so that the phone offers no move of a state it no longer shows."""
    session = table().session
    with session.lock:  # the state and its name read together
        game, current, made_by = session.game, session.state, session.made_by
    listed = legal_inputs(game, current, table().words())
    muster = game.muster(current)
    return jsonify(
        game_id=session.record.id,
        made_by=made_by,
        actor=game.phase(current).actor,
        phone=[item for item in listed if not item["board"]],
        board=[item for item in listed if item["board"]],
        muster=muster.to_json() if muster else None,
    )


@api.get("/history")
def history() -> Response:
    """The latest games of this table, newest first, each with its result and every seat's books at its end."""
    return jsonify(games=table().past.history())


@api.get("/export")
def export() -> Response:
    """A whole game as JSON (its setup, every log entry, the actions and the final state), as a file to keep."""
    game_id = whole_arg("game", table().session.record.id)
    try:
        exported = table().past.export(game_id)
    except CannotResume as error:
        raise BadInput(str(error), 409) from None
    except StoreError:
        raise BadInput("game: no such game in this table's log", 404) from None
    response = jsonify(exported)
    response.headers["Content-Disposition"] = f'attachment; filename="orrery-{exported["game"]}-{game_id}.json"'
    return response


@api.get("/games")
def games() -> Response:
    listed = []
    for name in names():
        game = load(name)
        listed.append(
            {
                "name": name,
                "title": game.title,
                "min_players": game.min_players,
                "max_players": game.max_players,
                "options": option_fields(game, table().datasets.offered(name)),
                # Where a group makes its own copy: the board editor for a game played on a board it names, else the
                # game's own editor of its data (Periorbis's cards, track and start team).
                "editor": f"/editor?game={name}" if game.board_option else f"/editor/{name}",
            }
        )
    return jsonify(games=listed)


@api.post("/games")
@requires_host
def new_game() -> tuple[Response, int]:
    data = json_body()
    game = field(data, "game", str)
    players = field(data, "players", list)
    if not players or not all(isinstance(p, str) and p for p in players) or len(set(players)) != len(players):
        raise BadInput("players: expected a list of different, non-empty seat names")
    options = field(data, "options", dict, {})
    if "seed" in data:  # a phone that chose the seed would know every draw and roll to come
        raise BadInput("seed: the companion shuffles and rolls from the system's entropy; a phone cannot choose it")
    table().new_game(game, players, options, None, phone=the_phone().id)
    return jsonify(table().state()), 201


@api.post("/act")
@requires_seat
def act() -> Response:
    data, phone = json_body(), the_phone()
    action, actor = _action(data), acting_seat(phone, data)
    _turn(actor)
    return _done(table().declare(action, actor, phone.id))


@api.post("/muster")
@requires_seat
def muster() -> Response:
    """Units bought by numbers (`counts`: kind -> how many, of the inputs' `muster`), placed by the game's rule and
    booked as its purchases one by one, all or none."""
    data, phone = json_body(), the_phone()
    actor = acting_seat(phone, data)
    _turn(actor)
    counts = field(data, "counts", dict)
    if len(counts) > 32 or not all(
        isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 99 for n in counts.values()
    ):
        raise BadInput("counts: expected each kind's number of units, 0 to 99")
    session = table().session
    actions = session.game.muster_actions(session.state, {k: n for k, n in counts.items() if n})
    if not actions:
        raise BadInput("counts: choose at least one unit to buy")
    entries = session.submit_all(actions, "phone", actor, phone.id)
    return _done(entries[-1])


@api.post("/choose")
@requires_seat
def choose() -> Response:
    data, phone = json_body(), the_phone()
    question, index, actor = field(data, "question", int), field(data, "index", int), acting_seat(phone, data)
    try:
        return _done(table().choose(question, index, actor, phone.id))
    except LookupError as error:
        raise BadInput(str(error.args[0])) from None


@api.post("/override")
@requires_seat
def override() -> Response:
    data, phone = json_body(), the_phone()
    action, actor = _action(data), acting_seat(phone, data)
    _turn(actor)
    return _done(table().override(action, actor, phone.id))


@api.post("/undo")
@requires_seat
def undo() -> tuple[Response, int]:
    """Take back the last move: at once when it was this phone's seat's (or nobody's, or this is the host's
    phone); another seat's move is asked of that seat's phone (or the host's) first (202, `asked`)."""
    data, phone = json_body(), the_phone()
    actor, session = acting_seat(phone, data), table().session
    owner = session.last_actor
    if owner is None or owner in phone.seats or phone.host or not session.actions:
        entry = session.undo("phone", actor, phone.id)
        return jsonify(entry=table().entry_json(entry), state=table().state(), asked=None), 200
    text = f"{seat_name(actor) if actor else 'A player'} asks to take back {seat_name(owner)}'s move."
    asked = table().asks.ask("undo", owner, phone.id, text, host_may=True, moves=len(session.actions))
    table().publish_state()
    return jsonify(entry=None, state=table().state(), asked=asked.to_json()), 202


@api.post("/pause")
@requires_seat
def pause() -> Response:
    data, phone = json_body(), the_phone()
    return _done(table().session.set_paused(field(data, "paused", bool), "phone", acting_seat(phone, data),
                                            phone.id))  # fmt: skip


@api.get("/qr")
def qr() -> Response:
    """A QR code of this page's address: with the token (to join and play) for a player, without it to watch."""
    watch = request.args.get("watch", "false") == "true"
    if not watch:
        check_token()
    url = join_url(plain_base(request), None if watch else table().seats.token)
    return jsonify(url=url, svg=qr_svg(url), watch=watch)


@api.post("/seat")
@requires_phone
def seat() -> Response:
    """A player's name beside a seat's colour (an empty name takes it away): the seat's own phone, or the host's."""
    data, phone = json_body(), the_phone()
    seat, name = field(data, "seat", str), field(data, "name", str).strip()
    if seat not in table().session.record.players:
        raise BadInput(f"seat: {seat[:40]!r} is not a seat at this table")
    if seat not in phone.seats and not phone.host:
        raise BadInput(f"seat: this phone does not play {seat_name(seat)}", 403)
    if len(name) > 24 or any(not ch.isprintable() for ch in name):
        raise BadInput("name: at most 24 printable characters")
    table().name_seat(seat, name)
    return jsonify(table().state())


@api.post("/token")
@requires_host
def rotate_token() -> Response:
    """A new table token (the host's button): every other phone must scan the new QR code to act again."""
    token = table().seats.rotate_token()
    url = join_url(plain_base(request), token)
    return jsonify(token=token, url=url, svg=qr_svg(url))


@api.get("/calibration/snapshot.jpg")
def calibration_snapshot() -> Response:
    feed = table().camera
    if feed is None:
        raise BadInput("no camera is connected to this table", 404)
    response = Response(snapshot_jpeg(feed), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response
