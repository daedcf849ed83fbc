// The home page: nickname, game, players, bot levels, table options, "¡Jugar!"
// (a table against the neighbours) and "Jugar con amigos" (a private table: its
// lobby and a link to share). Everything a game allows comes from GET /api/presets
// (the engine's answer): the games, their defaults and their seat choices; the
// page states no rule. POST /api/tables with this browser's one token (guest.js),
// keep the token it answers, remember the table, go to /t/<id>.
// "Tus mesas abiertas" asks GET /api/tables/<id> for each remembered table;
// "Tabla de posiciones" and, for a browser with a token, "Mi perfil" (me.js).
// The parque's panel: GET /api/parque every 15 s while visible (parquelist.js).

import { t, has, lang, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { tileSvg } from './tiles.js';
import { TABLE_KEY, readToken, saveToken, readNickname, saveNickname, rememberTable } from './guest.js';
import { wireProfileLink } from './me.js';
import './invitations.js';
import { keepFresh, waitingRow, playingRow } from './parquelist.js';
import { fill } from './dom.js';

const $ = (id) => document.getElementById(id);

/** Table options the page offers under "Opciones de la mesa": name -> choices. */
const OPTION_DEFS = {
  target: [50, 100, 121, 150, 200, 500],
  first_opener: ['random_seat', 'highest_double', 'team_draw', 'parity_guess', 'must_play_top_double', 'fid_rotation'],
  next_opener_after_win: ['winner', 'rotate'],
  next_opener_after_tranque: ['same_opener', 'blocker', 'other_team_on_tie'],
  domino_scoring: ['opponents', 'all_hands'],
  tranque_winner: ['lowest_player', 'lowest_team'],
  tranque_scoring: ['opponents', 'all_hands', 'difference'],
  capicua_bonus: [0, 25, 30],
  redeal_five_doubles: ['automatic', 'on_request', 'off'],
};
const RESUME_MAX = 5; // open tables listed
const REMEMBER_MAX = 20; // remembered tables kept in localStorage

/** What /api/presets said; null until it answered. */
let catalogue = null;
/** The last error shown: {code, field} (re-translated when the language changes). */
let shownError = null;
/** Remembered tables that are still being played: [{entry, summary}]. */
let openTables = [];
const dirty = new Set();

/**
 * The catalogue of /api/presets: {presets: [{name, rules, seat_choices}], default, levels, default_level}.
 * Returns null when the answer does not have that shape.
 */
function readCatalogue(data) {
  if (!data || !Array.isArray(data.presets)) return null;
  const presets = data.presets
    .filter((p) => p && typeof p.name === 'string' && p.rules && typeof p.rules === 'object')
    .map((p) => ({ name: p.name, rules: p.rules, seatChoices: Array.isArray(p.seat_choices) ? p.seat_choices : [] }));
  if (!presets.length) return null;
  const levels = Array.isArray(data.levels) && data.levels.length ? data.levels : null;
  if (!levels) return null;
  const dflt = presets.some((p) => p.name === data.default) ? data.default : presets[0].name;
  const level = levels.includes(data.default_level) ? data.default_level : levels[0];
  return { presets, defaultPreset: dflt, levels, defaultLevel: level };
}

const seatsValue = (c) => `${c.players}:${c.partnership ? 'pairs' : 'solo'}`;
function seatsLabel(c) {
  if (c.partnership) return t('home.seats.pairs');
  return c.players === 2 ? t('home.seats.duel') : t('home.seats.solo', { n: c.players });
}

function presetLabel(name) {
  return has(`preset.${name}`) ? t(`preset.${name}`) : name;
}

function valueLabel(name, v) {
  if (name === 'capicua_bonus') return Number(v) === 0 ? t('val.no_bonus') : `+${v}`;
  if (name === 'target') return String(v);
  return has(`val.${v}`) ? t(`val.${v}`) : String(v);
}

function currentPreset() {
  if (!catalogue) return null;
  return catalogue.presets.find((p) => p.name === $('preset').value) || catalogue.presets[0];
}

/** The chosen seat choice of the current game ({players, partnership}). */
function currentSeats() {
  const p = currentPreset();
  if (!p) return null;
  return p.seatChoices.find((c) => seatsValue(c) === $('seats').value) || defaultSeats(p);
}
function defaultSeats(p) {
  return { players: p.rules.players, partnership: p.rules.partnership };
}

function fillPresets() {
  const sel = $('preset');
  if (!catalogue) { sel.replaceChildren(); return; }
  const current = sel.value || readPref('preset') || catalogue.defaultPreset;
  sel.replaceChildren(...catalogue.presets.map((p) => new Option(presetLabel(p.name), p.name)));
  sel.value = catalogue.presets.some((p) => p.name === current) ? current : catalogue.defaultPreset;
}

/** The number of players and partnership choices of the chosen game, as the server lists them. */
function fillSeats(keepChoice) {
  const sel = $('seats');
  const p = currentPreset();
  if (!p) { sel.replaceChildren(); return; }
  const before = keepChoice ? sel.value : null;
  const choices = p.seatChoices.length ? p.seatChoices : [defaultSeats(p)];
  sel.replaceChildren(...choices.map((c) => {
    const isDefault = seatsValue(c) === seatsValue(defaultSeats(p));
    return new Option(`${seatsLabel(c)}${isDefault && choices.length > 1 ? ` ${t('home.default')}` : ''}`, seatsValue(c));
  }));
  sel.value = before && choices.some((c) => seatsValue(c) === before) ? before : seatsValue(defaultSeats(p));
  sel.disabled = choices.length < 2;
}

function fillLevels() {
  if (!catalogue) return;
  for (const id of ['partner-level', 'rival-level']) {
    const sel = $(id);
    const current = sel.value || readPref(id) || catalogue.defaultLevel;
    sel.replaceChildren(...catalogue.levels.map((lv) => new Option(has(`level.${lv}`) ? t(`level.${lv}`) : lv, lv)));
    sel.value = catalogue.levels.includes(current) ? current : catalogue.defaultLevel;
  }
}

/** A partner level only in partnership games; the rivals' label says "los vecinos" when all play alone. */
function renderLevelFields() {
  const seats = currentSeats();
  const pairs = !!(seats && seats.partnership);
  $('partner-level').closest('.field').hidden = !pairs;
  $('rival-level-label').textContent = pairs ? t('home.rivals') : t('home.rivals.solo');
}

function renderOptions() {
  const box = $('option-fields');
  const keep = {};
  for (const sel of box.querySelectorAll('select')) keep[sel.name] = sel.value;
  box.replaceChildren();
  const p = currentPreset();
  if (!p) return;
  for (const [name, offered] of Object.entries(OPTION_DEFS)) {
    const dflt = p.rules[name];
    const choices = offered.some((c) => String(c) === String(dflt)) ? [...offered] : [dflt, ...offered];
    const id = `opt-${name}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = has(`opt.${name}`) ? t(`opt.${name}`) : name;
    const sel = document.createElement('select');
    sel.id = id; sel.name = name; sel.dataset.option = name; sel.dataset.testid = `option-${name}`;
    for (const c of choices) {
      sel.append(new Option(valueLabel(name, c) + (String(c) === String(dflt) ? ` ${t('home.default')}` : ''), String(c)));
    }
    sel.value = dirty.has(name) && keep[name] !== undefined ? keep[name] : String(dflt);
    sel.addEventListener('change', () => {
      if (sel.value === String(dflt)) dirty.delete(name); else dirty.add(name);
    });
    const field = document.createElement('div');
    field.className = 'field';
    field.append(label, sel);
    box.append(field);
  }
}

/** The options the player changed, plus the seats when they are not the game's own. */
function collectOptions() {
  const p = currentPreset();
  const out = {};
  for (const name of dirty) {
    const sel = document.querySelector(`#option-fields select[name="${name}"]`);
    if (!sel) continue;
    out[name] = typeof OPTION_DEFS[name][0] === 'number' ? Number(sel.value) : sel.value;
  }
  const seats = currentSeats();
  if (p && seats && seatsValue(seats) !== seatsValue(defaultSeats(p))) {
    out.players = seats.players;
    out.partnership = seats.partnership;
  }
  return out;
}

function readPref(key) {
  try { return localStorage.getItem(`capicua.pref.${key}`); } catch (_) { return null; }
}
function writePref(key, v) {
  try { localStorage.setItem(`capicua.pref.${key}`, v); } catch (_) { /* ignore */ }
}

/**
 * The words for an error, in the page's language: a code of the server's
 * answer (with its `field`, and for too_fast the Retry-After seconds), 'network',
 * 'presets' or 'server'. Never the server's English message.
 */
function errorKey({ code, field, retryAfter = 0 }) {
  if (code === 'network') return 'home.error.network';
  if (code === 'presets') return 'home.err.presets';
  if (code === 'malformed') {
    if (field === 'nickname') return 'home.err.nickname';
    if (field === 'partner_level' || field === 'rival_level') return 'home.err.level';
    return 'home.err.malformed';
  }
  if (code === 'bad_rules') {
    if (field === 'players' || field === 'partnership') return 'home.err.bad_rules.seats';
    if (field === 'preset') return 'home.err.bad_rules.preset';
    return 'home.err.bad_rules';
  }
  if (code === 'too_fast' && retryAfter > 0) return 'home.err.too_fast.wait';
  if (code === 'too_fast' || code === 'too_large' || code === 'too_slow') return `home.err.${code}`;
  return 'home.err.server';
}

function showError(err) {
  shownError = err;
  const el = $('form-error');
  const minutes = err && err.retryAfter ? Math.max(1, Math.ceil(err.retryAfter / 60)) : 0;
  el.textContent = err ? t('home.error', { msg: t(errorKey(err), { min: minutes }) }) : '';
  el.dataset.code = err ? err.code : '';
  el.hidden = !err;
}

async function createTable(body) {
  let r;
  try {
    r = await fetch('/api/tables', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (_) {
    return { error: { code: 'network' } };
  }
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (r.ok && data && typeof data.table_id === 'string') return { table: data };
  const e = data && data.error && typeof data.error === 'object' ? data.error : {};
  const retryAfter = Number(r.headers.get('Retry-After')) || 0;
  return { error: { code: typeof e.code === 'string' ? e.code : 'server', field: typeof e.field === 'string' ? e.field : null, retryAfter } };
}

/** The two ways to open a table: against the neighbours, or private (the friends sit in its lobby). */
const PLAY_BUTTONS = { 'play-button': 'home.play', 'friends-button': 'home.friends' };

function setButtonsBusy(busy, pressed) {
  for (const [id, key] of Object.entries(PLAY_BUTTONS)) {
    $(id).disabled = busy;
    $(id).textContent = busy && id === pressed ? t('home.creating') : t(key);
  }
}

async function submit(ev) {
  ev.preventDefault();
  showError(null);
  const pressed = ev.submitter && ev.submitter.id === 'friends-button' ? 'friends-button' : 'play-button';
  const friends = pressed === 'friends-button';
  if (!catalogue && !(await loadPresets())) return;
  const nickname = $('nickname').value.trim().slice(0, 24) || (lang() === 'en' ? 'Guest' : 'Invitado');
  saveNickname($('nickname').value.trim());
  writePref('preset', $('preset').value);
  writePref('partner-level', $('partner-level').value);
  writePref('rival-level', $('rival-level').value);
  const body = { nickname, preset: $('preset').value, options: collectOptions() };
  // At a private table the other seats are the friends' (the host may seat neighbours in the lobby).
  if (friends) body.private = true;
  else Object.assign(body, { partner_level: $('partner-level').value, rival_level: $('rival-level').value });
  const token = readToken();
  if (token) body.token = token;
  setButtonsBusy(true, pressed);
  const { table, error } = await createTable(body);
  if (error) {
    showError(error);
    setButtonsBusy(false, pressed);
    return;
  }
  saveToken(table.token);
  rememberTable(table.table_id, body.preset);
  location.href = typeof table.url === 'string' && table.url.startsWith('/t/') ? table.url : `/t/${encodeURIComponent(table.table_id)}`;
}

// ---------------------------------------------------------------- your open tables

function rememberedTables() {
  const entries = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (!k || !k.startsWith(TABLE_KEY)) continue;
      try {
        const e = JSON.parse(localStorage.getItem(k));
        if (e && typeof e.table_id === 'string') entries.push(e);
      } catch (_) { /* skip */ }
    }
  } catch (_) { /* no storage */ }
  return entries.sort((a, b) => (b.created || 0) - (a.created || 0));
}

function forget(tableId) {
  try { localStorage.removeItem(`${TABLE_KEY}${tableId}`); } catch (_) { /* ignore */ }
}

/** null: the table is unknown (forget it); 'offline': could not ask; else the summary. */
async function tableSummary(tableId) {
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}`, { headers: { Accept: 'application/json' } });
    if (r.status === 404) return null;
    if (!r.ok) return 'offline';
    return await r.json();
  } catch (_) { return 'offline'; }
}

function isOpen(summary) {
  return !!summary && typeof summary === 'object' && summary.status !== 'finished' && summary.phase !== 'match_over';
}

async function loadOpenTables() {
  const entries = rememberedTables();
  for (const old of entries.slice(REMEMBER_MAX)) forget(old.table_id);
  const kept = entries.slice(0, REMEMBER_MAX);
  const summaries = await Promise.all(kept.map((e) => tableSummary(e.table_id)));
  openTables = [];
  kept.forEach((entry, i) => {
    const s = summaries[i];
    if (s === null) forget(entry.table_id);
    else if (s !== 'offline' && isOpen(s)) openTables.push({ entry, summary: s });
  });
  openTables.sort((a, b) => tableTime(b) - tableTime(a));
  renderResume();
}

function tableTime({ entry, summary }) {
  const at = Date.parse(summary.updated_at || summary.created_at || '');
  return Number.isFinite(at) ? at : (entry.created || 0);
}

function resumeText({ summary }) {
  const game = presetLabel(summary.preset || '');
  const scores = Array.isArray(summary.scores) ? summary.scores.join('–') : '';
  const hand = typeof summary.hand_number === 'number' && summary.hand_number > 0 ? t('home.resume.hand', { n: summary.hand_number }) : '';
  const at = Date.parse(summary.updated_at || summary.created_at || '');
  const date = Number.isFinite(at)
    ? new Intl.DateTimeFormat(lang(), { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(new Date(at))
    : '';
  return t('home.resume.item', { game, score: [scores, hand].filter(Boolean).join(', '), date }).replace(/( · )+$/, '');
}

function renderResume() {
  const shown = openTables.slice(0, RESUME_MAX);
  $('resume-list').replaceChildren(...shown.map((open) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/t/${encodeURIComponent(open.entry.table_id)}`;
    a.className = 'btn resume-link';
    a.dataset.testid = 'resume-table';
    a.dataset.table = open.entry.table_id;
    const text = resumeText(open);
    a.textContent = text;
    a.setAttribute('aria-label', t('home.resume.label', { what: text }));
    li.append(a);
    return li;
  }));
  $('resume').hidden = shown.length === 0;
}

// ---------------------------------------------------------------- boot

function renderForm() {
  fillPresets();
  fillSeats(true);
  fillLevels();
  renderLevelFields();
  renderOptions();
  for (const [id, key] of Object.entries(PLAY_BUTTONS)) $(id).textContent = t(key);
}

function renderAll() {
  renderForm();
  renderResume();
  renderParque();
  showError(shownError);
}

// ---------------------------------------------------------------- the parque's panel

const PANEL_TABLES = 3; // of each kind: the parque page lists the rest
let parque = null; // the last GET /api/parque

/** The parque in brief: how many tables wait and play and how many queue, and the first few tables. */
function renderParque() {
  if (!parque) { $('pq-panel-line').textContent = ''; return; }
  const queued = Object.values((parque.queue && parque.queue.counts) || {}).reduce((a, n) => a + n, 0);
  $('pq-panel-line').textContent = t('parque.panel.line', { waiting: parque.waiting.length, playing: parque.playing.length, queued });
  fill($('pq-panel-tables'), parque.waiting.slice(0, PANEL_TABLES).map(waitingRow),
    parque.playing.slice(0, PANEL_TABLES).map(playingRow));
}

/** Ask the server for its games; false (and a translated error) when it cannot be asked. */
async function loadPresets() {
  let got = null;
  try {
    const r = await fetch('/api/presets', { headers: { Accept: 'application/json' } });
    if (r.ok) got = readCatalogue(await r.json());
  } catch (_) { got = null; }
  if (!got) { showError({ code: 'presets' }); return false; }
  catalogue = got;
  if (shownError && shownError.code === 'presets') showError(null);
  renderForm();
  return true;
}

applyI18n();
wireLangToggle();
$('nickname').value = readNickname();
const hero = $('hero-tiles');
for (const [a, b] of [[6, 6], [9, 3], [5, 5], [0, 4], [9, 9]]) hero.append(tileSvg(a, b));
$('preset').addEventListener('change', () => { dirty.clear(); fillSeats(false); renderLevelFields(); renderOptions(); });
$('seats').addEventListener('change', renderLevelFields);
$('new-table').addEventListener('submit', submit);
onLangChange(renderAll);
loadPresets();
loadOpenTables();
wireProfileLink($('my-profile'));
keepFresh((got) => { if (got.ok) { parque = got.data; renderParque(); } });
