// The table's renderer: fed frames of docs/protocol.md by a source (mountTable),
// keeps seq, renders the VIEW, and sends intents (play, next_hand, redeal) to the
// source. The live table (../live.js) feeds it a websocket; a replay (../replay.js)
// feeds it the frames of a finished match. Test hooks: data-testid attributes,
// body[data-phase], body[data-turn].
//
// The page is split by what it draws (./state.js holds the state and its selectors;
// seats, header, board, hand and chooser, drag, redeal, panel, effects, frames);
// this module renders them all and starts the page.

import { t, applyI18n, wireLangToggle, onLangChange } from '../i18n/index.js';
import { loadNeighbours } from '../neighbours.js';
import { wireLobby, renderLobby, joinFailed, noticeFor, renderNotice } from '../lobby.js';
import { signIn } from '../guest.js';
import * as countdown from '../countdown.js';
import { $ } from '../dom.js';
import { pageTableId, watchOnly, S, V, isPlayer, mySeat, isMyTurn, clockwise, relOf, slotOf, viewerWon, connShown, connection, setConnection, send } from './state.js';
import { announce, toast } from './effects.js';
import { renderSeats, renderInFlight } from './seats.js';
import { showFatal, renderFatal, renderScores, renderStatus, renderConn, renderToggles } from './header.js';
import { renderBoardArea } from './board.js';
import { renderHand } from './hand.js';
import { renderRedeal } from './redeal.js';
import { renderHonours, renderPanel, closePanel } from './panel.js';
import { onFrame } from './frames.js';

/**
 * A private table waiting in its lobby shows the lobby (lobby.js) instead of
 * the board and the hand; a table this browser only watches says why (the
 * notice). Returns whether the lobby is shown: then the board is not drawn.
 */
function showLobby() {
  const table = S.tableInfo;
  const inLobby = !!table && table.status === 'lobby' && !S.fatal;
  document.body.dataset.lobby = inLobby ? 'on' : 'off';
  $('lobby').hidden = !inLobby;
  $('felt').hidden = inLobby;
  $('me').hidden = inLobby;
  S.notice = S.fatal || S.watch ? null : noticeFor(table, S.seat); // ?mirar=1 chose to watch: nothing to explain
  renderNotice(S.notice, S.tableId, table && table.match_number);
  // A page with only something to say (no such table; a finished match this browser had no seat at):
  // no ghost table under it, the top bar keeps only its language toggle (capicua.css).
  document.body.dataset.page = S.fatal ? 'fatal' : S.notice === 'finished' ? 'notice' : 'table';
  renderFatal();
  if (!inLobby) return false;
  const me = S.seat ?? 0; // a watcher sees the table from South
  renderLobby({
    table, me: S.seat, host: S.host, hasToken: !!S.token, teams: V().teams || null, conn: connShown(),
    place: (s) => ({ slot: slotOf(s, me), order: clockwise() ? relOf(s, me) : -relOf(s, me) }),
  });
  renderToggles();
  return true;
}

export function renderAll() {
  const v = V();
  document.body.dataset.phase = v.phase || 'loading';
  if (showLobby()) {
    if (S.panel) closePanel(); // back in the lobby after a match: the score sheet is of the match before
    return;
  }
  document.body.dataset.turn = isMyTurn() ? 'me' : 'other';
  const mr = v.phase === 'match_over' ? v.match_result : null;
  const won = mr ? viewerWon(mr.winner) : null;
  document.body.dataset.outcome = won === true ? 'won' : won === false ? 'lost' : '';
  renderScores();
  renderSeats();
  renderBoardArea();
  renderHand();
  renderInFlight();
  renderRedeal();
  renderStatus();
  renderToggles();
  renderPanel();
  renderHonours();
}

// The player on the clock hears it once, ten seconds before the stand-in plays for them.
countdown.onWarning((seat) => { if (isPlayer() && seat === mySeat()) announce(() => t('timer.warn')); });

/** "Sentarme aquí": ask for `seat`; the welcome that follows says it is mine (or an error why not). */
export function sit(seat) {
  if (!send({ type: 'sit', seat })) toast(t('err.offline'), 'offline');
}

/** "Sentarme aquí" with no token yet: sign in with the nickname, say hello again as that player, then sit. */
async function join(seat, nickname) {
  const got = await signIn(nickname);
  if (got.error) { joinFailed(got.error, got.field); return; }
  S.token = got.token;
  S.nickname = got.nickname;
  S.sitAfterHello = seat;
  connection().restart();
}

wireLobby({ send, sit, join, toast });

/**
 * Start the page: `source({hello, onFrame, onStatus})` makes what feeds it
 * frames and takes its intents (connect, send, stop, restart: net.js's
 * Connection for the live table). `replay: {match}` draws a finished match
 * (replay.js): watching, every hand face up. Returns the source.
 */
export function mountTable(source, { tableId = pageTableId, watch = watchOnly, replay = null } = {}) {
  S.tableId = tableId;
  S.watch = watch || !!replay;
  S.replay = replay;
  applyI18n();
  wireLangToggle();
  onLangChange(() => renderAll());
  setConnection(source({
    hello: () => ({ type: 'hello', table: S.tableId, token: S.token, last_seq: S.seq, ...(S.watch ? { watch: true } : {}) }),
    onFrame,
    onStatus: (st) => { S.status = st; renderConn(); },
  }));
  if (!S.tableId) {
    showFatal('err.unknown_table');
    renderAll();
  } else {
    renderAll();
    loadNeighbours().then(() => renderAll());
    connection().connect();
  }
  let resizeTimer = null;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderBoardArea, 60);
  }).observe($('board'));
  window.addEventListener('beforeunload', () => connection().stop());
  return connection();
}
