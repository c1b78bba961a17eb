// Talking to the companion: JSON in and out; the table token (from the QR) and this phone's own key go in headers,
// never a cookie.
const TOKEN_KEY = "orrery.token";
const PHONE_KEY = "orrery.phone";

export function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

function phoneKey() { return localStorage.getItem(PHONE_KEY) || ""; }

// The headers every request carries: the token and this phone's key, when it has them.
export function headers(extra = {}) {
  const sent = { ...extra };
  if (token()) sent["X-Orrery-Token"] = token();
  if (phoneKey()) sent["X-Orrery-Phone"] = phoneKey();
  return sent;
}

// This phone as the table knows it ({phone, host, seats, together}), joining the table first when the table does
// not know it yet (a first visit, or a table that was set up afresh). Null without the token: the phone watches.
export async function joinTable() {
  if (!token()) return null;
  const known = phoneKey() ? await get("/api/phones/me") : null;
  if (known) return known;
  const joined = await post("/api/phones", {});
  localStorage.setItem(PHONE_KEY, joined.key);
  delete joined.key;
  return joined;
}

export function setToken(value) { localStorage.setItem(TOKEN_KEY, value); }

// A token in the URL (?t=...) is kept and then taken out of the address bar, so a screenshot does not share it.
export function takeTokenFromUrl() {
  const url = new URL(location.href);
  const given = url.searchParams.get("t");
  if (given) {
    localStorage.setItem(TOKEN_KEY, given);
    url.searchParams.delete("t");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  return token();
}

export async function get(path) {
  const response = await fetch(path, { headers: headers() });
  return answer(response);
}

export async function post(path, body = {}) {
  const response = await fetch(path, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });
  return answer(response);
}

async function answer(response) {
  const data = await response.json().catch(() => ({ error: `the companion answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `the companion answered ${response.status}`);
  return data;
}
