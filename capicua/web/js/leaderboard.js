// The leaderboard (/leaderboard?board=neighbours|friends&period=week|month|all):
// GET /api/leaderboard draws the rows in the server's order (it ranks: nothing is
// sorted or scored here), with this browser's token for "my place". The filters
// reload from the API and are kept in the address, so a board can be shared.

import { t, lang, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { readToken, rememberPlayer } from './guest.js';
import { leaderboardFor, wireProfileLink } from './me.js';
import { $, h } from './dom.js';
import './invitations.js';

const BOARDS = ['neighbours', 'friends'];
const PERIODS = ['week', 'month', 'all'];
const L = { board: 'neighbours', period: 'all', data: null, error: null, asked: 0 };

function readAddress() {
  const q = new URLSearchParams(location.search);
  if (BOARDS.includes(q.get('board'))) L.board = q.get('board');
  if (PERIODS.includes(q.get('period'))) L.period = q.get('period');
}

function writeAddress() {
  const q = new URLSearchParams({ board: L.board, period: L.period });
  history.replaceState(null, '', `${location.pathname}?${q}`);
}

function syncFilters() {
  for (const input of document.querySelectorAll('input[name="board"]')) input.checked = input.value === L.board;
  for (const input of document.querySelectorAll('input[name="period"]')) input.checked = input.value === L.period;
}

const score = (n) => new Intl.NumberFormat(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(n);
const levelName = (level) => (level && typeof level.name === 'string' ? level.name : '');

function playerLink(row) {
  return h('a', { href: `/player/${encodeURIComponent(row.player)}`, text: row.nickname });
}

function rowOf(row, mine) {
  return h('tr', { class: mine ? 'lb-row lb-row--me' : 'lb-row', 'data-testid': 'lb-row', 'data-player': row.player,
    'aria-current': mine ? 'true' : null },
  h('td', { class: 'lb-rank', text: row.rank === null ? '—' : String(row.rank) }),
  h('td', { class: 'lb-player' }, playerLink(row), h('span', { class: 'lb-level', text: levelName(row.level) })),
  h('td', { class: 'lb-num lb-score', 'data-testid': 'lb-score', text: score(row.score) }),
  h('td', { class: 'lb-num', text: String(row.matches) }),
  h('td', { class: 'lb-num', text: String(row.won) }));
}

function renderTable(d) {
  const me = d.me && typeof d.me.player === 'string' ? d.me.player : null;
  if (!d.rows.length) {
    return h('p', { class: 'lb-empty', 'data-testid': 'lb-empty', text: t(`lb.empty.${L.board}`, { n: d.min_matches }) });
  }
  // Phones show the short headings (CSS), with the long one as the title.
  const head = h('tr', {}, ...['rank', 'player', 'score', 'matches', 'won'].map((k) => h('th', {
    scope: 'col', class: k === 'rank' || k === 'player' ? '' : 'lb-num', title: t(`lb.col.${k}`) },
  h('span', { class: 'lb-long', text: t(`lb.col.${k}`) }),
  h('span', { class: 'lb-short', 'aria-hidden': 'true', text: t(`lb.col.${k}.short`) }))));
  return h('table', { class: 'lb-table', 'data-testid': 'lb-table' },
    h('caption', { class: 'sr-only', text: t('lb.caption', { board: t(`lb.board.${L.board}`), period: t(`lb.period.${L.period}`) }) }),
    h('thead', {}, head),
    h('tbody', {}, ...d.rows.map((row) => rowOf(row, row.player === me)),
      // My row below the top when I am not among them (unranked, or further down).
      me && !d.rows.some((row) => row.player === me) ? [h('tr', { class: 'lb-gap', 'aria-hidden': 'true' }, h('td', { colspan: 5, text: '⋯' })), rowOf(d.me, true)] : null));
}

function renderMe(d) {
  const box = $('lb-me');
  const me = d && d.me;
  if (!me) { box.hidden = true; box.textContent = ''; return; }
  box.hidden = false;
  box.dataset.rank = me.rank === null ? '' : String(me.rank);
  if (me.rank !== null) box.textContent = t('lb.me.rank', { rank: me.rank, score: score(me.score) });
  else if (me.matches_needed > 0) box.textContent = t(me.matches_needed === 1 ? 'lb.me.need1' : 'lb.me.need', { n: me.matches_needed });
  else box.textContent = t(`lb.me.idle.${L.period}`);
}

function render() {
  const body = $('lb-body');
  body.setAttribute('aria-busy', L.data || L.error ? 'false' : 'true');
  if (L.error) {
    body.replaceChildren(h('p', { class: 'form-error', 'data-testid': 'lb-error', 'data-code': L.error, text: t(L.error === 'network' ? 'lb.err.network' : 'lb.err.other') }));
    renderMe(null);
    return;
  }
  if (!L.data) { body.replaceChildren(h('p', { class: 'muted', text: t('lb.loading') })); return; }
  body.replaceChildren(renderTable(L.data));
  body.dataset.board = L.data.board;
  body.dataset.period = L.data.period;
  renderMe(L.data);
}

/** Ask for the chosen board; an answer to an older question is dropped. */
async function load() {
  const asked = ++L.asked;
  L.data = null; L.error = null;
  render();
  let got;
  try { got = await leaderboardFor(L.board, L.period); } catch (_) { got = { ok: false, status: 0, data: null }; }
  if (asked !== L.asked) return;
  if (got.ok && got.data && Array.isArray(got.data.rows)) {
    L.data = got.data;
    if (got.data.me && readToken()) rememberPlayer(readToken(), got.data.me.player);
  } else {
    L.error = got.status === 0 ? 'network' : ((got.data && got.data.error && got.data.error.code) || 'server');
  }
  render();
}

function choose(ev) {
  const input = ev.target;
  if (!(input instanceof HTMLInputElement) || !input.checked) return;
  if (input.name === 'board') L.board = input.value;
  if (input.name === 'period') L.period = input.value;
  writeAddress();
  load();
}

applyI18n();
wireLangToggle();
readAddress();
syncFilters();
for (const input of document.querySelectorAll('.lb-filters input')) input.addEventListener('change', choose);
onLangChange(render);
load();
wireProfileLink($('lb-profile'));
