// The phone page: the state and the announcements arrive on one Server-Sent Events stream (/events); inputs go to
// the JSON API with the table token. See docs/web.md.
import { get, post, takeTokenFromUrl, token } from "./api.js";
import { BoardMap, pieceColour } from "./map.js";
import { speech } from "./speech.js";
import { openCalibration, openInvite, openJoin, openOverride, openSettings, openSetup } from "./dialogs.js";
import { startSecure } from "./secure.js";
import { Guides } from "./guide.js";

const $ = (id) => document.getElementById(id);
const LOG_LIMIT = 300;

const app = {
  state: null,
  gameId: null,
  lastId: 0,
  isPlayer: false,
  seat: JSON.parse(localStorage.getItem("orrery.seat") || "{}"),
  vibrateOn: localStorage.getItem("orrery.vibrate") !== "off",
  warning: null,
  map: new BoardMap($("map")),
  setSeat(seat) {
    this.seat = seat;
    localStorage.setItem("orrery.seat", JSON.stringify(seat));
    showSeat();
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
  actorName() { return this.state && this.state.players.includes(this.seat.name) ? this.seat.name : null; },
  redrawMap() {
    if (!this.state) return;
    const view = this.guides.mapView(this.state.layout);
    this.map.update(view.layout, this.warning ? this.warning.sites : [], view.target, view.wrong);
  },
  renderPlaceList() { renderPlaceList(); },
};
app.guides = new Guides(app);
app.map.onSite = (site) => app.guides.tapSite(site);
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

function colourOf(name) { return (name === app.seat.name && app.seat.colour) || pieceColour(name); }

function showSeat() {
  const badge = $("seat");
  badge.hidden = !app.seat.name;
  badge.textContent = app.seat.name || "";
  badge.style.color = app.seat.colour || "";
}

// The phase banner, the map, the ledger and the setup list, from one state.
function renderState(state) {
  const newGame = state.game_id !== app.gameId;
  app.state = state;
  if (newGame) startGame(state);
  $("title").textContent = state.title;
  const phase = state.phase;
  const who = phase.actor ? `${phase.actor}'s turn` : "the whole table";
  $("phase-line").textContent = [phase.round ? `Round ${phase.round}` : "", phase.name, who, state.status === "paused" ? "paused" : ""]
    .filter(Boolean).join(" · ");
  $("prompt").textContent = state.outcome ? `Game ${state.outcome.result}: ${state.outcome.reason}` : phase.prompt;
  $("banner").classList.toggle("over", !!state.outcome);
  $("pause").textContent = state.status === "paused" ? "Resume" : "Pause";
  renderWarning(state.warning);
  renderQuestion(state.question);
  app.redrawMap();
  renderLedger(state.ledger, phase.actor);
  if (app.isPlayer) refreshInputs();
}

async function startGame(state) {
  app.gameId = state.game_id;
  app.map.draw(await get("/api/board"));
  app.redrawMap();
  const log = await get(`/api/log?game=${state.game_id}`);
  $("log").replaceChildren();
  for (const entry of log.entries) addEntry(entry, false);
  app.opening = log.entries.length <= 1;  // no move yet: the page lists where every piece goes
  renderPlaceList();
  if (app.isPlayer && app.seat.name && !state.players.includes(app.seat.name)) openJoin(app);
}

// Where every piece goes, before the first move; while the setup is guided, in the guide's order with the pieces
// placed so far ticked off.
function renderPlaceList() {
  const place = $("place"), guide = app.guides.active(), setup = guide && guide.kind === "setup" ? guide.data : null;
  const name = (site) => (app.map.sites.get(site) || { name: site }).name;
  const rows = setup ? setup.order.map(([piece, site], i) => [`${piece} → ${name(site)}`, i < setup.placed ? "done"
    : i === setup.placed ? "current" : ""])
    : Object.entries(app.state ? app.state.layout : {}).map(([site, pieces]) => [`${pieces.join(", ")} → ${name(site)}`, ""]);
  place.replaceChildren(...rows.map(([text, style]) => Object.assign(document.createElement("li"), { textContent: text, className: style })));
  place.hidden = !setup && (!app.opening || !!guide);
  $("guide-start").hidden = !!guide || !app.opening;
}

function renderLedger(ledger, actor) {
  const cards = Object.entries(ledger.players || {}).map(([name, counters]) => card(name, counters, name === actor));
  if (ledger.table && Object.keys(ledger.table).length) cards.push(card("Table", ledger.table, false));
  $("ledger").replaceChildren(...cards);
}

function card(name, counters, active) {
  const div = document.createElement("div");
  div.className = `card${active ? " active" : ""}${name === "Table" ? " table" : ""}`;
  div.style.borderTopColor = name === "Table" ? "var(--line)" : colourOf(name);
  const title = document.createElement("b");
  title.textContent = name;
  const dl = document.createElement("dl");
  for (const [key, value] of Object.entries(counters)) {
    const dt = document.createElement("dt");
    dt.textContent = key.replaceAll("_", " ");
    const dd = document.createElement("dd");
    dd.textContent = Array.isArray(value) ? value.join(", ") || "—" : value === null ? "—"
      : typeof value === "object" ? JSON.stringify(value) : String(value);
    dl.append(dt, dd);
  }
  div.append(title, dl);
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

function renderQuestion(question) {
  $("question").hidden = !question;
  const choices = $("choices");
  choices.replaceChildren();
  if (!question) return;
  question.choices.forEach((text, index) => {
    const button = document.createElement("button");
    button.textContent = text;
    button.disabled = !app.isPlayer;
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

// Declared inputs: the legal actions the board cannot show. Refreshed after each state, at most one at a time.
async function refreshInputs() {
  if (refreshInputs.busy) { refreshInputs.again = true; return; }
  refreshInputs.busy = true;
  try {
    const inputs = await get("/api/inputs");
    const primary = [], groups = new Map();
    for (const item of inputs.phone) {
      if (/^(end|pass|done)/.test(item.type)) primary.push(item);
      else groups.set(item.type, [...(groups.get(item.type) || []), item]);
    }
    $("primary").replaceChildren(...primary.map((item) => inputButton(item, "accent")));
    $("declared").replaceChildren(...[...groups].map(([type, items]) => {
      const details = document.createElement("details");
      details.open = items.length <= 3;
      const summary = document.createElement("summary");
      summary.textContent = `${type.replaceAll("_", " ")} (${items.length})`;
      const list = document.createElement("div");
      list.className = "choices";
      list.append(...items.map((item) => inputButton(item)));
      details.append(summary, list);
      return details;
    }));
  } catch (error) {
    $("declared").textContent = error.message;
  } finally {
    refreshInputs.busy = false;
    if (refreshInputs.again) { refreshInputs.again = false; refreshInputs(); }
  }
}

function inputButton(item, style = "") {
  const button = document.createElement("button");
  button.textContent = item.label;
  button.className = style;
  button.dataset.type = item.type;
  button.onclick = () => app.send("/api/act", { action: item.action });
  return button;
}

// The stream: the browser reconnects by itself and sends Last-Event-ID; the server replays what was missed.
function connect() {
  const stream = new EventSource(`/events?after=${app.lastId}`);
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
    button.onclick = () => open(app).catch((error) => complain(error.message));
  }
  $("override-open").onclick = () => openOverride(app).catch((error) => complain(error.message));
  $("guide-start").onclick = () => app.send("/api/setup", { do: "start" });
  $("undo").onclick = () => app.send("/api/undo");
  $("pause").onclick = () => app.send("/api/pause", { paused: app.state.status !== "paused" });
  startSecure();  // the screen kept awake, the service worker, and over plain http the step to trust the table
  const state = await get("/api/state");
  app.lastId = state.last_entry;
  renderState(state);
  connect();
  if (app.isPlayer && !app.seat.name) openJoin(app);
}

start().catch((error) => complain(`Cannot reach the companion: ${error.message}`));
