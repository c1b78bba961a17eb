// The table's library on every editor page: each data set to share, a shared file to add.
import { get, headers } from "/static/api.js";
import { $, chosenName, guarded, say } from "/static/editor_common.js";

const OPTION_WORDS = { board: "board", mat: "mat", deck: "deck", planet_files: "planet map", solar_map: "solar map", data: "cards, track and start team" };

// Every data set of the table, each to share.
export async function library() {
  const { sets } = await get("/api/library");
  const list = $("library");
  list.replaceChildren(...sets.map((s) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = `${s.title}: ${OPTION_WORDS[s.option] || s.option} “${s.name}”`;
    const share = document.createElement("a");
    share.className = "button"; share.textContent = "Share"; share.download = `orrery-${s.name}.json`;
    share.href = `/api/library/export?set=${encodeURIComponent(`${s.game}/${s.option}/${s.name}`)}`;
    li.append(label, share);
    return li;
  }));
  if (!sets.length) { const li = document.createElement("li"); li.textContent = "Only the games' own boards and cards so far."; list.append(li); }
  $("export-all").hidden = !sets.length;
}

// A library file added: a set whose name the table holds already is never replaced unasked (the table answers 409),
// so the page asks: replace it, add it under another name (a file of one set), or leave it.
async function importFile(file, ask = "") {
  const response = await fetch(`/api/library/import?file=${encodeURIComponent(file.name)}${ask}`, {
    method: "POST", headers: headers({ "Content-Type": "application/json" }), body: await file.text(),
  });
  const data = await response.json().catch(() => ({ error: `the table answered ${response.status}` }));
  if (response.status === 409) return askImport(file, data.error);
  if (!response.ok) throw new Error(data.error);
  say(`Added: ${data.added.map((s) => s.name).join(", ")}.`);
  await library();
}

async function askImport(file, why) {
  const sets = (JSON.parse(await file.text()).sets || []);
  const one = sets.length === 1;
  // (the file's name is the page's own choice: the question leaves it out)
  const answer = await askTaken(why.replace(/^[^:]*: /, ""), one ? sets[0].name : "", sets.length, "Add");
  if (answer === "replace") return importFile(file, "&replace=yes");
  if (answer === "rename") return importFile(file, `&name=${encodeURIComponent($("import-name").value.trim())}`);
  say("Nothing added: the table's sets are as they were.");
}

// A set (or `count` sets) already on the table under its name: the dialog asks whether to replace it, to `verb` it
// under another name (offered for one set, `name`-2 to start from), or neither. The answer: replace, rename, cancel.
function askTaken(why, name, count, verb) {
  const one = count === 1, dialog = $("import-ask");
  $("import-ask-text").textContent = `${why}.`;
  $("import-rename-label").textContent = `${verb} it under the name`;
  $("import-rename").hidden = !one;
  $("import-as").hidden = !one;
  $("import-as").textContent = `${verb} under this name`;
  $("import-name").value = one ? `${name}-2`.slice(0, 40) : "";
  $("import-replace").textContent = one ? "Replace it" : "Replace them";
  return new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue);
    dialog.returnValue = "cancel";
    dialog.showModal();
  });
}

export function setUpLibrary() {
  $("export-all").href = "/api/library/export";
  $("import").addEventListener("change", () => guarded(async () => {
    const file = $("import").files[0];
    $("import").value = "";  // the same file may be chosen again
    if (file) await importFile(file);
  }));
  return guarded(library);
}

// Keep what is being edited under the name typed (the table checks it again), then show it kept. A set of that name
// on the table already is never replaced unasked (the table answers 409): the page asks, as for a library file.
export async function keep(path, example, body, reload, use) {
  let name = chosenName(example), replace = false;
  for (;;) {
    const response = await fetch(path, {
      method: "POST", headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ name, replace, ...body }),
    });
    const data = await response.json().catch(() => ({ error: `the table answered ${response.status}` }));
    if (response.ok) break;
    if (response.status !== 409) throw new Error(data.error);
    const answer = await askTaken(data.error, name, 1, "Keep");
    if (answer === "cancel") return say("Nothing kept: the table's sets are as they were.");
    if (answer === "replace") replace = true;
    else { name = $("import-name").value.trim(); $("name").value = name; }
  }
  say(`Kept on the table as “${name}”: ${use}`);
  await reload(name);
  await library();
}
