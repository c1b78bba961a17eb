// The live SVG map, drawn from the board data: sites and links once, then the pieces, the last move, the sites a
// mismatch asks to put right and the site a guide asks for on every state. A tap on a site calls onSite(id).
const NS = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#ef476f", green: "#06d6a0", blue: "#4d8bff", yellow: "#ffd166", orange: "#f78c40",
  purple: "#b57cf2", white: "#f2f2f2", black: "#555", grey: "#999", silver: "#c0c0c0", teal: "#2ec4b6" };
const KINDS = ["#8ecae6", "#cdb4db", "#e9c46a", "#90be6d", "#f4a261", "#a8dadc"];

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// A piece's colour: a colour word in its name (ship-red), else one colour per kind (planet, infestor, ...).
export function pieceColour(piece) {
  const parts = piece.split(/[-_ ]/);
  for (const part of parts) if (COLOURS[part]) return COLOURS[part];
  let hash = 0;
  for (const ch of parts[0]) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return KINDS[hash % KINDS.length];
}

export class BoardMap {
  constructor(svg) {
    this.svg = svg;
    this.sites = new Map();
    this.previous = null;
    this.onSite = () => {};
    svg.addEventListener("click", (event) => {
      const site = event.target.closest("[data-site]");
      if (site) this.onSite(site.dataset.site);
    });
  }

  draw(board) {
    const svg = this.svg;
    svg.replaceChildren();
    this.sites = new Map(board.sites.map((s) => [s.id, s]));
    let nearest = Infinity;
    for (const a of board.sites) for (const b of board.sites) {
      if (a !== b) nearest = Math.min(nearest, Math.hypot(a.x - b.x, a.y - b.y));
    }
    this.r = Math.max(4, Math.min(nearest * 0.42, board.width / 30));
    // The board's sites plus a margin, so that the outermost sites and their highlights are never cut off.
    const xs = board.sites.map((s) => s.x), ys = board.sites.map((s) => s.y), pad = this.r * 1.6;
    const x0 = Math.min(0, Math.min(...xs) - pad), y0 = Math.min(0, Math.min(...ys) - pad);
    const x1 = Math.max(board.width, Math.max(...xs) + pad), y1 = Math.max(board.height, Math.max(...ys) + pad);
    svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
    const links = el("g", { class: "links" }, svg);
    for (const link of board.links) {
      const a = this.sites.get(link.a), b = this.sites.get(link.b);
      const transfer = link.kind !== "orbit" && link.kind !== "line";
      el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `link-line${transfer ? " transfer" : ""}` }, links);
    }
    const spots = el("g", { class: "sites" }, svg);
    this.circles = new Map();
    for (const site of board.sites) {
      const c = el("circle", { cx: site.x, cy: site.y, r: this.r, class: "site", "data-site": site.id }, spots);
      el("title", {}, c).textContent = site.name;
      this.circles.set(site.id, c);
    }
    this.pieces = el("g", { class: "pieces" }, svg);
    this.previous = null;
  }

  // layout: {site: [piece, ...]} bottom to top; mismatch: site ids to put right; target: the site a guide asks
  // for; wrong: sites a guide says a piece is wrongly on.
  update(layout, mismatch = [], target = null, wrong = []) {
    if (!this.circles) return;
    const moved = new Set();
    if (this.previous) {
      for (const site of new Set([...Object.keys(layout), ...Object.keys(this.previous)])) {
        if ((layout[site] || []).join() !== (this.previous[site] || []).join()) moved.add(site);
      }
      if (moved.size) this.moved = moved;  // a card drawn moves nothing: keep showing the last move
    }
    this.previous = layout;
    for (const [id, circle] of this.circles) {
      circle.classList.toggle("moved", (this.moved || new Set()).has(id));
      circle.classList.toggle("mismatch", mismatch.includes(id) || wrong.includes(id));
      circle.classList.toggle("target", id === target);
    }
    this.pieces.replaceChildren();
    const r = this.r * 0.62;
    for (const [siteId, stack] of Object.entries(layout)) {
      const site = this.sites.get(siteId);
      if (!site || !stack.length) continue;
      stack.forEach((piece, i) => {
        // A stack fans out around its site so that every piece stays visible.
        const angle = stack.length === 1 ? 0 : (2 * Math.PI * i) / stack.length;
        const spread = stack.length === 1 ? 0 : this.r * 0.55;
        const x = site.x + spread * Math.cos(angle), y = site.y + spread * Math.sin(angle);
        const g = el("g", { "data-piece": piece }, this.pieces);
        el("circle", { cx: x, cy: y, r, fill: pieceColour(piece), class: "piece" }, g);
        const label = el("text", { x, y, class: "piece-label", "font-size": r * 1.1 }, g);
        label.textContent = piece.split(/[-_ ]/)[0].slice(0, 1).toUpperCase();
        el("title", {}, g).textContent = `${piece} on ${site.name}`;
      });
    }
  }
}
