// A player's profile (/player/{id}): GET /api/players/{id} drawn as it comes —
// the level and the way to the next, each board's rating with a small chart of
// its history (inline SVG), the sums, the achievements with their dates and the
// recent matches with a link to each one's replay. Nothing is computed here but
// the drawing: the server decides every number. This browser's own profile (its
// player id as kept in localStorage: guest.js, no request) speaks to the reader:
// "Tu juego", "Ganaste". There, three cards more: "Llévate tu jugador" (a one-time
// key as a link and a QR code drawn here, qr.js), the player's devices (each can be
// signed out) and the settings they carry to every device (settings.js).

import { t, has, lang, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { readPlayerId, forgetToken } from './guest.js';
import { tokenHeaders } from './me.js';
import { $, h, s } from './dom.js';
import { qrMatrix, qrPath } from './qr.js';
import { ANIMATIONS, settings, saveSettings, onSettings } from './settings.js';
import { nameLink } from './namelink.js';
import './invitations.js';

const [, rawId = ''] = location.pathname.match(/^\/player\/([^/?#]+)/) || [];
const playerId = decodeURIComponent(rawId);
const P = { data: null, error: null, mine: readPlayerId() === playerId, key: null, keyError: null, copied: false,
  devices: null, devError: null, saved: null };
// The chart's room: the scores' axis on the left, the matches' along the foot.
const CHART = { w: 320, h: 130, left: 34, right: 10, top: 10, bottom: 24 };

/** The string of `key` in the second person on this browser's own profile (its `.mine` twin), else as it is. */
const tm = (key, vars) => t(P.mine && has(`${key}.mine`) ? `${key}.mine` : key, vars);

const num = (n, digits = 0) => new Intl.NumberFormat(lang(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
const day = (iso) => {
  const at = Date.parse(iso || '');
  return Number.isFinite(at) ? new Intl.DateTimeFormat(lang(), { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(at)) : '';
};
const named = (o) => (lang() === 'en' && o.name_en ? o.name_en : o.name);
const presetLabel = (name) => (name && has(`preset.${name}`) ? t(`preset.${name}`) : (name || '—'));

// ---------------------------------------------------------------- level

function levelCard(level) {
  const top = level.next_xp === null || level.next_xp === undefined;
  const span = top ? 1 : Math.max(1, level.next_xp - level.level_xp);
  const done = top ? span : Math.min(span, Math.max(0, level.xp - level.level_xp));
  const pct = Math.round((100 * done) / span);
  return h('section', { class: 'card pf-level', 'data-testid': 'pf-level', 'data-number': level.number },
    h('p', { class: 'pf-level-name' },
      h('span', { class: 'pf-level-badge', text: String(level.number) }),
      h('strong', { 'data-testid': 'pf-level-name', text: named(level) })),
    h('div', { class: 'pf-bar', role: 'progressbar', 'data-testid': 'pf-progress', 'aria-valuemin': 0, 'aria-valuemax': span,
      'aria-valuenow': done, 'aria-label': t('pf.progress.label'), 'data-xp': level.xp, 'data-next': top ? '' : level.next_xp },
    h('span', { class: 'pf-bar-fill', style: `width: ${pct}%` })),
    h('p', { class: 'pf-bar-text small', text: top ? t('pf.level.top', { xp: num(level.xp) })
      : tm('pf.level.next', { xp: num(level.xp), next: num(level.next_xp), left: num(level.next_xp - level.xp) }) }));
}

// ---------------------------------------------------------------- ratings

/** The values of the scores' axis: the range's ends (whole numbers around the points) and its middle. */
function scoreTicks(scores) {
  let lo = Math.floor(Math.min(...scores));
  let hi = Math.ceil(Math.max(...scores));
  if (hi - lo < 1) hi = lo + 1;
  return hi - lo >= 2 ? [lo, (lo + hi) / 2, hi] : [lo, hi];
}

/**
 * The score after each rated match, with its axes: score values on the left, the
 * match numbers (of all the player's rated matches on this board) along the foot.
 */
function chart(history, matches) {
  const { w, h: height, left, right, top, bottom } = CHART;
  if (!history.length) return h('p', { class: 'muted small', 'data-testid': 'pf-chart-empty', text: t('pf.chart.empty') });
  const scores = history.map((p) => p.score);
  const ticks = scoreTicks(scores);
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const x0 = left; const x1 = w - right; const y0 = height - bottom; const y1 = top;
  const x = (i) => (history.length === 1 ? (x0 + x1) / 2 : x0 + (i * (x1 - x0)) / (history.length - 1));
  const y = (v) => y0 - ((v - lo) * (y0 - y1)) / (hi - lo);
  const first = Math.max(1, matches - history.length + 1); // the number of the first match shown (the last 100 are)
  const marks = history.length === 1 ? [0] : history.length === 2 ? [0, 1] : [0, Math.floor((history.length - 1) / 2), history.length - 1];
  const pts = history.map((p, i) => `${x(i).toFixed(1)},${y(p.score).toFixed(1)}`).join(' ');
  return s('svg', { class: 'pf-chart', viewBox: `0 0 ${w} ${height}`, role: 'img', 'data-testid': 'pf-chart',
    'aria-label': t('pf.chart.label', { n: history.length, first: num(scores[0], 1), last: num(scores[scores.length - 1], 1) }) },
  ticks.map((v) => s('g', { class: 'pf-chart-ytick' },
    s('line', { class: 'pf-chart-grid', x1: x0, x2: x1, y1: y(v).toFixed(1), y2: y(v).toFixed(1) }),
    s('text', { class: 'pf-chart-label', 'data-testid': 'pf-chart-ytick', 'data-value': v, x: x0 - 5, y: (y(v) + 3.5).toFixed(1), 'text-anchor': 'end',
      text: new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 }).format(v) }))),
  s('line', { class: 'pf-chart-axis', x1: x0, x2: x1, y1: y0, y2: y0 }),
  marks.map((i) => s('text', { class: 'pf-chart-label', 'data-testid': 'pf-chart-xtick', 'data-match': first + i, x: x(i).toFixed(1), y: height - 8,
    'text-anchor': history.length === 1 ? 'middle' : i === 0 ? 'start' : i === history.length - 1 ? 'end' : 'middle',
    text: t('pf.chart.match', { n: num(first + i) }) })),
  history.length > 1 ? s('polyline', { class: 'pf-chart-line', points: pts }) : null,
  history.map((p, i) => s('circle', { class: 'pf-chart-point', 'data-testid': 'pf-chart-point', cx: x(i).toFixed(1), cy: y(p.score).toFixed(1), r: 3 },
    s('title', { text: `${t('pf.chart.match', { n: num(first + i) })} · ${day(p.at)}: ${num(p.score, 1)}` }))));
}

function ratingCard(board, r) {
  return h('section', { class: 'card pf-rating', 'data-testid': `pf-rating-${board}` },
    h('h2', { text: t(`lb.board.${board}`) }),
    h('p', { class: 'muted small pf-board-what', text: t(`pf.board.${board}.what`) }),
    h('p', { class: 'pf-score' },
      h('strong', { 'data-testid': 'pf-score', text: num(r.score, 1) }),
      r.provisional ? h('span', { class: 'pf-provisional', 'data-testid': 'pf-provisional', title: t('pf.provisional.title'), text: t('pf.provisional') }) : null,
      h('span', { class: 'muted small', text: t(r.matches === 1 ? 'pf.rated1' : 'pf.rated', { n: r.matches }) })),
    // The score in words: it starts at 0, never shows below it, and is provisional while the matches are few.
    h('p', { class: 'small pf-score-explain', 'data-testid': 'pf-score-explain', text: tm(r.provisional ? 'pf.score.provisional' : 'pf.score.what') }),
    chart(Array.isArray(r.history) ? r.history : [], r.matches));
}

// ---------------------------------------------------------------- sums, achievements, matches

function statsCard(st, standIns, name) {
  const item = (key, value) => h('div', { class: `pf-stat pf-stat-${key}`, 'data-testid': `pf-stat-${key}` },
    h('dt', { text: tm(`pf.stat.${key}`) }), h('dd', { text: value }));
  return h('section', { class: 'card pf-stats' },
    h('h2', { text: t('pf.stats') }),
    h('dl', { class: 'pf-stat-grid' },
      item('matches', num(st.matches)), item('won', num(st.won)), item('hands', num(st.hands)),
      item('hands_won', num(st.hands_won)), item('capicuas', num(st.capicuas)), item('pollonas', num(st.pollonas)),
      item('viajeras', num(st.viajeras)), item('favourite', presetLabel(st.favourite_preset))),
    standInNote(standIns, name));
}

/** The matches a neighbour played for the player from their first move: said, never counted. */
function standInNote(n, name) {
  if (!(n > 0)) return null;
  return h('p', { class: 'muted small pf-stand-ins', 'data-testid': 'pf-stand-ins', 'data-n': n,
    text: tm(n === 1 ? 'pf.stand_ins1' : 'pf.stand_ins', { n: num(n), name }) });
}

/** The achievements not earned yet, with how to earn each (the catalogue's order, from the server). */
function toEarnList(list) {
  if (!list.length) return null;
  return [h('h3', { class: 'pf-to-earn-h', text: tm('pf.to_earn') }),
    h('ul', { class: 'pf-ach-list pf-to-earn' }, ...list.map((a) => h('li', { class: 'pf-ach pf-ach--todo', 'data-testid': 'pf-to-earn', 'data-id': a.id },
      h('span', { class: 'pf-ach-medal', 'aria-hidden': 'true', text: '☆' }),
      h('span', { class: 'pf-ach-text' },
        h('strong', { text: named(a) }),
        h('span', { class: 'small', text: lang() === 'en' ? a.goal_en : a.goal })))))];
}

function achievementsCard(list, toEarn) {
  return h('section', { class: 'card pf-achievements' },
    h('h2', { text: t('pf.achievements') }),
    list.length
      ? h('ul', { class: 'pf-ach-list' }, ...list.map((a) => h('li', { class: 'pf-ach', 'data-testid': 'pf-achievement', 'data-id': a.id },
        h('span', { class: 'pf-ach-medal', 'aria-hidden': 'true', text: '★' }),
        h('span', { class: 'pf-ach-text' },
          h('strong', { text: named(a) }),
          h('span', { class: 'small', text: lang() === 'en' ? a.description_en : a.description }),
          h('span', { class: 'muted small', text: day(a.at) })))))
      : h('p', { class: 'muted', 'data-testid': 'pf-no-achievements', text: t('pf.achievements.none') }),
    toEarnList(Array.isArray(toEarn) ? toEarn : []));
}

function matchItem(m) {
  const mine = m.scores[m.team] ?? 0;
  const theirs = m.scores.filter((_, i) => i !== m.team);
  // The names as links to their players' profiles (a neighbour's as plain text), in the phrase's place of {names}.
  const names = (key, list, ids) => {
    const [before, after = ''] = t(key, { names: '\u0000' }).split('\u0000');
    const shown = list.map((name, i) => [name, Array.isArray(ids) ? ids[i] : null]).filter(([name]) => name);
    const links = shown.flatMap(([name, id], i) => [i ? ', ' : null, nameLink(name, id)]).filter(Boolean);
    return h('span', {}, before, ...(links.length ? links : ['—']), after);
  };
  return h('li', { class: `pf-match ${m.won ? 'pf-match--won' : 'pf-match--lost'}`, 'data-testid': 'pf-match', 'data-table': m.table, 'data-match': m.match },
    h('div', { class: 'pf-match-head' },
      h('span', { class: 'pf-match-result', text: tm(m.won ? 'pf.match.won' : 'pf.match.lost') }),
      h('strong', { class: 'pf-match-score', text: [mine, ...theirs].join('–') }),
      h('span', { class: 'muted small', text: `${day(m.finished_at)} · ${presetLabel(m.preset)}` })),
    // A private table's match read by someone who did not play it: no table, names nor replay.
    m.replay ? h('p', { class: 'small pf-match-who' },
      m.partners.length ? names('pf.match.partners', m.partners, m.partner_players) : null,
      names('pf.match.rivals', m.rivals, m.rival_players))
      : h('p', { class: 'small muted pf-match-private', 'data-testid': 'pf-match-private', text: t('pf.match.private') }),
    m.replay ? h('a', { class: 'btn pf-replay', href: m.replay, 'data-testid': 'pf-replay', text: t('replay.link') }) : null);
}

function recentCard(list) {
  return h('section', { class: 'card pf-recent' },
    h('h2', { text: t('pf.recent') }),
    list.length ? h('ol', { class: 'pf-match-list' }, ...list.map(matchItem))
      : h('p', { class: 'muted', 'data-testid': 'pf-no-matches', text: tm('pf.recent.none') }));
}

// ---------------------------------------------------------------- page

function render() {
  const box = $('profile');
  box.setAttribute('aria-busy', P.data || P.error ? 'false' : 'true');
  if (P.error) {
    document.title = t('pf.title');
    box.replaceChildren(h('section', { class: 'card pf-missing', 'data-testid': 'pf-error', 'data-code': P.error },
      h('h1', { text: t(P.error === 'unknown_player' || P.error === 'malformed' ? 'pf.err.unknown' : P.error === 'network' ? 'pf.err.network' : 'pf.err.other') }),
      h('p', {}, h('a', { href: '/leaderboard', text: t('nav.leaderboard') }))));
    return;
  }
  if (!P.data) return;
  const d = P.data;
  document.title = t('pf.title.of', { name: d.nickname });
  box.replaceChildren(
    h('header', { class: 'hero standings-hero' },
      P.mine ? h('p', { class: 'pf-yours', 'data-testid': 'pf-yours', text: t('pf.yours') }) : null,
      h('h1', { 'data-testid': 'pf-name', text: d.nickname })),
    h('div', { class: 'pf-grid' },
      levelCard(d.level),
      statsCard(d.stats, d.stand_in_matches, d.nickname),
      ratingCard('neighbours', d.ratings.neighbours),
      ratingCard('friends', d.ratings.friends)),
    achievementsCard(d.achievements, d.to_earn),
    recentCard(d.recent),
    P.mine ? h('div', { class: 'pf-grid pf-mine' }, keyCard(), devicesCard(), settingsCard()) : null);
}

// ---------------------------------------------------------------- yours: the key, the devices, the settings

const hour = (iso) => new Intl.DateTimeFormat(lang(), { hour: 'numeric', minute: '2-digit' }).format(new Date(Date.parse(iso)));

async function api(method, path) {
  try {
    const r = await fetch(path, { method, headers: tokenHeaders() });
    let data = null;
    try { data = await r.json(); } catch (_) { data = null; }
    return r.ok ? { data } : { error: (data && data.error && data.error.code) || 'server' };
  } catch (_) {
    return { error: 'network' };
  }
}

async function makeKey() {
  const got = await api('POST', '/api/keys');
  P.key = got.data || null;
  P.keyError = got.error || null;
  P.copied = false;
  render();
}

function keyQr(link) {
  const q = qrMatrix(link);
  const side = q.size + 8; // four modules of quiet zone around it
  return s('svg', { class: 'key-qr', viewBox: `0 0 ${side} ${side}`, role: 'img', 'aria-label': t('key.qr.label'),
    'data-testid': 'key-qr', 'data-version': q.version, 'data-mask': q.mask, 'shape-rendering': 'crispEdges' },
  s('rect', { width: side, height: side, fill: '#fff' }),
  s('path', { d: qrPath(q.modules), fill: '#000' }));
}

function keyCard() {
  const link = P.key ? `${location.origin}${P.key.url}` : null;
  return h('section', { class: 'card pf-key', 'data-testid': 'pf-key' },
    h('h2', { text: t('key.title') }),
    h('p', { class: 'small', text: t('key.what') }),
    link ? [
      keyQr(link),
      h('label', { class: 'small key-link-label', for: 'key-link', text: t('key.link') }),
      h('div', { class: 'key-link-row' },
        h('input', { id: 'key-link', class: 'key-link', 'data-testid': 'key-link', readonly: true, value: link }),
        h('button', { type: 'button', class: 'btn', 'data-testid': 'key-copy', text: t(P.copied ? 'key.copied' : 'key.copy'),
          onclick: () => { navigator.clipboard.writeText(link).then(() => { P.copied = true; render(); }, () => {}); } })),
      h('p', { class: 'muted small', 'data-testid': 'key-expires', text: t('key.expires', { time: hour(P.key.expires_at) }) }),
    ] : null,
    P.keyError ? h('p', { class: 'small pf-error', 'data-testid': 'key-error', 'data-code': P.keyError,
      text: t(P.keyError === 'too_fast' ? 'key.err.too_fast' : 'key.err.other') }) : null,
    h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'key-make', text: t(P.key ? 'key.again' : 'key.make'), onclick: makeKey }));
}

async function loadDevices() {
  const got = await api('GET', '/api/devices');
  P.devices = got.data ? got.data.devices : null;
  P.devError = got.error || null;
  render();
}

async function signOut(device) {
  const got = await api('DELETE', `/api/devices/${encodeURIComponent(device.id)}`);
  if (got.error) { P.devError = got.error; render(); return; }
  if (device.this) { forgetToken(); location.reload(); return; } // this browser is nobody now
  loadDevices();
}

function devicesCard() {
  const list = P.devices || [];
  return h('section', { class: 'card pf-devices', 'data-testid': 'pf-devices' },
    h('h2', { text: t('dev.title') }),
    h('ul', { class: 'pf-device-list' }, ...list.map((d) => h('li', { class: 'pf-device', 'data-testid': 'pf-device', 'data-id': d.id, 'data-this': String(d.this) },
      h('span', { class: 'pf-device-name' },
        h('strong', { text: d.label || t('dev.unknown') }),
        d.this ? h('span', { class: 'pf-provisional', 'data-testid': 'pf-device-this', text: t('dev.this') }) : null),
      h('span', { class: 'muted small', text: t('dev.seen', { when: `${day(d.last_seen_at)} ${hour(d.last_seen_at)}` }) }),
      h('button', { type: 'button', class: 'btn', 'data-testid': 'pf-device-sign-out', text: t('dev.sign_out'), onclick: () => signOut(d) })))),
    P.devError ? h('p', { class: 'small pf-error', 'data-testid': 'dev-error', text: t('dev.err') }) : null);
}

async function change(name, value) {
  const got = await saveSettings({ [name]: value });
  P.saved = got.error ? 'err' : 'ok';
  render();
}

function settingsCard() {
  const now = settings();
  const range = (name) => h('label', { class: 'pf-setting' }, h('span', { text: t(`set.${name}`) }),
    h('input', { type: 'range', min: 0, max: 100, step: 5, value: now[name], 'data-testid': `set-${name}`,
      onchange: (e) => change(name, Number(e.target.value)) }));
  const select = (name, options, value, read) => h('label', { class: 'pf-setting' }, h('span', { text: t(`set.${name}`) }),
    h('select', { 'data-testid': `set-${name}`, onchange: (e) => change(name, read(e.target.value)) },
      ...options.map((o) => h('option', { value: o, selected: o === value, text: t(`set.${name}.${o}`) }))));
  return h('section', { class: 'card pf-settings', 'data-testid': 'pf-settings' },
    h('h2', { text: t('set.title') }),
    h('p', { class: 'muted small', text: t('set.what') }),
    range('volume'),
    range('slam'),
    select('animation', ANIMATIONS, now.animation, (v) => v),
    h('label', { class: 'pf-setting pf-setting--check' },
      h('input', { type: 'checkbox', checked: now.subtitles, 'data-testid': 'set-subtitles', onchange: (e) => change('subtitles', e.target.checked) }),
      h('span', { text: t('set.subtitles') })),
    select('lang', ['auto', 'es', 'en'], now.lang || 'auto', (v) => (v === 'auto' ? null : v)),
    P.saved ? h('p', { class: 'small', 'data-testid': 'set-saved', 'data-state': P.saved, text: t(P.saved === 'ok' ? 'set.saved' : 'set.err') }) : null);
}

async function load() {
  try {
    // With this browser's token (a header, never in the URL): a private table's matches show their table to its players only.
    const r = await fetch(`/api/players/${encodeURIComponent(playerId)}`, { headers: tokenHeaders() });
    let data = null;
    try { data = await r.json(); } catch (_) { data = null; }
    if (r.ok && data && data.level && data.ratings && data.stats) P.data = data;
    else P.error = (data && data.error && data.error.code) || 'server';
  } catch (_) {
    P.error = 'network';
  }
  render();
}

applyI18n();
wireLangToggle();
onLangChange(render);
onSettings(render);
load();
if (P.mine) loadDevices();
