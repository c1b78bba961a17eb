import { setUpLibrary } from "/static/editor_library.js";

// One page for the editors: /editor is the board's, /editor/deck the deck's, /editor/planet the planet maps', /editor/periorbis Periorbis's cards.
const PAGES = {
  board: { title: "Your board", name: "Name for your board", placeholder: "my-copy", script: "/static/editor.js" },
  deck: { title: "Your deck", name: "Name for your deck", placeholder: "my-deck", script: "/static/editor_deck.js" },
  planet: { title: "Planet maps", name: "Name for your map", placeholder: "my-planet-3", script: "/static/editor_planet.js" },
  periorbis: { title: "Periorbis cards", name: "Name for your data", placeholder: "my-periorbis", script: "/static/editor_periorbis.js" },
};
const which = location.pathname.split("/")[2] || "board";
const page = PAGES[which] || PAGES.board;
const $ = (id) => document.getElementById(id);
$(`${which in PAGES ? which : "board"}-editor`).hidden = false;
$("editor-title").textContent = page.title;
document.title = `${page.title} · Orrery`;
for (const link of document.querySelectorAll("nav [data-page]")) link.hidden = link.dataset.page === which;
$("name-label").textContent = page.name;
$("name").placeholder = page.placeholder;
$("size").hidden = which !== "deck";
$("diff").hidden = which !== "board";
import(page.script);
setUpLibrary();
