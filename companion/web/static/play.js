// Playing with the phone: every legal action (/api/inputs) reached by a tap on the map (a piece, then where it goes,
// the piece to remove or the site to place on) or by a picker that narrows the choice one argument at a time (a unit,
// then a hex; two dice; a card by its summary; a number stepper). No list shows more than 12 rows ungrouped.
const $ = (id) => document.getElementById(id);
const MAX_ROWS = 12;
const PRIMARY = /^(end|pass|done)/;
const FINAL = /^(resign|concede)/;

function button(text, onclick, style = "") {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = text;
  node.className = style;
  node.onclick = onclick;
  return node;
}

function sameValue(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

export class Moves {
  constructor(app) {
    this.app = app;
    this.items = [];
    this.actor = null;
    this.picked = null;  // {site, items}: a piece tapped on the map, waiting for where it goes
  }

  // May this phone act now? A player acts on its own seat's turn and in the table's own phases.
  mine() {
    const app = this.app;
    return app.isPlayer && !!app.state && !app.state.outcome && (this.actor === null || this.actor === app.actorName());
  }

  load(inputs) {
    this.items = [...inputs.phone, ...inputs.board];
    this.actor = inputs.actor;
    this.loads = (this.loads || 0) + 1;  // for the browser tests: the inputs of the latest state are in
    this.clearPick();
    this.render();
  }

  // The inputs panel: the end of the turn as a big button, every other kind of action as one button that opens
  // its picker (or, for three or fewer, the actions themselves).
  render() {
    const mine = this.mine(), state = this.app.state;
    $("controls").hidden = !this.app.isPlayer;
    $("not-yours").hidden = !this.app.isPlayer || mine || !state || !!state.outcome;
    if (state && this.actor) $("not-yours").textContent = `${this.app.nameOf(this.actor)}'s turn: your phone acts on yours.`;
    $("moves").hidden = !mine;
    if (!mine) return;
    const primary = [], groups = new Map();
    for (const item of this.items) {
      if (PRIMARY.test(item.type) || item.chance) primary.push(item);
      else groups.set(item.title, [...(groups.get(item.title) || []), item]);
    }
    const said = (item) => (item.chance || item.label.startsWith(item.title) ? item.label : `${item.title}: ${item.label}`);
    $("primary").replaceChildren(...primary.map((item) => button(said(item), () => this.book(item), "accent big")));
    const rows = [];
    for (const [title, items] of groups) {
      const drawn = primary.some((item) => item.chance && item.title === title);
      const onMap = items.some((item) => item.from.length || item.to.some((site) => this.app.map.sites.has(site)));
      if (items.length <= 3 && !onMap) rows.push(...items.map((item) => this.declare(item)));
      else {
        rows.push(button(`${drawn ? "Or say what you got" : title} (${items.length} ${items.length === 1 ? "way" : "ways"})${onMap ? " · or tap the map" : ""}`,
          () => this.open(title, items)));
        rows.at(-1).dataset.title = title;
      }
    }
    $("declared").replaceChildren(...rows);
    $("map-hint").hidden = !this.items.some((item) => item.from.length || item.to.length);
  }

  // A tap on the map: a piece with moves (then where it goes), or a site something can be placed on.
  tapSite(site) {
    const map = this.app.map, name = map.siteName(site), here = map.piecesAt(site);
    const what = here.length ? `${name}: ${here.join(", ")}` : name;
    // A planet on the solar map: its surface opens, unless a move starts or ends here (then the sheet offers it).
    const planet = this.app.surfaces.planetAt(site);
    this.extra = planet ? button(`Open planet ${planet}'s surface`, () => this.app.surfaces.show(planet)) : null;
    const moving = this.mine() && this.items.some((item) => !item.chance && (item.from.includes(site) || item.to.includes(site)));
    if (planet && !moving && !(this.picked && this.picked.site !== site)) { this.app.surfaces.show(planet); return; }
    if (!this.mine()) { this.sheet(what, [], "Nothing for you to do here now."); return; }
    if (this.picked && this.picked.site !== site) {
      const going = this.picked.items.filter((item) => item.to.includes(site) || item.from.includes(site));
      if (going.length) {
        this.picked.site === site || this.app.map.choose(this.picked.site, [site]);
        this.open(`${this.picked.what} → ${name}`, going, true);
        return;
      }
    }
    const leaving = this.items.filter((item) => item.from.includes(site) && !item.chance);
    if (leaving.length) {
      const targets = new Set(leaving.flatMap((item) => item.to).filter((s) => s !== site));
      this.picked = { site, items: leaving, what };
      map.choose(site, [...targets]);
      this.open(what, leaving, false, targets.size ? "Tap where it goes on the map, or choose here:" : "");
      return;
    }
    const arriving = this.items.filter((item) => item.to.includes(site) && !item.chance);
    this.clearPick();
    if (arriving.length) this.open(what, arriving, true);
    else this.sheet(what, [], "No legal move starts or ends here now.");
  }

  // A declared action's button; one that ends the game for its player (resigning) says so and asks first.
  declare(item) {
    if (!FINAL.test(item.type)) return button(item.label, () => this.book(item));
    return button(`${item.title}…`, async () => {
      if (await this.app.confirm(`${item.title}?`, `${item.label} The game ends here.`)) this.book(item);
    });
  }

  clearPick() {
    this.picked = null;
    this.app.map.choose(null, []);
  }

  // The picker for a set of actions: one action is shown with its sentence and a Book button; up to 12 are listed
  // by their sentences; more are narrowed by the first argument on which they differ.
  open(title, items, confirm = false, note = "") {
    if (items.length === 1 && confirm) {
      this.sheet(title, [button(`Book: ${items[0].label}`, () => this.book(items[0]), "accent")], note);
      return;
    }
    if (items.length <= MAX_ROWS) {
      this.sheet(title, items.map((item) => button(item.label, () => this.book(item))), note);
      return;
    }
    const types = [...new Set(items.map((item) => item.title))];
    if (types.length > 1) {
      this.sheet(title, types.map((type) => {
        const of = items.filter((item) => item.title === type);
        return button(`${type} (${of.length})`, () => this.open(`${title} · ${type}`, of));
      }), note);
      return;
    }
    const index = this.splitAt(items);
    const values = [];
    for (const item of items) {
      const step = item.steps[index] || ["", null, "other"];
      let entry = values.find((v) => sameValue(v.value, step[1]));
      if (!entry) values.push(entry = { value: step[1], word: step[2], items: [] });
      entry.items.push(item);
    }
    const stepName = (items[0].steps[index] || ["choice"])[0];
    if (values.every((v) => Number.isInteger(v.value)) && values.length > 6) {
      this.stepper(title, stepName, values, note);
      return;
    }
    const choose = (v) => (v.items.length === 1 ? button(v.items[0].label, () => this.book(v.items[0]))
      : button(`${v.word} (${v.items.length})`, () => this.open(`${title} · ${v.word}`, v.items)));
    // Folds are named by their first and last value, unless each value is one action (shown by its sentence).
    const named = values.every((v) => v.items.length === 1) ? [] : values.map((v) => v.word);
    this.sheet(`${title}: which ${stepName.toLowerCase()}?`, grouped(values.map(choose), named), note);
  }

  // The first argument whose values differ between the actions.
  splitAt(items) {
    const longest = Math.max(...items.map((item) => item.steps.length));
    for (let i = 0; i < longest; i++) {
      const first = items[0].steps[i];
      if (items.some((item) => !sameValue(item.steps[i], first))) return i;
    }
    return 0;
  }

  // A number: minus, the value, plus, and the button that takes it.
  stepper(title, stepName, values, note) {
    values.sort((a, b) => a.value - b.value);
    let at = 0;
    const shown = document.createElement("output");
    shown.className = "stepper-value";
    const go = button("", () => this.open(`${title} · ${stepName} ${values[at].word}`, values[at].items, values[at].items.length === 1), "accent");
    const show = () => { shown.textContent = values[at].word; go.textContent = `${stepName}: ${values[at].word}`; };
    const minus = button("−", () => { at = Math.max(0, at - 1); show(); }, "step");
    const plus = button("+", () => { at = Math.min(values.length - 1, at + 1); show(); }, "step");
    minus.setAttribute("aria-label", "less");
    plus.setAttribute("aria-label", "more");
    const row = document.createElement("div");
    row.className = "stepper";
    row.append(minus, shown, plus);
    show();
    this.sheet(`${title}: ${stepName.toLowerCase()}`, [row, go], note);
  }

  sheet(title, rows, note = "") {
    $("pick-title").textContent = title;
    $("pick-note").textContent = note;
    $("pick-note").hidden = !note;
    $("pick-list").replaceChildren(...rows, ...(this.extra ? [this.extra] : []));
    $("pick").hidden = false;
    // From the map the sheet opens just below it, the map staying in view; from the panel it is brought to view.
    if (!this.picked) $("pick").scrollIntoView({ block: "start", behavior: "smooth" });
  }

  close() {
    $("pick").hidden = true;
    this.extra = null;
    this.clearPick();
  }

  async book(item) {
    this.close();
    await this.app.send("/api/act", { action: item.action });
  }
}

// More than 12 buttons: in folds of 12, each named by its first and last choice.
function grouped(buttons, words) {
  if (buttons.length <= MAX_ROWS) return buttons;
  const folds = [];
  for (let i = 0; i < buttons.length; i += MAX_ROWS) {
    const fold = document.createElement("details");
    const summary = document.createElement("summary");
    const last = Math.min(i + MAX_ROWS, buttons.length) - 1;
    summary.textContent = words[i] === undefined ? `${i + 1} to ${last + 1} of ${buttons.length}`
      : `${words[i]} … ${words[last]}`;
    const list = document.createElement("div");
    list.className = "choices";
    list.append(...buttons.slice(i, i + MAX_ROWS));
    fold.append(summary, list);
    folds.push(fold);
  }
  return folds;
}
