"""Phones and seats (docs/openapi.json): a phone joins with the table token and gets a key of its own; it takes a
seat, leaves it or gives it to another phone, or asks the phone that plays a seat for it; the host gives a seat
once the seat's phone agrees, or at once to a phone that asked for it, and frees a seat (a lost phone's); a phone
answers what another asks of its seat. Every change of a seat's phone is an entry of the game's log, in players'
words. And the check every move makes: the seat a request acts for is the phone's own."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from companion.rules import Event
from companion.web.asks import AskRefused
from companion.web.body import field, json_body
from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.guard import Access, requires_host, requires_phone, requires_token, the_phone, this_phone
from companion.web.seats import Phone, SeatRefused

phones = Blueprint("phones", __name__, url_prefix="/api")


def seat_name(seat: str) -> str:
    return seat[:1].upper() + seat[1:]


def _seat(data: dict[str, Any], name: str = "seat") -> str:
    seat = field(data, name, str)
    players = table().session.record.players
    if seat not in players:
        raise BadInput(f"{name}: {seat[:40]!r} is not a seat at this table (seats: {', '.join(players)})")
    return seat


def acting_seat(phone: Phone, data: dict[str, Any]) -> str | None:
    """The seat a request acts for: `actor` if given (it must be one of this phone's seats), else the seat due when
    this phone holds it, else this phone's one seat (None: a phone of several seats, in the table's own phase)."""
    session = table().session
    if data.get("actor") is not None:
        actor = _seat(data, "actor")
        if actor not in phone.seats:
            holder = "another phone's" if table().seats.holder(actor) else "nobody's yet: take it first"
            raise BadInput(f"actor: this phone does not play {seat_name(actor)} ({seat_name(actor)}'s seat is "
                           f"{holder})", 403)  # fmt: skip
        return actor
    due = session.game.phase(session.state).actor
    if due is not None and due in phone.seats:
        return due
    return phone.seats[0] if len(phone.seats) == 1 else None


def _refused(error: Exception) -> BadInput:
    return BadInput(str(error), 409)


def _me(phone: Phone) -> dict[str, Any]:
    return {"phone": phone.id, "host": phone.host, "seats": list(phone.seats), "together": phone.together}


@phones.post("/phones")
@requires_token
def join() -> tuple[Response, int]:
    """A phone joins the table: its id and its key (kept on the phone; shown only here)."""
    phone, key = table().seats.join()
    table().publish_state()
    return jsonify({**_me(phone), "key": key}), 201


@phones.get("/phones/me")
@requires_token
def me() -> Response:
    """This phone as the table knows it: its id, whether it is the host, its seats (null: not joined)."""
    phone = this_phone(Access.TOKEN)
    return jsonify(None if phone is None else _me(phone))


@phones.post("/seats/take")
@requires_phone
def take() -> Response:
    """This phone takes a free seat; a second seat only with `together` (pass and play)."""
    data = json_body()
    seat, together = _seat(data), field(data, "together", bool, False)
    before = table().seats.holder(seat)
    try:
        phone = table().seats.take(the_phone(), seat, together)
    except SeatRefused as error:
        raise _refused(error) from None
    if before is None:
        _logged(seat, f"{seat_name(seat)} joins the table on {_played_on(phone, seat, 'a phone')}.", phone.id)
    return jsonify(_me(phone))


@phones.post("/seats/leave")
@requires_phone
def leave() -> Response:
    seat = _seat(json_body())
    try:
        phone = table().seats.leave(the_phone(), seat)
    except SeatRefused as error:
        raise _refused(error) from None
    table().asks.drop("give", seat)
    _logged(seat, f"{seat_name(seat)}'s seat is free: its phone left it.", phone.id)
    return jsonify(_me(phone))


@phones.post("/seats/give")
@requires_phone
def give() -> tuple[Response, int]:
    """A seat to another phone: at once by its holder (or by the host for a seat nobody holds); asked of the seat's
    phone when the host gives a seat another phone holds (202)."""
    data = json_body()
    seat, to = _seat(data), field(data, "phone", str)
    phone, seats = the_phone(), table().seats
    if seats.phone_by_id(to) is None:
        raise BadInput("phone: no phone of this table has that id (it must join first)")
    holder = seats.holder(seat)
    if holder == phone.id or (holder is None and phone.host):
        _hand_over(seat, to, True, phone.id, "" if holder == phone.id else ": the host gave it")
        return jsonify(entry=None, asked=None, state=table().state()), 200
    if not phone.host:
        raise BadInput(f"seat: {seat_name(seat)}'s seat is another phone's: only its player or the host may give it",
                       403)  # fmt: skip
    asked = table().asks.ask("give", seat, phone.id, f"The host asks to give {seat_name(seat)}'s seat to another "
                             "phone.", to=to)  # fmt: skip
    table().publish_state()
    return jsonify(entry=None, asked=asked.to_json(), state=table().state()), 202


def _who(phone: Phone) -> str:
    """A phone as the players know it: the host's, a seat's, or a watching one (never its id)."""
    if phone.host:
        return "The host's phone"
    return f"{seat_name(phone.seats[0])}'s phone" if phone.seats else "A watching phone"


@phones.post("/seats/ask")
@requires_phone
def ask_for() -> tuple[Response, int]:
    """This phone asks for a seat another phone plays: the seat is this phone's once that phone agrees (202); a free
    seat is taken instead. With `together` (pass and play) this phone keeps its other seats; else it swaps them."""
    data = json_body()
    seat, together = _seat(data), field(data, "together", bool, False)
    phone, seats = the_phone(), table().seats
    holder = seats.holder(seat)
    if holder is None:
        raise BadInput(f"seat: {seat_name(seat)}'s seat is free: take it", 409)
    if holder == phone.id:
        return jsonify(entry=None, asked=None, state=table().state()), 200
    asked = table().asks.ask("give", seat, phone.id, f"{_who(phone)} asks to play {seat_name(seat)}.", to=phone.id,
                               keep=together)  # fmt: skip
    table().publish_state()
    return jsonify(entry=None, asked=asked.to_json(), state=table().state()), 202


@phones.post("/asks/answer")
@requires_phone
def answer() -> Response:
    """Agree (`yes`) or not to what another phone asked of this phone's seat; the asker may withdraw it (no)."""
    data = json_body()
    ask_id, yes = field(data, "ask", int), field(data, "yes", bool)
    phone = the_phone()
    try:
        asked = table().asks.take(ask_id, phone.seats, phone.host, phone.id, yes)
    except AskRefused as error:
        raise _refused(error) from None
    entry = None
    if yes and asked.kind == "give" and asked.to is not None:
        _hand_over(asked.seat, asked.to, asked.keep, phone.id)
    elif yes and asked.kind == "undo":
        session = table().session
        if len(session.actions) != asked.moves:
            table().publish_state()
            raise BadInput("ask: the move asked about is no longer the last one; ask again", 409)
        entry = session.undo("phone", asked.seat, phone.id)
    table().publish_state()
    return jsonify(entry=None if entry is None else table().entry_json(entry), asked=None, state=table().state())


@phones.post("/seats/grant")
@requires_host
def grant() -> Response:
    """The host gives a seat to the phone that asked for it (`ask`, of the state's `asks`), at once: the seat's
    phone need not agree (it may be lost or dead), and no longer acts for it."""
    ask_id = field(json_body(), "ask", int)
    try:
        asked = table().asks.grant(ask_id)
    except AskRefused as error:
        raise _refused(error) from None
    if asked.to is None or table().seats.phone_by_id(asked.to) is None:
        raise BadInput("ask: the phone that asked is no longer one of this table's", 409)
    _hand_over(asked.seat, asked.to, asked.keep, the_phone().id, ": the host gave it")
    return jsonify(entry=None, asked=None, state=table().state())


@phones.post("/seats/free")
@requires_host
def free() -> Response:
    """The host frees a seat (a lost phone's): nobody plays it until a phone takes it."""
    seat = _seat(json_body())
    if table().seats.free(seat) is None:
        raise BadInput(f"seat: {seat_name(seat)}'s seat is free already", 409)
    table().asks.drop("give", seat)
    _logged(seat, f"The host freed {seat_name(seat)}'s seat: any phone may take it.", the_phone().id)
    return jsonify(entry=None, asked=None, state=table().state())


def _hand_over(seat: str, to: str, keep: bool, by: str, how: str = "") -> None:
    """The seat to the phone `to` (see Seats.give), logged as the players say it; `how`: who gave it, if not its
    own phone."""
    seats = table().seats
    had = seats.phone_by_id(to)
    try:
        seats.give(seat, to, keep)
    except SeatRefused as error:
        raise _refused(error) from None
    table().asks.drop("give", seat)
    receiver = seats.phone_by_id(to)
    where = _played_on(receiver, seat, "another phone") if receiver else "another phone"
    _logged(seat, f"{seat_name(seat)} is now played on {where}{how}.", by)
    for left in [s for s in (had.seats if had else ()) if s != seat and seats.holder(s) is None]:
        _logged(left, f"{seat_name(left)}'s seat is free: its phone plays {seat_name(seat)} now.", to)


def _played_on(phone: Phone, seat: str, otherwise: str) -> str:
    """The phone a seat is played on, as the players know it: the phone of its other seat, or `otherwise`."""
    others = [s for s in phone.seats if s != seat]
    return f"{seat_name(others[0])}'s phone" if others else otherwise


def _logged(seat: str, text: str, phone: str) -> None:
    """A change of a seat's phone, kept in the game's log (every phone sees it, and the state after it)."""
    table().session.note(Event("seat", text), "phone", seat, phone)
