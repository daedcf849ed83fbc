// The home page: nickname, game preset, table options, bot levels, "¡Jugar!".
// POST /api/tables, remember {table_id, token, seat} under capicua:table:<id>, go to /t/<id>.

import { t, has, applyI18n, wireLangToggle, onLangChange } from './i18n.js';
import { tileSvg } from './tiles.js';

const $ = (id) => document.getElementById(id);

export const LEVELS = ['random', 'botagorda', 'medio', 'dificil', 'experto'];

/** Table options of RULES.md section 2: name -> choices (default of `cubano` first). */
export const OPTION_DEFS = {
  target: [100, 50, 150, 200, 500, 121],
  first_opener: ['random_seat', 'highest_double', 'team_draw', 'parity_guess', 'must_play_top_double', 'fid_rotation'],
  next_opener_after_win: ['winner', 'rotate'],
  next_opener_after_tranque: ['same_opener', 'blocker', 'other_team_on_tie'],
  domino_scoring: ['opponents', 'all_hands'],
  tranque_winner: ['lowest_player', 'lowest_team'],
  tranque_scoring: ['opponents', 'all_hands', 'difference'],
  capicua_bonus: [0, 25, 30],
  redeal_five_doubles: ['automatic', 'on_request', 'off'],
  players: [4, 2, 3, 5],
};
/** Presets where the number of players can change (the rest have a fixed table). */
const FLEXIBLE_PLAYERS = ['block', 'draw', 'all-fives', 'fives-and-threes', 'cross', 'double-nine-cross'];

const CUBANO = {
  target: 100, first_opener: 'random_seat', next_opener_after_win: 'winner',
  next_opener_after_tranque: 'same_opener', domino_scoring: 'opponents', tranque_winner: 'lowest_player',
  tranque_scoring: 'opponents', capicua_bonus: 0, redeal_five_doubles: 'automatic',
};
const PLAZA = {
  ...CUBANO, first_opener: 'must_play_top_double', domino_scoring: 'all_hands', tranque_winner: 'lowest_team',
  tranque_scoring: 'all_hands', next_opener_after_tranque: 'blocker', redeal_five_doubles: 'off',
};
const PUB = { ...CUBANO, first_opener: 'highest_double', tranque_winner: 'lowest_team', tranque_scoring: 'difference', redeal_five_doubles: 'off' };

/** Built-in presets, used when GET /api/presets cannot be fetched. */
export const FALLBACK_PRESETS = [
  { id: 'cubano', defaults: { ...CUBANO } },
  { id: 'cubano-clasico', defaults: { ...CUBANO, first_opener: 'team_draw', next_opener_after_tranque: 'other_team_on_tie' } },
  { id: 'la-plaza', defaults: { ...PLAZA } },
  { id: 'fid', defaults: { ...PLAZA, first_opener: 'fid_rotation', next_opener_after_win: 'rotate' } },
  { id: 'caribe', defaults: { ...CUBANO, capicua_bonus: 25 } },
  { id: 'mano-a-mano', defaults: { ...CUBANO, domino_scoring: 'all_hands', redeal_five_doubles: 'off' }, players: 2 },
  { id: 'block', defaults: { ...PUB } },
  { id: 'draw', defaults: { ...PUB } },
  { id: 'all-fives', defaults: { ...PUB, tranque_scoring: 'difference' } },
  { id: 'fives-and-threes', defaults: { ...PUB, tranque_scoring: 'difference' } },
  { id: 'cross', defaults: { ...PUB } },
  { id: 'double-nine-cross', defaults: { ...PUB } },
];

let presets = FALLBACK_PRESETS.map((p) => ({ ...p, defaults: { ...p.defaults } }));
let optionDefs = { ...OPTION_DEFS };
let defaultPreset = 'cubano';
let defaultLevel = 'medio';
const dirty = new Set();

/** Accept the few shapes /api/presets might reasonably have; return [] if unknown. */
export function normalisePresets(data) {
  let list = data;
  if (data && !Array.isArray(data)) list = data.presets || data.items || data;
  let items;
  if (Array.isArray(list)) items = list;
  else if (list && typeof list === 'object') items = Object.entries(list).map(([id, v]) => ({ id, ...(typeof v === 'object' ? v : {}) }));
  else return { presets: [], options: {}, defaultPreset: null, defaultLevel: null };
  const out = [];
  for (const p of items) {
    if (typeof p === 'string') { out.push({ id: p, defaults: {} }); continue; }
    const id = p.id || p.preset || p.name || p.key || (p.rules && p.rules.preset);
    if (!id || typeof id !== 'string') continue;
    const defaults = p.defaults || p.options || p.rules || {};
    out.push({ id, label: p.label || p.title, label_en: p.label_en, description: p.description, defaults: typeof defaults === 'object' ? defaults : {}, players: p.players || (defaults && defaults.players) });
  }
  const options = {};
  const rawOpts = data && !Array.isArray(data) && (data.options || data.option_choices);
  if (rawOpts && typeof rawOpts === 'object') {
    for (const [name, spec] of Object.entries(rawOpts)) {
      const choices = Array.isArray(spec) ? spec : (spec && (spec.choices || spec.values));
      if (Array.isArray(choices) && choices.length) options[name] = choices;
    }
  }
  const meta = data && !Array.isArray(data) ? data : {};
  return { presets: out, options, defaultPreset: typeof meta.default === 'string' ? meta.default : null, defaultLevel: typeof meta.default_level === 'string' ? meta.default_level : null };
}

function presetLabel(p) {
  if (has(`preset.${p.id}`)) return t(`preset.${p.id}`);
  return p.label || p.id;
}

function valueLabel(name, v) {
  if (name === 'capicua_bonus') return Number(v) === 0 ? (document.documentElement.lang === 'en' ? 'No bonus' : 'Sin premio') : `+${v}`;
  if (name === 'target') return String(v);
  return has(`val.${v}`) ? t(`val.${v}`) : String(v);
}

function fillLevels() {
  for (const id of ['partner-level', 'rival-level']) {
    const sel = $(id);
    const current = sel.value || (readPref(id) ?? defaultLevel);
    sel.replaceChildren(...LEVELS.map((lv) => new Option(t(`level.${lv}`), lv)));
    sel.value = LEVELS.includes(current) ? current : defaultLevel;
  }
}

function fillPresets() {
  const sel = $('preset');
  const current = sel.value || readPref('preset') || defaultPreset;
  sel.replaceChildren(...presets.map((p) => new Option(presetLabel(p), p.id)));
  sel.value = presets.some((p) => p.id === current) ? current : (presets[0] && presets[0].id);
}

function currentPreset() {
  return presets.find((p) => p.id === $('preset').value) || presets[0];
}

function renderOptions() {
  const box = $('option-fields');
  const keep = {};
  for (const sel of box.querySelectorAll('select')) keep[sel.name] = sel.value;
  box.replaceChildren();
  const p = currentPreset();
  const defaults = (p && p.defaults) || {};
  for (const [name, choicesRaw] of Object.entries(optionDefs)) {
    if (name === 'players' && !FLEXIBLE_PLAYERS.includes(p && p.id)) continue;
    const choices = [...choicesRaw];
    const dflt = defaults[name] !== undefined ? defaults[name] : choices[0];
    if (!choices.some((c) => String(c) === String(dflt))) choices.unshift(dflt);
    const field = document.createElement('div');
    field.className = 'field';
    const id = `opt-${name}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = has(`opt.${name}`) ? t(`opt.${name}`) : name;
    const sel = document.createElement('select');
    sel.id = id; sel.name = name; sel.dataset.option = name; sel.dataset.testid = `option-${name}`;
    for (const c of choices) {
      const o = new Option(valueLabel(name, c) + (String(c) === String(dflt) ? ` ${t('home.default')}` : ''), String(c));
      sel.append(o);
    }
    sel.value = dirty.has(name) && keep[name] !== undefined ? keep[name] : String(dflt);
    sel.addEventListener('change', () => {
      if (sel.value === String(dflt)) dirty.delete(name); else dirty.add(name);
      if (name === 'players') $('partner-level').closest('.field').hidden = Number(sel.value) !== 4;
    });
    field.append(label, sel);
    box.append(field);
  }
  // Partner level only matters in partnership games with four players.
  const chosen = document.querySelector('#option-fields select[name="players"]');
  const players = Number(chosen ? chosen.value : ((p && (p.players || (p.defaults && p.defaults.players))) || 4));
  $('partner-level').closest('.field').hidden = players !== 4;
}

function collectOptions() {
  const p = currentPreset();
  const out = {};
  for (const name of dirty) {
    const sel = document.querySelector(`#option-fields select[name="${name}"]`);
    if (!sel) continue;
    const sample = [...(optionDefs[name] || []), p && p.defaults ? p.defaults[name] : undefined].find((x) => x !== undefined);
    out[name] = typeof sample === 'number' ? Number(sel.value) : sel.value;
  }
  return out;
}

function readPref(key) {
  try { return localStorage.getItem(`capicua.pref.${key}`); } catch (_) { return null; }
}
function writePref(key, v) {
  try { localStorage.setItem(`capicua.pref.${key}`, v); } catch (_) { /* ignore */ }
}

function showError(msg) {
  const el = $('form-error');
  el.textContent = msg;
  el.hidden = !msg;
}

async function submit(ev) {
  ev.preventDefault();
  showError('');
  const nickname = $('nickname').value.trim().slice(0, 24) || (document.documentElement.lang === 'en' ? 'Guest' : 'Invitado');
  try { localStorage.setItem('capicua.nickname', $('nickname').value.trim()); } catch (_) { /* ignore */ }
  writePref('preset', $('preset').value);
  writePref('partner-level', $('partner-level').value);
  writePref('rival-level', $('rival-level').value);
  const body = {
    nickname,
    preset: $('preset').value,
    options: collectOptions(),
    partner_level: $('partner-level').value,
    rival_level: $('rival-level').value,
  };
  const guest = readPref('guest-token');
  if (guest) body.token = guest;
  const btn = $('play-button');
  btn.disabled = true;
  btn.textContent = t('home.creating');
  try {
    const r = await fetch('/api/tables', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await r.json(); } catch (_) { data = null; }
    if (!r.ok || !data || !data.table_id) {
      const msg = (data && data.error && (data.error.message || data.error.code)) || `HTTP ${r.status}`;
      throw new Error(msg);
    }
    const entry = { table_id: data.table_id, token: data.token, seat: data.seat, preset: body.preset, created: Date.now() };
    localStorage.setItem(`capicua:table:${data.table_id}`, JSON.stringify(entry));
    if (data.token) writePref('guest-token', data.token);
    location.href = typeof data.url === 'string' && data.url.startsWith('/t/') ? data.url : `/t/${encodeURIComponent(data.table_id)}`;
  } catch (e) {
    const msg = e instanceof TypeError ? t('home.error.network') : String(e.message || e);
    showError(t('home.error', { msg }));
    btn.disabled = false;
    btn.textContent = t('home.play');
  }
}

function renderResume() {
  const list = $('resume-list');
  const entries = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (!k || !k.startsWith('capicua:table:')) continue;
      try { const e = JSON.parse(localStorage.getItem(k)); if (e && e.table_id) entries.push(e); } catch (_) { /* skip */ }
    }
  } catch (_) { /* ignore */ }
  entries.sort((a, b) => (b.created || 0) - (a.created || 0));
  const recent = entries.filter((e) => !e.created || Date.now() - e.created < 3 * 24 * 3600 * 1000).slice(0, 3);
  list.replaceChildren(...recent.map((e) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/t/${encodeURIComponent(e.table_id)}`;
    a.className = 'btn';
    a.textContent = t('home.resume.go', { id: e.table_id });
    li.append(a);
    return li;
  }));
  $('resume').hidden = recent.length === 0;
}

function renderAll() {
  fillPresets();
  fillLevels();
  renderOptions();
  renderResume();
  $('play-button').textContent = t('home.play');
}

async function loadPresets() {
  try {
    const r = await fetch('/api/presets', { headers: { Accept: 'application/json' } });
    if (!r.ok) return;
    const { presets: got, options, defaultPreset: dp, defaultLevel: dl } = normalisePresets(await r.json());
    if (dp) defaultPreset = dp;
    if (dl && LEVELS.includes(dl)) defaultLevel = dl;
    if (got.length) {
      const fallback = Object.fromEntries(FALLBACK_PRESETS.map((p) => [p.id, p]));
      presets = got.map((p) => ({ ...p, defaults: { ...((fallback[p.id] || {}).defaults || {}), ...p.defaults }, players: p.players || (fallback[p.id] || {}).players }));
    }
    for (const [name, choices] of Object.entries(options)) optionDefs[name] = choices;
    renderAll();
  } catch (_) { /* keep the built-in list */ }
}

// boot
applyI18n();
wireLangToggle();
try { $('nickname').value = localStorage.getItem('capicua.nickname') || ''; } catch (_) { /* ignore */ }
const hero = $('hero-tiles');
for (const [a, b] of [[6, 6], [9, 3], [5, 5], [0, 4], [9, 9]]) hero.append(tileSvg(a, b));
renderAll();
$('preset').addEventListener('change', () => { dirty.clear(); renderOptions(); });
$('new-table').addEventListener('submit', submit);
onLangChange(renderAll);
loadPresets();
