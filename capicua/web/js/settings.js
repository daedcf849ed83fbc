// The player's settings, the same on every device of theirs (GET/PUT /api/settings,
// docs/protocol.md "Settings"): sound volume, the slam's loudness, the animation
// speed, subtitles and language. Each page reads them at once from localStorage
// (the copy of the last answer, and the offline fallback: the keys the pages read
// already — capicua.lang, capicua.subs — and capicua.volume, capicua.slam,
// capicua.anim), then asks the server once and applies what changed. The i18n
// module loads this on every page (it imports only guest.js, which imports nothing).

import { readToken } from './guest.js';

export const DEFAULTS = Object.freeze({ volume: 80, slam: 100, animation: 'normal', subtitles: true, lang: null });
export const ANIMATIONS = ['normal', 'rapida', 'ninguna'];
// Where each setting lives in localStorage, and how it is written there.
const KEYS = {
  volume: ['capicua.volume', String, (v) => clampPercent(Number(v))],
  slam: ['capicua.slam', String, (v) => clampPercent(Number(v))],
  animation: ['capicua.anim', String, (v) => (ANIMATIONS.includes(v) ? v : null)],
  subtitles: ['capicua.subs', (v) => (v ? 'on' : 'off'), (v) => (v === 'on' ? true : v === 'off' ? false : null)],
  lang: ['capicua.lang', (v) => v, (v) => (v === 'es' || v === 'en' ? v : null)],
};
const CHOSEN_KEY = 'capicua.chosen'; // the names of the settings the player chose (the server's last word)
const listeners = new Set();

function clampPercent(n) {
  return Number.isFinite(n) ? Math.max(0, Math.min(100, Math.round(n))) : null;
}

/** The settings as this browser knows them now (no request). */
export function settings() {
  const out = { ...DEFAULTS };
  for (const [name, [key, , read]] of Object.entries(KEYS)) {
    let raw = null;
    try { raw = localStorage.getItem(key); } catch (_) { /* private mode */ }
    const value = raw === null ? null : read(raw);
    if (value !== null) out[name] = value;
  }
  return out;
}

function keep(values) {
  for (const [name, value] of Object.entries(values)) {
    const entry = KEYS[name];
    if (!entry) continue;
    try {
      if (value === null || value === undefined) localStorage.removeItem(entry[0]);
      else localStorage.setItem(entry[0], entry[1](value));
    } catch (_) { /* private mode: this page only */ }
  }
}

/** Whether the player chose setting `name` (it is theirs on every device, not this browser's own). */
export function chosen(name) {
  try { return (JSON.parse(localStorage.getItem(CHOSEN_KEY) || '[]') || []).includes(name); } catch (_) { return false; }
}

/** Call `fn(settings)` whenever they change here (the server's answer, a change made on this page). */
export function onSettings(fn) { listeners.add(fn); }

function changed() {
  const now = settings();
  applyAnimation(now);
  for (const fn of listeners) fn(now);
}

/** The animation speed as the page's <html data-anim> (the stylesheet and travel.js read it). */
function applyAnimation(now) {
  document.documentElement.dataset.anim = now.animation;
}

/** The share of their normal length the page's animations take: 1, ½, or 0 (none). */
export function animationScale() {
  const a = settings().animation;
  return a === 'ninguna' ? 0 : a === 'rapida' ? 0.5 : 1;
}

function headers() {
  const token = readToken();
  return token ? { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } : null;
}

/** Ask the server for this player's settings and apply them; false when it could not say. */
export async function loadSettings() {
  const hs = headers();
  if (!hs) return false;
  try {
    const r = await fetch('/api/settings', { headers: hs });
    const data = await r.json();
    if (!r.ok || !data || typeof data.settings !== 'object' || !Array.isArray(data.chosen)) return false;
    // Only what the player chose: this browser keeps its own choice of the rest.
    keep(Object.fromEntries(data.chosen.map((name) => [name, data.settings[name]])));
    try { localStorage.setItem(CHOSEN_KEY, JSON.stringify(data.chosen)); } catch (_) { /* private mode */ }
    changed();
    return true;
  } catch (_) {
    return false; // offline: the copy kept here stands
  }
}

/**
 * Change some settings: kept here at once (and applied), then on the server for the
 * player's other devices. Resolves to {ok} or {error: code}.
 */
export async function saveSettings(values) {
  keep(values);
  changed();
  const hs = headers();
  if (!hs) return { ok: true }; // no player yet: this browser's own
  try {
    const r = await fetch('/api/settings', { method: 'PUT', headers: hs, body: JSON.stringify(values) });
    const data = await r.json().catch(() => null);
    if (r.ok && data && Array.isArray(data.chosen)) {
      try { localStorage.setItem(CHOSEN_KEY, JSON.stringify(data.chosen)); } catch (_) { /* private mode */ }
    }
    if (r.ok) return { ok: true };
    return { error: (data && data.error && data.error.code) || 'server' };
  } catch (_) {
    return { error: 'network' };
  }
}

applyAnimation(settings());
