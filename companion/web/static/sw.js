// The page's shell is cached so that it reloads while the companion is away a moment (a restart, a Wi-Fi blip).
// The API and the stream are never cached: the page shows "reconnecting" and the stream catches up by its ids.
// Every module the page imports is in the shell (a test holds it): one missing and the page runs no script offline.
const CACHE = "orrery-shell-8";
const SHELL = ["/", "/static/style.css", "/static/main.js", "/static/map.js", "/static/speech.js",
               "/static/dialogs.js", "/static/guide.js", "/static/play.js", "/static/api.js", "/static/share.js", "/static/surfaces.js", "/static/secure.js", "/static/secure.css",
               "/static/pickers.js", "/static/muster.js", "/static/seats.js",
               "/static/icon.svg", "/manifest.webmanifest"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/api/") || ["/events", "/healthz", "/ca.crt"].includes(url.pathname)) return;
  // Network first, so an updated companion serves its new page; the cache when the network fails.
  const key = url.pathname === "/" ? "/" : event.request;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.match(key)));
});
