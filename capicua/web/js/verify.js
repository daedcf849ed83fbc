// The verify page: /verify?table=ID&hand=N (or ?seed=…&preset=…&options=…&hand=N).
// Asks GET /api/verify and says in words what it found: the hash shown before
// the deal, the revealed seed, whether sha256(seed) is that hash, and the
// tiles of every hand and the sleeping ones. It recomputes nothing of the
// deal itself (the server's verify code does); it only hashes the seed again
// in the browser, so the ✔ does not rest on the server's word alone.

import { t, has, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { tileSvg } from './tiles.js';
import { browserSha256 } from './sha256.js';
import { $, h } from './dom.js';
import './invitations.js';

/** What the page was asked: a table's hand, or a bare seed. */
function readQuery(search) {
  const q = new URLSearchParams(search);
  return {
    table: q.get('table') || '',
    hand: q.get('hand') || '',
    seed: q.get('seed') || '',
    preset: q.get('preset') || '',
    options: q.get('options') || '',
  };
}

/** The /api/verify address for the query, or null when the query names neither a table nor a seed. */
function apiUrl(query) {
  const q = new URLSearchParams();
  if (query.table) q.set('table', query.table);
  else if (query.seed) {
    q.set('seed', query.seed);
    if (query.preset) q.set('preset', query.preset);
    if (query.options) q.set('options', query.options);
  } else return null;
  if (query.hand) q.set('hand', query.hand);
  return `/api/verify?${q.toString()}`;
}

const tileKeyText = (tl) => `${tl[0]}-${tl[1]}`;

async function getJson(url) {
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { ok: r.ok, status: r.status, data };
}

/** Every answer the page may show: filled by load(), re-rendered on a language change. */
const state = { query: null, result: null, error: null, seats: null, localHash: undefined };

function errorText(code) {
  return has(`verify.err.${code}`) ? t(`verify.err.${code}`) : t('verify.err.other');
}

function seatLabel(seat) {
  const info = Array.isArray(state.seats) ? state.seats.find((s) => s && s.seat === seat) : null;
  return info && info.name ? info.name : t('seat.name', { n: seat + 1 });
}

function presetLabel(preset) {
  return has(`preset.${preset}`) ? t(`preset.${preset}`) : preset;
}

function tileRow(tiles, attrs) {
  return h('span', { class: 'vf-tiles', 'data-tiles': tiles.map(tileKeyText).join(' '), ...attrs },
    ...tiles.map((tl) => tileSvg(tl[0], tl[1], { horizontal: true, title: tileKeyText(tl) })));
}

function hashVerdict(r) {
  // The table form compares with the hash published before the deal; the seed form has none.
  if (r.published_hash === null || r.published_hash === undefined) {
    return h('p', { class: 'vf-verdict vf-verdict--none', 'data-testid': 'verify-hash', 'data-ok': 'none', text: t('verify.hash.none') });
  }
  const local = state.localHash;
  const serverOk = r.hash_ok === true && r.seed_hash === r.published_hash;
  const localOk = typeof local === 'string' ? local === r.published_hash : null;
  const ok = serverOk && localOk !== false;
  const how = localOk === true ? t('verify.hash.browser') : t('verify.hash.server');
  return h('div', { class: `vf-verdict vf-verdict--${ok ? 'ok' : 'bad'}`, 'data-testid': 'verify-hash', 'data-ok': String(ok) },
    h('p', { class: 'vf-verdict-line', text: ok ? t('verify.hash.ok') : t('verify.hash.bad') }),
    ok ? h('p', { class: 'vf-how', text: how }) : null);
}

function dealVerdict(r) {
  if (r.deal_matches === null || r.deal_matches === undefined) return null;
  const ok = r.deal_matches === true;
  return h('p', { class: `vf-verdict vf-verdict--${ok ? 'ok' : 'bad'}`, 'data-testid': 'verify-deal', 'data-ok': String(ok),
    text: ok ? t('verify.deal.ok') : t('verify.deal.bad') });
}

function voidedList(r) {
  const voided = Array.isArray(r.voided) ? r.voided : [];
  if (!voided.length) return null;
  return h('div', { class: 'vf-voided', 'data-testid': 'verify-voided' },
    h('h3', { text: t('verify.voided.title', { n: voided.length }) }),
    h('ul', {}, ...voided.map((v) => h('li', {
      text: has(`verify.voided.${v.reason}`)
        ? t(`verify.voided.${v.reason}`, { name: typeof v.seat === 'number' ? seatLabel(v.seat) : '?' })
        : t('verify.voided.other'),
    }))));
}

function handsList(r) {
  const hands = Array.isArray(r.hands) ? r.hands : [];
  return h('ul', { class: 'vf-hands' }, ...hands.map((tiles, seat) => h('li', { class: 'vf-hand', 'data-testid': 'verify-hand', 'data-seat': seat },
    h('span', { class: 'vf-name', text: seatLabel(seat) }),
    tileRow(tiles, {}))));
}

function sleepingBlock(r) {
  const sleeping = Array.isArray(r.sleeping) ? r.sleeping : [];
  return h('div', { class: 'vf-sleeping' },
    h('h3', { text: t('verify.sleeping', { n: sleeping.length }) }),
    sleeping.length ? tileRow(sleeping, { 'data-testid': 'verify-sleeping' })
      : h('p', { class: 'muted', 'data-testid': 'verify-sleeping', 'data-tiles': '', text: t('verify.sleeping.none') }));
}

function renderResult(r) {
  const box = $('verify');
  const back = state.query.table ? h('p', {}, h('a', { class: 'btn', href: `/t/${encodeURIComponent(state.query.table)}`, text: t('verify.back') })) : null;
  const parts = [
    h('h2', { text: t('verify.heading', { n: r.hand, game: presetLabel(r.preset) }) }),
    h('dl', { class: 'vf-facts' },
      h('dt', { text: t('verify.published') }),
      h('dd', {}, r.published_hash ? h('code', { class: 'hash-code', 'data-testid': 'verify-published', text: r.published_hash }) : h('span', { class: 'muted', text: '—' })),
      h('dt', { text: t('verify.seed') }),
      h('dd', {}, h('code', { class: 'hash-code', 'data-testid': 'verify-seed', text: r.seed })),
      h('dt', { text: t('verify.seed_hash') }),
      h('dd', {}, h('code', { class: 'hash-code', 'data-testid': 'verify-seed-hash', text: r.seed_hash }))),
    hashVerdict(r),
    dealVerdict(r),
    voidedList(r),
    h('h3', { text: t('verify.hands', { n: Array.isArray(r.hands) ? r.hands.length : 0 }) }),
    handsList(r),
    sleepingBlock(r),
    h('p', { class: 'vf-yourself muted small' }, h('span', { text: `${t('verify.yourself')} ` }),
      h('code', { class: 'hash-code', text: `capicua verify --preset ${r.preset} --seed ${r.seed}` })),
    back,
  ];
  box.replaceChildren(...parts.filter(Boolean));
}

function renderError(code) {
  const box = $('verify');
  const back = state.query && state.query.table ? h('p', {}, h('a', { class: 'btn', href: `/t/${encodeURIComponent(state.query.table)}`, text: t('verify.back') })) : null;
  box.replaceChildren(...[h('p', { class: 'vf-error', role: 'alert', 'data-testid': 'verify-error', 'data-code': code, text: errorText(code) }), back].filter(Boolean));
}

function render() {
  const box = $('verify');
  box.setAttribute('aria-busy', String(!state.result && !state.error));
  if (state.error) renderError(state.error);
  else if (state.result) renderResult(state.result);
}

async function loadSeats(table) {
  try {
    const { ok, data } = await getJson(`/api/tables/${encodeURIComponent(table)}`);
    if (ok && data && Array.isArray(data.seats)) state.seats = data.seats;
  } catch (_) { /* the seats are then named by number */ }
}

async function load() {
  state.query = readQuery(location.search);
  const url = apiUrl(state.query);
  if (!url) { state.error = 'malformed'; render(); return; }
  const seats = state.query.table ? loadSeats(state.query.table) : Promise.resolve();
  try {
    const { ok, data } = await getJson(url);
    if (!ok || !data || data.error) {
      state.error = (data && data.error && data.error.code) || 'other';
    } else {
      state.result = data;
      state.localHash = typeof data.seed === 'string' ? await browserSha256(data.seed) : null;
    }
  } catch (_) {
    state.error = 'network';
  }
  await seats;
  render();
}

applyI18n();
wireLangToggle();
onLangChange(render);
load();
