// The pickers' parts: buttons, folds of a long list, a number stepper, and the dice a table rolled itself. No list
// shows more than MAX_ROWS rows ungrouped.
export const MAX_ROWS = 8;

export function button(text, onclick, style = "") {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = text;
  node.className = style;
  node.onclick = onclick;
  return node;
}

export function sameValue(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

// What a value's words share with its neighbours: "Red's army 3" -> "Red's army", "planet 4 hex 0401" -> "planet 4",
// "ring 6 spot 17" -> "ring 6". Lists too long to show are grouped by it.
export function coarse(word) {
  const parts = String(word).split(" ");
  if (parts.length > 1 && /\d/.test(parts.at(-1))) parts.pop();
  if (parts.length > 2 && /^(hex|spot|space|slot|row)$/.test(parts.at(-1))) parts.pop();
  return parts.join(" ");
}

// More than MAX_ROWS buttons: in folds, each named by its first and last choice.
export function grouped(buttons, words) {
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

// A number: minus, the value, plus; `change` hears each new value.
export function stepper(value, low, high, change, label = "") {
  const row = document.createElement("div");
  row.className = "stepper";
  const shown = document.createElement("output");
  shown.className = "stepper-value";
  const set = (v) => { value = Math.max(low, Math.min(high, v)); shown.textContent = value; change(value); };
  const minus = button("−", () => set(value - 1), "step");
  const plus = button("+", () => set(value + 1), "step");
  minus.setAttribute("aria-label", `fewer${label ? ` ${label}` : ""}`);
  plus.setAttribute("aria-label", `more${label ? ` ${label}` : ""}`);
  shown.textContent = value;
  row.append(minus, shown, plus);
  row.set = set;
  return row;
}

// The steps at which declared actions differ only by dice: the elements of one list argument (a step's fourth item
// names the list: "Red's die" and "Blue's die" of "Dice"), each a whole number 1 to 6; or null.
export function diceSteps(items) {
  if (items.length < 2) return null;
  const varying = [];
  for (let i = 0; i < items[0].steps.length; i++) {
    if (items.some((item) => !sameValue(item.steps[i], items[0].steps[i]))) varying.push(i);
  }
  const die = (v) => Number.isInteger(v) && v >= 1 && v <= 6;
  const list = (i) => (items[0].steps[i] || [])[3];
  const name = list(varying[0]);
  return name && varying.length > 1 && varying.every((i) => list(i) === name && items.every((item) => item.steps[i] && die(item.steps[i][1])))
    ? varying : null;
}

// The dice the table rolled: a row of six per die, named by whose it is, and the sentence of the action they make,
// to book.
export function diceForm(items, at, book) {
  const chosen = at.map(() => null);
  const rows = at.map((stepIndex, d) => {
    const row = document.createElement("div");
    row.className = "dice";
    const name = document.createElement("span");
    name.textContent = items[0].steps[stepIndex][0];
    const faces = [1, 2, 3, 4, 5, 6].map((face) => button(String(face), () => {
      chosen[d] = face;
      for (const f of faces) f.classList.toggle("chosen", f === faces[face - 1]);
      show();
    }, "face"));
    row.append(name, ...faces);
    return row;
  });
  const go = button("Choose each die", () => {}, "accent");
  go.disabled = true;
  const show = () => {
    const item = items.find((it) => at.every((stepIndex, d) => it.steps[stepIndex][1] === chosen[d]));
    go.disabled = !item;
    go.textContent = item ? item.label : "Choose each die";
    go.onclick = item ? () => book(item) : () => {};
  };
  return [...rows, go];
}
