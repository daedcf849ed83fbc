// The panel over the table: the score sheet (La libreta), a hand's result, the match
// over, the honours, and the buttons that go on (Siguiente mano, Otra partida).

import { t, has } from '../i18n/index.js';
import { tileSvg, svg } from '../tiles.js';
import { $, h, fill } from '../dom.js';
import { renderRematch } from '../rematch.js';
import { renderHandover } from '../handover.js';
import { S, V, nPlayers, isPlayer, mySeat, myTeam, partnership, seatName, levelName, teamOrder, teamLabel, teamKey, viewerWon, pipsText, overKey, send } from './state.js';
import { toast } from './effects.js';
import { verifyUrl } from './header.js';

function pollito() {
  const s = svg('svg', { viewBox: '0 0 64 64', class: 'pollito', 'aria-hidden': 'true' });
  svg('ellipse', { cx: 30, cy: 40, rx: 18, ry: 15, fill: '#f6d04d' }, s);
  svg('circle', { cx: 40, cy: 24, r: 11, fill: '#f6d04d' }, s);
  svg('path', { d: 'M50 23 L59 26 L50 29 Z', fill: '#e76f51' }, s);
  svg('path', { d: 'M36 13 Q38 6 41 12 Q43 5 45 13 Z', fill: '#d1495b' }, s);
  svg('circle', { cx: 43, cy: 22, r: 1.8, fill: '#1b1b1b' }, s);
  svg('path', { d: 'M16 38 Q24 30 32 40 Q24 46 16 38 Z', fill: '#e9b730' }, s);
  svg('path', { d: 'M26 54 L24 61 M34 54 L36 61', stroke: '#e76f51', 'stroke-width': 2.5, 'stroke-linecap': 'round' }, s);
  return s;
}

function renderSheet() {
  const v = V();
  const sheet = v.sheet || [];
  const cols = teamOrder();
  const box = $('sheet');
  const target = v.rules && v.rules.target;
  const head = h('tr', {}, h('th', { scope: 'col', text: t('libreta.hand') }), ...cols.map((c) => h('th', { scope: 'col', class: partnership() && isPlayer() && c === myTeam() ? 'us' : '', text: teamLabel(c) })));
  const rows = sheet.map((r) => {
    const kind = r.kind && has(`libreta.kind.${r.kind}`) ? t(`libreta.kind.${r.kind}`) : (r.kind || '');
    return h('tr', { 'data-hand': r.hand },
      h('th', { scope: 'row' }, h('span', { text: String(r.hand) }), h('small', { text: kind })),
      ...cols.map((c) => {
        const won = r.team === c && r.points;
        const total = r.scores ? r.scores[c] : '';
        return h('td', { class: won ? 'won' : '' },
          won ? h('span', { class: 'plus', text: `+${r.points}` }) : h('span', { class: 'dash', text: '—' }),
          h('small', { class: 'running', text: String(total) }));
      }));
  });
  const mr = v.match_result;
  const foot = h('tr', {}, h('th', { scope: 'row', text: t('libreta.total') }), ...cols.map((c) => h('td', { class: 'total' },
    h('b', { text: String((v.scores || [])[c] ?? 0) }),
    mr && mr.pollona && c !== mr.winner ? pollito() : null)));
  fill(box, 
    h('table', { class: 'libreta-table' }, h('thead', {}, head), h('tbody', {}, ...rows), h('tfoot', {}, foot)),
    !sheet.length ? h('p', { class: 'muted', text: t('libreta.empty') }) : null,
    target ? h('p', { class: 'muted small', text: t('libreta.target', { target }) }) : null,
  );
}

function renderResult() {
  const v = V();
  const box = $('result');
  const r = v.result;
  if (!r || (v.phase !== 'hand_over' && v.phase !== 'match_over')) { box.hidden = true; fill(box, ); return; }
  box.hidden = false;
  let line;
  const mine = isPlayer() && r.seat === mySeat();
  if (r.kind === 'domino') line = t(mine ? 'result.domino.me' : 'result.domino', { name: seatName(r.seat) });
  else if (r.kind === 'tranque') line = t(mine ? 'result.tranque.me' : 'result.tranque', { name: seatName(r.seat) });
  else line = t('result.tie');
  const pts = r.points && r.team !== null && r.team !== undefined ? t(teamKey('result.points', r.team), { team: teamLabel(r.team), points: r.points }) : t('result.nopoints');
  const revealed = v.revealed || [];
  const hands = [];
  for (let s = 0; s < nPlayers(); s++) {
    const tiles = revealed[s] || (isPlayer() && s === mySeat() ? v.hand || [] : []);
    const total = r.pip_totals ? r.pip_totals[s] : null;
    hands.push(h('li', { class: `rh${r.seat === s ? ' rh--winner' : ''}`, 'data-seat': s },
      h('span', { class: 'rh-name', text: seatName(s) }),
      h('span', { class: 'rh-tiles' }, ...tiles.map((tl) => tileSvg(tl[0], tl[1], { horizontal: true }))),
      total !== null && total !== undefined ? h('span', { class: 'rh-total', text: pipsText(total) }) : null));
  }
  fill(box, 
    h('h3', { text: t('result.title', { n: v.hand_number }) }),
    h('p', { class: `result-line result-line--${r.kind}`, text: line }),
    h('p', { class: 'result-points', text: pts }),
    r.capicua ? h('p', { class: 'result-capicua', text: t('result.capicua') }) : null,
    h('h4', { text: t('result.hands') }),
    h('ul', { class: 'result-hands' }, ...hands),
    r.seed ? h('p', { class: 'result-seed' },
      h('span', { text: `${t('result.seed')}: ` }), h('code', { class: 'hash-code', 'data-testid': 'seed-reveal', text: r.seed }), ' ',
      h('a', { href: verifyUrl(), target: '_blank', rel: 'noopener', 'data-testid': 'verify-link', text: t('result.verify') })) : null,
  );
}

function renderMatchOver() {
  const v = V();
  const box = $('match-over');
  const mr = v.match_result;
  if (v.phase !== 'match_over' || !mr) { box.hidden = true; fill(box, ); return; }
  box.hidden = false;
  const weWon = viewerWon(mr.winner);
  const lost = weWon === false;
  const title = weWon === true ? t(partnership() ? 'match.win.us' : 'match.win.me') : lost ? t(partnership() ? 'match.win.them' : 'match.lost.me') : t('match.win.team', { team: teamLabel(mr.winner) });
  const sc = v.scores || [];
  const [first = 0, second = 1] = teamOrder(); // the viewer's side first
  box.classList.toggle('match-over--won', weWon === true);
  box.classList.toggle('match-over--lost', lost);
  box.dataset.outcome = weWon === true ? 'won' : lost ? 'lost' : 'watched';
  // On a loss: no party. The pollona/viajera is stated plainly (class "against").
  const cls = lost ? 'against' : 'celebrate';
  fill(box, 
    h('h3', { text: title }),
    lost ? h('p', { class: 'gracious', 'data-testid': 'match-lost', text: t(partnership() ? 'match.lost.sub' : 'match.lost.sub.me') }) : null,
    h('p', { class: 'final', text: t('match.final', { a: `${teamLabel(first)} ${sc[first] ?? 0}`, b: `${teamLabel(second)} ${sc[second] ?? 0}` }) }),
    mr.pollona ? h('div', { class: cls }, pollito(), h('p', {}, h('strong', { text: t('banner.pollona') }), ' ', lost ? t('match.pollona.them') : t('match.pollona'))) : null,
    mr.viajera ? h('p', { class: `${cls} viajera` }, h('strong', { text: t('banner.viajera') }), ' ', t(lost ? 'match.viajera.them' : 'match.viajera', { target: (v.rules || {}).target })) : null,
    replayLink(),
    S.replay ? null : h('p', { class: 'replay-link' }, h('a', { class: 'btn', href: '/leaderboard', 'data-testid': 'leaderboard-link', text: t('nav.leaderboard') })),
  );
}
/**
 * The honours frame: what the match just ended gave me (a level, achievements), celebrated until closed.
 * Over the table it floats under the top bar; while the score sheet is open it is the sheet's first
 * lines, so the sheet (which fills a phone's screen) never covers it.
 */
export function renderHonours() {
  const f = S.honours;
  let box = document.getElementById('honours');
  if (!f || S.replay) { if (box) box.remove(); return; }
  if (!box) box = h('section', { id: 'honours', class: 'honours', 'data-testid': 'honours', role: 'status', 'aria-live': 'polite' });
  const panel = $('panel');
  const home = panel.hidden ? document.body : panel.querySelector('.panel-body');
  if (box.parentElement !== home) {
    if (home === document.body) home.append(box); else home.prepend(box);
  }
  box.classList.toggle('honours--in-sheet', home !== document.body);
  fill(box,
    h('span', { class: 'honours-star', 'aria-hidden': 'true', text: '★' }),
    h('div', { class: 'honours-text' },
      f.level_up ? h('p', { class: 'honours-level', 'data-testid': 'honours-level', text: t('honours.level_up', { name: levelName(f.level_up) }) }) : null,
      ...(f.achievements || []).map((a) => h('p', { class: 'honours-ach', 'data-testid': 'honours-achievement', 'data-id': a.id, text: t('honours.achievement', { name: levelName(a) }) }))),
    h('button', { type: 'button', class: 'icon-btn honours-close', 'data-testid': 'honours-close', 'aria-label': t('honours.close'), title: t('honours.close'), text: '×',
      onclick: () => { S.honours = null; renderHonours(); } }));
}

/** "Ver la repetición": the finished match, hand by hand (not on the replay itself). */
function replayLink() {
  const n = S.tableInfo && S.tableInfo.match_number;
  if (S.replay || typeof n !== 'number') return null;
  return h('p', { class: 'replay-link' }, h('a', { class: 'btn', href: `/replay/${encodeURIComponent(S.tableId)}/${n}`, 'data-testid': 'replay-link', text: t('replay.link') }));
}

export function renderPanel() {
  const v = V();
  const panel = $('panel');
  const over = v.phase === 'hand_over' || v.phase === 'match_over';
  if (!S.panel) { hidePanel(panel); renderHonours(); return; } // the honours float again over the table
  const opening = panel.hidden;
  panel.hidden = false;
  $('panel-backdrop').hidden = false;
  panel.dataset.mode = S.panel;
  renderMatchOver();
  renderResult();
  if (S.panel === 'libreta' && !over) { $('result').hidden = true; }
  renderSheet();
  const nb = $('next-hand');
  nb.hidden = !(v.phase === 'hand_over' && isPlayer());
  // With the countdown when the table deals by itself, and the host's "Repartir ya" (handover.js).
  renderHandover({
    button: nb, table: S.tableInfo, sent: S.nextSentFor === v.hand_number, host: S.host && !S.replay,
    deal: () => { if (!send({ type: 'deal_now', seq: S.seq })) toast(t('err.offline'), 'offline'); },
  });
  $('play-again').hidden = v.phase !== 'match_over';
  // "Otra partida": a ready check of everyone here (rematch.js, TABLE.rematch).
  const rematch = $('rematch');
  rematch.hidden = !(v.phase === 'match_over' && isPlayer() && !S.replay);
  renderRematch({
    button: rematch, box: rematchBox(), table: rematch.hidden ? null : S.tableInfo, me: mySeat(),
    sent: !!S.tableInfo && S.rematchFor === S.tableInfo.match_number, name: seatName, redraw: renderPanel,
    send: (frame) => { if (send(frame)) return true; toast(t('err.offline'), 'offline'); return false; },
  });
  $('panel-title').textContent = t('libreta.title');
  const focusKey = `${S.panel}:${overKey(v)}`;
  if (opening || S.panelFocusKey !== focusKey) focusPanel(panel, opening, focusKey);
  renderHonours(); // into the sheet, first: not under it
}
/**
 * The panel takes the keyboard focus when it opens (once per hand and mode):
 * on "Siguiente mano" after a hand, so Enter plays on; on "Otra partida" after
 * the match; else on its close button.
 */
function focusPanel(panel, opening, focusKey) {
  S.panelFocusKey = focusKey;
  if (opening && !panel.contains(document.activeElement)) S.panelReturnFocus = document.activeElement;
  const target = [$('next-hand'), $('rematch'), $('play-again'), $('panel-close')].find((el) => !el.hidden && !el.disabled);
  if (target) target.focus({ preventScroll: true });
}
/**
 * Hide the panel; if the focus was in it (or was lost, e.g. with "Siguiente
 * mano" disabled once pressed), give it back: to what had it, else the hand, else the board.
 */
function hidePanel(panel) {
  const active = document.activeElement;
  const hadFocus = !panel.hidden && (!active || active === document.body || panel.contains(active));
  panel.hidden = true;
  $('panel-backdrop').hidden = true;
  S.panelFocusKey = null;
  if (!hadFocus) return;
  const back = S.panelReturnFocus;
  S.panelReturnFocus = null;
  const tile = $('hand').querySelector('[data-testid="tile"][data-playable="true"]') || $('hand').querySelector('[data-testid="tile"]');
  const target = back && back !== document.body && back.isConnected && back.offsetParent !== null ? back : tile || $('board');
  target.focus({ preventScroll: true });
}

export function openPanel(mode) { S.panel = mode; renderPanel(); }
export function closePanel() { S.panel = null; renderPanel(); }

$('libreta-btn').addEventListener('click', () => (S.panel ? closePanel() : openPanel(V().phase === 'hand_over' || V().phase === 'match_over' ? 'result' : 'libreta')));
$('panel-close').addEventListener('click', closePanel);
$('panel-backdrop').addEventListener('click', closePanel);
/** Under "Otra partida": who it waits for, and the decisions on a gone player's seat. */
function rematchBox() {
  let box = $('rematch-check');
  if (!box) {
    box = h('div', { id: 'rematch-check', class: 'rematch-check', 'data-testid': 'rematch-check', hidden: true });
    $('panel').insertBefore(box, $('panel').querySelector('.panel-foot'));
  }
  return box;
}

$('rematch').addEventListener('click', () => {
  if (!send({ type: 'rematch' })) { toast(t('err.offline'), 'offline'); return; }
  S.rematchFor = S.tableInfo && S.tableInfo.match_number;
  renderPanel();
});
$('next-hand').addEventListener('click', () => {
  const v = V();
  if (send({ type: 'next_hand', seq: S.seq })) { S.nextSentFor = v.hand_number; renderPanel(); } else toast(t('err.offline'), 'offline');
});
