// Talking to the companion: JSON in and out; the table token (from the QR) goes in a header, never a cookie.
const TOKEN_KEY = "orrery.token";

export function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

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
  const response = await fetch(path, { headers: token() ? { "X-Orrery-Token": token() } : {} });
  return answer(response);
}

export async function post(path, body = {}) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Orrery-Token": token() },
    body: JSON.stringify(body),
  });
  return answer(response);
}

async function answer(response) {
  const data = await response.json().catch(() => ({ error: `the companion answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `the companion answered ${response.status}`);
  return data;
}
