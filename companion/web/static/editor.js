// The board editor: a photo flattened by its corners, a game's sites and lines laid over it (ORBIT's board, Dakalio's
// mat, Orbital Battle's solar map: each game's kit in editor_kits.js), checked by the table as one edits, kept in this
// browser as a draft, and saved to the table's library.
import { get, headers, joinTable, post, takeTokenFromUrl } from "/static/api.js";
import { Draft } from "/static/editor_board.js";
import { $, guarded, keepDraft, say, showProblems } from "/static/editor_common.js";
import { KITS } from "/static/editor_kits.js";
import { keep } from "/static/editor_library.js";

const SVG = "http://www.w3.org/2000/svg";
const GAME_KEY = "orrery.editor.game";
const ZOOMS = [1, 2, 4];
const PHOTO_SIDE = 2000;  // a photo is scaled down to this before it goes to the table
const state = { game: "orbit", kit: KITS.orbit, draft: null, tool: "move", chosen: null, first: null, line: null,
  planet: "1", picture: null, photo: null, corners: null, start: "front", zoom: 1 };
// ORBIT's draft keeps the key it has always had, so that a draft made before the other games came is not lost.
const draftKey = () => (state.game === "orbit" ? "orrery.editor.draft" : `orrery.editor.draft.${state.game}`);
const pictureKey = () => `${draftKey().replace("draft", "picture")}`;

// Starting points.
async function loadStart(name, keepPicture = false) {
  const data = await get(`/api/editor/board?game=${state.game}&start=${encodeURIComponent(name)}`);
  showBoard(data.board, data.starts, name, keepPicture);
}

function showBoard(board, starts, name, keepPicture) {
  if (starts) $("start").replaceChildren(...starts.map((s) => new Option(startName(s), s, false, s === name)));
  state.start = name;
  state.draft = new Draft(board);
  if (!keepPicture) { state.picture = null; localStorage.removeItem(pictureKey()); }
  $("width").value = board.width; $("height").value = board.height;
  state.line = null; choose(null); showLayout(); draw(); changed();
}

function startName(start) {
  const kit = state.kit;
  if (kit.starts.includes(start)) return kit.startName(start);
  return start === "empty" ? `an empty ${kit.thing} (from scratch)` : `your ${kit.thing} “${start}”`;
}

// Orbital Battle: the hexes laid out afresh, as many rings as chosen, each orbit on its ring, the hexes their size.
function showLayout() {
  $("solar-layout").hidden = state.game !== "orbital_battle";
  if (state.game !== "orbital_battle") return;
  const board = state.draft.board;
  const radius = Math.max(...board.sites.map((s) => Number((s.id.match(/^r(\d+)s/) || [0, 0])[1])));
  $("radius").value = String(radius);
  fillRings(radius);
  for (const [name, ids] of Object.entries(board.orbits)) {
    const ring = $(`ring-${name}`);
    if (ring && ids.length) ring.value = ids[0].match(/^r(\d+)s/)[1];
  }
  const [a, b] = [board.sites.find((s) => s.id === "sun"), board.sites.find((s) => s.id === "r1s0")];
  if (a && b) $("hex-mm").value = (Math.hypot(a.x - b.x, a.y - b.y) / Math.sqrt(3)).toFixed(1);
}

function fillRings(radius) {
  const rings = Array.from({ length: radius }, (_, i) => String(i + 1));
  $("rings").replaceChildren(...["1", "2", "3", "4", "5", "6", "7"].map((n) => {
    const label = document.createElement("label");
    const select = document.createElement("select");
    select.id = `ring-${n}`;
    select.append(...rings.map((r) => new Option(`ring ${r}`, r, false, Number(r) === Math.min(Number(n) + radius - 7, radius))));
    label.append(n === "7" ? "Orbit of planets 7 and 8 " : `Orbit of planet ${n} `, select);
    return label;
  }));
}

async function layOut() {
  const rings = ["1", "2", "3", "4", "5", "6", "7"].map((n) => $(`ring-${n}`).value).join(",");
  const query = `radius=${$("radius").value}&rings=${rings}&hex_mm=${Number($("hex-mm").value)}`;
  const { board } = await get(`/api/editor/solar/layout?${query}`);
  // Over a photo: centred on it, the photo's size kept; with none, the map's own size.
  const old = state.picture ? state.draft.board : board;
  const [dx, dy] = [(old.width - board.width) / 2, (old.height - board.height) / 2];
  state.draft.change((b) => {
    Object.assign(b, board, { width: old.width, height: old.height });
    for (const s of b.sites) { s.x = Math.round((s.x + dx) * 10) / 10; s.y = Math.round((s.y + dy) * 10) / 10; }
  });
  choose(null); draw(); changed();
  say("The hexes are laid out afresh: drag any that sit off your map's.");
}

async function takePhoto(blob) {
  const bitmap = await createImageBitmap(blob);
  const scale = Math.min(1, PHOTO_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale); canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  state.photo = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.9));
  const inset = 0.1;
  const [w, h] = [canvas.width, canvas.height];
  state.corners = [[w * inset, h * inset], [w * (1 - inset), h * inset], [w * (1 - inset), h * (1 - inset)], [w * inset, h * (1 - inset)]];
  state.photoSize = [w, h];
  $("photo-view").src = URL.createObjectURL(state.photo);
  $("corners-step").hidden = false;
  zoomCorners(false);
  placeCorners();
  $("corners-step").scrollIntoView();
}

function placeCorners() {
  const frame = $("photo-frame");
  frame.querySelectorAll(".corner").forEach((c) => c.remove());
  state.corners.forEach((corner, i) => {
    const handle = document.createElement("div");
    handle.className = "corner";
    handle.setAttribute("aria-label", ["top left", "top right", "bottom right", "bottom left"][i] + " corner");
    const put = () => {
      handle.style.left = `${(100 * corner[0]) / state.photoSize[0]}%`;
      handle.style.top = `${(100 * corner[1]) / state.photoSize[1]}%`;
    };
    put();
    handle.addEventListener("pointerdown", (down) => {
      down.preventDefault();
      // The corner keeps its place under the finger as it was touched: the ring moves by what the finger moves.
      const start = frame.getBoundingClientRect();
      const dx = start.left + (corner[0] / state.photoSize[0]) * start.width - down.clientX;
      const dy = start.top + (corner[1] / state.photoSize[1]) * start.height - down.clientY;
      const follow = (move) => {
        const box = frame.getBoundingClientRect();
        corner[0] = Math.max(0, Math.min(1, (move.clientX + dx - box.left) / box.width)) * state.photoSize[0];
        corner[1] = Math.max(0, Math.min(1, (move.clientY + dy - box.top) / box.height)) * state.photoSize[1];
        put();
        magnify(corner, move.clientX, move.clientY);
      };
      magnify(corner, down.clientX, down.clientY);
      window.addEventListener("pointermove", follow);  // the window's: a quick finger leaves the ring behind
      window.addEventListener("pointerup", () => {
        window.removeEventListener("pointermove", follow);
        $("loupe").hidden = true;
      }, { once: true });
    });
    frame.appendChild(handle);
  });
}

// The magnifier: the photo round the corner being placed, four times as large as the screen shows it, with a cross at
// the corner, held above the finger (below it near the top of the screen) so the finger hides none of it.
const LOUPE_ZOOM = 4;
function magnify(corner, x, y) {
  const loupe = $("loupe"), image = $("photo-view"), size = loupe.width;
  const shown = $("photo-frame").getBoundingClientRect().width / state.photoSize[0];  // screen px per photo px
  const side = size / 2 / (shown * LOUPE_ZOOM);  // photo px across the loupe (drawn at twice its CSS size)
  const ctx = loupe.getContext("2d");
  ctx.fillStyle = "#0b1020"; ctx.fillRect(0, 0, size, size);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(image, corner[0] - side / 2, corner[1] - side / 2, side, side, 0, 0, size, size);
  ctx.strokeStyle = "#ffd166"; ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(size / 2, 0); ctx.lineTo(size / 2, size); ctx.moveTo(0, size / 2); ctx.lineTo(size, size / 2); ctx.stroke();
  const css = 120, gap = 48;
  const left = Math.max(4, Math.min(window.innerWidth - css - 4, x - css / 2));
  const top = y - gap - css >= 4 ? y - gap - css : y + gap;
  Object.assign(loupe.style, { left: `${left}px`, top: `${top}px` });
  loupe.hidden = false;
}

// Zoom: the photo at least four times the width of the screen and a screen pixel to each of its pixels, in its own
// scrolling box, so a corner is placed to a pixel of the photo; the rings stay a finger's size.
function zoomCorners(on) {
  const frame = $("photo-frame"), box = $("photo-scroll");
  frame.classList.toggle("zoomed", on);
  frame.style.width = on ? `${Math.max(box.clientWidth * LOUPE_ZOOM, state.photoSize[0])}px` : "";
  $("corners-zoom").setAttribute("aria-pressed", String(on));
  $("corners-zoom").textContent = on ? "Whole photo" : "Zoom in";
}

async function flatten() {
  const width = Number($("width").value), height = Number($("height").value);
  const query = `corners=${state.corners.flat().map((v) => v.toFixed(1)).join(",")}&width=${width}&height=${height}`;
  const response = await fetch(`/api/editor/flatten?${query}`, {
    method: "POST", headers: headers({ "Content-Type": "image/jpeg" }), body: state.photo,
  });
  if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || `the table answered ${response.status}`);
  const flat = await response.blob();
  state.picture = await new Promise((done) => { const r = new FileReader(); r.onload = () => done(r.result); r.readAsDataURL(flat); });
  try { localStorage.setItem(pictureKey(), state.picture); } catch { /* too large for this browser's storage: kept for this visit only */ }
  state.draft.change((b) => { b.width = width; b.height = height; });
  say(`The photo is flat: now lay your ${state.kit.word}s over it.`);
  draw(); changed();
  $("edit-title").scrollIntoView();
}

// Drawing: the board's mm with y up, so the SVG's y is the board's height less y.
function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  parent.appendChild(node);
  return node;
}

function draw() {
  if (!state.draft) return;
  const svg = $("board"), board = state.draft.board, H = board.height, kit = state.kit;
  svg.setAttribute("viewBox", `0 0 ${board.width} ${H}`);
  svg.replaceChildren();
  if (state.picture) el("image", { href: state.picture, x: 0, y: 0, width: board.width, height: H, preserveAspectRatio: "none" }, svg);
  const at = Object.fromEntries(board.sites.map((s) => [s.id, s]));
  for (const [name, ids, closed, colour] of kit.lines ? kit.lines(board) : []) {
    const points = ids.filter((id) => at[id]).map((id) => `${at[id].x},${H - at[id].y}`).join(" ");
    el(closed ? "polygon" : "polyline", { points, class: `orbit${name === state.line ? " chosen" : ""}`, "data-line": name,
      ...(colour ? { style: `stroke:${colour}` } : {}) }, svg);
  }
  for (const l of board.links) {
    const a = at[l.a], b = at[l.b], cls = kit.linkClass(l);
    if (!a || !b || !cls) continue;
    const stroke = kit.linkStroke(l, at);
    el("line", { x1: a.x, y1: H - a.y, x2: b.x, y2: H - b.y, class: cls, ...(stroke ? { stroke } : {}) }, svg);
  }
  const r = Math.max(4, board.width / 90);
  for (const s of board.sites) {
    const look = kit.look(s);
    const classes = ["site", s.id === state.chosen || s.id === state.first ? "chosen" : "", ...look.classes].join(" ");
    el("circle", { cx: s.x, cy: H - s.y, r: look.big ? r * 1.5 : r, class: classes, ...(look.fill ? { style: `fill:${look.fill}` } : {}) }, svg);
    if (look.text) el("text", { x: s.x, y: H - s.y + r * 0.5, "font-size": r * 1.5, "text-anchor": "middle" }, svg).textContent = look.text;
    const hit = el("circle", { cx: s.x, cy: H - s.y, r: Math.max(r * 2, board.width / 40), class: "hit", "data-site": s.id }, svg);
    const title = el("title", {}, hit); title.textContent = s.label || s.id;
  }
  $("undo").disabled = !state.draft.past.length;
}

function boardPoint(event) {
  const svg = $("board"), point = svg.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, state.draft.board.height - p.y];
}

// The site a finger meant: the one under it, else the nearest within half a 44 px tap (a board shown small on a
// phone has its sites closer together than a finger is wide).
function siteNear(event) {
  const svg = $("board"), [x, y] = boardPoint(event);
  const reach = (22 * state.draft.board.width) / svg.getBoundingClientRect().width;
  let best = null, bestDistance = reach;
  for (const s of state.draft.board.sites) {
    const distance = Math.hypot(s.x - x, s.y - y);
    if (distance <= bestDistance) { best = s.id; bestDistance = distance; }
  }
  return best;
}

// The line a finger meant: the nearest within a 44 px tap of where it touched (a line is thinner than a finger).
function lineNear(event) {
  const svg = $("board"), p = boardPoint(event);
  const reach = (22 * state.draft.board.width) / svg.getBoundingClientRect().width;
  let best = null, bestDistance = reach;
  for (const [name, ids] of state.kit.lines(state.draft.board)) {
    const spots = ids.map((id) => state.draft.site(id)).filter(Boolean).map((s) => [s.x, s.y]);
    for (let i = 1; i < spots.length; i += 1) {
      const distance = toSegment(p, spots[i - 1], spots[i]);
      if (distance < bestDistance) { best = name; bestDistance = distance; }
    }
  }
  return best;
}

function toSegment([x, y], [ax, ay], [bx, by]) {
  const [dx, dy] = [bx - ax, by - ay], length = dx * dx + dy * dy;
  const t = length ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / length)) : 0;
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

function onPointerDown(event) {
  const { line } = event.target.dataset || {};
  let { site } = event.target.dataset || {};
  if (!site && state.tool !== "site" && !(state.tool === "delete" && line)) site = siteNear(event) || undefined;
  const draft = state.draft;
  if (state.kit.tapLine && state.tool === "join") {
    const near = lineNear(event);
    if (!near || !state.kit.tapLine(state, draft, near, boardPoint(event))) { draw(); return; }
  } else if (state.tool === "site" && !site) {
    const [x, y] = boardPoint(event);
    choose(draft.addSite(x, y, state.kit.kind, state.kit.word));
  } else if (state.tool === "delete" && site) {
    draft.remove(site); choose(null);
  } else if (state.tool === "delete" && line) {
    draft.change((b) => { delete b.orbits[line]; });
  } else if (!["move", "site", "delete"].includes(state.tool) && site) {
    if (!state.kit.tap(state.tool, state, draft, site)) { draw(); return; }
  } else if (state.tool === "move" && site) {
    choose(site);
    const svg = $("board");
    svg.setPointerCapture(event.pointerId);
    let moved = false;
    const follow = (move) => {
      const [x, y] = boardPoint(move);
      if (!moved) { draft.change(() => {}); moved = true; }  // one undo step for the whole drag
      const s = draft.site(site); s.x = Math.round(x * 10) / 10; s.y = Math.round(y * 10) / 10;
      draw();
    };
    svg.addEventListener("pointermove", follow);
    svg.addEventListener("pointerup", () => { svg.removeEventListener("pointermove", follow); if (moved) changed(); }, { once: true });
    return;
  } else {
    return;
  }
  draw(); changed();
}

function choose(id) {
  state.chosen = id;
  const s = id && state.draft.site(id);
  $("site-panel").hidden = !s;
  if (!s) return;
  $("site-title").textContent = s.label || `This ${state.kit.word}`;
  $("site-name").value = s.label;
  for (const f of state.kit.fields) {
    const input = $(f.id);
    if (input.type === "checkbox") input.checked = f.get(s); else input.value = f.get(s);
  }
}

// The chosen site's fields, as the game's kit has them: a list of choices or a box to tick.
function buildFields() {
  $("site-fields").replaceChildren(...state.kit.fields.map((f) => {
    const label = document.createElement("label");
    const input = document.createElement(f.options ? "select" : "input");
    input.id = f.id;
    if (f.options) { input.append(...f.options.map(([v, text]) => new Option(text, v))); label.append(`${f.label} `, input); }
    else { input.type = "checkbox"; label.className = "check"; label.append(input, ` ${f.label}`); }
    input.addEventListener("change", () => {
      state.draft.edit(state.chosen, (site) => f.set(site, input.type === "checkbox" ? input.checked : input.value));
      draw(); changed();
    });
    return label;
  }));
}

function zoom(step) {
  state.zoom = ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, ZOOMS.indexOf(state.zoom) + step))];
  $("board").style.width = `${state.zoom * 100}%`;
  $("board").classList.toggle("zoomed", state.zoom > 1);
  $("zoom-out").disabled = state.zoom === ZOOMS[0];
  $("zoom-in").disabled = state.zoom === ZOOMS[ZOOMS.length - 1];
}

function setTool(tool) {
  state.tool = tool; state.first = null; state.line = null;
  $("board").classList.toggle("dragging", tool === "move");  // only a drag of a site needs every touch
  document.querySelectorAll("[data-tool]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.tool === tool)));
  $("tool-hint").textContent = state.kit.tools.find(([t]) => t === tool)[2];
  $("planet-choice").hidden = tool !== "start";
  draw();
}

// The game whose board is edited: its tools, its site's fields and its draft.
async function setGame(game) {
  state.game = game in KITS ? game : "orbit"; state.kit = KITS[state.game];
  localStorage.setItem(GAME_KEY, state.game);
  $("game").value = state.game;
  $("edit-title").textContent = { orbit: "Sites, lines and orbits", dakalio: "Spots, lines and zones", orbital_battle: "Hexes and planets",
    trajectory: "Spaces and orbits" }[state.game];
  const { thing } = state.kit;
  $("name-label").textContent = `Name for your ${thing}`;
  $("editor-title").textContent = `Your ${thing}`;
  document.title = `Your ${thing} · Orrery`;
  $("start-label").textContent = `${thing[0].toUpperCase()}${thing.slice(1)} to start from`;
  $("load").textContent = `Start from this ${thing}`;
  $("photo-label").textContent = `Photo of your ${thing}`;
  $("tool-buttons").replaceChildren(...state.kit.tools.map(([tool, text]) => {
    const b = document.createElement("button");
    b.dataset.tool = tool; b.textContent = text; b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => setTool(tool));
    return b;
  }));
  buildFields();
  $("legend").textContent = state.kit.legend || "";
  $("legend").hidden = !state.kit.legend;
  setTool("move");
  const kept = JSON.parse(localStorage.getItem(draftKey()) || "null");
  await guarded(() => loadStart(kept ? kept.start : state.kit.starts[0], Boolean(kept)));
  if (kept) {
    showBoard(kept.board, null, kept.start, true);
    state.picture = localStorage.getItem(pictureKey());
    $("name").value = kept.name || "";
    say("Your draft from last time is back.");
    draw();
  }
}

// Every change: kept as this browser's draft, then checked by the table a moment later.
function changed() {
  keepDraft(draftKey(), { game: state.game, start: state.start, board: state.draft.board }, check);
}

async function check() {
  const { problems, diff } = await post("/api/editor/check", { game: state.game, board: state.kit.file(state.draft.board) });
  showProblems(problems, `The game can be played on this ${state.kit.thing}.`);
  $("diff").textContent = diff ? describeDiff(diff) : "";
}

function describeDiff(diff) {
  const [one, many] = state.kit.words;
  const count = (n, a, b = `${a}s`) => `${n} ${n === 1 ? a : b}`;
  const parts = [];
  if (diff.added.length) parts.push(`${count(diff.added.length, one, many)} added`);
  if (diff.moved.length) parts.push(`${count(diff.moved.length, one, many)} moved`);
  if (diff.removed.length) parts.push(`${count(diff.removed.length, one, many)} taken away`);
  const links = state.kit.lines ? ["orbits_added", "orbits_removed"] : ["links_added", "links_removed"];
  if (diff[links[0]].length) parts.push(`${count(diff[links[0]].length, state.kit.lineWord)} added`);
  if (diff[links[1]].length) parts.push(`${count(diff[links[1]].length, state.kit.lineWord)} taken away`);
  const own = `the game's own ${state.kit.thing}`;
  return parts.length ? `Against ${own}: ${parts.join(", ")}.` : `The same as ${own}.`;
}

function save() {
  const { thing } = state.kit;
  return keep("/api/editor/save", "my-copy", { game: state.game, board: state.kit.file(state.draft.board) },
    (name) => loadStart(name, true), `choose it as the ${thing} when you start a new game.`);
}

async function main() {
  takeTokenFromUrl();
  await joinTable().catch(() => null);  // the checks and saves are a joined phone's
  $("board").addEventListener("pointerdown", onPointerDown);
  $("undo").addEventListener("click", () => { state.draft.undo(); choose(null); draw(); changed(); });
  $("load").addEventListener("click", () => guarded(() => loadStart($("start").value)));
  $("game").addEventListener("change", () => guarded(() => setGame($("game").value)));
  $("photo").addEventListener("change", () => guarded(() => $("photo").files[0] && takePhoto($("photo").files[0])));
  $("camera").addEventListener("click", () => guarded(async () => {
    const response = await fetch("/api/calibration/snapshot.jpg");
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || "no camera view");
    await takePhoto(await response.blob());
  }));
  $("flatten").addEventListener("click", () => guarded(flatten));
  $("corners-zoom").addEventListener("click", () => zoomCorners(!$("photo-frame").classList.contains("zoomed")));
  $("save").addEventListener("click", () => guarded(save));
  $("name").addEventListener("change", changed);
  $("site-name").addEventListener("change", () => { state.draft.edit(state.chosen, (s) => { s.label = $("site-name").value.trim(); }); draw(); changed(); });
  $("radius").addEventListener("change", () => fillRings(Number($("radius").value)));
  $("lay-out").addEventListener("click", () => guarded(layOut));
  $("start-planet").addEventListener("change", () => { state.planet = $("start-planet").value; });
  $("zoom-in").addEventListener("click", () => zoom(1));
  $("zoom-out").addEventListener("click", () => zoom(-1));
  zoom(0);
  const asked = new URLSearchParams(location.search).get("game");
  await setGame(asked || localStorage.getItem(GAME_KEY) || "orbit");
}

main();
