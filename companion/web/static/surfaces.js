// Maps beside the board (Orbital Battle's planet surfaces): a choice above the map between the solar map and each
// planet's surface (with how many pieces stand on it), and a tap on a planet on the solar map opens its surface.
// A surface is drawn by the same map (its hexes by terrain, the units the layout puts there), so tapping a unit and
// where it goes, or an empty hex to land on, plays as on the solar map.
import { get } from "./api.js";

const $ = (id) => document.getElementById(id);

export class Surfaces {
  constructor(app) {
    this.app = app;
    this.list = [];
    this.board = null;  // the game's own board
    this.shown = "";  // "" for the board, else the surface's id
    this.cache = new Map();
    $("surface").onchange = () => this.show($("surface").value);
  }

  // A new game: its board, and the maps beside it.
  start(board) {
    this.board = board;
    this.list = board.surfaces || [];
    this.shown = "";
    this.cache.clear();
    $("surfaces").hidden = !this.list.length;
    this.count();
  }

  // True once the map shows `id`; a surface that fails to come (a Wi-Fi blip) is said in words and the map stays.
  async show(id) {
    let board = this.board;
    if (id) {
      if (!this.cache.has(id)) {
        try {
          this.cache.set(id, await get(`/api/board?surface=${encodeURIComponent(id)}`));
        } catch {
          this.app.complain("That map did not come through: tap it again.");
          return false;
        }
      }
      board = this.cache.get(id);
    }
    this.shown = id;
    this.app.moves.close();
    this.app.map.draw(board);
    this.app.showZoom();
    this.app.redrawMap();
    this.app.moves.render();  // the targets ringed on this map (a planet on the board, a hex on a surface)
    $("surface").value = id;
    $("svg-title").textContent = id ? board.title : "The board";
    return true;
  }

  // The map that holds every one of these sites: "" the board, a surface's id, or null when no one map does.
  holding(sites) {
    const onBoard = new Set(((this.board || {}).sites || []).map((site) => site.id));
    if (sites.every((site) => onBoard.has(site))) return "";
    const surface = this.list.find((s) => sites.every((site) => site.startsWith(`p${s.id}:`)));
    return surface ? surface.id : null;
  }

  // The surface of the planet standing on a site of the board, if any ("" when there is none or one is shown).
  planetAt(site) {
    if (this.shown || !this.list.length || !this.app.state) return "";
    const planet = (this.app.state.layout[site] || []).find((piece) => piece.startsWith("planet-"));
    const id = planet ? planet.slice("planet-".length) : "";
    return this.list.some((s) => s.id === id) ? id : "";
  }

  // With the board shown, the sites of the planets whose surfaces hold any of these sites (a target on a planet is
  // ringed on the planet, whose tap opens its surface); with a surface shown, none.
  planetsHolding(sites) {
    if (this.shown || !this.app.state) return [];
    const ids = new Set(sites.map((site) => (/^p(\d+):/.exec(site) || [])[1]).filter(Boolean));
    return Object.entries(this.app.state.layout).filter(([, stack]) => stack.some((piece) => piece.startsWith("planet-")
      && ids.has(piece.slice("planet-".length)))).map(([site]) => site);
  }

  // The choice's words: each surface with how many pieces stand on it now.
  count() {
    const layout = (this.app.state && this.app.state.layout) || {};
    const options = [new Option("Solar map", "")];
    for (const surface of this.list) {
      const pieces = Object.entries(layout).filter(([site]) => site.startsWith(`p${surface.id}:`))
        .reduce((sum, [, stack]) => sum + stack.length, 0);
      options.push(new Option(`${surface.name}${pieces ? ` · ${pieces} ${pieces === 1 ? "unit" : "units"}` : ""}`, surface.id));
    }
    $("surface").replaceChildren(...options);
    $("surface").value = this.shown;
  }
}
