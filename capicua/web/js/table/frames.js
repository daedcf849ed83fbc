// @ts-check
// The frames of docs/protocol.md as the page takes them: a welcome, a sync, a batch
// of events with its view, the table, what was said, honours, paused, errors.

import { t, has } from '../i18n/index.js';
import { tileKey } from '../tiles.js';
import * as sound from '../sound.js';
import { forgetToken, rememberTable } from '../guest.js';
import * as countdown from '../countdown.js';
import { S, V, isPlayer, isMyTurn, seatName, optionsFor, overKey, connection } from './state.js';
import { announce, toast, clearHandBanners, showBubble, sayMissedStandIn, paceEffects, startScene, clearEffects, slamming } from './effects.js';
import { resetSeats } from './seats.js';
import { showFatal, renderConn } from './header.js';
import { renderHonours } from './panel.js';
import { renderAll, sit } from './main.js';

function afterViewChange(prev, { sync }) {
  const v = V();
  const wasMine = prev && isPlayer() && prev.phase === 'play' && prev.turn === prev.seat;
  // A sync shows the table as it is now: what was pending is no longer news.
  if (sync) clearEffects();
  else if (slamming()) S.animateLast = true;
  if (S.pending && !isMyTurn()) S.pending = null;
  if (S.pending) {
    // Keep the choice only if the same options are still legal.
    const opts = optionsFor(S.pending.tile);
    if (opts.length < 2) S.pending = null; else S.pending.options = opts;
  }
  if (v.phase === 'hand_over' || v.phase === 'match_over') {
    // Seen via sync (reconnect / reload): the result at once; live: at the end of the scene.
    if (!sync) startScene(v);
    else if (S.panelHandShown !== overKey(v)) { S.panelHandShown = overKey(v); S.panel = 'result'; }
  }
  if (v.phase === 'play' && S.panel === 'result') S.panel = null;
  if (isMyTurn() || sync) clearHandBanners();
  renderAll();
  if (sync && v.phase === 'play' && !isMyTurn() && v.turn !== null && v.turn !== undefined) announce(() => t('say.turn', { name: seatName(v.turn) }));
  if (isMyTurn() && !wasMine) {
    const n = new Set((v.legal || []).filter((l) => 'tile' in l).map((l) => tileKey(l.tile))).size;
    if (n > 0) {
      if (!sync) sound.cue();
      announce(() => (n === 1 ? t('say.yourturn1') : t('say.yourturn', { n })));
    }
  }
}

function handleError(f) {
  const code = typeof f.code === 'string' ? f.code : 'unknown';
  // The server's message is English for developers: the player reads the code's words.
  const msg = has(`err.${code}`) ? t(`err.${code}`) : t('err.unknown');
  S.awaiting = false;
  clearTimeout(S.awaitTimer);
  // A refused hello: no such table (a malformed id is a mistyped or guessed link too).
  if (code === 'unknown_table' || (code === 'malformed' && !S.tableInfo)) {
    connection().stop();
    showFatal('err.unknown_table');
    renderAll();
    return;
  }
  // A token this server does not know (its store was reset): forget it and watch; sitting asks for a name again.
  if (code === 'unauthorized' && !S.tableInfo && S.token) {
    forgetToken();
    S.token = null;
    connection().restart();
    return;
  }
  if (code === 'table_full') { renderAll(); return; } // the notice says so, with "Mirar" and "Inicio"
  toast(msg, code);
  renderAll();
}
/**
 * The welcome names this socket's seat: the answer to its hello, and in the
 * lobby each time its seat changed (it sat, stood, was moved or sent to
 * watch). A seat asked for before a new hello is asked for now.
 */
function welcomed(f) {
  S.seat = typeof f.seat === 'number' ? f.seat : null;
  S.host = S.seat !== null && !!f.table && f.table.host_seat === S.seat;
  if (S.seat !== null) rememberTable(S.tableId, f.table && f.table.preset);
  const ask = S.sitAfterHello;
  S.sitAfterHello = null;
  if (ask !== null && S.seat === null && f.table && f.table.status === 'lobby') sit(ask);
}

/** A table frame, before it replaces S.tableInfo: a new match ("Otra partida") opens its hands' sheets afresh. */
function followTable(next) {
  const before = S.tableInfo;
  if (before && next && next.match_number !== before.match_number) { S.panelHandShown = null; S.honours = null; }
}

/** @param {import('../protocol.js').ServerFrame} f */
export function onFrame(f) {
  switch (f.type) {
    case 'welcome':
      // A welcome is sent once what the hello changed is stored: the table can save.
      S.paused = false;
      if (f.table) S.tableInfo = f.table;
      welcomed(f);
      countdown.follow(S.tableInfo && S.tableInfo.deadline);
      resetSeats();
      renderAll();
      break;
    case 'sync': {
      const prev = S.view;
      if (typeof f.seq === 'number') S.seq = f.seq;
      S.view = f.view || S.view;
      S.awaiting = false;
      afterViewChange(prev, { sync: true });
      break;
    }
    case 'events': {
      // One change of the table: its events in order, and this audience's view after all of them.
      if (f.seq <= S.seq) return; // already seen (a resend after a reconnect)
      const prev = S.view;
      const fresh = f.events.filter((e) => e.seq > S.seq);
      S.seq = f.seq;
      S.view = f.view;
      S.awaiting = false;
      clearTimeout(S.awaitTimer);
      if (f.replayed) S.animateLast = fresh.length > 0 && fresh[fresh.length - 1].event.kind === 'play';
      else for (const e of fresh) paceEffects(e.event, prev);
      afterViewChange(prev, { sync: false });
      if (f.replayed) sayMissedStandIn(fresh.map((e) => e.event)); // last: the status line keeps it
      break;
    }
    case 'table':
      followTable(f.table);
      S.tableInfo = f.table;
      countdown.follow(f.table && f.table.deadline);
      renderAll();
      break;
    case 'said':
      showBubble(f.seat, f.es, f.en, { name: typeof f.name === 'string' ? f.name : '', by: f.by });
      break;
    case 'honours':
      S.honours = f.level_up || (f.achievements && f.achievements.length) ? f : null;
      renderHonours();
      break;
    case 'paused':
      S.paused = f.paused;
      renderConn();
      break;
    case 'error':
      handleError(f);
      break;
    default:
      break;
  }
}
