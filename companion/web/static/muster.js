// Buying by numbers (Orbital Battle's starting forces and build phase): how many of each kind with a stepper, the
// points left always in view, a suggested force to start from; the companion places them by the game's rule and
// books each purchase (/api/muster).
import { button, stepper } from "./pickers.js";

export function musterRows(muster, send) {
  const counts = new Map(muster.kinds.map((k) => [k.kind, k.suggested]));
  const points = document.createElement("p");
  points.className = "points";
  points.setAttribute("role", "status");
  const go = button("", () => send(Object.fromEntries([...counts].filter(([, n]) => n))), "accent");
  const spent = () => muster.kinds.reduce((sum, k) => sum + k.cost * counts.get(k.kind), 0);
  const show = () => {
    const cost = spent(), units = [...counts.values()].reduce((a, b) => a + b, 0), left = muster.points - cost;
    points.textContent = left >= 0 ? `${left} of ${muster.points} build points left`
      : `${-left} build points too many (you have ${muster.points})`;
    points.classList.toggle("over", left < 0);
    go.disabled = left < 0 || units === 0;
    go.textContent = units ? `Buy ${units} ${units === 1 ? "unit" : "units"} for ${cost} ${cost === 1 ? "point" : "points"}`
      : "Choose what to buy";
  };
  const steppers = [];
  const rows = muster.kinds.map((k) => {
    const row = document.createElement("div");
    row.className = "muster-row";
    row.dataset.kind = k.kind;
    const name = document.createElement("span");
    name.textContent = `${k.name[0].toUpperCase()}${k.name.slice(1)} · ${k.cost} each`;
    const step = stepper(counts.get(k.kind), 0, k.most, (n) => { counts.set(k.kind, n); show(); }, k.name);
    steppers.push([k, step]);
    row.append(name, step);
    return row;
  });
  const reset = (pick) => () => { for (const [k, step] of steppers) step.set(pick(k)); };
  const quick = document.createElement("div");
  quick.className = "row";
  quick.append(button("Suggested", reset((k) => k.suggested)), button("None", reset(() => 0)));
  show();
  return [points, quick, ...rows, go];
}
