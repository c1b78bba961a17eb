// The dialogs: join (seat and colour), settings (speech), invite (QR), new game (setup wizard), override, and
// calibration. Each gets what it needs from main.js through `app`.
import { get, post, setToken } from "./api.js";
import { speech } from "./speech.js";
import { pieceColour } from "./map.js";

const $ = (id) => document.getElementById(id);
const SEAT_NAMES = ["red", "green", "blue", "yellow", "orange", "purple"];

function hex(colour) {
  // pieceColour gives #rrggbb already; other CSS colours fall back to the accent.
  return /^#[0-9a-f]{6}$/i.test(colour) ? colour : "#7fa7ff";
}

// Join: a seat for this phone (a seat another phone plays is asked of that phone: it is this phone's once that
// phone agrees), pass and play to play several seats on one phone, or just watch (the seats this phone played are
// free again).
export function openJoin(app) {
  if ($("join").open) return;
  const seats = $("seats");
  seats.replaceChildren();
  const holders = app.state.holders || {};
  const mine = app.mySeats();
  for (const player of app.state.players) {
    const theirs = !!holders[player] && !mine.includes(player);
    const label = document.createElement("label");
    const input = Object.assign(document.createElement("input"), { type: "radio", name: "seat", value: player });
    input.dataset.theirs = theirs ? "yes" : "";
    input.addEventListener("change", () => { $("colour").value = hex(pieceColour(player)); });
    label.append(input, ` ${app.nameOf(player)}${theirs ? " · another phone's: ask for it" : mine.includes(player) ? " · this phone's" : ""}`);
    seats.appendChild(label);
  }
  $("together").checked = !!(app.phone && app.phone.together);
  const inputs = [...seats.querySelectorAll("input")];
  const free = inputs.filter((i) => !i.dataset.theirs);
  $("join-full").hidden = !!free.length;
  const current = free.find((i) => i.value === app.seat.name) || free[0];
  const names = app.state.seat_names || {};
  if (current) { current.checked = true; $("colour").value = app.seat.colour || hex(pieceColour(current.value)); }
  $("player-name").value = current ? names[current.value] || "" : "";
  const label = () => {
    const chosen = seats.querySelector("input:checked");
    $("join-ok").textContent = chosen && chosen.dataset.theirs ? "Ask for it" : "Join";
    $("join-ok").disabled = !chosen;
  };
  for (const input of inputs) {
    input.addEventListener("change", () => { $("player-name").value = names[input.value] || ""; label(); });
  }
  label();
  $("join").onclose = async () => {
    const choice = $("join").returnValue;
    const chosen = seats.querySelector("input:checked");
    if (choice !== "join" && choice !== "watch") return;
    for (const seat of mine) app.letGo.add(seat);  // this phone's choice: no news when they go
    try {
      const together = choice === "join" && $("together").checked;
      if (choice === "join" && chosen && chosen.dataset.theirs) {
        // Asked of the seat's phone: this phone plays it once that phone agrees (its other seats go then, unless
        // pass and play), and the seat shows on this phone from then on.
        await post("/api/seats/ask", { seat: chosen.value, together });
        app.wanted = { name: chosen.value, colour: $("colour").value };
        return;
      }
      for (const seat of mine) {
        if (choice === "watch" || (!together && chosen && seat !== chosen.value)) await post("/api/seats/leave", { seat });
      }
      if (choice === "watch") { localStorage.setItem("orrery.watch", "yes"); return; }
      if (!chosen) return;
      localStorage.removeItem("orrery.watch");
      app.phone = { ...app.phone, ...(await post("/api/seats/take", { seat: chosen.value, together })) };
      app.setSeat({ name: chosen.value, colour: $("colour").value });
      const name = $("player-name").value.trim();
      if (name !== (names[chosen.value] || "")) await post("/api/seat", { seat: chosen.value, name });
    } catch (error) {
      app.complain(error.message);
    }
  };
  $("join").showModal();
}

export function openSettings(app) {
  $("speak").checked = speech.on;
  const voices = $("voice");
  const fill = () => {
    voices.replaceChildren(new Option("default", ""));
    for (const v of speech.voices()) voices.add(new Option(`${v.name} (${v.lang})`, v.voiceURI, false, v.voiceURI === speech.voice));
  };
  fill();
  if (speech.available) speechSynthesis.onvoiceschanged = fill;
  $("rate").value = speech.rate;
  $("rate-out").value = speech.rate;
  $("rate").oninput = () => { $("rate-out").value = $("rate").value; };
  $("vibrate").checked = app.vibrateOn;
  $("change-seat").onclick = () => { $("settings").close(); openJoin(app); };
  $("settings").onclose = () => {
    speech.set({ on: $("speak").checked, voice: voices.value, rate: Number($("rate").value) });
    app.setVibrate($("vibrate").checked);
    app.showSpeechButton();
  };
  $("settings").showModal();
}

export async function openInvite(app) {
  $("qr").replaceChildren();
  $("qr-url").textContent = "";
  $("invite").showModal();
  const invite = await get(`/api/qr${app.isPlayer ? "" : "?watch=true"}`);
  $("qr").innerHTML = invite.svg;  // generated by the companion from its own URL
  $("qr-url").textContent = invite.url;
  $("qr-note").textContent = invite.watch ? "This code lets others watch." : "This code lets others join and play.";
  $("rotate").onclick = async () => {
    $("invite").close();
    const sure = await app.confirm("A new table code?", "Every other phone stops acting until it scans the new code.");
    if (!sure) return;
    try {
      const fresh = await post("/api/token", {});
      setToken(fresh.token);  // this phone goes on acting with the new code
      await openInvite(app);
    } catch (error) {
      app.complain(error.message);
    }
  };
}

export async function openSetup(app) {
  const { games } = await get("/api/games");
  const select = $("setup-game");
  select.replaceChildren(...games.map((g) => new Option(g.title, g.name, false, g.name === app.state.game)));
  const render = () => {
    const game = games.find((g) => g.name === select.value);
    $("setup-players").innerHTML = SEAT_NAMES.map((name, i) =>
      `<label><input type="checkbox" name="player" value="${name}" ${i < Math.max(game.min_players, 2) ? "checked" : ""}> ${name}</label>`).join("");
    const fields = game.options.filter((o) => !o.advanced).map(optionField);
    const advanced = game.options.filter((o) => o.advanced);
    if (advanced.length) {
      // options only a table set up its own way needs: folded away, typed as JSON
      const more = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "For a table set up its own way";
      more.append(summary, ...advanced.map(optionField));
      fields.push(more);
    }
    $("setup-options").replaceChildren(...fields);
    fillPlayerOptions();
    $("setup-editor").href = game.editor;  // the editor of the game chosen
  };
  $("setup-players").onchange = fillPlayerOptions;
  select.onchange = render;
  render();
  $("setup-error").textContent = "";
  $("setup-start").onclick = async (event) => {
    event.preventDefault();
    const playing = app.state && !app.state.outcome && app.state.last_entry;
    if (playing && !(await app.confirm("Start a new game?", `The ${app.state.title} game in play stops here; its log is kept.`))) return;
    try {
      const players = [...document.querySelectorAll("#setup-players input:checked")].map((i) => i.value);
      const options = {};
      for (const input of document.querySelectorAll("#setup-options [data-option]")) {
        const value = readOption(input);
        if (value !== undefined) options[input.dataset.option] = value;
      }
      await post("/api/games", { game: select.value, players, options });
      $("setup").close();
      app.seat.name && !players.includes(app.seat.name) ? openJoin(app) : null;
    } catch (error) {
      $("setup-error").textContent = error.message;
    }
  };
  $("setup").showModal();
}

// A file for each planet: "the game's own" or one of the table's sets, chosen planet by planet.
function perKeyField(option) {
  const box = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.textContent = option.label;
  box.append(legend);
  for (const [key, title] of Object.entries(option.keys)) {
    const label = document.createElement("label");
    label.textContent = `${title} `;
    const input = document.createElement("select");
    input.dataset.key = key;
    [null, ...option.choices].forEach((choice, i) => input.add(new Option(option.labels[i], choice ?? "")));
    label.append(input);
    box.append(label);
  }
  box.dataset.option = option.name;
  box.dataset.kind = option.kind;
  return box;
}

// An option whose value is a player: the players ticked above, or nobody ("the companion draws").
function fillPlayerOptions() {
  const players = [...document.querySelectorAll("#setup-players input:checked")].map((i) => i.value);
  for (const input of document.querySelectorAll('#setup-options select[data-kind="player"]')) {
    const kept = input.value;
    input.replaceChildren(new Option("The companion draws", "null"),
      ...players.map((p) => new Option(p, JSON.stringify(p), false, JSON.stringify(p) === kept)));
  }
}

function optionField(option) {
  if (option.kind === "choices") return perKeyField(option);
  const label = document.createElement("label");
  label.className = `option ${option.kind}`;
  const title = document.createElement("span");
  title.className = "option-title";
  title.textContent = option.label;
  label.append(title);
  if (option.help) {
    const help = document.createElement("small");
    help.textContent = option.help;
    label.append(help);
  }
  let input;
  if (option.kind === "player") {
    input = document.createElement("select");  // filled from the players ticked
  } else if (option.kind === "choice") {
    input = document.createElement("select");
    option.choices.forEach((choice, i) => input.add(new Option(option.labels ? option.labels[i] : choice, JSON.stringify(choice), false, choice === option.default)));
  } else {
    input = document.createElement("input");
    if (option.kind === "bool") { input.type = "checkbox"; input.checked = !!option.default; }
    else if (option.kind === "number") { input.inputMode = "decimal"; input.value = option.default ?? ""; }
    else { input.value = option.default == null ? "" : option.kind === "json" ? JSON.stringify(option.default) : option.default; }
    if (option.kind === "json") input.placeholder = "empty: as the game comes";
  }
  input.dataset.option = option.name;
  input.dataset.kind = option.kind;
  label.appendChild(input);
  return label;
}

function readOption(input) {
  const kind = input.dataset.kind;
  if (kind === "bool") return input.checked;
  if (kind === "choice") return JSON.parse(input.value);
  if (kind === "player") return JSON.parse(input.value) ?? undefined;  // nobody chosen: the companion draws
  if (kind === "choices") {
    const chosen = Object.fromEntries([...input.querySelectorAll("select")].filter((s) => s.value).map((s) => [s.dataset.key, s.value]));
    return Object.keys(chosen).length ? chosen : undefined;  // every planet the game's own
  }
  const text = input.value.trim();
  if (!text) return undefined;  // the game's default
  if (kind === "number") {
    if (Number.isNaN(Number(text))) throw new Error(`${input.dataset.option}: expected a number`);
    return Number(text);
  }
  if (kind === "json") {
    try { return JSON.parse(text); } catch { throw new Error(`${input.dataset.option}: not JSON`); }
  }
  return text;
}

export async function openOverride(app) {
  const list = $("override-list");
  list.replaceChildren();
  $("override").showModal();
  const inputs = await get("/api/inputs");
  for (const item of inputs.board) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = item.label;
    button.onclick = async () => { $("override").close(); await app.send("/api/override", { action: item.action }); };
    list.appendChild(button);
  }
  if (!inputs.board.length) list.textContent = "No board move is legal now.";
}

export async function openCalibration(app) {
  $("calibration").showModal();
  const refresh = () => { $("snapshot").src = `/api/calibration/snapshot.jpg?at=${Date.now()}`; };
  $("snapshot-again").onclick = refresh;
  $("snapshot").onerror = () => {
    $("snapshot").hidden = true;
    $("snapshot-note").textContent = "No camera is connected to this table.";
  };
  $("snapshot").onload = () => {
    $("snapshot").hidden = false;
    $("snapshot-note").textContent = "Boxes: fiducials and pieces the camera found.";
  };
  refresh();
  await showGrid(app, "");
}

// One grid of the table in the calibration dialog: the game board's ("") or the one under a board beside it (a
// table of several grids: Orbital Battle's planet maps, chosen above the list).
async function showGrid(app, board) {
  const grid = await get(`/api/calibration/grid${board ? `?board=${encodeURIComponent(board)}` : ""}`);
  const boards = grid.boards || [];
  $("grid-board").hidden = boards.length < 2;
  $("grid-board").replaceChildren(...boards.map((b, i) => new Option(b.title[0].toUpperCase() + b.title.slice(1), i ? b.board : "")));
  $("grid-board").value = board;
  $("grid-board").onchange = () => showGrid(app, $("grid-board").value);
  const surface = /planet(\d+)$/.exec(board);
  const sites = surface ? new Map((await get(`/api/board?surface=${surface[1]}`)).sites.map((s) => [s.id, s])) : app.map.sites;
  const mapped = grid.mapped ? Object.keys(grid.mapped).length : 0;
  // The game board's grid says which board it is walked for: each board of the table has its own calibration.
  const which = !grid.title ? "" : mapped ? `${grid.title[0].toUpperCase()}${grid.title.slice(1)}: `
    : `The grid has not learnt ${grid.title} yet: moves are declared on a phone until it is walked. `;
  $("grid-note").textContent = !grid.grid ? "There is no reed grid at this table."
    : `${which}${mapped} of ${sites.size} sites have a switch. The walk-through names each site in turn: put a piece ` +
      "on it and the switch that closes becomes that site's. Pieces set down meanwhile are not moves.";
  $("grid-file").textContent = grid.grid ? `Kept in the file ${grid.profile.split("/").pop()}` : "";  // the name: a full path runs off a phone
  const walking = !!(grid.walk && ["walking", "review"].includes(grid.walk.state));
  $("grid-start").hidden = !grid.grid || walking;
  const start = (extra) => ({ do: "start", ...(board ? { board } : {}), ...extra });
  $("grid-start").onclick = async () => {
    if (await app.send("/api/calibration/grid", start({}))) $("calibration").close();
  };
  $("grid-probe").hidden = $("grid-probe-note").hidden = !grid.probe || walking;
  $("grid-probe").onclick = async () => {
    if (await app.send("/api/calibration/grid", { do: "probe" })) $("calibration").close();
  };
  $("grid-sites").hidden = !grid.grid;
  // Each site's switch, and a button to walk that site alone (every other site keeps its switch).
  $("grid-list").replaceChildren(...[...sites.values()].map((site) => {
    const switchOf = grid.mapped && grid.mapped[site.id];
    const li = document.createElement("li");
    li.textContent = `${site.name}: ${switchOf ? `switch row ${switchOf[0]} column ${switchOf[1]}` : "no switch yet"} `;
    const redo = Object.assign(document.createElement("button"), { type: "button", textContent: "Redo", className: "player-only small" });
    redo.dataset.site = site.id;
    redo.onclick = async () => {
      if (await app.send("/api/calibration/grid", start({ sites: [site.id] }))) $("calibration").close();
    };
    li.appendChild(redo);
    return li;
  }));
}
