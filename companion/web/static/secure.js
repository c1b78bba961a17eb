// What a secure context gives the page (the screen kept awake, the service worker that reloads the page while the
// companion restarts), and the step that gets a phone there. Browsers grant a secure context to https with a
// certificate they trust and to localhost, never to plain http on a LAN address. So over plain http the page offers
// to trust the table's own CA (/ca.crt), probes the https page, and offers to switch once the phone trusts it
// (docs/web.md, "Trusting the table").
import { get, token } from "./api.js";

const DISMISSED = "orrery.trust.dismissed";  // which offer the player closed: "trust" or "switch"
const PROBE_MS = 4000;
const $ = (id) => document.getElementById(id);

// For the browser tests and anyone curious.
export const secure = { wakeLock: "not asked", worker: "not registered", httpsPort: null, trusted: null };

export function startSecure() {
  window.orrery.secure = secure;
  document.addEventListener("visibilitychange", keepAwake);
  keepAwake();
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").then(() => { secure.worker = "registered"; })
      .catch((error) => { secure.worker = `refused: ${error.message}`; });
  }
  if (!window.isSecureContext) offerTrust().catch(() => {});
}

async function keepAwake() {
  if (!("wakeLock" in navigator)) { secure.wakeLock = "unavailable"; return; }  // not a secure context
  if (document.visibilityState !== "visible") return;  // the lock ends when the page is hidden; asked again on return
  try {
    const lock = await navigator.wakeLock.request("screen");
    secure.wakeLock = "held";
    lock.addEventListener("release", () => { secure.wakeLock = "released"; });
  } catch (error) {
    secure.wakeLock = `refused: ${error.name}`;  // battery saver, or a browser that grants it only to a visible tab
  }
}

function httpsOrigin(port) {
  return `https://${location.hostname}${port === 443 ? "" : `:${port}`}`;
}

async function offerTrust() {
  const health = await get("/healthz");
  if (!health.https_port) return;  // this table serves plain http only
  secure.httpsPort = health.https_port;
  const origin = httpsOrigin(health.https_port);
  const hint = buildHint(origin);
  const check = () => probe(origin).then((ok) => show(hint, origin, ok));
  show(hint, origin, false);
  await check();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !secure.trusted) check();  // back from the phone's settings
  });
  $("trust-check").onclick = check;
}

// Succeeds only when the phone trusts the table's CA: a refused certificate fails the fetch like a network error.
// no-cors: the answer itself is not needed (and is not readable across origins), only that the handshake worked.
async function probe(origin) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), PROBE_MS);
  try {
    await fetch(`${origin}/healthz`, { mode: "no-cors", cache: "no-store", signal: abort.signal });
    secure.trusted = true;
  } catch {
    secure.trusted = false;
  } finally {
    clearTimeout(timer);
  }
  return secure.trusted;
}

// The https page has its own localStorage: the table token goes along in the address, as in the QR code.
function switchUrl(origin) {
  return `${origin}/${token() ? `?t=${encodeURIComponent(token())}` : ""}`;
}

function show(hint, origin, trusted) {
  const offer = trusted ? "switch" : "trust";
  for (const link of [hint.querySelector(".trust-switch"), $("trust-go")]) link.href = switchUrl(origin);
  hint.dataset.offer = offer;
  hint.querySelector(".trust-text").hidden = trusted;
  hint.querySelector(".trust-switch").hidden = !trusted;
  hint.hidden = localStorage.getItem(DISMISSED) === offer;
  $("trust-status").textContent = trusted
    ? "This phone trusts the table."
    : "This phone does not trust the table yet.";
  $("trust-go").hidden = !trusted;
}

function buildHint(origin) {
  const style = Object.assign(document.createElement("link"), { rel: "stylesheet", href: "/static/secure.css" });
  document.head.appendChild(style);
  const hint = document.createElement("aside");
  hint.id = "trust-hint";
  hint.className = "trust-hint";
  hint.hidden = true;
  hint.innerHTML = `
    <button type="button" class="trust-text">Keep the screen awake and reload offline: trust this table</button>
    <a class="trust-switch button accent" hidden>This phone trusts the table: open the secure page</a>
    <button type="button" class="trust-close" aria-label="Dismiss">×</button>`;
  hint.querySelector(".trust-text").onclick = () => $("trust").showModal();
  hint.querySelector(".trust-close").onclick = () => {
    localStorage.setItem(DISMISSED, hint.dataset.offer);
    hint.hidden = true;
  };
  document.querySelector("main").prepend(hint);
  document.body.appendChild(buildInstructions(origin));
  return hint;
}

function buildInstructions(origin) {
  const dialog = document.createElement("dialog");
  dialog.id = "trust";
  dialog.innerHTML = `
    <form method="dialog">
      <h2>Trust this table</h2>
      <p>The companion can serve this page over https with a certificate authority made for this table alone.
        Once this phone trusts it, the page keeps the screen awake and reloads even while the companion restarts.</p>
      <p><a id="trust-download" class="button accent" href="/ca.crt" download>Download the table's certificate</a></p>
      <details><summary>Android</summary><ol>
        <li>Download the certificate (above).</li>
        <li>Settings › Security › More security settings › Encryption &amp; credentials › Install a certificate ›
          CA certificate (search Settings for “CA certificate” if your phone words it otherwise), and pick the file.</li>
        <li>Come back to this page.</li></ol></details>
      <details><summary>iPhone and iPad</summary><ol>
        <li>In Safari, download the certificate and tap Allow.</li>
        <li>Settings › General › VPN &amp; Device Management › the Orrery table profile › Install.</li>
        <li>Settings › General › About › Certificate Trust Settings: turn on the Orrery table.</li>
        <li>Come back to this page.</li></ol></details>
      <details><summary>Computer</summary><ol>
        <li>Chrome and Edge: Settings › Privacy and security › Security › Manage certificates › Authorities (or
          Trusted Root Certification Authorities) › Import, and trust it for websites.</li>
        <li>Firefox: Settings › Privacy &amp; Security › Certificates › View Certificates › Authorities › Import.</li>
        <li>macOS: open the file in Keychain Access and set it to Always Trust.</li></ol></details>
      <p class="trust-note">It vouches only for local names and private addresses, never for a site on the internet.
        The secure page is <span id="trust-origin"></span>.</p>
      <p id="trust-status" role="status"></p>
      <menu>
        <button type="button" id="trust-check">Check again</button>
        <a id="trust-go" class="button accent" hidden>Open the secure page</a>
        <button value="close">Close</button>
      </menu>
    </form>`;
  dialog.querySelector("#trust-origin").textContent = origin;
  return dialog;
}
