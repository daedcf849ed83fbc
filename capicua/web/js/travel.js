// Tiles that travel, so the eye follows who played and who drew.
//
// A neighbour's tile flies from its seat to its place on the board, then
// lands (the slam). Each draw flies a face-down tile from the boneyard to the
// drawer, one after another. While a tile is in the air its place waits for
// it: the board tile stays hidden, the drawer's count shows the tiles that
// have landed, and a drawn tile of the player's own stays out of the hand.
// Only live events travel (the page never calls this for replayed or sync
// frames); with prefers-reduced-motion, or the player's animation speed "sin
// animación" (settings.js), nothing moves, things just appear; "rápida" flies in half the time.

import { svg, tileKey, tileSvg } from './tiles.js';
import { animationScale } from './settings.js';

const PLAY_MS = 380;
const DRAW_MS = 260;
// A draw that never got its turn to land (a resync in the middle of a burst) stops waiting.
const DRAW_PATIENCE_MS = 6000;

const inAir = new Set(); // board tile keys whose flight has not landed
let draws = []; // {seat, key (own draws) or null, at, flying}: drawn, not landed yet, in order
let seen = { hand: null, length: 0 }; // how much of the history the draws were read from

/** A new hand or a sync: the table shows as it is now, nothing is in the air any more. */
export function forget() {
  draws = [];
  seen = { hand: null, length: 0 };
  inAir.clear();
  for (const el of document.querySelectorAll('[data-testid="flyer"]')) el.remove();
}

function reducedMotion() {
  if (animationScale() === 0) return true;
  return typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/**
 * A live event has arrived (its effect may come later, after the others
 * queued before it): from now on a neighbour's played tile waits in the air
 * for its flight, and the batch's draws wait for theirs. `prev` is the view
 * before the event's frame, `view` the view after its batch.
 */
export function expect(ev, prev, view, neighbours) {
  if (ev.kind === 'play' && neighbours && !reducedMotion()) inAir.add(tileKey(ev.tile || [0, 0]));
  if (ev.kind === 'play' || ev.kind === 'draw') expectDraws(prev, view);
}

/**
 * Read the draws of a live batch: the history entries `view` has beyond
 * `prev` (the view before the batch). Calling it again for the same batch
 * adds nothing.
 */
function expectDraws(prev, view) {
  const history = Array.isArray(view.history) ? view.history : [];
  const hand = view.hand_number;
  let from = prev && prev.hand_number === hand && Array.isArray(prev.history) ? prev.history.length : 0;
  if (seen.hand === hand) from = Math.max(from, seen.length);
  const now = Date.now();
  for (const a of history.slice(from)) {
    if (a && a.draw) draws.push({ seat: a.seat, key: Array.isArray(a.draw) ? tileKey(a.draw) : null, at: now, flying: false });
  }
  seen = { hand, length: Math.max(history.length, seen.hand === hand ? seen.length : 0) };
}

function freshDraws() {
  const now = Date.now();
  draws = draws.filter((d) => now - d.at < DRAW_PATIENCE_MS);
  return draws;
}

/** How many of `seat`'s drawn tiles are still in the air or waiting to fly. */
export function drawsWaiting(seat) {
  return freshDraws().filter((d) => d.seat === seat).length;
}

/** Keys of the player's own drawn tiles that have not reached the hand yet. */
export function handTilesWaiting() {
  return new Set(freshDraws().filter((d) => d.key).map((d) => d.key));
}

/**
 * Fly `content` (an element) from the viewport rect `from` to the rect `to`,
 * as a fixed element above the page; resolves once it has landed.
 */
function fly(content, from, to, ms, kind) {
  const el = document.createElement('div');
  el.className = `flyer flyer--${kind}`;
  el.dataset.testid = 'flyer';
  el.dataset.kind = kind;
  el.setAttribute('aria-hidden', 'true');
  Object.assign(el.style, { left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px` });
  el.append(content);
  document.body.append(el);
  const scale = Math.max(0.35, Math.min(1, from.width / to.width, from.height / to.height));
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const anim = el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.85 }, { transform: 'none', opacity: 1 }],
    { duration: ms, easing: 'cubic-bezier(.25,.8,.35,1)', fill: 'forwards' },
  );
  return anim.finished.catch(() => null).then(() => el.remove());
}

/**
 * Hide the board tiles that are still in the air (the board may have been drawn again meanwhile),
 * and the open ends' numbers they bring: an end's badge shows once the tile that made it has landed.
 */
export function hideInAir(board) {
  for (const key of inAir) {
    const g = board.querySelector(`.line .tile[data-key="${key}"]`);
    if (g) g.style.visibility = 'hidden';
  }
  for (const badge of board.querySelectorAll('.end-badge')) {
    badge.style.visibility = inAir.has(endMaker(board, badge)) ? 'hidden' : '';
  }
}

/**
 * The key of the tile that made an open end what it shows: the last tile on its line, or, on a
 * line still empty, where it starts (the first tile; on a double-nine cross, the double it grows from).
 */
function endMaker(board, badge) {
  const end = badge.dataset.end;
  let last = null;
  for (const g of board.querySelectorAll(`.line .tile[data-arm="${end}"]`)) {
    if (!last || Number(g.dataset.index) > Number(last.dataset.index)) last = g;
  }
  if (last) return last.dataset.key;
  if (/^arm\d+$/.test(end)) return `${badge.dataset.value}-${badge.dataset.value}`;
  const centre = board.querySelector('.line .tile[data-center="true"]');
  return centre ? centre.dataset.key : null;
}

export function isInAir(key) { return inAir.has(key); }

/**
 * A neighbour's play, its turn come: its tile flies from `fromEl` (a tile at
 * its seat) to where the board draws it, then lands with the slam; `onLand`
 * runs then (at once without motion). The flight starts on the next frame,
 * once the board has the tile.
 */
export function flyPlay(tile, fromEl, board, onLand) {
  const key = tileKey(tile);
  if (reducedMotion() || !fromEl) { inAir.delete(key); hideInAir(board); onLand(); return; }
  // Measured now: the seat is drawn again (one tile fewer) before the flight starts.
  const from = fromEl.getBoundingClientRect();
  inAir.add(key);
  requestAnimationFrame(() => {
    const g = board.querySelector(`.line .tile[data-key="${key}"]`);
    const land = () => {
      inAir.delete(key);
      hideInAir(board); // its end's number shows now
      const now = board.querySelector(`.line .tile[data-key="${key}"]`);
      if (now) {
        now.style.visibility = '';
        now.classList.remove('tile--slam');
        void now.getBoundingClientRect();
        now.classList.add('tile--slam');
      }
      onLand();
    };
    if (!g) { land(); return; }
    g.style.visibility = 'hidden';
    fly(tileCopy(g), from, g.getBoundingClientRect(), PLAY_MS * animationScale(), 'play').then(land);
  });
}

/** An <svg> showing a copy of board tile `g`, framed to its own box. */
function tileCopy(g) {
  const box = g.getBBox();
  const root = svg('svg', { class: 'flyer-svg', viewBox: `${box.x} ${box.y} ${box.width} ${box.height}`, preserveAspectRatio: 'none' });
  const copy = g.cloneNode(true);
  copy.style.visibility = '';
  copy.classList.remove('tile--slam');
  copy.querySelectorAll('.last-ring').forEach((n) => n.remove());
  root.append(copy);
  return root;
}

/**
 * Land the next waiting draw of `seat`: a face-down tile flies from the rect
 * `from` to the element `target()` returns (the seat, or the drawn tile's
 * place in the hand). Resolves when it has landed (at once without motion).
 */
export function landDraw(seat, from, target) {
  const d = freshDraws().find((x) => x.seat === seat && !x.flying);
  if (!d) return Promise.resolve();
  d.flying = true;
  const done = () => { draws = draws.filter((x) => x !== d); };
  const el = target(d.key);
  if (reducedMotion() || !from || !el) { done(); return Promise.resolve(); }
  const to = el.getBoundingClientRect();
  const horizontal = to.width > to.height;
  const back = tileSvg(0, 0, { back: true, horizontal });
  return fly(back, from, to, DRAW_MS * animationScale(), 'draw').then(done);
}
