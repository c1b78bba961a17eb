// One page for the editors: /editor is the board's, /editor/deck the deck's.
const deck = location.pathname.endsWith("/deck");
document.getElementById(deck ? "deck-editor" : "board-editor").hidden = false;
document.getElementById("editor-title").textContent = deck ? "Your deck" : "Your board";
document.title = `${deck ? "Your deck" : "Your board"} · Orrery`;
const other = document.getElementById("to-other");
other.href = deck ? "/editor" : "/editor/deck";
other.textContent = deck ? "Your board" : "Your deck";
if (deck) {
  document.getElementById("name-label").textContent = "Name for your deck";
  document.getElementById("name").placeholder = "my-deck";
  document.getElementById("size").hidden = false;
  document.getElementById("diff").hidden = true;
}
import(deck ? "/static/editor_deck.js" : "/static/editor.js");
