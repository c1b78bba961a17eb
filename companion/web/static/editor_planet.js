// An Orbital Battle planet's map: a tap paints a hex's terrain or puts a starport, resource cluster or the armory
// on it; checked by the table as one edits and kept in the table's library.
import { get, joinTable, post, takeTokenFromUrl } from "/static/api.js";
import { $, guarded, keepDraft, showProblems, startEditing } from "/static/editor_common.js";
import { keep } from "/static/editor_library.js";

const SVG = "http://www.w3.org/2000/svg";
const DRAFT_KEY = "orrery.editor.planet";
const COLOURS = { grass: "#6fae4f", desert: "#e0c27a", forest: "#2f6b35", hills: "#9b7b4f", swamp: "#5f7f6a",
  crater: "#555a66", water: "#3f7fd0", road: "#b8b0a0", bridge: "#8a6a40", edge: "#1a2030" };
const FEATURES = { starports: "starport", resources: "resource cluster", armory: "armory" };
const MARKS = { starports: "S", resources: "R", armory: "A" };
const state = { data: null, legend: {}, start: "1", paint: "grass", columns: 9, rows: 7 };

function hexId(column, row) { return `${String(column).padStart(2, "0")}${String(row).padStart(2, "0")}`; }

function charOf(kind) { return Object.keys(state.legend).find((c) => state.legend[c].startsWith(kind)); }

function paint(column, row) {
  const data = state.data, id = hexId(column, row);
  if (state.paint in FEATURES) {
    for (const key of Object.keys(FEATURES)) {
      if (key === "armory") { if (data.armory === id) data.armory = ""; } else data[key] = data[key].filter((h) => h !== id);
    }
    if (state.paint === "armory") data.armory = id; else data[state.paint].push(id);
  } else if (state.paint === "clear") {
    data.starports = data.starports.filter((h) => h !== id); data.resources = data.resources.filter((h) => h !== id);
    if (data.armory === id) data.armory = "";
  } else {
    const line = data.rows[row];
    data.rows[row] = line.slice(0, column) + charOf(state.paint) + line.slice(column + 1);
  }
  draw(); changed();
}

function draw() {
  const svg = $("planet"), size = 30, h = Math.sqrt(3) * size;
  svg.setAttribute("viewBox", `0 0 ${1.5 * size * state.columns + size / 2} ${h * (state.rows + 0.5)}`);
  svg.replaceChildren();
  for (let column = 0; column < state.columns; column += 1) {
    for (let row = 0; row < state.rows; row += 1) {
      const cx = size + 1.5 * size * column, cy = h / 2 + h * row + (column % 2 ? h / 2 : 0);
      const points = [0, 60, 120, 180, 240, 300].map((a) => `${cx + size * Math.cos((a * Math.PI) / 180)},${cy + size * Math.sin((a * Math.PI) / 180)}`);
      const kind = state.legend[state.data.rows[row][column]].split(" ")[0];
      const hex = document.createElementNS(SVG, "polygon");
      hex.setAttribute("points", points.join(" "));
      hex.setAttribute("fill", COLOURS[kind] || "#000");
      hex.setAttribute("stroke", "#10141c");
      hex.dataset.hex = hexId(column, row);
      const title = document.createElementNS(SVG, "title");
      title.textContent = `${kind}, column ${column + 1}, row ${row + 1}`;
      hex.append(title);
      hex.addEventListener("click", () => paint(column, row));
      svg.append(hex);
      const id = hexId(column, row);
      const mark = Object.keys(MARKS).find((k) => (k === "armory" ? state.data.armory === id : state.data[k].includes(id)));
      if (mark) {
        const text = document.createElementNS(SVG, "text");
        text.setAttribute("x", cx); text.setAttribute("y", cy + 8); text.setAttribute("text-anchor", "middle");
        text.setAttribute("font-size", "24"); text.setAttribute("fill", "#fff"); text.setAttribute("pointer-events", "none");
        text.textContent = MARKS[mark];
        svg.append(text);
      }
    }
  }
}

function paints() {
  const kinds = Object.values(state.legend).map((k) => k.split(" ")[0]);
  const options = [...kinds.map((k) => [k, k]), ...Object.entries(FEATURES).map(([k, words]) => [k, `${words} (${MARKS[k]})`]), ["clear", "no feature"]];
  $("paints").replaceChildren(...options.map(([key, words]) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = words; b.dataset.paint = key;
    b.setAttribute("aria-pressed", String(key === state.paint));
    b.addEventListener("click", () => { state.paint = key; paints(); });
    return b;
  }));
}

function changed() {
  keepDraft(DRAFT_KEY, { start: state.start, data: state.data }, check);
}

async function check() {
  const { problems } = await post("/api/editor/planet/check", { planet: state.data });
  showProblems(problems, "The game can be played on this map.");
}

async function load(name) {
  const answer = await get(`/api/editor/planet?start=${encodeURIComponent(name)}`);
  Object.assign(state, { legend: answer.legend, columns: answer.columns, rows: answer.rows, start: name, data: answer.planet });
  $("planet-start").replaceChildren(...answer.starts.map((s) => new Option(/^[1-8]$/.test(s) ? `the game's own planet ${s}` : `your map “${s}”`, s, false, s === name)));
  paints(); draw(); changed();
}

function save() {
  return keep("/api/editor/planet/save", "my-planet-3", { planet: state.data }, load, "give it to a planet when you start a new game.");
}

async function main() {
  takeTokenFromUrl();
  await joinTable().catch(() => null);  // the checks and saves are a joined phone's
  $("planet-load").addEventListener("click", () => guarded(() => load($("planet-start").value)));
  await startEditing({ key: DRAFT_KEY, save, changed, fresh: (kept) => load(kept ? kept.start : "1"),
    restore: (kept) => { state.data = kept.data; draw(); } });
}

main();
