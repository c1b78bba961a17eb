// The two guides share one panel above the map: the reed grid's calibration walk-through ("calibration" on the
// stream) and the guided setup of a new game ("setup"). Every phone shows the same step; a player's phone also gets
// the buttons. The map highlights the site asked for and any site a piece is wrongly on. On a board the grid has not
// learnt, the setup's first step ("waiting") leads with the walk-through; the guide follows once it is saved.
import { speech } from "./speech.js";

const $ = (id) => document.getElementById(id);
const HIDE_AFTER = 8000;  // ms a finished guide's last word stays up

export class Guides {
  constructor(app) {
    this.app = app;
    this.latest = { calibration: null, setup: null };
    this.seenRunning = { calibration: false, setup: false };
    this.spoken = "";
  }

  // The guide running now, as {kind, data}, or null.
  active() {
    const walk = this.latest.calibration, setup = this.latest.setup;
    if (walk && (walk.state === "walking" || walk.state === "review")) return { kind: "calibration", data: walk };
    if (setup && (setup.state === "placing" || setup.state === "waiting")) return { kind: "setup", data: setup };
    return null;
  }

  // Where the map highlights and, during the setup, the pieces placed so far.
  mapView(layout) {
    const guide = this.active();
    if (!guide) return { layout, target: null, wrong: [] };
    const data = guide.data;
    if (guide.kind === "calibration") return { layout, target: data.site, wrong: [] };
    const placed = {};  // (none yet while the setup waits for the grid: the board is bare)
    for (const [piece, site] of data.order.slice(0, data.placed)) (placed[site] ||= []).push(piece);
    return { layout: placed, target: data.site, wrong: data.wrong };
  }

  update(kind, data) {
    const before = this.latest[kind];
    this.latest[kind] = data;
    const running = data && ["walking", "review", "placing", "waiting"].includes(data.state);
    // A finished guide is shown only to a phone that saw it run (a reconnecting stream repeats the last word).
    const ended = data && !running && this.seenRunning[kind] && before && before.state !== data.state;
    this.seenRunning[kind] = !!running;
    if (running && kind === "calibration") this.follow(data);
    const active = this.active();
    // (the setup's wait for the grid stays behind a walk-through it started, and comes back if that stops)
    if (running && active) this.show(active.kind, active.data);
    else if (ended && !(active && active.kind === "setup")) this.finish(data);
    else if (active) this.show(active.kind, active.data);
    else if (!this.active()) $("guide").hidden = true;
    this.app.redrawMap();
    this.app.renderPlaceList();
  }

  // A walk of a planet map's grid shows that planet's surface, where its hexes are asked ("p3:0403").
  follow(data) {
    const surfaces = this.app.surfaces, planet = /^p(\d+):/.exec(data.site || "");
    const wanted = planet ? planet[1] : "";
    if (data.site && surfaces.list.length && surfaces.shown !== wanted) surfaces.show(wanted);
  }

  show(kind, data) {
    clearTimeout(this.hideTimer);
    $("guide").hidden = false;
    $("guide").dataset.kind = kind;
    $("guide").classList.toggle("refused", !!(data.refused || (data.wrong && data.wrong.length)));
    $("guide-title").textContent = kind !== "calibration"
      ? (data.state === "waiting" ? "A board new to the grid" : "Setting out the pieces")
      : data.probe ? "Finding each map's grid" : "Calibrating the grid";
    $("guide-count").textContent = kind === "calibration"
      ? (data.probe ? `map ${data.step} of ${data.total} · ${data.mapped} found` : `site ${data.step} of ${data.total} · ${data.mapped} mapped`)
      : data.count;
    $("guide-text").textContent = kind === "calibration" && data.grid === "lost"
      ? "The grid is not answering: check its USB cable." : data.text;
    $("guide-message").textContent = data.message || "";
    $("guide-message").hidden = !data.message;
    this.buttons(kind === "calibration" ? walkButtons(data) : setupButtons(data), kind);
    this.say(data.message && (data.refused || (data.wrong && data.wrong.length)) ? data.message : data.text,
             data.refused || (data.wrong && data.wrong.length));
  }

  finish(data) {
    $("guide").hidden = false;
    $("guide").classList.remove("refused");
    $("guide-count").textContent = "";
    $("guide-text").textContent = data.message || data.text;
    $("guide-message").hidden = true;
    this.buttons([["OK", "ok", "accent"]]);
    this.say(data.message || data.text, false);
    this.hideTimer = setTimeout(() => { if (!this.active()) $("guide").hidden = true; }, HIDE_AFTER);
  }

  buttons(list, kind) {
    $("guide-buttons").replaceChildren(...list.map(([label, doing, style]) => {
      const button = document.createElement("button");
      button.textContent = label;
      button.className = style || "";
      button.dataset.do = doing;
      button.onclick = () => (doing === "ok" ? ($("guide").hidden = true)
        : doing === "walk" ? this.send("calibration", { do: "start" }) : this.send(kind, { do: doing }));
      return button;
    }));
  }

  // A tap on a site of the map during the walk-through asks that site again.
  tapSite(site) {
    const guide = this.active();
    // (A probe asks each map's marked hex in its order: a tap there asks nothing.)
    if (guide && guide.kind === "calibration" && !guide.data.probe && this.app.seated) {
      this.send("calibration", { do: "redo", site });
    }
  }

  send(kind, body) {
    return this.app.send(kind === "calibration" ? "/api/calibration/grid" : "/api/setup", body);
  }

  say(text, urgent) {
    if (!text || text === this.spoken) return;
    this.spoken = text;
    speech.say(text);
    $("live").textContent = text;
    if (urgent && this.app.vibrateOn && navigator.vibrate) navigator.vibrate([180, 90, 180]);
  }
}

function walkButtons(walk) {
  if (walk.state === "review") {
    return [[walk.unmapped.length ? "Save without them" : "Save", "save", "accent"], ["Back", "back"], ["Stop", "stop"]];
  }
  return [["Skip", "skip"], ["Back", "back"], ["Stop", "stop"]];
}

function setupButtons(setup) {
  if (setup.state === "waiting") return [["Teach the grid", "walk", "accent"], ["Set out by taps", "start"], ["Stop guiding", "stop"]];
  return [["Placed", "placed", setup.how === "tap" ? "accent" : ""], ["Back", "back"], ["Stop guiding", "stop"]];
}
