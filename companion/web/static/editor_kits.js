// What differs between the games' boards in the board editor: the tools a tap takes, the fields of a chosen site,
// how a site and a line look, and the board file sent. ORBIT's board, Dakalio's Orbix mat, Orbital Battle's solar map.
import { Draft, PLANETS } from "/static/editor_board.js";

const tagged = (tag) => ({ get: (s) => s.tags.includes(tag), set: (s, on) => Draft.retag(s, (t) => t === tag, on ? [tag] : []) });

export function planetOf(site) {
  const tag = site.tags.find((t) => t.startsWith("planet-"));
  return tag ? tag.slice(7) : "";
}

// ORBIT: each planet's orbit listed in the order its orbit lines join its symbols.
function orbitFile(board) {
  const orbits = {};
  for (const planet of PLANETS) {
    const symbols = board.sites.filter((s) => s.tags.includes(`planet-${planet}`)).map((s) => s.id);
    if (!symbols.length) continue;
    const near = Object.fromEntries(symbols.map((id) => [id, []]));
    for (const l of board.links) if (l.kind.startsWith("orbit") && l.a in near && l.b in near) { near[l.a].push(l.b); near[l.b].push(l.a); }
    const cycle = [symbols[0]];
    for (let at = symbols[0], from = null; ;) {
      const next = near[at].find((s) => s !== from && !cycle.includes(s));
      if (!next) break;
      cycle.push(next); from = at; at = next;
    }
    for (const id of symbols) if (!cycle.includes(id)) cycle.push(id);  // a fork's branch
    orbits[planet] = cycle;
  }
  return { ...board, orbits };
}

// A tool that joins two taps with a link of its kind (again: takes it away).
function pairTool(kind, directed, state, draft, site) {
  if (!state.first) { state.first = site; return false; }
  draft.toggleLink(state.first, site, kind, directed);
  state.first = kind.startsWith("orbit") ? site : null;  // an orbit goes on from where it got to
  return true;
}

const orbit = {
  title: "ORBIT's board", thing: "board", word: "site", words: ["site", "sites"], lineWord: "line", kind: "intersection", starts: ["front", "back"],
  startName: (s) => `the game's own board (${s})`,
  tools: [
    ["move", "Move / choose", "Drag a site to move it; tap one to name it or make it a planet symbol, portal or station."],
    ["site", "Add site", "Tap where a site is on your board."],
    ["line", "Flight line", "Tap two sites to draw the flight line between them (again to take it away)."],
    ["orbit", "Orbit", "Tap two planet symbols of one planet, one after the other round its orbit (again to take it away)."],
    ["delete", "Delete", "Tap a site to take it away with its lines."],
  ],
  fields: [
    { id: "site-planet", label: "Planet symbol of", options: [["", "none"], ...PLANETS.map((p) => [p, p])],
      get: planetOf, set: (s, v) => Draft.retag(s, (t) => t.startsWith("planet-"), v ? [`planet-${v}`] : []) },
    { id: "site-portal", label: "Hyper jump portal", ...tagged("portal") },
    { id: "site-station", label: "Space station tile", ...tagged("station") },
  ],
  tap: (tool, state, draft, site) => pairTool(tool, false, state, draft, site),
  look(site) {
    const planet = planetOf(site);
    return { fill: planet, big: Boolean(planet),
      classes: [site.tags.includes("portal") ? "portal" : "", site.tags.includes("station") ? "station" : ""] };
  },
  linkClass: (l) => (l.kind.startsWith("orbit") ? "orbit" : "line"),
  linkStroke: (l, at) => (l.kind.startsWith("orbit") ? planetOf(at[l.a]) || "#ccc" : ""),
  file: orbitFile,
};

// Dakalio's lines: a line that leaves the mat comes back on the far side, so two lines can be one loop round the
// planet, kept as "<loop>/1" and "<loop>/2" in travel order (the rules run on from the first into the second, and
// from the second's last spot back to the first's first).
const LOOP_COLOURS = ["#ffa94d", "#69db7c", "#e599f7", "#ffd43b", "#4dabf7", "#ff8787", "#63e6be", "#b197fc"];
const loopOf = (name) => name.split("/")[0];

// The first tap chooses a line and the end it leaves by (the end nearer the tap); the second, the line it comes back
// on and the end it comes back by. The same two lines again part them.
function joinLines(state, draft, name, point) {
  const lines = draft.board.orbits, end = nearerEnd(draft, lines[name], point);
  if (!state.line || !lines[state.line] || state.line === name) { state.line = name; state.lineEnd = end; return false; }
  const [leaves, leavesBy, comes, comesBy] = [state.line, state.lineEnd, name, end];
  state.line = null;
  const partner = (n) => n.includes("/") && Object.keys(lines).find((o) => o !== n && loopOf(o) === loopOf(n));
  draft.change((b) => {
    const [outIds, backIds, parted] = [b.orbits[leaves], b.orbits[comes], partner(leaves) === comes];
    // Each line taken part in leaves its loop; a loop's other part stays as a line on its own.
    for (const n of new Set([leaves, comes, partner(leaves), partner(comes)].filter(Boolean))) {
      const ids = b.orbits[n];
      delete b.orbits[n];
      if (parted || (ids !== outIds && ids !== backIds)) b.orbits[freeName(b.orbits, "line")] = ids;
    }
    if (parted) return;
    const loop = freeName(b.orbits, "loop", (n) => `${n}/1`);
    b.orbits[`${loop}/1`] = leavesBy === 0 ? [...outIds].reverse() : outIds;
    b.orbits[`${loop}/2`] = comesBy === 0 ? backIds : [...backIds].reverse();
  });
  return true;
}

// Which end of a line a tap is nearer: 0 its first spot, 1 its last.
function nearerEnd(draft, ids, [x, y]) {
  const [first, last] = [draft.site(ids[0]), draft.site(ids[ids.length - 1])];
  return Math.hypot(first.x - x, first.y - y) <= Math.hypot(last.x - x, last.y - y) ? 0 : 1;
}

function freeName(taken, word, as = (n) => n) {
  let n = 1;
  while (as(`${word}${n}`) in taken) n += 1;
  return `${word}${n}`;
}

// Dakalio: what a spot is (its kind and the Load Zone's bases), the zones and roles its tags give it.
const ROLES = { spot: ["spot", []], load: ["load", []], blue: ["base", ["blue"]], red: ["base", ["red"]] };
const dakalio = {
  title: "Dakalio's Orbix mat", thing: "mat", word: "spot", words: ["spot", "spots"], lineWord: "line", kind: "spot", starts: ["own"],
  startName: () => "the game's own mat",
  tools: [
    ["move", "Move / choose", "Drag a spot to move it; tap one to name it, make it a base, a Station or a Port, or put it in a zone."],
    ["site", "Add spot", "Tap where a spot is on your mat."],
    ["orbit", "Line", "Tap the spots of one straight line in order; tap the last one again to end the line."],
    ["entry", "Entry line", "Tap a Control Zone spot, then the first spot inside it the entry line leads to (again to take it away)."],
    ["join", "Join lines", "Tap a line near the edge where it leaves the mat, then the line on the far side near where a ship comes back in: the two become one loop round the planet (tap both again to part them)."],
    ["serves", "Base serves", "Tap a base, then a Station or Port it serves (again to take it away)."],
    ["delete", "Delete", "Tap a spot to take it away, or a line to take the line away."],
  ],
  fields: [
    { id: "site-role", label: "What it is", options: [["spot", "a spot"], ["load", "a Load Zone spot"], ["blue", "the blue base"], ["red", "a red base"]],
      get: (s) => (s.kind === "base" ? (s.tags.includes("blue") ? "blue" : "red") : s.kind === "load" ? "load" : "spot"),
      set: (s, v) => { const [kind, tags] = ROLES[v]; s.kind = kind; Draft.retag(s, (t) => t === "red" || t === "blue", tags); } },
    { id: "site-control", label: "Control Zone", ...tagged("control") },
    { id: "site-signal", label: "On an anti-gravity signal", ...tagged("signal") },
    { id: "site-station", label: "Station", ...tagged("station") },
    { id: "site-port", label: "Port", ...tagged("port") },
  ],
  tap(tool, state, draft, site) {
    if (tool !== "orbit") return pairTool(tool, true, state, draft, site);
    const lines = draft.board.orbits;
    if (state.line && lines[state.line]) {
      const line = lines[state.line];
      if (line[line.length - 1] === site) { state.line = null; return false; }  // the line ends here
      draft.change(() => line.push(site));
      return true;
    }
    state.line = freeName(lines, "line");
    draft.change((b) => { b.orbits[state.line] = [site]; });
    return true;
  },
  tapLine: joinLines,
  legend: "Red: a red base · blue: the blue base · grey: Load Zone · green: a Station · purple: a Port · orange: on a signal · a blue ring: the Control Zone · two lines in one colour: one loop round the planet.",
  look(site) {
    const role = ["station", "port", "signal"].find((t) => site.tags.includes(t));
    const fill = site.kind === "base" ? (site.tags.includes("blue") ? "#4f8cff" : "#e5484d") : site.kind === "load" ? "#9aa4b8"
      : { station: "#3ddc97", port: "#b48cff", signal: "#ffa94d" }[role] || "";
    return { fill, big: site.kind === "base", classes: site.tags.includes("control") ? ["control"] : [] };
  },
  lines: (board) => {
    const loops = [...new Set(Object.keys(board.orbits).filter((n) => n.includes("/")).map(loopOf))].sort();
    return Object.entries(board.orbits).map(([name, ids]) =>
      [name, ids, false, name.includes("/") ? LOOP_COLOURS[loops.indexOf(loopOf(name)) % LOOP_COLOURS.length] : ""]);
  },
  linkClass: (l) => l.kind,
  linkStroke: () => "",
  // A line of one spot (begun, never drawn on) is no line yet: left out of the file.
  file: (board) => ({ ...board, orbits: Object.fromEntries(Object.entries(board.orbits).filter(([, ids]) => ids.length > 1)) }),
};

// Orbital Battle: the hexes are the game's; a group lays them over its map and says where each planet starts.
const RING_COLOURS = ["#ff6b6b", "#ffa94d", "#ffd43b", "#69db7c", "#4dabf7", "#b197fc", "#e599f7"];
const solar = {
  title: "Orbital Battle's solar map", thing: "solar map", word: "hex", words: ["hex", "hexes"], lineWord: "orbit", kind: "hex", starts: ["own"], fixed: true,
  startName: () => "the game's own solar map",
  legend: "Each orbit in its colour; a white hex with a number: where that planet starts (7 and 8 share the last orbit).",
  tools: [
    ["move", "Move / choose", "Drag a hex to move it over your map; tap one to name it."],
    ["start", "Planet's start", "Choose a planet, then tap the hex on its orbit where it starts."],
  ],
  fields: [],
  tap(tool, state, draft, site) {
    const tag = `planet-${state.planet}`;
    draft.change((b) => { for (const s of b.sites) Draft.retag(s, (t) => t === tag, s.id === site ? [tag] : []); });
    return true;
  },
  look(site) {
    const planets = site.tags.filter((t) => t.startsWith("planet-")).map((t) => t.slice(7));
    return { fill: site.id === "sun" ? "#ffd43b" : planets.length ? "#e8ecf4" : "#59627a", big: site.id === "sun" || planets.length > 0,
      text: planets.join("+"), classes: ["hex"] };
  },
  lines: (board) => Object.entries(board.orbits).map(([name, ids]) => [name, ids, true, RING_COLOURS[Number(name) - 1]]),
  linkClass: () => null,  // the hexes' own adjacency: drawn by the hexes themselves
  linkStroke: () => "",
  file: (board) => board,
};

// Trajectory: the printed board's 60 spaces and their paths are the game's; a group places them over its copy.
const trajectory = {
  title: "Trajectory's board", thing: "board", word: "space", words: ["space", "spaces"], lineWord: "orbit", starts: ["own"], fixed: true,
  startName: () => "the game's own board",
  legend: "The four orbits round the sun; orange: an infestation point.",
  tools: [["move", "Move / choose", "Drag a space to where your board prints it; tap one to name it."]],
  fields: [],
  tap: () => false,
  look: (site) => ({ fill: site.tags.includes("infestation") ? "#ffa94d" : "", big: false, classes: [] }),
  lines: (board) => Object.entries(board.orbits).map(([name, ids]) => [name, ids, true, "#7fa7ffbb"]),
  linkClass: (l) => (l.kind === "transfer-out" ? "line" : null),
  linkStroke: () => "",
  file: (board) => board,
};

export const KITS = { orbit, dakalio, orbital_battle: solar, trajectory };
