// What the editors' pages share: a one-line message for what happened or went wrong.
import { get } from "/static/api.js";
import { keep } from "/static/editor_library.js";

export const $ = (id) => document.getElementById(id);

export function say(text, bad = false) {
  const box = $("message");
  box.textContent = text; box.hidden = !text; box.classList.toggle("bad", bad);
  if (text) box.scrollIntoView({ block: "nearest" });  // where the person is looking may be far down the page
}

export async function guarded(work) {
  try { await work(); } catch (error) { say(error.message, true); }
}

// The table's verdict on what is being edited: its problems, one a line, or that the game takes it.
export function showProblems(problems, fine) {
  $("problems").replaceChildren(...(problems.length ? problems : [fine]).map((text) => {
    const li = document.createElement("li"); li.textContent = text; if (!problems.length) li.className = "ok"; return li;
  }));
}

// The name typed for what is being kept, or a message saying one is needed.
export function chosenName(example) {
  const name = $("name").value.trim();
  if (!name) throw new Error(`Give it a name first (like ${example}).`);
  return name;
}

// What is being edited kept as a draft in this browser (with the name typed), and checked by the table a moment after
// the last change.
const checks = {};
export function keepDraft(key, draft, check) {
  localStorage.setItem(key, JSON.stringify({ ...draft, name: $("name").value }));
  clearTimeout(checks[key]);
  checks[key] = setTimeout(() => guarded(check), 300);
}

// An editor's start: its save button and name wired, then its draft from this browser's storage, or `fresh`.
export async function startEditing({ key, save, changed, fresh, restore }) {
  $("save").addEventListener("click", () => guarded(save));
  $("name").addEventListener("change", changed);
  const kept = JSON.parse(localStorage.getItem(key) || "null");
  await guarded(() => fresh(kept));
  if (kept) {
    $("name").value = kept.name || "";
    restore(kept);
    say("Your draft from last time is back.");
    changed();
  }
}

// A card editor's data from the table and back: `load(name)` fills the list `starts` (each said by `startName`) and
// puts the set's data (under `key`) in `state`; `save()` keeps it under the name typed, saying where to choose it.
export function loadAndSave({ path, key, starts, startName, state, render, changed, example, choose }) {
  async function load(name) {
    const data = await get(`/api/editor/${path}?start=${encodeURIComponent(name)}`);
    $(starts).replaceChildren(...data.starts.map((s) => new Option(startName(s), s, false, s === name)));
    state.start = name; state[key] = data[key];
    render(); changed();
  }
  const save = () => keep(`/api/editor/${path}/save`, example, { [key]: state[key] }, load,
    `choose it as the ${choose} when you start a new game.`);
  return { load, save };
}

// Form parts the card editors build from, each telling `whenChanged`'s function after its own change.
let anyChange = () => {};
export function whenChanged(work) { anyChange = work; }

export function labelled(text, input) {
  const label = document.createElement("label");
  label.append(text + " ", input);
  if (text) input.setAttribute("aria-label", text);  // the label also holds a list's options: name it plainly
  return label;
}

export function numberInput(value, onChange) {
  const input = document.createElement("input");
  input.inputMode = "numeric"; input.value = value;
  input.addEventListener("change", () => { onChange(Number(input.value)); anyChange(); });
  return input;
}

export function select(options, value, onChange) {
  const input = document.createElement("select");
  for (const [key, text] of Object.entries(options)) input.add(new Option(text, key, false, key === String(value)));
  input.addEventListener("change", () => { onChange(input.value); anyChange(); });
  return input;
}

export function button(text, onClick) {
  const b = document.createElement("button");
  b.type = "button"; b.textContent = text; b.addEventListener("click", onClick);
  return b;
}
