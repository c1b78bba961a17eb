// Playing with the phone: every legal action (/api/inputs) reached by a tap on the map (a piece, then where it goes,
// the piece to remove or the site to place on) or by a picker that narrows the choice one argument at a time (a unit,
// then where it goes, shown on the map; a card by the heading it is found under; the dice the table rolled; a number
// stepper), and units bought by numbers. No list shows more than MAX_ROWS rows ungrouped.
import { colourWord } from "./map.js";
import { musterRows } from "./muster.js";
import { MAX_ROWS, button, coarse, diceForm, diceSteps, grouped, sameValue, stepper } from "./pickers.js";

const $ = (id) => document.getElementById(id);
const PRIMARY = /^(end|pass|done)/;
const FINAL = /^(resign|concede)/;

// The headings a game gives a kind of action (ORBIT: a card by its first planet), when every one has one.
function headings(items) {
  if (items.length <= MAX_ROWS || items.some((item) => !item.group)) return null;
  const heads = [...new Set(items.map((item) => item.group))];
  return heads.length > 1 ? heads : null;
}

// What the labels of a list all begin with ("Red plays a card: "), left out of each row under a title saying it.
function shared(items) {
  const first = items[0].label, cut = first.indexOf(": ");
  return items.length > 1 && cut > 0 && items.every((item) => item.label.startsWith(first.slice(0, cut + 2))) ? cut + 2 : 0;
}

export class Moves {
  constructor(app) {
    this.app = app;
    this.items = [];
    this.muster = null;
    this.made = null;  // the state the moves were made from: {game, by} (its game and the log entry that made it)
    this.tapped = null;  // a site tapped while the moves of the state shown were on their way
    this.picked = null;  // {site, items, what}: a piece tapped on the map (or a unit chosen), waiting for where it goes
  }

  // May this phone act now? A player acts on its own seat's turn and in the table's own phases.
  mine() {
    const app = this.app, state = app.state;
    return app.seated && !!state && !state.outcome && (state.phase.actor === null || state.phase.actor === app.actorName());
  }

  // Are the moves those of the state shown? A new state is drawn at once and its moves follow (their request is
  // sent after it arrives); meanwhile the moves of the state before may no longer be legal.
  current() {
    const state = this.app.state;
    return !!state && !!this.made && this.made.game === state.game_id && this.made.by === state.made_by;
  }

  // The same moves again (a name given, a phone joined, a roll tied): the piece picked and the sheet stay as they
  // were. Other moves: a sheet of the moves before goes. A tap on the map made while they were on the way is
  // answered now.
  load(inputs) {
    const { game_id: game, made_by: by, ...moves } = inputs;
    const same = JSON.stringify(moves) === this.loaded;
    this.loaded = JSON.stringify(moves);
    this.items = [...moves.phone, ...moves.board];
    this.muster = moves.muster;
    this.made = { game, by };
    this.loads = (this.loads || 0) + 1;  // for the browser tests: a list of moves is in
    if (!same) this.close();
    this.render();
    const tapped = this.tapped;
    this.tapped = null;
    if (tapped !== null && this.current()) this.tapSite(tapped);
  }

  // The panel: the end of the turn, the companion's draws and buying by numbers as big buttons at the top of the
  // page (the first action needs no scrolling), a kind found under headings as a row of headings there too; every
  // other kind of action as one button below the map that opens its picker (or, for three or fewer, the actions).
  render() {
    const mine = this.mine(), current = this.current(), state = this.app.state, actor = state && state.phase.actor;
    $("controls").hidden = !this.app.seated;
    $("not-yours").hidden = !this.app.seated || mine || !state || !!state.outcome;
    if (actor) $("not-yours").textContent = `${this.app.nameOf(actor)}'s turn: your phone acts on yours.`;
    $("moves").hidden = !mine;
    $("map-hint").hidden = !mine || !this.items.some((item) => item.from.length || item.to.length);
    // The pieces an action may strike where they stand (an attack's targets), ringed on the map to be tapped; while
    // the moves of a new state are on their way, those rung stay.
    if (current || !mine) {
      const aims = mine ? this.items.flatMap((item) => item.at || []) : [];
      this.app.map.aim([...aims, ...this.app.surfaces.planetsHolding(aims)]);
      $("aim-key").hidden = !aims.length;
    }
    // The moves of the state before stay in place until the new ones come (nothing jumps under a finger), but take
    // no tap: one may no longer be legal.
    $("moves").inert = $("pick").inert = mine && !current;
    if (!mine) {  // the turn passed or the game ended: a sheet opened for a move goes with it
      if (!$("pick").hidden) this.close();
      return;
    }
    if (!current) return;
    const primary = [], groups = new Map();
    for (const item of this.items) {
      if (PRIMARY.test(item.type) || (item.chance && !item.steps.length)) primary.push(item);
      else groups.set(item.title, [...(groups.get(item.title) || []), item]);
    }
    const said = (item) => (item.chance || item.label.startsWith(item.title) ? item.label : `${item.title}: ${item.label}`);
    const top = primary.map((item) => button(said(item), () => this.book(item), "accent big"));
    if (this.muster && this.muster.kinds.length) top.unshift(button("Buy by numbers…", () => this.openMuster(), "accent big"));
    const rows = [];
    for (const [title, items] of groups) {
      const heads = headings(items);
      if (heads) { top.unshift(this.headingRow(title, items, heads)); continue; }
      const drawn = primary.some((item) => item.chance && item.title === title);
      const onMap = items.some((item) => item.from.length || [...item.to, ...(item.at || [])].some((site) => this.app.map.sites.has(site)));
      // Three or fewer: each its own button (a planet that can only advance is one tap), the map still there.
      if (items.length <= 3) rows.push(...items.map((item) => this.declare(item)));
      else {
        rows.push(button(`${drawn ? "Or say what you got" : title} (${items.length} ${items.length === 1 ? "way" : "ways"})${onMap ? " · or tap the map" : ""}`,
          () => this.open(title, items)));
        rows.at(-1).dataset.title = title;
      }
    }
    $("primary").replaceChildren(...top);
    $("declared").replaceChildren(...rows);
  }

  // A kind of action found under headings (ORBIT's cards by their first planet): the headings as a grid of buttons,
  // each opening its few actions, so any one is two taps away.
  headingRow(title, items, heads) {
    const box = document.createElement("div");
    box.className = "headings";
    box.dataset.title = title;
    const caption = document.createElement("p");
    caption.className = "muted";
    caption.textContent = `${title}: find it by the first thing it shows`;
    const grid = document.createElement("div");
    grid.className = "heading-grid";
    for (const head of heads) {
      const of = items.filter((item) => item.group === head);
      const chip = button(`${head} (${of.length})`, () => this.open(`${title} · ${head}`, of));
      const colour = colourWord(head.split(" ")[0].toLowerCase());
      if (colour) chip.style.borderLeft = `10px solid ${colour}`;
      grid.append(chip);
    }
    box.append(caption, grid);
    return box;
  }

  // A tap on the map: a piece with moves (then where it goes), or a site something can be placed on.
  tapSite(site) {
    if (this.mine() && !this.current()) { this.tapped = site; return; }  // answered with the new state's moves
    const map = this.app.map, name = map.siteName(site), here = map.piecesAt(site);
    const what = here.length ? `${name}: ${here.join(", ")}` : name;
    // A planet on the solar map: its surface opens, unless a move starts or ends here (then the sheet offers it).
    const planet = this.app.surfaces.planetAt(site);
    this.extra = planet ? button(`Open planet ${planet}'s surface`, () => this.app.surfaces.show(planet)) : null;
    const aimed = this.mine() ? this.items.filter((item) => (item.at || []).includes(site)) : [];
    const moving = aimed.length || (this.mine() && this.items.some((item) => !item.chance && (item.from.includes(site) || item.to.includes(site))));
    if (planet && !moving && !this.picked) { this.app.surfaces.show(planet); return; }
    if (!this.mine()) { this.sheet(what, [], "Nothing for you to do here now."); return; }
    if (this.picked && this.picked.site !== site) {
      const going = this.picked.items.filter((item) => item.to.includes(site) || item.from.includes(site));
      if (going.length === 1) { this.book(going[0]); return; }  // the piece and where it goes: that is the move
      if (going.length) {
        map.choose(this.picked.site, [site]);
        this.open(`${this.picked.what} → ${name}`, going);
        return;
      }
    }
    // Everything that starts, ends or builds here: a piece's moves first, then what may be set down here.
    // Then what acts on the pieces standing here (an attack on them).
    const struck = (item) => (item.at || []).includes(site);  // a unit attacked may leave the map: no move of it
    const leaving = this.items.filter((item) => item.from.includes(site) && !item.chance && !struck(item));
    const arriving = this.items.filter((item) => item.to.includes(site) && !item.from.includes(site) && !item.chance && !struck(item));
    if (leaving.length) {
      const targets = new Set(leaving.flatMap((item) => item.to).filter((s) => s !== site && map.sites.has(s)));
      this.picked = { site, items: leaving, what };
      map.choose(site, [...targets]);
      const all = [...leaving, ...arriving, ...aimed];
      this.open(what, all, false, targets.size ? "Tap where it goes on the map, or choose here:" : "");
      return;
    }
    this.clearPick();
    if (aimed.length) this.open(arriving.length ? what : `${aimed[0].title} ${what}`, [...arriving, ...aimed]);
    else if (arriving.length) this.open(what, arriving, true);
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

  // The picker for a set of actions: one is shown with its sentence and a Book button; those that differ only in
  // where a piece goes are chosen on the map; the dice a table rolled are chosen die by die; up to MAX_ROWS are
  // listed by their sentences; more are narrowed by the game's headings or the first argument on which they differ.
  open(title, items, confirm = false, note = "") {
    if (items.length === 1 && confirm) {
      this.sheet(title, [button(`Book: ${items[0].label}`, () => this.book(items[0]), "accent")], note);
      return;
    }
    const told = items.filter((item) => !item.chance), rolled = items.filter((item) => item.chance);
    const dice = diceSteps(told);
    if (dice && told.length + rolled.length === items.length && rolled.length <= 1) {
      const rows = rolled.map((item) => button("The companion rolls", () => this.book(item), "accent"));
      if (rows.length) rows.push(Object.assign(document.createElement("p"), { className: "muted", textContent: "Or the dice the table rolled:" }));
      this.sheet(title, [...rows, ...diceForm(told, dice, (item) => this.book(item))], note);
      return;
    }
    if (this.onMap(title, items)) return;
    if (items.length <= MAX_ROWS) {
      const cut = shared(items), rest = (label) => label.slice(cut, cut + 1).toUpperCase() + label.slice(cut + 1);
      this.sheet(title, items.map((item) => button(cut ? rest(item.label) : item.label, () => this.book(item))), note);
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
    const heads = headings(items);
    if (heads) {
      this.sheet(title, heads.map((head) => {
        const of = items.filter((item) => item.group === head);
        return button(`${head} (${of.length})`, () => this.open(`${title} · ${head}`, of));
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
      this.numberSheet(title, stepName, values, note);
      return;
    }
    const choose = (v) => (v.items.length === 1 ? button(v.items[0].label, () => this.book(v.items[0]))
      : button(`${v.word} (${v.items.length})`, () => this.open(`${title} · ${v.word}`, v.items)));
    const heading = `${title}: which ${stepName.toLowerCase()}?`;
    // Too many values: grouped by what their words share (a unit's kind, a hex's planet), else folded.
    const coarser = [...new Set(values.map((v) => coarse(v.word)))];
    if (values.length > MAX_ROWS && coarser.length > 1 && coarser.length <= MAX_ROWS) {
      this.sheet(heading, coarser.map((word) => {
        const of = values.filter((v) => coarse(v.word) === word).flatMap((v) => v.items);
        return button(`${word} (${of.length})`, () => this.open(`${title} · ${word}`, of));
      }), note);
      return;
    }
    const named = values.every((v) => v.items.length === 1) ? [] : values.map((v) => v.word);
    this.sheet(heading, grouped(values.map(choose), named), note);
  }

  // Actions that differ only in where one piece goes, with those places on a map the page can show: the places
  // are ringed there (the planet's surface opened for a landing) and a tap on one books it.
  onMap(title, items) {
    if (items.length < 2 || items.some((item) => item.chance)) return false;
    const from = items[0].from.join();
    const to = items.map((item) => item.to.filter((site) => !item.from.includes(site)));
    if (items.some((item) => item.from.join() !== from) || to.some((sites) => sites.length !== 1)) return false;
    const targets = to.map((sites) => sites[0]);
    if (new Set(targets).size !== targets.length) return false;
    const surface = this.app.surfaces.holding(targets);
    if (surface === null) return false;
    const cut = shared(items);
    const show = () => {
      this.picked = { site: items[0].from[0] || null, items, what: cut ? items[0].label.slice(0, cut - 2) : title };
      this.app.map.choose(this.picked.site, targets);
      const list = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "Or choose from a list";
      const inner = document.createElement("div");
      inner.className = "choices";
      inner.append(...grouped(items.map((item) => button(item.label, () => this.book(item))), []));
      list.append(summary, inner);
      this.sheet(this.picked.what, [list], `Tap one of the ${targets.length} places ringed green on the map.`);
    };
    if (surface === this.app.surfaces.shown) show();
    else this.app.surfaces.show(surface).then((shown) => { if (shown) show(); });
    return true;
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
  numberSheet(title, stepName, values, note) {
    values.sort((a, b) => a.value - b.value);
    let at = 0;
    const go = button("", () => this.open(`${title} · ${stepName} ${values[at].word}`, values[at].items, values[at].items.length === 1), "accent");
    const row = stepper(0, 0, values.length - 1, (i) => {
      at = i;
      row.querySelector("output").textContent = values[at].word;
      go.textContent = `${stepName}: ${values[at].word}`;
    });
    row.set(0);
    this.sheet(`${title}: ${stepName.toLowerCase()}`, [row, go], note);
  }

  // Buying by numbers: a stepper per kind, the points left in view, the suggested force to start from.
  openMuster() {
    this.clearPick();
    this.sheet("Buy by numbers", musterRows(this.muster, async (counts) => {
      this.close();
      if (await this.app.send("/api/muster", { counts })) this.showMap();
    }), "The companion places each unit where the rules let it stand and says where.");
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

  // After a move the map is brought to view, where the move is ringed.
  showMap() { $("map-scroll").scrollIntoView({ block: "nearest", behavior: "smooth" }); }

  async book(item) {
    this.close();
    if (await this.app.send("/api/act", { action: item.action })) this.showMap();
  }
}
