// What the editors' pages share: a one-line message for what happened or went wrong.
export const $ = (id) => document.getElementById(id);

export function say(text, bad = false) {
  const box = $("message");
  box.textContent = text; box.hidden = !text; box.classList.toggle("bad", bad);
  if (text) box.scrollIntoView({ block: "nearest" });  // where the person is looking may be far down the page
}

export async function guarded(work) {
  try { await work(); } catch (error) { say(error.message, true); }
}
