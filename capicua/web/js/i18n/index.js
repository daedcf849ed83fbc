// The interface's words in the page's language, and the language switch. The words
// are by language (es.js, en.js); elements carry data-i18n="key" (textContent) and/or
// data-i18n-attr="title:key;aria-label:key2" (attributes). Pages call applyI18n().

import es from './es.js';
import en from './en.js';
import { chosen, loadSettings, onSettings, saveSettings } from '../settings.js';

const LANG_KEY = 'capicua.lang';

export const STRINGS = { es, en };

export function getLang() {
  try {
    const v = localStorage.getItem(LANG_KEY);
    if (v === 'es' || v === 'en') return v;
  } catch (_) { /* private mode */ }
  return browserLang();
}

/**
 * The language of a player who has not chosen one: the browser's first
 * preference between ours (an English browser starts in English), else Spanish.
 */
function browserLang() {
  const prefs = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || '']);
  for (const p of prefs) {
    const base = String(p || '').toLowerCase().split('-')[0];
    if (base === 'es' || base === 'en') return base;
  }
  return 'es';
}

let current = getLang();
const listeners = new Set();

export function lang() { return current; }

export function setLang(l) {
  current = l === 'en' ? 'en' : 'es';
  try { localStorage.setItem(LANG_KEY, current); } catch (_) { /* ignore */ }
  applyI18n();
  for (const fn of listeners) fn(current);
}

// The player's language (settings.js: the same on each of their devices; null is the browser's).
onSettings((now) => {
  const want = now.lang || browserLang();
  if (want === current) return;
  current = want;
  applyI18n();
  for (const fn of listeners) fn(current);
});

export function onLangChange(fn) { listeners.add(fn); }

/** Translate key with {param} substitution; falls back to Spanish, then the key. */
export function t(key, params = {}) {
  const table = STRINGS[current] || STRINGS.es;
  let s = table[key];
  if (s === undefined) s = STRINGS.es[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}

export function has(key) { return key in STRINGS.es; }

export function applyI18n(root = document) {
  document.documentElement.lang = current;
  document.documentElement.dataset.lang = current;
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/** Wire every [data-testid=lang-toggle] button on the page. */
export function wireLangToggle(root = document) {
  for (const btn of root.querySelectorAll('[data-testid="lang-toggle"]')) {
    btn.addEventListener('click', () => {
      setLang(current === 'es' ? 'en' : 'es');
      // The player's language when they chose one (settings.js): else this browser's own.
      if (chosen('lang')) saveSettings({ lang: current });
    });
  }
}

loadSettings();
