// Speaking announcements (Web Speech API). Browsers let a page speak only after a tap, so speech starts once a
// player allows it and stays on (remembered) from then on.
const KEY = "orrery.speech";
const settings = Object.assign({ on: false, voice: "", rate: 1 }, JSON.parse(localStorage.getItem(KEY) || "{}"));

export const speech = {
  available: "speechSynthesis" in window,
  get on() { return settings.on; },
  get voice() { return settings.voice; },
  get rate() { return settings.rate; },
  set(changes) { Object.assign(settings, changes); localStorage.setItem(KEY, JSON.stringify(settings)); },
  voices() { return this.available ? speechSynthesis.getVoices() : []; },
  say(text) {
    if (!this.available || !settings.on || !text) return;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.rate = settings.rate;
    const voice = this.voices().find((v) => v.voiceURI === settings.voice);
    if (voice) utterance.voice = voice;
    speechSynthesis.speak(utterance);
  },
  quiet() { if (this.available) speechSynthesis.cancel(); },
};
