// Dragging a tile from the hand onto the board.

import { tileSvg, tileKey } from '../tiles.js';
import { $, h } from '../dom.js';
import { S, isMyTurn, optionsFor } from './state.js';
import { renderBoardArea } from './board.js';
import { renderHand, renderChooser, sameOutcome, sendPlay } from './hand.js';

// A playable tile dragged from the hand (mouse, pen or finger) shows its
// ghosts on the board; let go over one to play there. A tile that fits one
// end only plays wherever it is let go over the board. A press that does not
// move is a tap (the click plays or opens the chooser).
const DRAG_START_PX = 8;
let drag = null; // {pointer, tile, key, options, x0, y0, active, floater}

$('hand').addEventListener('pointerdown', (ev) => {
  const btn = ev.target.closest('[data-testid="tile"]');
  if (!btn || (ev.pointerType === 'mouse' && ev.button !== 0) || S.awaiting || !isMyTurn()) return;
  const tile = btn.dataset.tile.split('-').map(Number);
  const options = optionsFor(tile);
  if (!options.length) return;
  drag = { pointer: ev.pointerId, tile, key: tileKey(tile), options, x0: ev.clientX, y0: ev.clientY, active: false, floater: null };
});

window.addEventListener('pointermove', (ev) => {
  if (!drag || ev.pointerId !== drag.pointer) return;
  if (!drag.active) {
    if (Math.hypot(ev.clientX - drag.x0, ev.clientY - drag.y0) < DRAG_START_PX) return;
    startDrag();
  }
  ev.preventDefault();
  moveFloater(ev.clientX, ev.clientY);
});

window.addEventListener('pointerup', (ev) => {
  if (!drag || ev.pointerId !== drag.pointer) return;
  const d = drag;
  if (!d.active) { drag = null; return; }
  const end = dropEndAt(ev.clientX, ev.clientY);
  endDrag();
  drag = null;
  // The click that may follow the release (same task) is not a tap.
  const swallow = (c) => { c.stopPropagation(); c.preventDefault(); };
  window.addEventListener('click', swallow, true);
  setTimeout(() => window.removeEventListener('click', swallow, true), 0);
  if (end) { const opt = d.options.find((o) => o.end === end); if (opt) { S.pending = null; sendPlay(opt); return; } }
  // Let go elsewhere: a tile with a real choice keeps it open (tap a ghost, or the chooser).
  if (!(d.options.length === 1 || sameOutcome(d.options))) S.pending = { key: d.key, tile: d.tile, options: d.options };
  renderHand();
  renderBoardArea();
});

window.addEventListener('pointercancel', (ev) => {
  if (!drag || ev.pointerId !== drag.pointer) return;
  const wasActive = drag.active;
  endDrag();
  drag = null;
  if (wasActive) { renderHand(); renderBoardArea(); }
});

function startDrag() {
  drag.active = true;
  S.pending = null;
  const floater = h('div', { class: 'drag-tile', 'data-testid': 'drag-tile', 'aria-hidden': 'true' }, tileSvg(drag.tile[0], drag.tile[1]));
  document.body.append(floater);
  drag.floater = floater;
  const btn = $('hand').querySelector(`[data-key="${drag.key}"]`);
  if (btn) btn.classList.add('tile-btn--dragged');
  renderChooser();
  renderBoardArea();
}

function moveFloater(x, y) {
  const f = drag.floater;
  f.style.transform = `translate(${x - f.offsetWidth / 2}px, ${y - f.offsetHeight / 2}px)`;
  const end = dropEndAt(x, y);
  for (const g of $('board').querySelectorAll('[data-ghost-end]')) g.classList.toggle('ghost--over', g.dataset.ghostEnd === end);
}

/** The end a tile let go at (x, y) plays on: the ghost under it, or the only end anywhere over the board. */
function dropEndAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const ghost = el && el.closest ? el.closest('[data-ghost-end]') : null;
  if (ghost) return ghost.dataset.ghostEnd;
  const single = drag.options.length === 1 || sameOutcome(drag.options);
  const b = $('board').getBoundingClientRect();
  const overBoard = x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;
  return single && overBoard ? drag.options[0].end : null;
}

function endDrag() {
  if (drag && drag.floater) drag.floater.remove();
  const btn = drag && $('hand').querySelector(`[data-key="${drag.key}"]`);
  if (btn) btn.classList.remove('tile-btn--dragged');
  if (drag) drag.active = false;
}

/** The tile being dragged ({tile, key, options, active, …}), or null. */
export function dragging() { return drag; }
