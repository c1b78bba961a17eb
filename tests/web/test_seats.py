"""A seat belongs to the phone that took it: it changes phones when its holder gives it, when its phone agrees to
another phone's ask, when the host gives it and the seat's phone agrees, or when the host gives it to a phone that
asked for it or frees it (a lost phone's); never otherwise. Every log entry names the phone and the seat that made
it, and every change of a seat's phone is an entry in players' words."""

from __future__ import annotations


def phone_id(served, key: str) -> str:
    return served.table.seats.phone(key).id


def test_a_holder_gives_its_seat_at_once_and_another_phone_s_seat_is_not_its_to_give(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    blue = served.join()
    assert served.post("/api/seats/take", {"seat": "blue"}, key=blue)[0] == 200
    other = served.join()
    status, answer = served.post("/api/seats/give", {"seat": "red", "phone": phone_id(served, other)}, key=blue)
    assert status == 403 and "only its player or the host" in answer["error"]
    assert served.post("/api/seats/give", {"seat": "blue", "phone": phone_id(served, other)}, key=blue)[0] == 200
    assert served.table.seats.holder("blue") == phone_id(served, other)
    assert served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "blue"}, key=blue)[0] == 403


def test_the_host_gives_another_phone_s_seat_only_once_that_phone_agrees(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    blue, newcomer = served.join(), served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=blue)
    status, asked = served.post("/api/seats/give", {"seat": "blue", "phone": phone_id(served, newcomer)})
    assert status == 202 and served.table.seats.holder("blue") == phone_id(served, blue)
    ask = asked["asked"]["id"]
    status, answer = served.post("/api/asks/answer", {"ask": ask, "yes": True})  # the host cannot agree for Blue
    assert status == 409 and "only Blue's phone" in answer["error"]
    assert served.post("/api/asks/answer", {"ask": ask, "yes": True}, key=newcomer)[0] == 409
    assert served.post("/api/asks/answer", {"ask": ask, "yes": True}, key=blue)[0] == 200
    assert served.table.seats.holder("blue") == phone_id(served, newcomer)
    assert served.get("/api/state")["asks"] == []


def test_a_phone_asks_for_a_seat_and_has_it_once_the_seat_s_phone_agrees(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    blue, asker = served.join(), served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=blue)
    status, asked = served.post("/api/seats/ask", {"seat": "blue"}, key=asker)
    assert status == 202 and asked["asked"]["text"] == "A watching phone asks to play Blue."
    listed = served.get("/api/state")["asks"]
    assert [a["text"] for a in listed] == ["A watching phone asks to play Blue."] and not listed[0]["host_may"]
    assert served.post("/api/asks/answer", {"ask": listed[0]["id"], "yes": False}, key=blue)[0] == 200  # refused
    assert served.table.seats.holder("blue") == phone_id(served, blue)
    # Asked again, by a phone that plays another seat and swaps it: the seat's phone agrees.
    served.post("/api/seats/leave", {"seat": "red"})
    served.post("/api/seats/take", {"seat": "red"}, key=asker)
    status, asked = served.post("/api/seats/ask", {"seat": "blue"}, key=asker)
    assert asked["asked"]["text"] == "Red's phone asks to play Blue."
    assert served.post("/api/asks/answer", {"ask": asked["asked"]["id"], "yes": True}, key=blue)[0] == 200
    me = served.table.seats.phone(asker)
    assert me.seats == ("blue",) and not me.together and served.table.seats.holder("red") is None
    status, answer = served.post("/api/seats/ask", {"seat": "red"}, key=asker)
    assert status == 409 and "free: take it" in answer["error"]


def test_every_log_entry_names_the_phone_and_the_seat_that_made_it(served):
    host = phone_id(served, served.own_key())
    assert served.post("/api/games", {"game": "trajectory", "players": ["red", "blue"]})[0] == 201
    served.post("/api/seats/leave", {"seat": "blue"})
    blue = served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=blue)
    session = served.session
    while session.game.phase(session.state).actor != "red":
        served.post("/api/act", {"action": next(iter(session.game.legal_actions(session.state))).to_json()})
    served.post("/api/pause", {"paused": True})
    served.post("/api/pause", {"paused": False}, key=blue)
    entries = served.get(f"/api/log?game={session.record.id}")["entries"]
    assert entries[0]["phone"] == host and entries[0]["kind"] == "note"  # the game begun by the host's phone
    by_phone = [e for e in entries if e["source"] == "phone"]
    assert by_phone and all(e["phone"] and e["actor"] for e in by_phone)
    assert (by_phone[-2]["phone"], by_phone[-2]["actor"]) == (host, "red")
    assert (by_phone[-1]["phone"], by_phone[-1]["actor"]) == (phone_id(served, blue), "blue")


def seat_lines(served) -> list[str]:
    entries = served.get(f"/api/log?game={served.session.record.id}")["entries"]
    return [e["events"][0]["text"] for e in entries if e["events"] and e["events"][0]["type"] == "seat"]


def test_the_host_gives_a_lost_phone_s_seat_to_a_phone_that_asked_and_the_lost_phone_no_longer_acts_for_it(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    lost, newcomer = served.join(), served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=lost)
    status, asked = served.post("/api/seats/ask", {"seat": "blue"}, key=newcomer)
    assert status == 202
    # Only the host's phone, known from the request's head: the body is never read (nor parsed) for another.
    status, answer = served.request("POST", "/api/seats/grant", raw=b"{not json", key=newcomer)
    assert status == 403 and "only the host's phone" in answer["error"]
    assert served.post("/api/seats/grant", {"ask": asked["asked"]["id"]})[0] == 200
    assert served.table.seats.holder("blue") == phone_id(served, newcomer)
    assert served.get("/api/state")["asks"] == []
    while served.session.game.phase(served.session.state).actor != "blue":
        served.post(
            "/api/act", {"action": next(iter(served.session.game.legal_actions(served.session.state))).to_json()}
        )
    status, answer = served.post("/api/pause", {"paused": True}, key=lost)
    assert status == 403 and "watches" in answer["error"]
    assert served.post("/api/pause", {"paused": True}, key=newcomer)[0] == 200
    assert seat_lines(served)[-2:] == ["Blue joins the table on a phone.",
                                       "Blue is now played on another phone: the host gave it."]  # fmt: skip


def test_the_host_frees_a_seat_and_the_seats_history_outlives_a_restart(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    blue = served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=blue)
    ids = [phone_id(served, blue), phone_id(served, served.own_key())]
    status, answer = served.post("/api/seats/free", {"seat": "blue"}, key=blue)
    assert status == 403 and "only the host's phone" in answer["error"]
    assert served.post("/api/seats/free", {"seat": "blue"})[0] == 200
    assert served.table.seats.holder("blue") is None and served.table.seats.phone(blue).seats == ()
    status, answer = served.post("/api/seats/free", {"seat": "blue"})
    assert status == 409 and answer["error"] == "seat: Blue's seat is free already"
    served.post("/api/seats/take", {"seat": "blue"}, key=served.join())
    said = ["Blue's seat is free: its phone left it.", "Blue joins the table on a phone.",
            "The host freed Blue's seat: any phone may take it.", "Blue joins the table on a phone."]  # fmt: skip
    assert seat_lines(served) == said
    served.restart()
    lines = seat_lines(served)
    assert lines == said and not any(phone in line for phone in ids for line in lines)
