// The turn timer's countdown, and the wait between hands' (docs/protocol.md:
// TABLE.deadline = {for, seat, at, ms, left}).
//
// The server's clock and the browser's differ, so the time left is counted
// here from when this page first saw a deadline, `left` long (what the server
// had left when it sent it: less than `ms` on a reconnect); `at` only tells
// one deadline from the next (a table frame that repeats the same deadline,
// say on a change of presence, does not restart the count). Every ring on the
// page is repainted from that one count, a few times a second, while a
// deadline runs.

import { t } from './i18n/index.js';
import { svg } from './tiles.js';

const TICK_MS = 200;
const LOW_MS = 5000; // the last seconds: the ring turns urgent (colour and a pulse, the number stays)
const WARN_MS = 10000; // the player on the clock is told once, this long before it runs out
const RING_LENGTH = 100; // the ring's circle has a circumference of 100 user units (r = 100 / 2π)
const RING_R = RING_LENGTH / (2 * Math.PI);

let current = null; // {key, seat, ms, endsAt: performance.now() when it runs out, warned}
let ticker = null;
const warnings = new Set();

/**
 * Follow the TABLE's deadline: a new one starts counting now, the same one
 * again keeps its count, none (null) stops the count.
 */
export function follow(deadline) {
  const seat = deadline && deadline.for === 'next_hand' ? null : deadline && deadline.seat;
  if (!deadline || typeof deadline.ms !== 'number' || (seat !== null && typeof seat !== 'number')) {
    current = null;
    clearInterval(ticker);
    ticker = null;
    return;
  }
  const key = `${seat}:${deadline.at}`;
  if (current && current.key === key) return;
  const left = typeof deadline.left === 'number' ? Math.min(deadline.left, deadline.ms) : deadline.ms;
  current = { key, seat, ms: deadline.ms, endsAt: performance.now() + left, warned: left <= WARN_MS };
  if (ticker === null) ticker = setInterval(tick, TICK_MS);
}

/** The seat whose turn is on the clock, or null (none, or the wait between hands). */
export function seatOnClock() {
  return current ? current.seat : null;
}

/** `fn(seat)` once per deadline, when it has WARN_MS left (deadlines shorter than that never warn). */
export function onWarning(fn) {
  warnings.add(fn);
}

function remainingMs() {
  return current ? Math.max(0, current.endsAt - performance.now()) : 0;
}

/**
 * A countdown element: a ring that empties and the seconds left. `wide` adds
 * the words ("Te quedan 12 s") for the player's own hand area.
 */
export function countdownEl({ wide = false, testid = 'countdown' } = {}) {
  const el = document.createElement('span');
  el.className = `countdown${wide ? ' countdown--wide' : ''}`;
  el.dataset.testid = testid;
  el.setAttribute('role', 'timer');
  const ring = svg('svg', { viewBox: '0 0 36 36', class: 'countdown-ring', 'aria-hidden': 'true' });
  svg('circle', { cx: 18, cy: 18, r: RING_R, class: 'countdown-track' }, ring);
  svg('circle', { cx: 18, cy: 18, r: RING_R, class: 'countdown-left', 'stroke-dasharray': `${RING_LENGTH} ${RING_LENGTH}`, transform: 'rotate(-90 18 18)' }, ring);
  const secs = document.createElement('b');
  secs.className = 'countdown-secs';
  el.append(ring, secs);
  if (wide) {
    const words = document.createElement('span');
    words.className = 'countdown-words';
    el.append(words);
  }
  paint(el);
  return el;
}

function paint(el) {
  const left = remainingMs();
  const secs = Math.ceil(left / 1000);
  const share = current && current.ms > 0 ? left / current.ms : 0;
  el.dataset.seconds = String(secs);
  el.classList.toggle('countdown--low', left <= LOW_MS);
  el.querySelector('.countdown-secs').textContent = String(secs);
  el.querySelector('.countdown-left').setAttribute('stroke-dashoffset', String(RING_LENGTH * (1 - share)));
  const words = el.querySelector('.countdown-words');
  if (words) words.textContent = t('timer.left.me', { n: secs });
  el.setAttribute('aria-label', t(secs === 1 ? 'timer.left.one' : 'timer.left', { n: secs }));
}

function tick() {
  for (const el of document.querySelectorAll('.countdown')) paint(el);
  if (current && !current.warned && remainingMs() <= WARN_MS) {
    current.warned = true;
    for (const fn of warnings) fn(current.seat);
  }
}
