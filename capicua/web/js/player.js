// A player's profile (/player/{id}): GET /api/players/{id} drawn as it comes —
// the level and the way to the next, each board's rating with a small chart of
// its history (inline SVG), the sums, the achievements with their dates and the
// recent matches with a link to each one's replay. Nothing is computed here but
// the drawing: the server decides every number.

import { t, has, lang, applyI18n, wireLangToggle, onLangChange } from './i18n.js';
import { $, h, s } from './dom.js';

const [, rawId = ''] = location.pathname.match(/^\/player\/([^/?#]+)/) || [];
const playerId = decodeURIComponent(rawId);
const P = { data: null, error: null };
const CHART = { w: 320, h: 110, pad: 10 };

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
      : t('pf.level.next', { xp: num(level.xp), next: num(level.next_xp), left: num(level.next_xp - level.xp) }) }));
}

// ---------------------------------------------------------------- ratings

function chart(history) {
  const { w, h: height, pad } = CHART;
  if (!history.length) return h('p', { class: 'muted small', 'data-testid': 'pf-chart-empty', text: t('pf.chart.empty') });
  const scores = history.map((p) => p.score);
  let lo = Math.min(...scores);
  let hi = Math.max(...scores);
  if (hi - lo < 1) { lo -= 0.5; hi += 0.5; }
  const x = (i) => (history.length === 1 ? w / 2 : pad + (i * (w - 2 * pad)) / (history.length - 1));
  const y = (v) => height - pad - ((v - lo) * (height - 2 * pad)) / (hi - lo);
  const pts = history.map((p, i) => `${x(i).toFixed(1)},${y(p.score).toFixed(1)}`).join(' ');
  return s('svg', { class: 'pf-chart', viewBox: `0 0 ${w} ${height}`, role: 'img', 'data-testid': 'pf-chart',
    'aria-label': t('pf.chart.label', { n: history.length, first: num(scores[0], 1), last: num(scores[scores.length - 1], 1) }) },
  s('line', { class: 'pf-chart-axis', x1: pad, x2: w - pad, y1: height - pad, y2: height - pad }),
  history.length > 1 ? s('polyline', { class: 'pf-chart-line', points: pts }) : null,
  history.map((p, i) => s('circle', { class: 'pf-chart-point', 'data-testid': 'pf-chart-point', cx: x(i).toFixed(1), cy: y(p.score).toFixed(1), r: 3 },
    s('title', { text: `${day(p.at)}: ${num(p.score, 1)}` }))));
}

function ratingCard(board, r) {
  return h('section', { class: 'card pf-rating', 'data-testid': `pf-rating-${board}` },
    h('h2', { text: t(`lb.board.${board}`) }),
    h('p', { class: 'pf-score' },
      h('strong', { 'data-testid': 'pf-score', text: num(r.score, 1) }),
      r.provisional ? h('span', { class: 'pf-provisional', 'data-testid': 'pf-provisional', title: t('pf.provisional.title'), text: t('pf.provisional') }) : null,
      h('span', { class: 'muted small', text: t(r.matches === 1 ? 'pf.rated1' : 'pf.rated', { n: r.matches }) })),
    chart(Array.isArray(r.history) ? r.history : []));
}

// ---------------------------------------------------------------- sums, achievements, matches

function statsCard(st) {
  const item = (key, value) => h('div', { class: `pf-stat pf-stat-${key}`, 'data-testid': `pf-stat-${key}` },
    h('dt', { text: t(`pf.stat.${key}`) }), h('dd', { text: value }));
  return h('section', { class: 'card pf-stats' },
    h('h2', { text: t('pf.stats') }),
    h('dl', { class: 'pf-stat-grid' },
      item('matches', num(st.matches)), item('won', num(st.won)), item('hands', num(st.hands)),
      item('hands_won', num(st.hands_won)), item('capicuas', num(st.capicuas)), item('pollonas', num(st.pollonas)),
      item('viajeras', num(st.viajeras)), item('favourite', presetLabel(st.favourite_preset))));
}

function achievementsCard(list) {
  return h('section', { class: 'card pf-achievements' },
    h('h2', { text: t('pf.achievements') }),
    list.length
      ? h('ul', { class: 'pf-ach-list' }, ...list.map((a) => h('li', { class: 'pf-ach', 'data-testid': 'pf-achievement', 'data-id': a.id },
        h('span', { class: 'pf-ach-medal', 'aria-hidden': 'true', text: '★' }),
        h('span', { class: 'pf-ach-text' },
          h('strong', { text: named(a) }),
          h('span', { class: 'small', text: lang() === 'en' ? a.description_en : a.description }),
          h('span', { class: 'muted small', text: day(a.at) })))))
      : h('p', { class: 'muted', 'data-testid': 'pf-no-achievements', text: t('pf.achievements.none') }));
}

function matchItem(m) {
  const mine = m.scores[m.team] ?? 0;
  const theirs = m.scores.filter((_, i) => i !== m.team);
  const names = (list) => list.filter(Boolean).join(', ') || '—';
  return h('li', { class: `pf-match ${m.won ? 'pf-match--won' : 'pf-match--lost'}`, 'data-testid': 'pf-match', 'data-table': m.table, 'data-match': m.match },
    h('div', { class: 'pf-match-head' },
      h('span', { class: 'pf-match-result', text: t(m.won ? 'pf.match.won' : 'pf.match.lost') }),
      h('strong', { class: 'pf-match-score', text: [mine, ...theirs].join('–') }),
      h('span', { class: 'muted small', text: `${day(m.finished_at)} · ${presetLabel(m.preset)}` })),
    h('p', { class: 'small pf-match-who' },
      m.partners.length ? h('span', { text: t('pf.match.partners', { names: names(m.partners) }) }) : null,
      h('span', { text: t('pf.match.rivals', { names: names(m.rivals) }) })),
    h('a', { class: 'btn pf-replay', href: m.replay, 'data-testid': 'pf-replay', text: t('replay.link') }));
}

function recentCard(list) {
  return h('section', { class: 'card pf-recent' },
    h('h2', { text: t('pf.recent') }),
    list.length ? h('ol', { class: 'pf-match-list' }, ...list.map(matchItem))
      : h('p', { class: 'muted', 'data-testid': 'pf-no-matches', text: t('pf.recent.none') }));
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
    h('header', { class: 'hero standings-hero' }, h('h1', { 'data-testid': 'pf-name', text: d.nickname })),
    h('div', { class: 'pf-grid' },
      levelCard(d.level),
      statsCard(d.stats),
      ratingCard('neighbours', d.ratings.neighbours),
      ratingCard('friends', d.ratings.friends)),
    achievementsCard(d.achievements),
    recentCard(d.recent));
}

async function load() {
  try {
    const r = await fetch(`/api/players/${encodeURIComponent(playerId)}`, { headers: { Accept: 'application/json' } });
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
load();
