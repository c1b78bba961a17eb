// The board editor: a photo flattened by its corners, sites, flight lines and orbits laid over it, checked by the
// table as one edits, kept in this browser as a draft, and saved to the table's library.
import { get, post, token, takeTokenFromUrl } from "/static/api.js";
import { Draft, PLANETS, boardFile, planetOf } from "/static/editor_board.js";
import { $, guarded, keepDraft, say, showProblems } from "/static/editor_common.js";
import { keep } from "/static/editor_library.js";

const SVG = "http://www.w3.org/2000/svg";
const DRAFT_KEY = "orrery.editor.draft";
const PICTURE_KEY = "orrery.editor.picture";  // the flattened photo, kept with the draft
const ZOOMS = [1, 2, 4];
const PHOTO_SIDE = 2000;  // a photo is scaled down to this before it goes to the table
const HINTS = {
  move: "Drag a site to move it; tap one to name it or make it a planet symbol, portal or station.",
  site: "Tap where a site is on your board.",
  line: "Tap two sites to draw the flight line between them (again to take it away).",
  orbit: "Tap two planet symbols of one planet, one after the other round its orbit (again to take it away).",
  delete: "Tap a site to take it away with its lines.",
};
const state = { game: "orbit", draft: null, tool: "move", chosen: null, first: null, picture: null, photo: null,
  corners: null, start: "front", zoom: 1 };


// Starting points.
async function loadStart(name, keepPicture = false) {
  const data = await get(`/api/editor/board?game=${state.game}&start=${encodeURIComponent(name)}`);
  $("start").replaceChildren(...data.starts.map((s) => new Option(startName(s), s, false, s === name)));
  state.start = name;
  state.draft = new Draft(data.board);
  if (!keepPicture) { state.picture = null; localStorage.removeItem(PICTURE_KEY); }
  $("width").value = data.board.width; $("height").value = data.board.height;
  choose(null); draw(); changed();
}

function startName(start) {
  if (start === "front" || start === "back") return `the game's own board (${start})`;
  return start === "empty" ? "an empty board (from scratch)" : `your board “${start}”`;
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
      const follow = (move) => {
        const box = frame.getBoundingClientRect();
        corner[0] = Math.max(0, Math.min(1, (move.clientX - box.left) / box.width)) * state.photoSize[0];
        corner[1] = Math.max(0, Math.min(1, (move.clientY - box.top) / box.height)) * state.photoSize[1];
        put();
      };
      window.addEventListener("pointermove", follow);  // the window's: a quick finger leaves the ring behind
      window.addEventListener("pointerup", () => window.removeEventListener("pointermove", follow), { once: true });
    });
    frame.appendChild(handle);
  });
}

async function flatten() {
  const width = Number($("width").value), height = Number($("height").value);
  const query = `corners=${state.corners.flat().map((v) => v.toFixed(1)).join(",")}&width=${width}&height=${height}`;
  const response = await fetch(`/api/editor/flatten?${query}`, {
    method: "POST", headers: { "Content-Type": "image/jpeg", "X-Orrery-Token": token() }, body: state.photo,
  });
  if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || `the table answered ${response.status}`);
  const flat = await response.blob();
  state.picture = await new Promise((done) => { const r = new FileReader(); r.onload = () => done(r.result); r.readAsDataURL(flat); });
  try { localStorage.setItem(PICTURE_KEY, state.picture); } catch { /* too large for this browser's storage: kept for this visit only */ }
  state.draft.change((b) => { b.width = width; b.height = height; });
  say("The photo is flat: now lay your sites over it.");
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
  const svg = $("board"), board = state.draft.board, H = board.height;
  svg.setAttribute("viewBox", `0 0 ${board.width} ${H}`);
  svg.replaceChildren();
  if (state.picture) el("image", { href: state.picture, x: 0, y: 0, width: board.width, height: H, preserveAspectRatio: "none" }, svg);
  const at = Object.fromEntries(board.sites.map((s) => [s.id, s]));
  for (const l of board.links) {
    const a = at[l.a], b = at[l.b];
    if (!a || !b) continue;
    const orbit = l.kind.startsWith("orbit");
    el("line", { x1: a.x, y1: H - a.y, x2: b.x, y2: H - b.y, class: orbit ? "orbit" : "line",
      ...(orbit ? { stroke: planetOf(a) || "#ccc" } : {}) }, svg);
  }
  const r = Math.max(4, board.width / 90);
  for (const s of board.sites) {
    const classes = ["site", s.id === state.chosen || s.id === state.first ? "chosen" : "",
      s.tags.includes("portal") ? "portal" : "", s.tags.includes("station") ? "station" : ""].join(" ");
    const planet = planetOf(s);
    el("circle", { cx: s.x, cy: H - s.y, r: planet ? r * 1.5 : r, class: classes, ...(planet ? { style: `fill:${planet}` } : {}) }, svg);
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

function onPointerDown(event) {
  const site = event.target.dataset ? event.target.dataset.site : undefined;
  const draft = state.draft;
  if (state.tool === "site" && !site) {
    const [x, y] = boardPoint(event);
    choose(draft.addSite(x, y));
  } else if (state.tool === "delete" && site) {
    draft.remove(site); choose(null);
  } else if ((state.tool === "line" || state.tool === "orbit") && site) {
    if (!state.first) { state.first = site; draw(); return; }
    draft.toggleLink(state.first, site, state.tool);
    state.first = state.tool === "orbit" ? site : null;  // an orbit goes on from where it got to
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
  $("site-title").textContent = s.label || "This site";
  $("site-name").value = s.label;
  $("site-planet").value = planetOf(s);
  $("site-portal").checked = s.tags.includes("portal");
  $("site-station").checked = s.tags.includes("station");
}

function zoom(step) {
  state.zoom = ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, ZOOMS.indexOf(state.zoom) + step))];
  $("board").style.width = `${state.zoom * 100}%`;
  $("board").classList.toggle("zoomed", state.zoom > 1);
  $("zoom-out").disabled = state.zoom === ZOOMS[0];
  $("zoom-in").disabled = state.zoom === ZOOMS[ZOOMS.length - 1];
}

function setTool(tool) {
  state.tool = tool; state.first = null;
  $("board").classList.toggle("dragging", tool === "move");  // only a drag of a site needs every touch
  document.querySelectorAll("[data-tool]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.tool === tool)));
  $("tool-hint").textContent = HINTS[tool];
  draw();
}

// Every change: kept as this browser's draft, then checked by the table a moment later.
function changed() {
  keepDraft(DRAFT_KEY, { game: state.game, start: state.start, board: state.draft.board }, check);
}

async function check() {
  const { problems, diff } = await post("/api/editor/check", { game: state.game, board: boardFile(state.draft.board) });
  showProblems(problems, "The game can be played on this board.");
  $("diff").textContent = diff ? describeDiff(diff) : "";
}

function describeDiff(diff) {
  const count = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const parts = [];
  if (diff.added.length) parts.push(`${count(diff.added.length, "site")} added`);
  if (diff.moved.length) parts.push(`${count(diff.moved.length, "site")} moved`);
  if (diff.removed.length) parts.push(`${count(diff.removed.length, "site")} taken away`);
  if (diff.links_added.length) parts.push(`${count(diff.links_added.length, "line")} added`);
  if (diff.links_removed.length) parts.push(`${count(diff.links_removed.length, "line")} taken away`);
  return parts.length ? `Against the game's own board: ${parts.join(", ")}.` : "The same as the game's own board.";
}

function save() {
  return keep("/api/editor/save", "my-copy", { game: state.game, board: boardFile(state.draft.board) },
    (name) => loadStart(name, true), "choose it as the board when you start a new game.");
}

async function main() {
  takeTokenFromUrl();
  $("site-planet").replaceChildren(new Option("none", ""), ...PLANETS.map((p) => new Option(p, p)));
  document.querySelectorAll("[data-tool]").forEach((b) => b.addEventListener("click", () => setTool(b.dataset.tool)));
  $("board").addEventListener("pointerdown", onPointerDown);
  $("undo").addEventListener("click", () => { state.draft.undo(); choose(null); draw(); changed(); });
  $("load").addEventListener("click", () => guarded(() => loadStart($("start").value)));
  $("photo").addEventListener("change", () => guarded(() => $("photo").files[0] && takePhoto($("photo").files[0])));
  $("camera").addEventListener("click", () => guarded(async () => {
    const response = await fetch("/api/calibration/snapshot.jpg");
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || "no camera view");
    await takePhoto(await response.blob());
  }));
  $("flatten").addEventListener("click", () => guarded(flatten));
  $("save").addEventListener("click", () => guarded(save));
  $("name").addEventListener("change", changed);
  $("site-name").addEventListener("change", () => { state.draft.setSite(state.chosen, { label: $("site-name").value.trim() }); draw(); changed(); });
  for (const [id, key] of [["site-planet", "planet"], ["site-portal", "portal"], ["site-station", "station"]]) {
    $(id).addEventListener("change", () => {
      const input = $(id);
      state.draft.setSite(state.chosen, { [key]: input.type === "checkbox" ? input.checked : input.value });
      draw(); changed();
    });
  }
  $("zoom-in").addEventListener("click", () => zoom(1));
  $("zoom-out").addEventListener("click", () => zoom(-1));
  zoom(0);
  setTool("move");
  const kept = JSON.parse(localStorage.getItem(DRAFT_KEY) || "null");
  await guarded(() => loadStart(kept ? kept.start : "front", Boolean(kept)));
  if (kept) {
    state.draft = new Draft(kept.board);
    state.picture = localStorage.getItem(PICTURE_KEY);
    $("name").value = kept.name || "";
    say("Your draft from last time is back.");
    draw(); changed();
  }
}

main();
