// The board being edited, as the board file holds it (mm, y up), with the edits a tap makes and their undo.
export const PLANETS = ["red", "orange", "yellow", "green", "blue", "purple", "brown", "gray"];
const UNDO_DEPTH = 100;

export class Draft {
  constructor(board) { this.board = structuredClone(board); this.board.orbits ||= {}; this.past = []; }

  change(edit) {
    this.past.push(JSON.stringify(this.board));
    if (this.past.length > UNDO_DEPTH) this.past.shift();
    edit(this.board);
  }

  undo() { if (this.past.length) this.board = JSON.parse(this.past.pop()); }

  site(id) { return this.board.sites.find((s) => s.id === id); }

  name(id) { const s = this.site(id); return s ? s.label || s.id : id; }

  // A new site where the person tapped: `word` names it ("site 4", "spot 4") until they give it a name.
  addSite(x, y, kind = "intersection", word = "site") {
    let n = this.board.sites.length + 1;
    while (this.site(`${word}${n}`)) n += 1;
    const id = `${word}${n}`;
    this.change((b) => b.sites.push({ id, x: round(x), y: round(y), kind, label: `${word} ${n}`, tags: [] }));
    return id;
  }

  remove(id) {
    this.change((b) => {
      b.sites = b.sites.filter((s) => s.id !== id);
      b.links = b.links.filter((l) => l.a !== id && l.b !== id);
      for (const name of Object.keys(b.orbits)) b.orbits[name] = b.orbits[name].filter((s) => s !== id);
    });
  }

  // A line between two sites; the same again takes it away. A directed one (an entry line) goes from a to b.
  toggleLink(a, b, kind, directed = false) {
    if (a === b) return;
    this.change((board) => {
      const same = (l) => l.kind === kind && ((l.a === a && l.b === b) || (!directed && l.a === b && l.b === a));
      if (board.links.some(same)) board.links = board.links.filter((l) => !same(l));
      else board.links.push({ a, b, kind, directed });
    });
  }

  // One undoable change to a site: `edit` given the site.
  edit(id, edit) { this.change(() => edit(this.site(id))); }

  // The site's tags with those `owned` by a field replaced by `wanted`.
  static retag(site, owned, wanted) {
    site.tags = [...site.tags.filter((t) => !owned(t)), ...wanted];
  }
}

function round(v) { return Math.round(v * 10) / 10; }
