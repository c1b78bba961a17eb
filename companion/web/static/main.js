// The phone page: the state and the announcements arrive on one Server-Sent Events stream (/events); inputs go to
// the JSON API with the table token. See docs/web.md.
import { get, joinTable, post, takeTokenFromUrl } from "./api.js";
import { BoardMap, pieceColour } from "./map.js";
import { speech } from "./speech.js";
import { openCalibration, openInvite, openJoin, openOverride, openSettings, openSetup } from "./dialogs.js";
import { startSecure } from "./secure.js";
import { Guides } from "./guide.js";
import { Moves } from "./play.js";
import { openSeats, renderAsks, renderSeats, seatsChanged } from "./seats.js";
import { shareSummary } from "./share.js";
import { Surfaces } from "./surfaces.js";

const $ = (id) => document.getElementById(id);
const LOG_LIMIT = 300;

const app = {
  state: null,
  gameId: null,
  lastId: 0,
  log: "",  // the log's identity: with lastId, where this page stands (another log's position gets a fresh start)
  isPlayer: false,  // this phone holds the table token
  phone: null,  // this phone as the table knows it: {phone, host, seats}
  wanted: null,  // the seat this phone asked another phone for: {name, colour} (it shows once given)
  letGo: new Set(),  // seats this phone chose to leave or swap (no news when they go)
  seat: JSON.parse(localStorage.getItem("orrery.seat") || "{}"),
  vibrateOn: localStorage.getItem("orrery.vibrate") !== "off",
  warning: null,
  question: null,
  map: new BoardMap($("map")),
  setSeat(seat) {
    this.seat = seat;
    localStorage.setItem("orrery.seat", JSON.stringify(seat));
    showSeat();
    if (this.state) renderState(this.state);
  },
  setVibrate(on) { this.vibrateOn = on; localStorage.setItem("orrery.vibrate", on ? "on" : "off"); },
  showSpeechButton() { $("speech-on").hidden = !speech.available || speech.on; },
  async send(path, body = {}) {
    try {
      return await post(path, { ...body, actor: this.actorName() });
    } catch (error) {
      complain(error.message);
      return null;
    }
  },
  // The seats this phone plays (the table says which phone holds each); a phone with none only watches.
  mySeats() {
    if (!this.phone || !this.state) return [];
    return this.state.players.filter((seat) => (this.state.holders || {})[seat] === this.phone.phone);
  },
  get seated() { return this.isPlayer && this.mySeats().length > 0; },
  get host() { return this.isPlayer && !!this.phone && this.phone.host; },
  // The seat this phone acts for now: the seat due when it plays it, else the one it chose, else its first.
  actorName() {
    const seats = this.mySeats();
    const due = this.state && this.state.phase.actor;
    if (due && seats.includes(due)) return due;
    return seats.includes(this.seat.name) ? this.seat.name : seats[0] || null;
  },
  // A seat as players say it: its colour, and the player's name beside it when one was given.
  nameOf(seat) {
    const colour = seat.charAt(0).toUpperCase() + seat.slice(1);
    const name = this.state && this.state.seat_names && this.state.seat_names[seat];
    return name ? `${name} (${colour})` : colour;
  },
  // A yes/no question before a table action (undo, a new game, a new table code).
  confirm(title, text) {
    return new Promise((resolve) => {
      const dialog = $("confirm");
      $("confirm-title").textContent = title;
      $("confirm-text").textContent = text;
      dialog.onclose = () => resolve(dialog.returnValue === "yes");
      dialog.returnValue = "";
      dialog.showModal();
    });
  },
  redrawMap() {
    if (!this.state) return;
    this.surfaces.count();
    $("terrain-key").hidden = !this.surfaces.shown;
    const view = this.guides.mapView(this.state.layout);
    this.map.update(view.layout, this.warning ? this.warning.sites : [], view.target, view.wrong);
    $("piece-key").textContent = this.map.key();
  },
  renderPlaceList() { renderPlaceList(); },
  showZoom() { showZoom(); },
};
app.complain = (text) => complain(text);
app.guides = new Guides(app);
app.moves = new Moves(app);
app.surfaces = new Surfaces(app);
app.map.onSite = (site) => (app.guides.active() ? app.guides.tapSite(site) : app.moves.tapSite(site));
// For the browser tests and anyone curious: when each announcement reached the page.
window.orrery = { app, announced: {} };

function complain(text) {
  const toast = $("toast");
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(complain.timer);
  complain.timer = setTimeout(() => { toast.hidden = true; }, 5000);
  if (app.vibrateOn && navigator.vibrate) navigator.vibrate([180, 90, 180]);
  speech.say(text);
}

function showZoom() {
  const near = app.map.near || 1;
  $("zoom").textContent = near > 1 ? (app.map.zoom === 1 ? "Closer" : "Whole map") : (app.map.zoom === 1 ? "Zoom" : `Zoom ×${app.map.zoom}`);
}

function colourOf(name) { return (name === app.seat.name && app.seat.colour) || pieceColour(name); }

// The badge names the seat this phone acts for now: on a phone passed round the table (it plays several seats), the
// seat whose turn it is, not the one picked last.
function showSeat() {
  const badge = $("seat");
  const seat = (app.state && app.actorName()) || app.seat.name;
  badge.hidden = !seat;
  const given = seat && app.state && app.state.seat_names && app.state.seat_names[seat];
  badge.textContent = given || (seat ? app.nameOf(seat) : "");  // "Green", never "green"
  badge.title = seat ? app.nameOf(seat) : "";
  badge.style.color = seat ? colourOf(seat) : "";
}

// The phase banner, the map, the ledger and the setup list, from one state.
function renderState(state) {
  const newGame = state.game_id !== app.gameId;
  const before = app.state ? app.mySeats() : [];
  app.state = state;
  if (app.wanted && app.mySeats().includes(app.wanted.name)) {  // the seat this phone asked for is its own now
    app.seat = app.wanted;
    app.wanted = null;
    localStorage.setItem("orrery.seat", JSON.stringify(app.seat));
  }
  seatsChanged(app, before);
  showPhone();
  if (newGame) drawGame(state);
  $("title").textContent = state.title;
  showSeat();
  app.map.names = state.names || {};
  const phase = state.phase;
  const yours = !!phase.actor && phase.actor === app.actorName() && !state.outcome;
  const who = yours ? "your turn" : phase.actor ? `${app.nameOf(phase.actor)}'s turn` : "the whole table";
  $("phase-line").textContent = [phase.count, phase.name.replaceAll("_", " "), who,
    state.status === "paused" ? "paused" : ""].filter(Boolean).join(" · ");
  $("your-turn").hidden = !yours;
  $("prompt").textContent = state.outcome ? state.outcome.sentence : phase.prompt;
  $("banner").classList.toggle("over", !!state.outcome);
  $("banner").classList.toggle("mine", yours);
  $("pause").textContent = state.status === "paused" ? "Resume" : "Pause";
  renderQuestion(app.question);  // (its buttons: this phone's seats may have changed)
  renderAsks(app, state.asks || []);
  if ($("seat-control").open) renderSeats(app);
  app.redrawMap();
  renderLedger(state.books, phase.actor);
  renderSummary(state);
  app.moves.render();  // (a watching phone: no move offered, no hint to make one)
  if (app.seated) refreshInputs();  // this state's moves: until they come, those shown take no tap
}

// What this phone may do shows only on a phone that may do it: a seat's controls on a phone that plays a seat, the
// host's on the host's phone; a phone that watches sees none.
function showPhone() {
  document.body.classList.toggle("seated", app.seated);
  document.body.classList.toggle("host", app.host);
  $("watching").textContent = app.isPlayer ? "Watching. To play, tap ⚙ (Settings), then Change seat: take a free seat, or ask for one."
    : "Watching. Scan the table's QR code to play.";
}

// A game's board and log that fail to come (a Wi-Fi blip, the table restarting) are asked for again: until they do,
// the page says so, and the next state (or the retry) draws the game.
function drawGame(state) {
  const earlier = app.gameId;  // null: the page's first game (start() offers the seats then)
  startGame(state, earlier).catch(() => {
    if (app.gameId !== state.game_id) return;  // another game came meanwhile: it is drawn instead
    app.gameId = earlier;
    complain("The game's board did not come through: asking again…");
    setTimeout(() => { if (app.state && app.state.game_id !== app.gameId) renderState(app.state); }, 2000);
  });
}

async function startGame(state, earlier) {
  app.gameId = state.game_id;
  app.moves.close();
  const board = await get(`/api/board?game=${state.game_id}`);
  app.surfaces.start(board);
  app.map.draw(board);
  showZoom();
  app.redrawMap();
  const log = await get(`/api/log?game=${state.game_id}`);
  $("log").replaceChildren();
  for (const entry of log.entries) addEntry(entry, false);
  // The last move, highlighted from the first load: the sites its action names.
  const last = [...log.entries].reverse().find((entry) => ["action", "correction"].includes(entry.kind) && entry.action);
  if (last) app.map.setMoved(Object.values(last.action).flat().filter((value) => app.map.sites.has(value)));
  app.opening = log.entries.every((entry) => entry.kind === "note");  // no move yet: the page lists where every piece goes
  renderPlaceList();
  if (earlier !== null && wantsSeat()) openJoin(app);  // a new game: its seats may be other seats
}

// A phone with the token that plays no seat and did not choose to watch is offered the seats.
function wantsSeat() {
  return app.isPlayer && app.mySeats().length === 0 && localStorage.getItem("orrery.watch") !== "yes";
}

// Where every piece goes, before the first move; while the setup is guided, in the guide's order with the pieces
// placed so far ticked off.
function renderPlaceList() {
  const place = $("place"), guide = app.guides.active(), setup = guide && guide.kind === "setup" ? guide.data : null;
  const name = (site) => (app.map.sites.get(site) || { name: site }).name;
  const piece = (id) => (app.state && app.state.names && app.state.names[id]) || id.replaceAll("-", " ");
  const rows = setup ? setup.order.map(([id, site], i) => [`${piece(id)} → ${name(site)}`, i < setup.placed ? "done"
    : i === setup.placed ? "current" : ""])
    : Object.entries(app.state ? app.state.layout : {}).map(([site, pieces]) => [`${pieces.map(piece).join(", ")} → ${name(site)}`, ""]);
  place.replaceChildren(...rows.map(([text, style]) => Object.assign(document.createElement("li"), { textContent: text, className: style })));
  place.hidden = !setup && (!app.opening || !!guide);
  $("guide-start").hidden = !!guide || !app.opening;
}

// The books: one card per seat, this phone's own first, the seat whose turn it is marked; then the table's.
function renderLedger(books, actor) {
  const own = app.actorName();
  const players = [...books.players].sort((a, b) => (b.seat === own) - (a.seat === own));
  const cards = players.map((p) => card(app.nameOf(p.seat), p.rows, p.seat === actor, colourOf(p.seat), p.seat === own));
  if (books.table.length) cards.push(card("Table", books.table, false, "var(--line)", false, "table"));
  $("ledger").replaceChildren(...cards);
}

// The end of the game: the result, each seat's books at the end (winners first), and the game to keep as a file.
function renderSummary(state) {
  $("summary").hidden = !state.outcome;
  if (!state.outcome) return;
  $("summary-result").textContent = state.outcome.sentence;
  $("summary-cards").replaceChildren(...finalCards(state.books, state.outcome.winners || []));
  $("summary-export").href = `/api/export?game=${state.game_id}`;
  $("summary-page").href = `/games/${state.game_id}`;
  $("summary-share").onclick = () => shareSummary(state.game_id, `${state.title}: ${state.outcome.sentence}`);
}

function finalCards(books, winners) {
  const players = [...books.players].sort((a, b) => winners.includes(b.seat) - winners.includes(a.seat));
  return players.map((p) => card(`${app.nameOf(p.seat)}${winners.includes(p.seat) ? " · winner" : ""}`, p.rows,
    winners.includes(p.seat), colourOf(p.seat), false));
}

// Past games of this table, newest first, loaded when the list is opened.
async function renderHistory() {
  const { games } = await get("/api/history");
  $("history-list").replaceChildren(...games.map((game) => {
    const item = document.createElement("details");
    const summary = document.createElement("summary");
    const when = new Date(game.created * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
    const seats = game.players.map((seat) => app.nameOf(seat)).join(", ");
    summary.textContent = `${game.title}, ${when}: ${game.result || (game.status === "over" ? "over" : "not finished")}`;
    const body = document.createElement("div");
    body.className = "ledger";
    body.append(...finalCards(game.books, game.winners));
    const players = Object.assign(document.createElement("p"), { className: "muted", textContent: `Players: ${seats}` });
    const keep = Object.assign(document.createElement("a"), { className: "button", href: `/api/export?game=${game.id}`,
      textContent: "Keep the game (JSON)" });
    keep.download = "";
    const page = Object.assign(document.createElement("a"), { className: "button", href: `/games/${game.id}`,
      textContent: "Summary page" });
    const links = Object.assign(document.createElement("div"), { className: "row" });
    links.append(page, keep);
    item.append(summary, players, body, links);
    return item;
  }));
}

function card(title, rows, active, colour, own, style = "") {
  const div = document.createElement("div");
  div.className = `card${active ? " active" : ""}${own ? " own" : ""} ${style}`;
  div.style.borderTopColor = colour;
  const head = document.createElement("b");
  head.textContent = own ? `${title} · you` : title;
  const dl = document.createElement("dl");
  for (const [label, text] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.textContent = text;
    dl.append(dt, dd);
  }
  div.append(head, dl);
  return div;
}

function renderWarning(warning) {
  const was = app.warning;
  app.warning = warning;
  $("warning").hidden = !warning;
  if (warning) $("warning-headline").textContent = warning.headline;
  $("warning").classList.toggle("progress", Boolean(warning && warning.progress));
  $("advice").replaceChildren(...(warning ? warning.advice : []).map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }));
  if (warning && (!was || was.text !== warning.text)) {
    if (app.vibrateOn && navigator.vibrate) navigator.vibrate([250, 100, 250]);
    speech.say(warning.text);
    $("live").textContent = warning.text;
  }
  if (app.map.circles) app.redrawMap();
}

// The question and the warning come on their own, never in a state (one made before them may arrive after). The
// same question again keeps its buttons: none is replaced under a finger.
function renderQuestion(question) {
  const same = !!question && JSON.stringify(question) === JSON.stringify(app.question);
  app.question = question;
  $("question").hidden = !question;
  const choices = $("choices");
  if (same) {
    for (const button of choices.children) button.disabled = !app.seated;
    return;
  }
  choices.replaceChildren();
  if (!question) return;
  // A piece that may still be in a hand: what is held, and one tap per place the board cannot feel it land.
  $("question-headline").textContent = question.headline || "Which move did the table make?";
  $("question-hint").hidden = !question.in_hand;
  $("question").classList.toggle("in-hand", Boolean(question.in_hand));
  question.choices.forEach((text, index) => {
    const button = document.createElement("button");
    button.textContent = text;
    button.disabled = !app.seated;
    button.onclick = () => app.send("/api/choose", { question: question.id, index });
    choices.appendChild(button);
  });
}

function addEntry(entry, fresh) {
  const log = $("log");
  if (log.querySelector(`li[data-entry="${entry.id}"]`)) return;  // the log fetch and the stream may overlap
  for (const event of entry.events) {
    const li = document.createElement("li");
    li.textContent = event.text;
    li.dataset.entry = entry.id;
    if (entry.kind === "undo") li.className = "undone";
    if (entry.kind === "correction") li.className = "corrected";
    if (fresh) li.classList.add("fresh");
    log.prepend(li);
    if (fresh) {
      speech.say(event.text);
      const live = document.createElement("p");
      live.textContent = event.text;
      $("live").replaceChildren(live);
    }
  }
  for (const old of log.querySelectorAll("li.fresh")) if (old.dataset.entry !== String(entry.id)) old.classList.remove("fresh");
  while (log.children.length > LOG_LIMIT) log.lastChild.remove();
  if (fresh) window.orrery.announced[entry.id] = performance.timeOrigin + performance.now();
}

// What this phone may do now: refreshed after each state, at most one request at a time.
async function refreshInputs() {
  if (refreshInputs.busy) { refreshInputs.again = true; return; }
  refreshInputs.busy = true;
  try {
    app.moves.load(await get("/api/inputs"));
  } catch {
    // The moves shown take no tap until this state's come, so they are asked for again until they do.
    $("declared").textContent = "The moves did not come through: asking again…";
    setTimeout(() => { if (app.seated && !app.moves.current()) refreshInputs(); }, 2000);
  } finally {
    refreshInputs.busy = false;
    if (refreshInputs.again) { refreshInputs.again = false; refreshInputs(); }
  }
}

// The stream: the browser reconnects by itself and sends Last-Event-ID; the server replays what was missed.
function connect() {
  const stream = new EventSource(`/events?after=${app.log ? `${app.log}-` : ""}${app.lastId}`);
  const link = $("link");
  stream.onopen = () => { link.textContent = "live"; link.className = "link up"; };
  stream.onerror = () => {
    link.textContent = "reconnecting…";
    link.className = "link down";
    if (stream.readyState === EventSource.CLOSED) setTimeout(() => { stream.close(); connect(); }, 3000);
  };
  stream.addEventListener("entry", (message) => {
    const entry = JSON.parse(message.data);
    if (entry.id <= app.lastId) return;
    app.lastId = entry.id;
    if (entry.game_id !== app.gameId) return;
    addEntry(entry, true);
    if (entry.kind === "action" && app.opening) { app.opening = false; renderPlaceList(); }
  });
  // The table's log was replaced (a new database): what follows is its game in play from the first entry, then
  // its state, which draws that game afresh.
  stream.addEventListener("reset", (message) => {
    app.log = JSON.parse(message.data).log;
    app.lastId = 0;
    app.gameId = null;
  });
  stream.addEventListener("state", (message) => renderState(JSON.parse(message.data)));
  stream.addEventListener("question", (message) => renderQuestion(JSON.parse(message.data)));
  stream.addEventListener("warning", (message) => {
    const warning = JSON.parse(message.data);
    renderWarning(warning);
  });
  stream.addEventListener("sensors", (message) => { link.title = JSON.stringify(JSON.parse(message.data)); });
  for (const kind of ["calibration", "setup"]) {
    stream.addEventListener(kind, (message) => app.guides.update(kind, JSON.parse(message.data)));
  }
  window.orrery.stream = stream;
}

async function start() {
  app.isPlayer = !!takeTokenFromUrl();
  document.body.classList.toggle("player", app.isPlayer);
  showSeat();
  app.showSpeechButton();
  $("speech-on").onclick = () => { speech.set({ on: true }); app.showSpeechButton(); speech.say("Speech is on."); };
  for (const button of document.querySelectorAll("[data-open]")) {
    const open = { settings: openSettings, invite: openInvite, setup: openSetup, calibration: openCalibration }[button.dataset.open];
    button.onclick = () => Promise.resolve(open(app)).catch((error) => complain(error.message));
  }
  $("seat-control-open").onclick = () => { $("settings").close(); openSeats(app); };
  $("override-open").onclick = () => openOverride(app).catch((error) => complain(error.message));
  $("guide-start").onclick = () => app.send("/api/setup", { do: "start" });
  $("undo").onclick = async () => {
    const last = $("log").querySelector("li:not(.undone)");
    const text = last ? `Take back: “${last.textContent}”` : "Take back the last move.";
    if (!(await app.confirm("Undo the last move?", `${text} Every phone sees it undone.`))) return;
    const done = await app.send("/api/undo");
    if (done && done.asked) complain(`${done.asked.text} Their phone, or the host's, must agree.`);
  };
  $("pause").onclick = () => app.send("/api/pause", { paused: app.state.status !== "paused" });
  $("pick-close").onclick = () => app.moves.close();
  $("history").ontoggle = () => { if ($("history").open) renderHistory().catch((error) => complain(error.message)); };
  $("labels").onclick = () => {
    app.map.labels = !app.map.labels;
    $("labels").setAttribute("aria-pressed", String(app.map.labels));
    app.map.paint();
  };
  // Zoom: a crowded board opens zoomed in (neighbouring sites a finger apart); the button shows the whole board,
  // and back; a board that opens whole is zoomed twice, three times, then whole again.
  $("zoom").onclick = () => {
    const near = app.map.near || 1, levels = near > 1 ? [near, 1] : [1, 2, 3];
    app.map.setZoom(levels[(levels.indexOf(app.map.zoom) + 1) % levels.length]);
    app.redrawMap();
    showZoom();
  };
  startSecure();  // the screen kept awake, the service worker, and over plain http the step to trust the table
  const state = await get("/api/state");
  if (app.isPlayer) app.phone = await joinTable().catch((error) => { complain(error.message); return null; });
  app.isPlayer = app.isPlayer && !!app.phone;  // a phone the table does not know watches
  document.body.classList.toggle("player", app.isPlayer);
  app.lastId = state.last_entry;
  app.log = state.log;
  renderWarning(state.warning);
  renderQuestion(state.question);
  renderState(state);
  connect();
  if (wantsSeat()) openJoin(app);
}

start().catch((error) => complain(`Cannot reach the companion: ${error.message}`));
