// The board being edited, as the board file holds it (mm, y up), with the edits a tap makes and their undo.
export const PLANETS = ["red", "orange", "yellow", "green", "blue", "purple", "brown", "gray"];
const UNDO_DEPTH = 100;

export class Draft {
  constructor(board) { this.board = structuredClone(board); this.past = []; }

  change(edit) {
    this.past.push(JSON.stringify(this.board));
    if (this.past.length > UNDO_DEPTH) this.past.shift();
    edit(this.board);
  }

  undo() { if (this.past.length) this.board = JSON.parse(this.past.pop()); }

  site(id) { return this.board.sites.find((s) => s.id === id); }

  name(id) { const s = this.site(id); return s ? s.label || s.id : id; }

  addSite(x, y) {
    let n = this.board.sites.length + 1;
    while (this.site(`site${n}`)) n += 1;
    const id = `site${n}`;
    this.change((b) => b.sites.push({ id, x: round(x), y: round(y), kind: "intersection", label: `site ${n}`, tags: [] }));
    return id;
  }

  move(id, x, y) { this.change(() => { const s = this.site(id); s.x = round(x); s.y = round(y); }); }

  remove(id) {
    this.change((b) => {
      b.sites = b.sites.filter((s) => s.id !== id);
      b.links = b.links.filter((l) => l.a !== id && l.b !== id);
      for (const planet of Object.keys(b.orbits || {})) b.orbits[planet] = b.orbits[planet].filter((s) => s !== id);
    });
  }

  // A line or orbit between two sites; the same again takes it away.
  toggleLink(a, b, kind) {
    if (a === b) return;
    this.change((board) => {
      const same = (l) => l.kind === kind && ((l.a === a && l.b === b) || (l.a === b && l.b === a));
      if (board.links.some(same)) board.links = board.links.filter((l) => !same(l));
      else board.links.push({ a, b, kind, directed: false });
    });
  }

  setSite(id, fields) {
    this.change(() => {
      const s = this.site(id);
      if ("label" in fields) s.label = fields.label;
      let tags = s.tags.filter((t) => !t.startsWith("planet-") && t !== "portal" && t !== "station");
      const planet = "planet" in fields ? fields.planet : planetOf(s);
      if (planet) tags.push(`planet-${planet}`);
      if ("portal" in fields ? fields.portal : s.tags.includes("portal")) tags.push("portal");
      if ("station" in fields ? fields.station : s.tags.includes("station")) tags.push("station");
      s.tags = tags;
    });
  }
}

export function planetOf(site) {
  const tag = site.tags.find((t) => t.startsWith("planet-"));
  return tag ? tag.slice(7) : "";
}

function round(v) { return Math.round(v * 10) / 10; }

// The board file to send: each planet's orbit listed in the order its orbit lines join its symbols.
export function boardFile(board) {
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
