// The board on the page: the drawing (../board.js) of the VIEW's line or cross, with
// the ghosts of the chosen or dragged tile at each end it fits, and its words for
// screen readers.

import { t } from '../i18n/index.js';
import { renderBoard } from '../board.js';
import * as travel from '../travel.js';
import { $ } from '../dom.js';
import { S, V, isMyTurn, seatName, endChoiceLabel } from './state.js';
import { playAtEnd } from './hand.js';
import { dragging } from './drag.js';

export function renderBoardArea() {
  const v = V();
  const board = $('board');
  const res = renderBoard(board, v, { ghosts: ghostsShown(), onEnd: (end) => playAtEnd(end), prev: S.boardShape });
  S.boardShape = res.param;
  travel.hideInAir(board);
  if (S.animateLast) {
    const last = board.querySelector('.tile--last');
    // A tile still flying in from its seat slams when it lands.
    if (last && !travel.isInAir(last.dataset.key)) last.classList.add('tile--slam');
    S.animateLast = false;
  }
  const played = (v.center ? 1 : 0) + Object.values(v.arms || {}).reduce((a, arm) => a + arm.length, 0);
  const ends = (v.ends || []).map((e) => endNumber(e)).join(', ');
  const sv = board.querySelector('svg');
  if (sv) sv.setAttribute('aria-label', `${t(played === 1 ? 'board.label.one' : 'board.label', { n: played })}${ends ? `. ${t('ends.label')}: ${ends}` : ''}`);
  const empty = $('board-empty');
  if (!v.center && v.phase === 'play') {
    empty.hidden = false;
    const who = isMyTurn() ? t('board.empty.you') : t('board.empty.other', { name: seatName(v.turn) });
    empty.textContent = who;
  } else empty.hidden = true;
}

/** An open end named by its number: "6", "doble 6". */
function endNumber(e) {
  return e.double ? t('ends.double', { value: e.value }) : String(e.value);
}

/** The ghosts on the board: the chosen tile at each end it fits (while choosing, or dragging it). */
function ghostsShown() {
  if (S.replay) return S.replay.ghosts ? S.replay.ghosts() : []; // the experto's move, where replay.js shows it
  const drag = dragging();
  const options = S.pending ? S.pending.options : drag && drag.active ? drag.options : [];
  return options.filter((o) => o.end !== null && o.end !== undefined).map((o) => ({ end: o.end, tile: o.tile, label: endChoiceLabel(o.end) }));
}
