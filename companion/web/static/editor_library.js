// The table's library on every editor page: each data set to share, a shared file to add.
import { get, headers, post } from "/static/api.js";
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
  const one = sets.length === 1, dialog = $("import-ask");
  $("import-ask-text").textContent = `${why.replace(/^[^:]*: /, "")}.`;  // the file's name is the page's own choice
  $("import-rename").hidden = !one;
  $("import-as").hidden = !one;
  $("import-name").value = one ? `${sets[0].name}-2`.slice(0, 40) : "";
  $("import-replace").textContent = one ? "Replace it" : "Replace them";
  const answer = await new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue);
    dialog.returnValue = "cancel";
    dialog.showModal();
  });
  if (answer === "replace") return importFile(file, "&replace=yes");
  if (answer === "rename") return importFile(file, `&name=${encodeURIComponent($("import-name").value.trim())}`);
  say("Nothing added: the table's sets are as they were.");
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

// Keep what is being edited under the name typed (the table checks it again), then show it kept.
export async function keep(path, example, body, reload, use) {
  const name = chosenName(example);
  await post(path, { name, ...body });
  say(`Kept on the table as “${name}”: ${use}`);
  await reload(name);
  await library();
}
