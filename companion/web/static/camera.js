// The camera page: this phone as the table's camera. A full-resolution still when the table asks for one (the board
// settled on a change), a small preview every few seconds otherwise. The still is the camera's full-size photo where
// the browser offers one (ImageCapture), else the video's largest frame; the table turns or refuses a picture of
// another size than the one the camera was calibrated at, and the page shows what it said. Where the table names
// crops (the sites that changed, and the board's corner markers), the page keeps its photo and sends their gray
// instead, with the whole photo shrunk: the table reads them as they come, with no 12 MP picture to decode.
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
let photos = null; // the camera's full-size photos, where the browser offers them
let photoSize = {};

function say(text, problem = false) {
  state.textContent = text;
  state.classList.toggle("problem", problem);
}

class Refused extends Error {} // the table read the picture and said what is wrong with it

async function post(blob, ask) {
  // A still says which ask it answers (it was taken after it); a preview answers none.
  const type = blob.type === "image/png" ? "image/png" : "image/jpeg";
  return send(ask ? `still=1&ask=${ask}` : "still=0", blob, type);
}

async function send(query, body, type) {
  const response = await fetch(`/api/camera/frame?${query}`, {
    method: "POST", body, headers: { "Content-Type": type, "X-Orrery-Token": token() },
  });
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}));
    const Problem = response.status === 409 ? Refused : Error;
    throw new Problem(answer.error || `the table answered ${response.status}`);
  }
  return response.json();
}

async function still() {
  // A full-size photo where the camera takes them; the video's frame if taking one fails (a camera busy focusing).
  if (photos) {
    try {
      const blob = await photos.takePhoto(photoSize);
      if (blob.type === "image/jpeg" || blob.type === "image/png") return [blob, "photo"];
    } catch (error) {
      /* the video's frame below */
    }
  }
  return [await grab(0), "video frame"];
}

async function cutOut(blob, plan) {
  // The photo turned and scaled to the size the camera was calibrated at, as the table turns a whole still; the
  // whole of it shrunk, then each box the table named, one gray byte a pixel, then each box it named in colour
  // (where pieces are found by colour), three bytes a pixel, blue, green, red. Null when the photo's shape is
  // another: it goes whole, and the table says what to do.
  const bitmap = await createImageBitmap(blob);
  const { width, height } = bitmap;
  const turned = (width > height) !== (plan.width > plan.height) && width !== height;
  const [w, h] = turned ? [height, width] : [width, height];
  if (Math.abs((w / h) / (plan.width / plan.height) - 1) > plan.shape_tolerance) {
    bitmap.close();
    return null;
  }
  const fit = canvasOf(plan.width, plan.height);
  if (turned) { // a quarter turn clockwise
    fit.context.translate(plan.width, 0);
    fit.context.rotate(Math.PI / 2);
    fit.context.drawImage(bitmap, 0, 0, plan.height, plan.width);
  } else fit.context.drawImage(bitmap, 0, 0, plan.width, plan.height);
  bitmap.close();
  const [ow, oh] = plan.overview;
  const small = canvasOf(ow, oh);
  small.context.drawImage(fit.canvas, 0, 0, ow, oh);
  const cut = ([x0, y0, x1, y1]) => fit.context.getImageData(x0, y0, x1 - x0, y1 - y0);
  const parts = [small.context.getImageData(0, 0, ow, oh), ...plan.boxes.map(cut)];
  const coloured = (plan.colour || []).map(cut);
  const pixels = (list) => list.reduce((n, part) => n + part.width * part.height, 0);
  const body = new Uint8Array(pixels(parts) + 3 * pixels(coloured));
  let at = 0;
  for (const { data } of parts) {
    for (let i = 0; i < data.length; i += 4) {
      body[at++] = Math.round(0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2]); // the luma
    }
  }
  for (const { data } of coloured) {
    for (let i = 0; i < data.length; i += 4) {
      body[at++] = data[i + 2];
      body[at++] = data[i + 1];
      body[at++] = data[i];
    }
  }
  return { body, width, height };
}

function canvasOf(width, height) {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.imageSmoothingQuality = "high";
  return { canvas, context };
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
      const [picture, kind] = await still();
      const plan = wanted.crops;
      const crops = plan ? await cutOut(picture, plan) : null;
      const answer = crops
        ? await send(`crops=${plan.plan}`, crops.body, "application/octet-stream")
        : await post(picture, wanted.ask);
      stills += 1;
      const parts = plan && `${plan.boxes.length} ${plan.boxes.length === 1 ? "part" : "parts"}`;
      const what = crops ? `${parts} of a ${kind} of ${crops.width} × ${crops.height}`
        : `a ${kind} of ${answer.width} × ${answer.height}`;
      sent.textContent = `${stills} ${stills === 1 ? "picture" : "pictures"} sent, the last ${what}.`;
      say("watching the board");
    } else if (Date.now() - lastPreview > previewEvery) {
      lastPreview = Date.now();
      await post(await grab(PREVIEW_WIDTH), 0);
      say("watching the board");
    }
  } catch (error) {
    say(error instanceof Refused ? `The table says: ${error.message}.` : `Cannot reach the table: ${error.message}`,
      true);
  }
  setTimeout(tick, POLL_MS);
}

async function largest(track) {
  // The video at the biggest size the camera gives, either way up; and its full-size photos where offered.
  const caps = track.getCapabilities ? track.getCapabilities() : {};
  if (caps.width && caps.height) {
    await track.applyConstraints({ width: { ideal: caps.width.max }, height: { ideal: caps.height.max } })
      .catch(() => {});
  }
  if (typeof ImageCapture === "undefined") return;
  try {
    const capture = new ImageCapture(track);
    const range = await capture.getPhotoCapabilities();
    photoSize = range.imageWidth && range.imageWidth.max
      ? { imageWidth: range.imageWidth.max, imageHeight: range.imageHeight.max } : {};
    photos = capture;
  } catch (error) {
    photos = null; // no photos from this camera: the video's frames
  }
}

async function open() {
  if (!navigator.mediaDevices || !window.isSecureContext) {
    say("This page needs the table's secure address (https) to use the camera.", true);
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: "environment", width: { ideal: 4056 }, height: { ideal: 3040 } },
    });
    view.srcObject = stream;
    start.hidden = true;
    await largest(stream.getVideoTracks()[0]);
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
