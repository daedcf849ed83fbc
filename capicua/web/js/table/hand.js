// My hand and the end chooser: a tap plays a tile that has one choice, or opens the
// chooser (buttons, ghosts, the keyboard's numbers) when the VIEW says the tile's ends
// give different positions; the table-talk button beside the hand.

import { t, lang } from '../i18n/index.js';
import { tileSvg, tileKey } from '../tiles.js';
import * as countdown from '../countdown.js';
import { createTalk } from '../talk.js';
import { $, h, fill } from '../dom.js';
import { S, V, isPlayer, mySeat, isMyTurn, tileName, optionsFor, isPlayable, clockedSeat, endChoiceLabel, send, endOf } from './state.js';
import { announce, toast } from './effects.js';
import { renderBoardArea } from './board.js';
import { dragging } from './drag.js';
import { closePanel } from './panel.js';

export function renderHand() {
  const v = V();
  const box = $('hand');
  const focusedKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  const hand = Array.isArray(v.hand) ? v.hand : [];
  fill(box, );
  box.classList.toggle('hand--turn', isMyTurn());
  box.classList.toggle('hand--many', hand.length > 7);
  renderMeTools();
  if (!isPlayer()) {
    // A spectator: no hand, and no word at the table (los mirones son de palo). Said once:
    // not while the notice of a table this browser is not seated at says it is watching.
    if (!S.notice && !S.replay) box.append(h('p', { class: 'watching', 'data-testid': 'watching', role: 'status' }, t('status.spectator')));
    return;
  }
  if (!hand.length && v.phase && v.phase !== 'loading') box.append(h('p', { class: 'hand-note', text: t('hand.empty') }));
  for (const tile of hand) {
    const playable = isPlayable(tile);
    const key = tileKey(tile);
    const chosen = S.pending && S.pending.key === key;
    const btn = h('button', {
      type: 'button',
      class: `tile-btn${playable ? ' tile-btn--playable' : ''}${chosen ? ' tile-btn--chosen' : ''}`,
      'data-testid': 'tile',
      'data-tile': `${tile[0]}-${tile[1]}`,
      'data-key': key,
      'data-playable': playable ? 'true' : 'false',
      'aria-disabled': playable && !S.awaiting ? 'false' : 'true',
      'aria-label': `${tileName(tile)}${playable ? ` — ${lang() === 'es' ? 'pega' : 'playable'}` : ''}`,
      onclick: () => onTileActivate(tile),
    }, tileSvg(tile[0], tile[1]));
    box.append(btn);
  }
  if (focusedKey) {
    const again = box.querySelector(`[data-key="${focusedKey}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  renderChooser();
}
/**
 * Beside the hand: the player's own countdown when their turn is on the
 * clock ("Te quedan 12 s"), and the table-talk button (players only).
 */
function renderMeTools() {
  const mine = isPlayer() && clockedSeat() === mySeat();
  const clock = $('my-clock');
  if (!mine) fill(clock);
  else if (!clock.firstChild) fill(clock, countdown.countdownEl({ wide: true, testid: 'my-countdown' }));
  talk.render(isPlayer());
}
/**
 * The options of the pending tile, one per outcome: the VIEW's ends say which ends one
 * tile covers to the same effect (equal `outcome`), and those are one choice.
 */
function choiceGroups() {
  const groups = [];
  for (const o of S.pending ? S.pending.options : []) {
    const e = endOf(o.end);
    if (!groups.some((g) => g.outcome === e.outcome)) groups.push({ end: o.end, value: e.value, double: e.double, outcome: e.outcome });
  }
  return groups;
}

export function renderChooser() {
  const box = $('chooser');
  const buttons = $('chooser-buttons');
  if (!S.pending) { box.hidden = true; fill(buttons, ); return; }
  box.hidden = false;
  fill(buttons, ...choiceGroups().map((g) => h('button', {
    type: 'button', class: 'btn btn-end', 'data-testid': 'end-choice', 'data-end': g.end, 'data-value': g.value,
    'aria-keyshortcuts': g.value === null ? null : String(g.value),
    onclick: () => chooseEnd(g.end),
  }, endChoiceLabel(g.end))), h('button', { type: 'button', class: 'btn btn-ghost', onclick: cancelChoice, text: t('btn.cancel') }));
}

function onTileActivate(tile) {
  const btn = $('hand').querySelector(`[data-key="${tileKey(tile)}"]`);
  if (S.awaiting) return;
  const opts = isMyTurn() ? optionsFor(tile) : [];
  if (!opts.length) {
    if (btn) { btn.classList.remove('tile-btn--nope'); void btn.offsetWidth; btn.classList.add('tile-btn--nope'); }
    return;
  }
  if (opts.length === 1 || sameOutcome(opts)) { sendPlay(opts[0]); return; }
  S.pending = { key: tileKey(tile), tile, options: opts };
  renderHand();
  renderBoardArea();
  const first = $('chooser-buttons').querySelector('button');
  if (first) first.focus({ preventScroll: true });
  announce(() => t('choose.title'));
}

/** The options of a tile are one move: its first tile of the hand, or ends of one outcome (the VIEW's `ends`). */
export function sameOutcome(opts) {
  if (opts.some((o) => o.end === null || o.end === undefined)) return true;
  return new Set(opts.map((o) => endOf(o.end).outcome)).size === 1;
}

function chooseEnd(end) {
  if (!S.pending) return;
  const opt = S.pending.options.find((o) => o.end === end);
  if (opt) sendPlay(opt);
}

/** A ghost was tapped (or a tile dropped on it): play the pending or dragged tile there. */
export function playAtEnd(end) {
  if (S.pending) { chooseEnd(end); return; }
  const drag = dragging();
  const opt = drag && drag.options.find((o) => o.end === end);
  if (opt) sendPlay(opt);
}

function cancelChoice() {
  const key = S.pending && S.pending.key;
  S.pending = null;
  renderHand();
  renderBoardArea();
  if (key) { const b = $('hand').querySelector(`[data-key="${key}"]`); if (b) b.focus(); }
}

export function sendPlay(opt) {
  const frame = { type: 'play', seq: S.seq, tile: [opt.tile[0], opt.tile[1]], end: opt.end === undefined ? null : opt.end };
  const key = S.pending ? S.pending.key : tileKey(opt.tile);
  S.pending = null;
  if (!send(frame)) { toast(t('err.offline'), 'offline'); renderHand(); renderBoardArea(); return; }
  S.awaiting = true;
  clearTimeout(S.awaitTimer);
  S.awaitTimer = setTimeout(() => { S.awaiting = false; renderHand(); }, 4000);
  renderHand();
  renderBoardArea();
  const b = $('hand').querySelector(`[data-key="${key}"]`);
  if (b) b.classList.add('tile-btn--sent');
}

// keyboard: arrows move between tiles; an end's number chooses it; Escape cancels
$('hand').addEventListener('keydown', (ev) => {
  const tiles = [...$('hand').querySelectorAll('[data-testid="tile"]')];
  const i = tiles.indexOf(document.activeElement);
  if (i < 0) return;
  let j = null;
  if (ev.key === 'ArrowRight' || ev.key === 'ArrowDown') j = (i + 1) % tiles.length;
  else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowUp') j = (i - 1 + tiles.length) % tiles.length;
  else if (ev.key === 'Home') j = 0;
  else if (ev.key === 'End') j = tiles.length - 1;
  if (j !== null) { ev.preventDefault(); tiles[j].focus(); }
});
document.addEventListener('keydown', (ev) => {
  if (ev.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(ev.target.tagName)) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (S.pending) {
    // An end's number chooses it; where two ends show it (a double and a plain one), the key moves between their buttons.
    const k = ev.key.toLowerCase();
    if (k === 'escape') { ev.preventDefault(); cancelChoice(); return; }
    if (!/^[0-9]$/.test(k)) return;
    const matching = choiceGroups().filter((g) => g.value === Number(k));
    if (!matching.length) return;
    ev.preventDefault();
    if (matching.length === 1) { chooseEnd(matching[0].end); return; }
    const buttons = matching.map((g) => $('chooser-buttons').querySelector(`[data-end="${g.end}"]`)).filter(Boolean);
    const at = buttons.indexOf(document.activeElement);
    if (buttons.length) buttons[(at + 1) % buttons.length].focus();
    return;
  }
  if (ev.key === 'Escape' && !$('panel').hidden) closePanel();
});

const talk = createTalk($('talk'), {
  say: (phrase) => send({ type: 'say', phrase }),
  offline: () => toast(t('err.offline'), 'offline'),
});
