// The camera page: this phone as the table's camera. A full-resolution still when the table asks for one (the board
// settled on a change), a small preview every few seconds otherwise.
import { takeTokenFromUrl, token } from "/static/api.js";

const POLL_MS = 500;
const PREVIEW_WIDTH = 640;
const view = document.getElementById("view");
const state = document.getElementById("state");
const sent = document.getElementById("sent");
const start = document.getElementById("start");
let stills = 0;
let lastPreview = 0;
let previewEvery = 3000;

function say(text, problem = false) {
  state.textContent = text;
  state.classList.toggle("problem", problem);
}

async function post(blob, still) {
  const response = await fetch(`/api/camera/frame?still=${still ? 1 : 0}`, {
    method: "POST", body: blob, headers: { "Content-Type": "image/jpeg", "X-Orrery-Token": token() },
  });
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}));
    throw new Error(answer.error || `the table answered ${response.status}`);
  }
  return response.json();
}

function grab(width) {
  const scale = width ? width / view.videoWidth : 1;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(view.videoWidth * scale);
  canvas.height = Math.round(view.videoHeight * scale);
  canvas.getContext("2d").drawImage(view, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", width ? 0.7 : 0.92));
}

async function tick() {
  try {
    const response = await fetch("/api/camera/wanted", { headers: { "X-Orrery-Token": token() } });
    const wanted = await response.json();
    if (!response.ok) throw new Error(wanted.error || `the table answered ${response.status}`);
    previewEvery = wanted.preview_every_ms || previewEvery;
    if (wanted.still) {
      const answer = await post(await grab(0), true);
      stills += 1;
      sent.textContent = `${stills} ${stills === 1 ? "picture" : "pictures"} sent, ${answer.width} × ${answer.height}.`;
      say("watching the board");
    } else if (Date.now() - lastPreview > previewEvery) {
      lastPreview = Date.now();
      await post(await grab(PREVIEW_WIDTH), false);
      say("watching the board");
    }
  } catch (error) {
    say(`Cannot reach the table: ${error.message}`, true);
  }
  setTimeout(tick, POLL_MS);
}

async function open() {
  if (!navigator.mediaDevices || !window.isSecureContext) {
    say("This page needs the table's secure address (https) to use the camera.", true);
    return;
  }
  try {
    view.srcObject = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: "environment", width: { ideal: 4056 }, height: { ideal: 3040 } },
    });
    start.hidden = true;
    await view.play();
    say("watching the board");
    tick();
  } catch (error) {
    say(`The camera is not available: ${error.message}`, true);
    start.hidden = false;
  }
}

takeTokenFromUrl();
if (!token()) say("Open this page from the table's QR code, so the table knows this phone.", true);
else {
  start.addEventListener("click", open);
  open();
}
