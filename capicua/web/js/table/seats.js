// The seats around the felt: one card per seat (name, avatar, chips, tiles face down
// or revealed), and the tiles in the air between seats, boneyard and board.

import { t } from '../i18n/index.js';
import { tileSvg, tileKey } from '../tiles.js';
import * as travel from '../travel.js';
import { avatarSvg } from '../neighbours.js';
import * as countdown from '../countdown.js';
import { $, h, fill } from '../dom.js';
import { nameLink, NEW_TAB } from '../namelink.js';
import { V, nPlayers, isPlayer, mySeat, teams, myTeam, partnership, clockwise, relOf, slotOf, seatInfo, seatCharacter, seatIsHuman, seatName, seatLevel, pipsText, clockedSeat } from './state.js';
import { seatBanner, revealDue } from './effects.js';

export const seatCards = new Map();
let seatLayoutKey = '';

/** The seats are laid out afresh at the next render (a welcome may have changed mine). */
export function resetSeats() { seatLayoutKey = ''; }

function ensureSeats() {
  const n = nPlayers();
  const key = `${n}:${mySeat()}:${isPlayer()}:${clockwise()}`;
  if (key === seatLayoutKey) return;
  seatLayoutKey = key;
  seatCards.clear();
  // The page's CSS lays the felt out by the number of seats and by who scores (teams or seats).
  document.body.dataset.seats = String(n);
  for (const slot of ['top', 'left', 'right', 'bottom']) fill($(`slot-${slot}`));
  for (let s = 0; s < n; s++) {
    const slot = slotOf(s);
    const card = {
      el: h('div', { class: `seat seat--${slot}`, 'data-seat': s, 'data-testid': 'seat' }),
      id: h('div', { class: 'seat-id' }),
      hand: h('div', { class: 'seat-hand' }),
      count: h('span', { class: 'count-badge', 'data-testid': 'count-badge', 'aria-hidden': 'true' }),
      tiles: h('div', { class: 'seat-tiles', 'aria-hidden': 'true' }),
      banners: h('div', { class: 'seat-banners' }),
    };
    // Two seats across the top: in play order, which runs right to left when play is counter-clockwise.
    card.el.style.order = String(clockwise() ? relOf(s) : -relOf(s));
    card.hand.append(card.count, card.tiles);
    card.el.append(card.id, card.hand);
    // A stamp never covers a name: at a side seat it lies on the seat's tiles (leaning to the board);
    // at the top and the bottom, whose cards put the name beside the tiles, it sits just off the card, toward the board.
    ((slot === 'left' || slot === 'right') ? card.hand : card.el).append(card.banners);
    $(`slot-${slot}`).append(card.el);
    seatCards.set(s, card);
  }
}

function seatChips(s, onTurn, me) {
  const v = V();
  const info = seatInfo(s);
  const chips = [];
  // Individual games: each seat's score at the seat (the top bar has no room for five on a phone).
  if (!partnership() && Array.isArray(v.scores)) chips.push(h('span', { class: 'chip chip--score', 'data-testid': 'seat-score', text: t('seat.score', { n: v.scores[teams()[s]] ?? 0 }) }));
  if (v.opener === s && v.phase !== 'match_over') chips.push(h('span', { class: 'chip chip--mano', text: t('seat.mano') }));
  if (seatIsHuman(s) && !me) chips.push(presenceChip(info));
  if (onTurn) chips.push(h('span', { class: 'chip chip--turn', text: me ? t('seat.yourturn') : t('seat.turn') }));
  if (onTurn && clockedSeat() === s) chips.push(countdown.countdownEl());
  return chips;
}

/** A player's presence in words and a mark, not colour alone: online, or gone. */
function presenceChip(info) {
  const on = info.connected !== false;
  const long = t(on ? 'seat.connected' : 'seat.disconnected');
  return h('span', { class: `chip ${on ? 'chip--on' : 'chip--off'}`, 'data-testid': 'presence', 'data-connected': String(on), title: long },
    h('span', { class: 'chip-mark', 'aria-hidden': 'true', text: on ? '●' : '○' }),
    h('span', { class: 'chip-long', text: long }),
    h('span', { class: 'chip-short', text: t(on ? 'seat.connected.short' : 'seat.disconnected.short') }));
}

/** "Pancho juega por Ana", with Pancho's face, while a neighbour plays for an absent player. */
function standInLine(info) {
  const sub = info.stand_in;
  if (!sub || info.kind !== 'human') return null;
  return h('span', { class: 'seat-standin', 'data-testid': 'stand-in' },
    avatarSvg(sub.character || null, sub.name || '', {}),
    h('span', { text: t('seat.standin', { sub: sub.name || t('seat.standin.someone'), name: info.name }) }));
}

export function renderSeats() {
  ensureSeats();
  const v = V();
  document.body.dataset.scoring = partnership() ? 'teams' : 'seats';
  const counts = v.counts || [];
  // The other hands turn face up at their seats at the scene's reveal (at once on a sync).
  const revealed = revealDue() ? v.revealed : null;
  const pips = revealed && v.result ? v.result.pip_totals : null;
  for (const [s, card] of seatCards) {
    const slot = slotOf(s);
    const me = isPlayer() && s === mySeat();
    const onTurn = v.phase === 'play' && v.turn === s;
    card.el.classList.toggle('seat--turn', onTurn);
    card.el.classList.toggle('seat--mate', partnership() && teams()[s] === myTeam());
    card.el.dataset.team = teams()[s] ?? '';
    const count = counts[s] ?? 0;
    const countText = count === 1 ? t('seat.tile1') : t('seat.tiles', { n: count });
    const lvl = seatLevel(s); // my own seat is a guest's: my level in the standings
    const pip = pips && pips[s] !== undefined && pips[s] !== null ? pipsText(pips[s]) : '';
    const passed = (v.passed_on && v.passed_on[s]) || [];
    const info = seatInfo(s);
    const avatar = avatarSvg(seatCharacter(s), seatName(s), { human: seatIsHuman(s), look: typeof info.avatar === 'object' ? info.avatar : null });
    card.el.classList.toggle('seat--away', seatIsHuman(s) && info.connected === false);
    card.el.dataset.standIn = info.stand_in ? 'true' : 'false';
    fill(card.id, avatar, h('div', { class: 'seat-meta' },
      h('span', { class: 'seat-name', 'data-testid': 'seat-name' }, nameLink(seatName(s), seatIsHuman(s) ? info.player : null, NEW_TAB)),
      standInLine(info),
      lvl ? h('span', { class: 'seat-sub', 'data-testid': seatIsHuman(s) ? 'seat-level' : null, text: lvl }) : null,
      pip ? h('span', { class: 'seat-pips', text: pip }) : null,
      h('div', { class: 'seat-chips' }, ...seatChips(s, onTurn, me)),
      passed.length ? h('span', { class: 'passed', title: t('seat.passed', { nums: passed.join(', ') }) }, ...passed.map((x) => h('b', { text: String(x) }))) : null));
    const presence = seatIsHuman(s) && !me ? t(info.connected === false ? 'seat.disconnected' : 'seat.connected') : '';
    const standIn = info.stand_in ? t('seat.standin', { sub: info.stand_in.name, name: info.name }) : '';
    card.el.setAttribute('aria-label', `${seatName(s)}: ${[presence, standIn, lvl, pip, countText].filter(Boolean).join(', ')}`);
    card.count.textContent = String(count);
    card.count.title = countText;
    // The tiles at that seat: face down, or face up once revealed; none at my own seat (my hand is below).
    const show = revealed && Array.isArray(revealed[s]) ? revealed[s] : null;
    fill(card.tiles);
    card.tiles.dataset.tiles = show && !me ? show.map(tileKey).join(' ') : '';
    card.el.classList.toggle('seat--revealed', !!show && !me);
    card.hand.hidden = me;
    if (me) continue;
    const horizontal = slot === 'left' || slot === 'right';
    if (show) {
      for (const tl of show) card.tiles.append(tileSvg(tl[0], tl[1], { horizontal: false }));
    } else {
      const n = Math.min(count, 12);
      for (let i = 0; i < n; i++) card.tiles.append(tileSvg(0, 0, { back: true, horizontal }));
    }
  }
}
/**
 * Put back what is still in the air after a render: the board tiles flying
 * in (renderBoardArea), the drawers' counts and face-down tiles, and the
 * player's own drawn tiles that have not reached the hand yet.
 */
export function renderInFlight() {
  const counts = V().counts || [];
  for (const [s, card] of seatCards) {
    const waiting = travel.drawsWaiting(s);
    if (!card.count) continue;
    card.count.textContent = String(Math.max(0, (counts[s] ?? 0) - waiting));
    const backs = [...card.tiles.querySelectorAll('.tile-svg')];
    backs.forEach((el, i) => { el.style.visibility = i >= backs.length - waiting ? 'hidden' : ''; });
  }
  const mine = travel.handTilesWaiting();
  for (const btn of $('hand').querySelectorAll('[data-testid="tile"]')) btn.style.visibility = mine.has(btn.dataset.key) ? 'hidden' : '';
}

/** Where a neighbour's played tile leaves from: one of the face-down tiles at its seat (else the seat). */
export function seatTileEl(seat) {
  const card = seatCards.get(seat);
  if (!card) return null;
  const backs = [...card.tiles.querySelectorAll('.tile-svg')].filter((el) => el.getClientRects().length);
  return backs[backs.length - 1] || card.el;
}

/** Where a drawn tile flies from: the boneyard's count on the status line. */
function boneyardRect() {
  const el = $('sleeping');
  const r = el && el.getClientRects().length ? el.getBoundingClientRect() : null;
  if (r && r.width) return r;
  const b = $('board').getBoundingClientRect();
  return new DOMRect(b.left + b.width / 2 - 10, b.top + b.height / 2 - 20, 20, 40);
}

/** Where `seat`'s next drawn tile lands: its place in my hand, else the seat's next hidden back (or the seat). */
function drawTarget(seat, key) {
  if (key) return $('hand').querySelector(`[data-testid="tile"][data-key="${key}"]`);
  const card = seatCards.get(seat);
  if (!card) return null;
  const backs = [...card.tiles.querySelectorAll('.tile-svg')];
  return backs.find((el) => el.style.visibility === 'hidden') || backs[backs.length - 1] || card.el;
}

/** One draw, shown: the seat's "roba" stamp, a face-down tile flying to it, the count going up as it lands. */
export function showDraw(seat) {
  seatBanner(seat, 'draw', () => t('banner.draw'), 700);
  renderInFlight();
  travel.landDraw(seat, boneyardRect(), (key) => drawTarget(seat, key)).then(renderInFlight);
}
