// The seats between phones: what one phone asks of another's seat (on every phone; the buttons on the phones that
// may answer), the host's seats dialog (each seat with the phone that plays it; a seat asked for given at once, a
// seat freed: the phone that played it may be lost or flat), and a phone told when a seat it played went elsewhere.
import { openJoin } from "./dialogs.js";

const $ = (id) => document.getElementById(id);

function make(tag, props, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// The host gives a seat to the phone that asked for it, at once (the seat's phone need not agree).
function giveButton(app, ask) {
  return make("button", { type: "button", textContent: `Give ${app.nameOf(ask.seat)} now`, className: "accent",
    onclick: () => app.send("/api/seats/grant", { ask: ask.id }) });
}

export function renderAsks(app, asks) {
  const mine = app.mySeats();
  $("asks").hidden = !asks.length;
  $("asks").replaceChildren(...asks.map((ask) => {
    const item = make("div", { className: "ask" }, make("p", { textContent: ask.text }));
    const row = make("div", { className: "row" });
    if (mine.includes(ask.seat) || (app.host && ask.host_may)) {
      for (const [label, yes] of [["Agree", true], ["Refuse", false]]) {
        row.append(make("button", { type: "button", textContent: label, className: yes ? "accent" : "",
          onclick: () => app.send("/api/asks/answer", { ask: ask.id, yes }) }));
      }
    } else {
      const host = app.host && ask.kind === "give";
      item.append(make("p", { className: "muted", textContent: `Waiting for ${app.nameOf(ask.seat)}'s phone to agree.${
        host ? " Is it lost or flat? As the host, you may give the seat now." : ""}` }));
      if (host) row.append(giveButton(app, ask));
    }
    if (row.children.length) item.append(row);
    return item;
  }));
}

// The host's seats dialog: each seat, the phone that plays it, the phone asking for it.
export function openSeats(app) {
  renderSeats(app);
  $("seat-control").showModal();
}

export function renderSeats(app) {
  const holders = app.state.holders || {}, me = app.phone && app.phone.phone;
  $("seat-rows").replaceChildren(...app.state.players.map((seat) => {
    const holder = holders[seat], name = app.nameOf(seat);
    const who = holder === me ? "this phone" : holder ? "another phone" : "free: any phone may take it";
    const row = make("li", {}, make("p", {}, make("strong", { textContent: name }), ` · ${who}`));
    const ask = (app.state.asks || []).find((a) => a.kind === "give" && a.seat === seat);
    if (ask && holder !== me) row.append(make("p", { className: "muted", textContent: ask.text }), giveButton(app, ask));
    if (holder && holder !== me) {
      row.append(make("button", { type: "button", textContent: `Free ${name}'s seat`, onclick: async () => {
        if (await app.confirm(`Free ${name}'s seat?`, `The phone that plays ${name} stops acting for it. Any phone may take the seat.`)) {
          await app.send("/api/seats/free", { seat });
        }
        if (!$("seat-control").open) $("seat-control").showModal();
      } }));
    }
    return row;
  }));
}

// A seat this phone played that another phone plays now, or that is free, when this phone did not let it go: said
// until read (this phone no longer acts for it).
export function seatsChanged(app, before) {
  const now = app.mySeats();
  for (const seat of now) app.letGo.delete(seat);
  // (a seat the new game does not have went with the old game: no news)
  const lost = before.filter((seat) => app.state.players.includes(seat) && !now.includes(seat) && !app.letGo.has(seat));
  if (!lost.length) return;
  const holders = app.state.holders || {};
  const said = lost.map((seat) => (holders[seat] ? `${app.nameOf(seat)} is now played on another phone.`
    : `The host freed ${app.nameOf(seat)}'s seat.`));
  $("seat-lost-text").textContent = `${said.join(" ")} This phone no longer acts for ${lost.map((seat) => app.nameOf(seat)).join(" or ")}.`;
  $("seat-lost").hidden = false;
  $("seat-lost-ok").onclick = () => { $("seat-lost").hidden = true; };
  $("seat-lost-join").onclick = () => { $("seat-lost").hidden = true; openJoin(app); };
  if (lost.includes(app.seat.name)) {
    app.seat = {};
    localStorage.removeItem("orrery.seat");
  }
  if (app.vibrateOn && navigator.vibrate) navigator.vibrate([180, 90, 180]);
}
