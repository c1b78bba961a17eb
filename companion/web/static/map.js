// The live SVG map, drawn from the board data as players know their board: orbits as rings, lines, hexes, planets by
// name and colour, stations and markers as tiles apart from the players' colours, pieces at least 24 px across on a
// phone. On every state: the pieces, the last move, the sites a mismatch asks to put right, the site a guide asks
// for, and the piece a player picked with where it may go. A tap anywhere calls onSite(the nearest site's id).
const NS = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#ef476f", green: "#06d6a0", blue: "#4d8bff", yellow: "#ffd166", orange: "#f78c40",
  purple: "#b57cf2", white: "#f2f2f2", black: "#555", grey: "#999", gray: "#999", silver: "#c0c0c0",
  teal: "#2ec4b6", brown: "#a0522d" };
// Planets that carry a name rather than a colour: each its own colour, none a player's.
const PLANETS = { home: "#5ab0ff", metal: "#b8b8c8", helium: "#f4a261", ice: "#bde0fe" };
const NAMED = ["#8ecae6", "#cdb4db", "#e9c46a", "#90be6d", "#f4a261", "#a8dadc", "#e5989b", "#b5838d"];
const FEATURES = { starport: "★", resource: "◆", armory: "▲" };  // on a planet's surface (the map's key says so)
const TILES = new Set(["station", "asteroid", "turn", "marker", "nebula", "portal", "tile", "token"]);
const MIN_PIECE_PX = 26;  // across, on the map as drawn
const MIN_APART_PX = 26;  // between neighbouring sites: the map opens zoomed in on a crowded board until they are

// A colour word's colour on the map ("red" -> the red pieces' colour), or null for any other word.
export function colourWord(word) { return COLOURS[word] || null; }

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function hash(text) {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

// A piece's colour: a colour word in its name (ship-red, planet-yellow), a named planet's own, else neutral.
export function pieceColour(piece) {
  const [kind, ...rest] = piece.split(">")[0].split(/[-_ ]/);  // planet-red>r1s1: the red planet, pointing to r1s1
  if (kind === "planet" && PLANETS[rest[0]]) return PLANETS[rest[0]];
  for (const part of [kind, ...rest].reverse()) if (COLOURS[part]) return COLOURS[part];
  if (kind === "planet") return NAMED[hash(rest.join("-")) % NAMED.length];
  if (TILES.has(kind)) return "#e8e8e8";
  return NAMED[hash(kind) % NAMED.length];
}

// The mark on a piece: the game's mark for its kind (`marks`: the start of its name, colours left out -> one or two
// characters, each meaning one kind), a numbered planet's number, else the first letter of its kind.
export function pieceMark(piece, marks = {}) {
  const parts = piece.split(">")[0].split(/[-_ ]/);
  if (parts[0] === "planet" && /^\d+$/.test(parts.at(-1))) return parts.at(-1);
  const key = parts.filter((part) => !COLOURS[part]).join("-");
  let best = null;
  for (const k of Object.keys(marks)) if ((key === k || key.startsWith(`${k}-`)) && (best === null || k.length > best.length)) best = k;
  if (best !== null) return marks[best];
  const [kind, ...rest] = parts;
  if ((kind === "planet" || kind === "station") && rest.length && !COLOURS[rest[0]]) return rest[0].slice(0, 1).toUpperCase();
  return kind.slice(0, 1).toUpperCase();
}

export class BoardMap {
  constructor(svg) {
    this.svg = svg;
    this.sites = new Map();
    this.previous = null;
    this.names = {};
    this.labels = false;
    this.zoom = 1;
    this.onSite = () => {};
    svg.addEventListener("click", (event) => {
      const hit = event.target.closest("[data-site]");
      const site = hit ? hit.dataset.site : this.nearest(event);
      if (site) this.onSite(site);
    });
  }

  // The site nearest a tap, within two site radii: fingers are wider than a site on a crowded board.
  nearest(event) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix || !this.sites.size) return null;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    let best = null, distance = Infinity;
    for (const site of this.sites.values()) {
      const d = Math.hypot(site.x - point.x, site.y - point.y);
      if (d < distance) { best = site; distance = d; }
    }
    return best && distance <= Math.max(this.r * 2, this.pieceR * 1.2) ? best.id : null;
  }

  siteName(id) { return (this.sites.get(id) || { name: id }).name; }

  piecesAt(id) { return ((this.previous || {})[id] || []).map((piece) => this.names[piece] || piece); }

  draw(board) {
    const svg = this.svg;
    svg.replaceChildren();
    this.board = board;
    this.sites = new Map(board.sites.map((s) => [s.id, s]));
    let nearest = Infinity;
    for (const a of board.sites) for (const b of board.sites) {
      if (a !== b) nearest = Math.min(nearest, Math.hypot(a.x - b.x, a.y - b.y));
    }
    this.spacing = nearest;
    this.r = Math.max(3, Math.min(nearest * 0.42, board.width / 30));
    const xs = board.sites.map((s) => s.x), ys = board.sites.map((s) => s.y), pad = this.r * 2.5;
    const x0 = Math.min(...xs) - pad, y0 = Math.min(...ys) - pad;
    const x1 = Math.max(...xs) + pad, y1 = Math.max(...ys) + pad;
    this.view = { x0, y0, w: x1 - x0, h: y1 - y0 };
    svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
    svg.style.aspectRatio = `${x1 - x0} / ${y1 - y0}`;
    const rings = el("g", { class: "rings" }, svg);
    for (const cycle of Object.values(board.orbits || {})) {
      const points = cycle.map((id) => this.sites.get(id)).filter(Boolean).map((s) => `${s.x},${s.y}`).join(" ");
      if (cycle.length > 2) el("polygon", { points, class: "orbit-ring" }, rings);
    }
    const links = el("g", { class: "links" }, svg);
    for (const link of board.links) {
      const a = this.sites.get(link.a), b = this.sites.get(link.b);
      if (!a || !b || link.kind === "hex") continue;  // hexes show their neighbours by touching
      const transfer = !["orbit", "line", "track"].includes(link.kind);
      el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `link-line${transfer ? " transfer" : ""}` }, links);
    }
    const spots = el("g", { class: "sites" }, svg);
    this.circles = new Map();
    const hexR = nearest / Math.sqrt(3), turn = board.hexes === "flat" ? 0 : Math.PI / 6;
    const marks = el("g", { class: "features" });
    for (const site of board.sites) {
      let shape;
      if (site.kind === "hex") {
        const points = [0, 1, 2, 3, 4, 5].map((i) => {
          const a = turn + (i * Math.PI) / 3;
          return `${site.x + hexR * 0.97 * Math.cos(a)},${site.y + hexR * 0.97 * Math.sin(a)}`;
        }).join(" ");
        // A planet's hex is coloured by its terrain and marked with what stands on it (a starport, ...).
        const terrain = board.hexes === "flat" ? site.tags.filter((tag) => !FEATURES[tag]).map((tag) => ` terrain ${tag}`).join("") : "";
        shape = el("polygon", { points, class: `site hex${terrain}`, "data-site": site.id }, spots);
        const feature = site.tags.find((tag) => FEATURES[tag]);
        if (feature) el("text", { x: site.x, y: site.y - hexR * 0.45, class: "feature", "font-size": hexR * 0.55 }, marks)
          .textContent = FEATURES[feature];
      } else {
        // A crowded board (ORBIT's 217 crossings) draws its sites small, so that its rings read as rings.
        const r = board.sites.length > 100 ? this.r * 0.6 : this.r;
        shape = el("circle", { cx: site.x, cy: site.y, r, class: `site ${site.kind}`, "data-site": site.id }, spots);
      }
      el("title", {}, shape).textContent = site.name;
      this.circles.set(site.id, shape);
    }
    svg.append(marks);
    // Sites in named groups (Periorbis's asteroids: "Ada base slot 1") get the group's name above them.
    const groups = new Map();
    for (const site of board.sites) {
      const word = site.name.split(" ")[0];
      if (/^[A-Z]/.test(word) && site.name.includes(" ")) groups.set(word, [...(groups.get(word) || []), site]);
    }
    for (const [word, members] of groups) {
      if (members.length < 2) continue;
      const x = members.reduce((sum, s) => sum + s.x, 0) / members.length;
      const y = Math.min(...members.map((s) => s.y)) - this.r * 1.6;
      el("text", { x, y, class: "group-label", "font-size": this.r * 1.8 }, svg).textContent = word;
    }
    this.pieces = el("g", { class: "pieces" }, svg);
    this.labelLayer = el("g", { class: "labels" }, svg);
    this.previous = null;
    this.moved = null;
    this.marksOf = board.marks || {};
    // A crowded board (ORBIT's crossings, Orbital Battle's hexes on a phone) opens zoomed in until neighbouring
    // sites are a finger apart; Zoom then shows the whole board, and back.
    const box = svg.parentElement ? svg.parentElement.clientWidth : 0;
    const apart = box ? (nearest * box) / this.view.w : MIN_APART_PX;
    this.near = apart < MIN_APART_PX ? Math.min(4, MIN_APART_PX / apart) : 1;
    this.setZoom(this.near);
    if (box) svg.parentElement.scrollTo({ left: (svg.clientWidth - box) / 2, top: (svg.clientHeight - svg.parentElement.clientHeight) / 2 });
  }

  // Bring these sites to the middle of the map's box (when zoomed in, after a move: what changed).
  focus(sites) {
    const box = this.svg.parentElement, points = [...sites].map((id) => this.sites.get(id)).filter(Boolean);
    if (!box || !points.length || this.zoom === 1) return;
    const x = points.reduce((sum, p) => sum + p.x, 0) / points.length, y = points.reduce((sum, p) => sum + p.y, 0) / points.length;
    const scale = this.svg.clientWidth / this.view.w;
    box.scrollTo({ left: (x - this.view.x0) * scale - box.clientWidth / 2, top: (y - this.view.y0) * scale - box.clientHeight / 2 });
  }

  // A piece's radius in board units: at least MIN_PIECE_PX across as drawn now, and no wider than its site's room
  // once the map is zoomed in as far as it opens.
  pieceRadius() {
    const px = (this.svg.clientWidth || 320) / this.view.w;
    return Math.max(this.r * 0.75, MIN_PIECE_PX / 2 / px);
  }

  setZoom(zoom) {
    this.zoom = zoom;
    this.svg.style.width = `${zoom * 100}%`;
  }

  // The sites the last move changed, as the page learnt them (the last action's sites on first load).
  setMoved(sites) { this.moved = new Set(sites); this.paint(); this.focus(this.moved); }

  // A piece picked on the map, and the sites it may go to.
  choose(site, targets) { this.picked = site; this.targets = new Set(targets); this.paint(); }
  aim(sites) { this.aims = new Set(sites); this.paint(); }

  // layout: {site: [piece, ...]} bottom to top; mismatch: site ids to put right; target: the site a guide asks
  // for; wrong: sites a guide says a piece is wrongly on.
  update(layout, mismatch = [], target = null, wrong = []) {
    if (!this.circles) return;
    if (this.previous) {
      const moved = new Set();
      for (const site of new Set([...Object.keys(layout), ...Object.keys(this.previous)])) {
        if ((layout[site] || []).join() !== (this.previous[site] || []).join()) moved.add(site);
      }
      if (moved.size) {  // a card drawn moves nothing: keep showing the last move
        this.moved = moved;
        this.focus(moved);
      }
    }
    this.previous = layout;
    this.marks = { mismatch: new Set([...mismatch, ...wrong]), target };
    this.paint();
    this.pieces.replaceChildren();
    const r = this.pieceR = this.pieceRadius();
    for (const [siteId, stack] of Object.entries(layout)) {
      const site = this.sites.get(siteId);
      if (!site || !stack.length) continue;
      // A piece stands alone on its site; on a base (a planet, a tile) it sits on the base's corner; a taller stack
      // shows its top piece and how many stand under it (a tap lists them all).
      const base = stack.length > 1 && /^(planet|station|asteroid|portal|tile|marker)/.test(stack[0]) ? stack[0] : null;
      const top = stack.at(-1);
      const g = el("g", { "data-piece": top, "data-at": siteId, class: "piece-g" }, this.pieces);
      if (base) this.drawPiece(g, base, site.x, site.y, r);
      const small = base ? r * 0.72 : r;
      const [x, y] = base ? [site.x + r * 0.55, site.y - r * 0.55] : [site.x, site.y];
      this.drawPiece(g, top, x, y, small);
      const under = stack.length - 1 - (base ? 1 : 0);
      if (under > 0) {
        const bx = x + small * 0.8, by = y + small * 0.8;
        el("circle", { cx: bx, cy: by, r: small * 0.55, class: "piece-badge" }, g);
        el("text", { x: bx, y: by, class: "badge-label", "font-size": small * 0.7 }, g).textContent = `+${under}`;
      }
      el("title", {}, g).textContent = `${stack.map((p) => this.names[p] || p).join(", ")} on ${site.name}`;
    }
    this.paint();
  }

  drawPiece(g, piece, x, y, r) {
    const kind = piece.split(/[-_ ]/)[0];
    const size = r;
    if (TILES.has(kind)) {
      el("rect", { x: x - size * 0.88, y: y - size * 0.88, width: size * 1.76, height: size * 1.76, rx: size * 0.3,
        fill: pieceColour(piece), class: "piece tile" }, g);
    } else {
      el("circle", { cx: x, cy: y, r: size, fill: pieceColour(piece), class: `piece ${kind === "planet" ? "planet" : ""}` }, g);
    }
    const mark = pieceMark(piece, this.marksOf);
    if (mark) el("text", { x, y, class: "piece-label", "font-size": size * (mark.length > 1 ? 0.85 : 1.05) }, g).textContent = mark;
  }

  // The marks on the pieces now on the map, each with the kind it stands for: "Ar army · T transport".
  key() {
    const seen = new Map();
    for (const [site, stack] of Object.entries(this.previous || {})) {
      if (!this.sites.has(site)) continue;
      for (const piece of stack) {
        const mark = pieceMark(piece, this.marksOf);
        const words = (this.names[piece] || piece).replace(/^.*'s /, "").replace(/ pointing to .*/, "").replace(/ \d+$/, "");
        if (mark && !/^\d+$/.test(mark) && !seen.has(mark)) seen.set(mark, words);
      }
    }
    return [...seen].map(([mark, words]) => `${mark} ${words}`).join(" · ");
  }

  paint() {
    if (!this.circles) return;
    const marks = this.marks || { mismatch: new Set(), target: null };
    for (const [id, shape] of this.circles) {
      shape.classList.toggle("moved", !!this.moved && this.moved.has(id));
      shape.classList.toggle("mismatch", marks.mismatch.has(id));
      shape.classList.toggle("target", id === marks.target);
      shape.classList.toggle("picked", id === this.picked);
      shape.classList.toggle("dest", !!this.targets && this.targets.has(id));
      shape.classList.toggle("aim", !!this.aims && this.aims.has(id));
    }
    for (const g of this.pieces ? this.pieces.children : []) g.classList.toggle("aimed", !!this.aims && this.aims.has(g.dataset.at));
    this.drawLabels();
  }

  // Site names on demand (the Names button), and always for the sites a picked piece may go to.
  drawLabels() {
    if (!this.labelLayer) return;
    this.labelLayer.replaceChildren();
    const shown = new Set(this.targets || []);
    if (this.labels) for (const id of Object.keys(this.previous || {})) shown.add(id);
    if (this.labels) for (const id of this.moved || []) shown.add(id);
    const size = Math.max(this.pieceR || this.r, this.r) * 0.8;
    const placed = [];  // the boxes of the labels drawn so far: a label that would cover one is left out
    for (const id of shown) {
      const site = this.sites.get(id);
      if (!site || /^planet \d+ hex \d+$/.test(site.name)) continue;  // a hex is ringed, never named by its code
      const name = site.name.replace(/^the /, "");
      const y = site.y + (this.pieceR || this.r) * 1.25 + size * 0.5, w = name.length * size * 0.56;
      const box = { x0: site.x - w / 2, x1: site.x + w / 2, y0: y, y1: y + size * 1.1 };
      if (placed.some((b) => b.x0 < box.x1 && box.x0 < b.x1 && b.y0 < box.y1 && box.y0 < b.y1)) continue;
      placed.push(box);
      const text = el("text", { x: site.x, y, class: "site-label", "font-size": size }, this.labelLayer);
      text.textContent = name;
    }
  }
}
