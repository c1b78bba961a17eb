// Periorbis's data: the employee and ship cards (each in words), the orbit track, the asteroids and the start team,
// checked by the table as one edits (each problem naming the card or the turn) and kept in the table's library.
import { joinTable, post, takeTokenFromUrl } from "/static/api.js";
import { $, button, guarded, keepDraft, labelled, loadAndSave, numberInput, select, showProblems, startEditing, whenChanged } from "/static/editor_common.js";

const DRAFT_KEY = "orrery.editor.periorbis";
const ROLES = { basic: "basic employee", agent: "agent", captain: "captain", engineer: "engineer", scientist: "scientist", miner: "miner" };
const SKILLS = [["build", "Credits off building", 0], ["upgrade", "Research data off an upgrade", 0], ["contract", "Contract bonus", 0],
  ["sell", "Crates sold", 2], ["captain", "Cargo carried", 2], ["research", "Research data made", 1],
  ["black", "Crates from black ore", 1], ["grey", "Crates from grey ore", 1], ["white", "Crates from white ore", 0]];
const SETUP = [["credits", "Credits at the start"], ["hq_open", "HQ slots open"], ["fleet", "Ships at the start"], ["fleet_max", "Most ships"], ["drive_levels", "Drive levels"]];
const state = { files: null, start: "", words: {} };

function box(title, key) {
  const set = document.createElement("fieldset");
  set.className = "card";
  const legend = document.createElement("legend");
  legend.textContent = title;
  set.append(legend);
  if (key) { const does = document.createElement("p"); does.className = "does"; does.dataset.card = key; does.textContent = state.words[key] || ""; set.append(does); }
  return set;
}

// Number fields two to a row, so that a card stays short on a phone.
function numbers(...labels) {
  const grid = document.createElement("div");
  grid.className = "numbers";
  grid.append(...labels);
  return grid;
}

function employeeBox(card, group, index, title) {
  const set = box(title, `employee ${card.number}`);
  card.skills = card.skills || {};
  const number = numberInput(card.number, (v) => { renumber(card, v); render(); });
  set.append(labelled("Role", select(ROLES, card.role, (v) => { card.role = v; render(); })), numbers(
    labelled("Card number", number),
    labelled("Wage", numberInput(card.wage, (v) => { card.wage = v; })),
    ...SKILLS.map(([key, text, basic]) => labelled(text, numberInput(card.skills[key] ?? basic, (v) => { card.skills[key] = v; })))));
  set.append(button("Take this card out", () => { group.splice(index, 1); render(); changed(); }));
  return set;
}

function shipBox(ship, deck, index) {
  const set = box(`Ship ${ship.id}`, `ship ${ship.id}`);
  const name = document.createElement("input");
  name.value = ship.id;
  name.addEventListener("change", () => { ship.id = name.value.trim(); render(); changed(); });
  set.append(labelled("Name on the card", name), numbers(...[["price", "Credits a crate"], ["spaces", "Cargo spaces"], ["minimum", "Leaves once filled"]]
    .map(([key, text]) => labelled(text, numberInput(ship[key], (v) => { ship[key] = v; })))));
  ship.rows.forEach((row, r) => {
    const line = document.createElement("div");
    line.className = "pair";
    line.append(labelled("Contract of", numberInput(row.size, (v) => { row.size = v; })),
      labelled("crates, advance", numberInput(row.advance, (v) => { row.advance = v; })),
      button("Remove", () => { ship.rows.splice(r, 1); render(); changed(); }));
    set.append(line);
  });
  set.append(button("Add a contract", () => { ship.rows.push({ size: 2, advance: 4 }); render(); changed(); }),
    button("Take this ship out", () => { deck.splice(index, 1); render(); changed(); }));
  return set;
}

function asteroidBox(rock, index) {
  const set = box(`Asteroid ${rock.title || rock.name}`);
  const name = document.createElement("input");
  name.value = rock.name;
  name.addEventListener("change", () => { renameAsteroid(rock.name, name.value.trim()); rock.name = name.value.trim(); render(); changed(); });
  const slots = document.createElement("input");
  slots.value = rock.slots.join(", ");
  slots.addEventListener("change", () => { rock.slots = slots.value.split(",").map((s) => s.trim()).filter(Boolean).map(Number); changed(); });
  set.append(labelled("Name on the track", name), labelled("Base slot costs", slots));
  rock.ore = rock.ore || {};
  set.append(numbers(...["black", "grey", "white"].map((ore) => labelled(`${ore} ore`, numberInput(rock.ore[ore] ?? 0, (v) => { rock.ore[ore] = v; })))));
  set.append(button("Take this asteroid out", () => { removeAsteroid(index); render(); changed(); }));
  return set;
}

function renameAsteroid(old, name) {
  for (const turn of state.files["orbit.json"].turns) {
    if (old in turn) { turn[name] = turn[old]; delete turn[old]; }
  }
}

function removeAsteroid(index) {
  const [rock] = state.files["asteroids.json"].asteroids.splice(index, 1);
  for (const turn of state.files["orbit.json"].turns) delete turn[rock.name];
}

function turnBox(turn, index) {
  const set = box(`Turn ${index + 1}`);
  const levels = { "": "not on the track" };
  for (let n = 1; n <= (state.files["setup.json"].drive_levels || 3); n += 1) levels[n] = `reached with drive ${n}`;
  for (const rock of state.files["asteroids.json"].asteroids) {
    set.append(labelled(rock.name, select(levels, turn[rock.name] ?? "", (v) => { if (v) turn[rock.name] = Number(v); else delete turn[rock.name]; })));
  }
  return set;
}

function teamBox() {
  const setup = state.files["setup.json"];
  const set = box("Start team and supplies");
  const starters = { "": "nobody" };
  for (const card of state.files["employees.json"].start) starters[card.number] = startName(card);
  const team = setup.start_team;
  for (let slot = 0; slot < Math.max(team.length + 1, 1) && slot < (setup.hq_open || 5); slot += 1) {
    set.append(labelled(`HQ slot ${slot + 1}`, select(starters, team[slot] ?? "", (v) => {
      if (v === "") team.splice(slot); else team[slot] = Number(v);
      render();
    })));
  }
  set.append(numbers(...SETUP.map(([key, text]) => labelled(text, numberInput(setup[key], (v) => { setup[key] = v; })))));
  return set;
}

// A start card as players know it: its role and wage, and which of the start cards it is when two are alike.
function startName(card) {
  const start = state.files["employees.json"].start;
  const said = (c) => `${ROLES[c.role] || c.role}, paid ${c.wage}`;
  const alike = start.filter((c) => said(c) === said(card));
  return alike.length > 1 ? `${said(card)} (start card ${start.indexOf(card) + 1})` : said(card);
}

// A card's number changed: the start team follows a start card to its new number.
function renumber(card, number) {
  const team = state.files["setup.json"].start_team;
  if (state.files["employees.json"].start.includes(card)) team.forEach((n, i) => { if (n === card.number) team[i] = number; });
  card.number = number;
}

function nextNumber() {
  const employees = state.files["employees.json"];
  return Math.max(0, ...[employees.start, ...employees.decks].flat().map((c) => c.number)) + 1;
}

function render() {
  const { "employees.json": employees, "ships.json": ships, "asteroids.json": asteroids, "orbit.json": orbit } = state.files;
  $("periorbis-team").replaceChildren(teamBox(), ...employees.start.map((c, i) => employeeBox(c, employees.start, i, `Start card ${i + 1}: ${startName(c)}`)));
  $("periorbis-employees").replaceChildren(...employees.decks.flatMap((deck, d) => [
    ...deck.map((c, i) => employeeBox(c, deck, i, `Card ${c.number}, deck ${d + 1}`)),
    button(`Add a card to deck ${d + 1}`, () => { deck.push({ number: nextNumber(), role: "basic", wage: 1, skills: {} }); render(); changed(); })]));
  $("periorbis-ships").replaceChildren(...ships.decks.flatMap((deck, d) => [
    ...deck.map((s, i) => shipBox(s, deck, i)),
    button(`Add a level ${d + 1} ship`, () => {
      let n = deck.length + 1;
      while (ships.decks.flat().some((s) => s.id === `${d + 1}-${n}`)) n += 1;
      deck.push({ id: `${d + 1}-${n}`, price: 8, spaces: 10, minimum: 5, rows: [{ size: 5, advance: 10 }] }); render(); changed();
    })]));
  $("periorbis-asteroids").replaceChildren(...asteroids.asteroids.map(asteroidBox), button("Add an asteroid", () => {
    let n = asteroids.asteroids.length + 1;
    while (asteroids.asteroids.some((a) => a.name === `rock${n}`)) n += 1;
    asteroids.asteroids.push({ name: `rock${n}`, title: `Rock ${n}`, ore: { black: 2, grey: 1, white: 0 }, slots: [2, 4] }); render(); changed();
  }));
  $("periorbis-orbit").replaceChildren(...orbit.turns.map(turnBox));
}

function changed() {
  keepDraft(DRAFT_KEY, { start: state.start, files: state.files }, check);
}

async function check() {
  const { problems, cards } = await post("/api/editor/periorbis/check", { files: state.files });
  if (!problems.length) state.words = cards;
  for (const does of document.querySelectorAll(".does")) does.textContent = state.words[does.dataset.card] || "";
  showProblems(problems, "The game can start on these cards, track and team.");
}

const { load, save } = loadAndSave({ path: "periorbis", key: "files", starts: "periorbis-start", state, render, changed,
  startName: (s) => (s ? `your data “${s}”` : "the game's own"), example: "my-periorbis", choose: "data" });

async function main() {
  takeTokenFromUrl();
  await joinTable().catch(() => null);  // the checks and saves are a joined phone's
  whenChanged(changed);
  $("periorbis-load").addEventListener("click", () => guarded(() => load($("periorbis-start").value)));
  await startEditing({ key: DRAFT_KEY, save, changed, fresh: (kept) => load(kept ? kept.start : ""),
    restore: (kept) => { state.files = kept.files; render(); } });
}

main();
