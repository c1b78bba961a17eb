// The table's library on every editor page: each data set to share, a shared file to add.
import { get, post, token } from "/static/api.js";
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

async function importFile(file) {
  const response = await fetch(`/api/library/import?file=${encodeURIComponent(file.name)}`, {
    method: "POST", headers: { "Content-Type": "application/json", "X-Orrery-Token": token() }, body: await file.text(),
  });
  const data = await response.json().catch(() => ({ error: `the table answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error);
  say(`Added: ${data.added.map((s) => s.name).join(", ")}.`);
  await library();
}

export function setUpLibrary() {
  $("export-all").href = "/api/library/export";
  $("import").addEventListener("change", () => guarded(() => $("import").files[0] && importFile($("import").files[0])));
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
