// ORBIT's deck, card by card as what each does, with the mission markers and the station tiles: checked by the
// table as one edits (each problem naming its card) and kept in the table's library.
import { joinTable, post, takeTokenFromUrl } from "/static/api.js";
import { PLANETS } from "/static/editor_board.js";
import { $, button, guarded, keepDraft, labelled, loadAndSave, numberInput, select, showProblems, startEditing, whenChanged } from "/static/editor_common.js";

const DRAFT_KEY = "orrery.editor.deck";
const FEATURES = { "": "nothing", hand: "hand size upgrade", energy: "energy capacity upgrade", jump: "hyper jump", cannon: "hyper accelerator cannon" };
const STATIONS = { hand: "hand size", energy: "energy capacity", portal: "portal", cannon: "cannon", fuel: "fuel depot" };
const NUMBERS = [["count", "Copies", 1], ["wild", "Wild planet symbols", 0], ["energy", "Energy to take", 0], ["fly", "Flight steps", 0]];
const FLAGS = [["all", "Every planet advances 1"], ["reverse", "Reverse an arrow"], ["max_energy", "Take the maximum energy"], ["nebula", "Nebula"]];
const state = { deck: null, start: "", words: {} };

function cardBox(card, index) {
  const box = document.createElement("fieldset");
  box.className = "card";
  const legend = document.createElement("legend");
  legend.textContent = `Card ${card.id}`;
  const does = document.createElement("p");
  does.className = "does"; does.dataset.card = card.id; does.textContent = state.words[card.id] || "";
  box.append(legend, does);
  card.planets = card.planets || [];
  card.planets.forEach((pair, i) => {
    const row = document.createElement("div");
    row.className = "pair";
    row.append(
      labelled("Advance", select(Object.fromEntries(PLANETS.map((p) => [p, p])), pair[0], (v) => { pair[0] = v; })),
      labelled("by", select({ 1: "1", 2: "2" }, pair[1], (v) => { pair[1] = Number(v); })),
      button("Remove", () => { card.planets.splice(i, 1); render(); changed(); }));
    box.append(row);
  });
  box.append(button("Add a planet to advance", () => { card.planets.push([PLANETS[0], 1]); render(); changed(); }));
  for (const [key, text, none] of NUMBERS) box.append(labelled(text, numberInput(card[key] ?? none, (v) => { card[key] = v; })));
  for (const [key, text] of FLAGS) {
    const check = document.createElement("input");
    check.type = "checkbox"; check.checked = !!card[key]; check.setAttribute("aria-label", text);
    check.addEventListener("change", () => { card[key] = check.checked; changed(); });
    const label = labelled("", check); label.className = "check"; label.append(text);
    box.append(label);
  }
  box.append(button("Take this card out", () => { state.deck.cards.splice(index, 1); render(); changed(); }));
  return box;
}

function render() {
  const deck = state.deck;
  $("cards").replaceChildren(...deck.cards.map(cardBox));
  $("markers").replaceChildren(...PLANETS.map((p) => labelled(`${p} marker`,
    select(FEATURES, deck.markers[p] ?? "", (v) => { deck.markers[p] = v; }))));
  $("stations").replaceChildren(...Object.entries(STATIONS).map(([kind, text]) => labelled(`${text} tiles`,
    numberInput(deck.stations[kind] ?? 0, (v) => { deck.stations[kind] = v; }))));
}

function changed() {
  keepDraft(DRAFT_KEY, { start: state.start, deck: state.deck }, check);
}

async function check() {
  const { problems, cards, size } = await post("/api/editor/deck/check", { deck: state.deck });
  state.words = cards;
  for (const does of document.querySelectorAll(".does")) does.textContent = cards[does.dataset.card] || "";
  $("size").textContent = `${size} cards in all.`;
  showProblems(problems, "The game can deal this deck.");
}

const { load, save } = loadAndSave({ path: "deck", key: "deck", starts: "deck-start", state, render, changed,
  startName: (s) => (s ? `your deck “${s}”` : "the game's own deck"), example: "my-deck", choose: "deck" });

async function main() {
  takeTokenFromUrl();
  await joinTable().catch(() => null);  // the checks and saves are a joined phone's
  whenChanged(changed);
  $("deck-load").addEventListener("click", () => guarded(() => load($("deck-start").value)));
  $("add-card").addEventListener("click", () => {
    let n = state.deck.cards.length + 1;
    while (state.deck.cards.some((c) => c.id === `c${String(n).padStart(2, "0")}`)) n += 1;
    state.deck.cards.push({ id: `c${String(n).padStart(2, "0")}`, count: 1, planets: [] });
    render(); changed();
  });
  await startEditing({ key: DRAFT_KEY, save, changed, fresh: (kept) => load(kept ? kept.start : ""),
    restore: (kept) => { state.deck = kept.deck; render(); } });
}

main();
