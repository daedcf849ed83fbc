// Synthesised table sounds (WebAudio, no audio files): the bots' tile slam,
// the softer click of your own tile, the knuckle knock of a pass, the
// "your turn" cue and a small fanfare for capicúa / end of match.
// The AudioContext is only created after a user gesture (autoplay policy).

import { settings } from './settings.js';

const KEY = 'capicua.sound';
let ctx = null;
let master = null; // every sound goes through it: the player's volume (settings.js)
let unlocked = false;
let enabled = true;
try { enabled = localStorage.getItem(KEY) !== 'off'; } catch (_) { /* ignore */ }

export function soundEnabled() { return enabled; }
export function setSoundEnabled(on) {
  enabled = !!on;
  try { localStorage.setItem(KEY, enabled ? 'on' : 'off'); } catch (_) { /* ignore */ }
}

function ac() {
  if (!enabled || !unlocked) return null;
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    try { ctx = new AC(); } catch (_) { return null; }
    master = ctx.createGain();
    master.connect(ctx.destination);
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  master.gain.value = settings().volume / 100;
  return ctx;
}

/** Call from the first user gesture so later sounds may play. */
export function unlockAudio() {
  unlocked = true;
  ac();
}
for (const ev of ['pointerdown', 'keydown', 'touchstart']) {
  window.addEventListener(ev, unlockAudio, { once: true, capture: true, passive: true });
}

function noiseBuffer(c, seconds) {
  const n = Math.max(1, Math.floor(c.sampleRate * seconds));
  const buf = c.createBuffer(1, n, c.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 2;
  return buf;
}

function burst(c, t, { dur = 0.06, freq = 2200, q = 0.8, gain = 0.5, type = 'bandpass' } = {}) {
  const src = c.createBufferSource();
  src.buffer = noiseBuffer(c, dur);
  const f = c.createBiquadFilter();
  f.type = type; f.frequency.value = freq; f.Q.value = q;
  const g = c.createGain();
  g.gain.setValueAtTime(gain, t);
  g.gain.exponentialRampToValueAtTime(0.001, t + dur);
  src.connect(f).connect(g).connect(master);
  src.start(t); src.stop(t + dur + 0.02);
}

function thump(c, t, { from = 140, to = 45, dur = 0.16, gain = 0.7 } = {}) {
  const o = c.createOscillator();
  o.type = 'sine';
  o.frequency.setValueAtTime(from, t);
  o.frequency.exponentialRampToValueAtTime(to, t + dur);
  const g = c.createGain();
  g.gain.setValueAtTime(gain, t);
  g.gain.exponentialRampToValueAtTime(0.001, t + dur);
  o.connect(g).connect(master);
  o.start(t); o.stop(t + dur + 0.02);
}

function tone(c, t, freq, dur, gain = 0.12, type = 'sine') {
  const o = c.createOscillator();
  o.type = type; o.frequency.value = freq;
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, t);
  g.gain.exponentialRampToValueAtTime(gain, t + 0.015);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  o.connect(g).connect(master);
  o.start(t); o.stop(t + dur + 0.02);
}

/** A bot slams its tile: noise crack + low thump on the table, as loud as the player set it. */
export function slam() {
  const c = ac(); if (!c) return;
  const loud = settings().slam / 100;
  if (loud <= 0) return;
  const t = c.currentTime + 0.01;
  burst(c, t, { dur: 0.07, freq: 1800, q: 0.7, gain: 0.9 * loud });
  burst(c, t + 0.004, { dur: 0.03, freq: 4200, q: 2, gain: 0.35 * loud });
  thump(c, t, { from: 150, to: 42, dur: 0.2, gain: 0.9 * loud });
}

/** Your own tile: a soft click. */
export function click() {
  const c = ac(); if (!c) return;
  const t = c.currentTime + 0.01;
  burst(c, t, { dur: 0.035, freq: 3000, q: 1.5, gain: 0.35 });
  thump(c, t, { from: 220, to: 110, dur: 0.06, gain: 0.25 });
}

/** A pass: two knuckle knocks on the table ("tocar la mesa"). */
export function knock() {
  const c = ac(); if (!c) return;
  const t = c.currentTime + 0.01;
  for (const dt of [0, 0.14]) {
    thump(c, t + dt, { from: 210, to: 90, dur: 0.09, gain: 0.5 });
    burst(c, t + dt, { dur: 0.025, freq: 900, q: 1, gain: 0.25 });
  }
}

/** Your turn and something fits: a short two-note cue. */
export function cue() {
  const c = ac(); if (!c) return;
  const t = c.currentTime + 0.01;
  tone(c, t, 660, 0.12, 0.08, 'triangle');
  tone(c, t + 0.11, 880, 0.16, 0.08, 'triangle');
}

/** Capicúa / match won: a little arpeggio. */
export function fanfare() {
  const c = ac(); if (!c) return;
  const t = c.currentTime + 0.02;
  [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => tone(c, t + i * 0.11, f, 0.3, 0.1, 'triangle'));
}
