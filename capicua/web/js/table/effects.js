// What the table says and shows as things happen: the status line and the screen
// reader's announcements, toasts, banners and seat stamps, the speech strip, each
// event's effect (handleEvent), and the queue that paces them and plays a hand's end
// as one scene.

import { t, onLangChange } from '../i18n/index.js';
import * as travel from '../travel.js';
import { avatarSvg } from '../neighbours.js';
import * as sound from '../sound.js';
import { $, h, fill } from '../dom.js';
import { S, V, isPlayer, mySeat, isMyTurn, partnership, slotOf, seatInfo, seatCharacter, seatIsHuman, seatName, teamLabel, teamKey, viewerWon, endWords, tileName, overKey } from './state.js';
import { seatCards, renderSeats, seatTileEl, showDraw } from './seats.js';
import { openPanel } from './panel.js';

let announceBuf = [];
let announceTimer = null;
let tickerSay = null; // the status line's last announcement, as a function of the language
/**
 * Tell screen readers, and show on the status line. `msg` is a string or a
 * function that words it in the current language: then the status line
 * follows the language toggle (renderTicker).
 */
export function announce(msg) {
  const say = typeof msg === 'function' ? msg : () => msg;
  const text = say();
  if (!text) return;
  announceBuf.push(text);
  tickerSay = say;
  $('ticker').textContent = text;
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    $('announcer').textContent = announceBuf.join(' ');
    announceBuf = [];
  }, 30);
}

export function toast(msg, code = '') {
  const el = h('div', { class: 'toast', 'data-testid': 'toast', 'data-code': code, role: 'status', text: msg });
  $('toasts').append(el);
  setTimeout(() => el.classList.add('toast--out'), 3200);
  setTimeout(() => el.remove(), 3700);
}
/**
 * Banners and stamps are worded by functions of the language, kept on the
 * element, so one on screen follows the language toggle.
 */
function wordBanner(el, title, sub = null) {
  el.wordIt = () => {
    const s = sub ? sub() : '';
    fill(el, h('strong', { text: title() }), s ? h('span', { text: s }) : null);
  };
  el.wordIt();
}
/**
 * A banner over the middle of the board (pointer-events: none). `ms` is how
 * long it stays before fading out for `fade` ms; `muted` drops the festive
 * styling (a pollona against you is announced, not celebrated). A hand's end
 * banners go when the hands turn face up (the scene's reveal), whatever `ms`.
 */
function centerBanner(kind, title, sub = null, ms = 2200, { fade = 500, muted = false } = {}) {
  const el = h('div', { class: `cbanner cbanner--${kind}${muted ? ' cbanner--muted' : ''}`, 'data-testid': 'banner', 'data-kind': kind });
  wordBanner(el, title, sub);
  $('center-banners').append(el);
  later(() => el.classList.add('cbanner--out'), ms);
  later(() => el.remove(), ms + fade);
  return el;
}

// "Mano N" is a short flash: gone after HAND_BANNER_MS + HAND_BANNER_FADE
// (≤ 1.2 s), and at once when a newer event is shown or the human is on turn.
const HAND_BANNER_MS = 800;
const HAND_BANNER_FADE = 350;
export function clearHandBanners() {
  for (const el of $('center-banners').querySelectorAll('.cbanner--hand')) el.remove();
}

/** A stamp over a seat (¡Paso!, +10), worded by `text()`. */
export function seatBanner(seat, kind, text, ms = 1900) {
  const card = seatCards.get(seat);
  if (!card) return;
  // One stamp at a seat at a time: fast moves (passes, draws, a score) replace it rather than pile up.
  for (const old of card.banners.querySelectorAll('.sbanner')) old.remove();
  const el = h('div', { class: `sbanner sbanner--${kind}`, 'data-testid': 'banner', 'data-kind': kind, 'data-seat': seat });
  el.wordIt = () => { el.textContent = text(); };
  el.wordIt();
  card.banners.append(el);
  later(() => el.classList.add('sbanner--out'), ms);
  later(() => el.remove(), ms + 400);
}

/** The status line says the last announcement again, in the current language. */
export function renderTicker() {
  if (tickerSay) $('ticker').textContent = tickerSay();
}

function confetti() {
  const box = $('confetti');
  const colours = ['#f2c14e', '#e76f51', '#2a9d8f', '#fbf6e9', '#d1495b', '#8ecae6'];
  for (let i = 0; i < 70; i++) {
    const p = h('i', {});
    p.style.left = `${Math.random() * 100}%`;
    p.style.background = colours[i % colours.length];
    p.style.animationDelay = `${Math.random() * 0.6}s`;
    p.style.animationDuration = `${1.8 + Math.random() * 1.4}s`;
    p.style.setProperty('--drift', `${(Math.random() - 0.5) * 160}px`);
    box.append(p);
    setTimeout(() => p.remove(), 4200);
  }
}

// What is said at the table (the neighbours' lines, the players' phrases) goes
// in a strip of its own under the board, never over it: one line at a time on
// a phone, two side by side on a wide screen. A line waits for room (only the
// newest SPEECH_WAITING neighbours' lines wait: stale talk is dropped; a
// player's phrase is never dropped), and the speaker's seat is marked while it shows.
const SPEECH_WAITING = 2;
const speechWaiting = [];
const speechRoom = () => (window.matchMedia('(max-width: 640px)').matches ? 1 : 2);

/** A said frame: said in its turn among the effects of its batch, by `name` (the frame's) or the seat's. */
export function showBubble(seat, es, en, { name = '', by = 'neighbour' } = {}) {
  queueEffect(() => {
    speechWaiting.push({ seat, es: es || '', en: en || '', name, player: by === 'player' });
    const neighbours = speechWaiting.filter((w) => !w.player);
    if (neighbours.length > SPEECH_WAITING) speechWaiting.splice(speechWaiting.indexOf(neighbours[0]), 1);
    nextSpeech();
    return 0;
  });
}

function nextSpeech() {
  const strip = $('speech');
  while (speechWaiting.length && strip.querySelectorAll('.bubble:not(.bubble--out)').length < speechRoom()) {
    const { seat, es, en, name, player } = speechWaiting.shift();
    const card = seatCards.get(seat);
    const side = card ? slotOf(seat) : 'top';
    const info = seatInfo(seat);
    const who = name || seatName(seat);
    const b = h('div', { class: `bubble bubble--from-${side}${player ? ' bubble--player' : ''}`, 'data-testid': 'chat-bubble', 'data-seat': seat, 'data-by': player ? 'player' : 'neighbour' },
      avatarSvg(seatCharacter(seat), who, { human: seatIsHuman(seat), look: typeof info.avatar === 'object' ? info.avatar : null }),
      h('div', { class: 'bubble-words' },
        h('p', { class: 'bubble-es', lang: 'es' }, h('b', { class: 'bubble-who', text: `${who}: ` }), es),
        en ? h('p', { class: 'bubble-en', lang: 'en', text: en }) : null));
    strip.append(b);
    if (card) card.el.classList.add('seat--talking');
    const ms = Math.max(3200, 55 * (es.length + en.length));
    later(() => {
      b.classList.add('bubble--out');
      if (card) card.el.classList.remove('seat--talking');
      nextSpeech();
    }, ms);
    later(() => b.remove(), ms + 350);
  }
}

function numbersText(nums) {
  return (nums || []).join(t('say.numbers.or'));
}

function handleEvent(ev, prev) {
  if (ev.kind !== 'hand_start') clearHandBanners();
  const me = isPlayer() && ev.seat === mySeat();
  // Words are functions of the language: the status line and the banners follow the toggle.
  const who = () => (ev.seat !== undefined && ev.seat !== null ? seatName(ev.seat) : '');
  switch (ev.kind) {
    case 'play': {
      // A neighbour's tile flies in from its seat and slams as it lands.
      if (me) sound.click();
      else {
        // The scene's next effect waits for the landing (pumpEffects).
        fx.landing = new Promise((landed) => travel.flyPlay(ev.tile || [0, 0], seatTileEl(ev.seat), $('board'), () => { sound.slam(); landed(); }));
      }
      const first = ev.end === null || ev.end === undefined;
      const tile = ev.tile || [0, 0];
      const sub = me ? standInFor(ev) : null;
      if (sub !== null) { const end = endWords(ev); announce(() => playedForMe(ev, sub, end)); }
      else if (first) announce(() => t(me ? 'say.open.me' : 'say.open', { name: who(), tile: tileName(tile) }));
      else {
        const end = endWords(ev);
        announce(() => t(me ? 'say.play.me' : 'say.play', { name: who(), tile: tileName(tile), end: end() }));
      }
      break;
    }
    case 'pass': {
      sound.knock();
      seatBanner(ev.seat, 'pass', () => t('banner.pass'));
      const nums = ev.numbers && ev.numbers.length ? ev.numbers : null;
      announce(() => (nums ? t(me ? 'say.pass.me' : 'say.pass', { name: who(), nums: numbersText(nums) }) : t('say.pass.plain', { name: who() })));
      break;
    }
    case 'draw':
      announce(() => t(me ? 'say.draw.me' : 'say.draw', { name: who() }));
      showDraw(ev.seat);
      break;
    case 'score':
      seatBanner(ev.seat, 'score', () => `+${ev.points}`);
      announce(() => t(me ? 'say.score.me' : 'say.score', { name: who(), points: ev.points }));
      break;
    case 'domino': {
      const r = V().result || {};
      const out = ev.seat ?? (r.seat !== undefined ? r.seat : (prev && prev.turn));
      const mine = isPlayer() && out === mySeat();
      centerBanner('domino', () => t('banner.domino'), () => t('banner.domino.sub'), SCENE.hold);
      announce(() => (mine ? t('say.domino.me') : t('say.domino', { name: seatName(out) })));
      break;
    }
    case 'tranque':
      centerBanner('tranque', () => t('banner.tranque'), null, SCENE.hold);
      announce(() => t('say.tranque'));
      break;
    case 'capicua': {
      // A capicúa that ends a match the viewer lost is announced, not celebrated.
      const mr = V().phase === 'match_over' ? V().match_result : null;
      const lostMatch = !!mr && viewerWon(mr.winner) === false;
      centerBanner('capicua', () => t('banner.capicua'), null, SCENE.hold, { muted: lostMatch });
      if (!lostMatch) { confetti(); sound.fanfare(); }
      announce(() => t('say.capicua'));
      break;
    }
    case 'hand_start': {
      S.pending = null;
      S.nextSentFor = null;
      if (S.panel === 'result') S.panel = null;
      const n = ev.hand_number ?? V().hand_number;
      const opener = ev.opener ?? V().opener;
      const say = () => (isPlayer() && opener === mySeat() ? t('say.hand_start.me', { n }) : t('say.hand_start', { n, name: seatName(opener) }));
      // Never over the board while the human has to play: then the ticker says it.
      if (!isMyTurn()) centerBanner('hand', () => t('banner.hand', { n }), () => say().replace(/^[^:]*:\s*/, ''), HAND_BANNER_MS, { fade: HAND_BANNER_FADE });
      announce(say);
      break;
    }
    case 'hand_end': {
      // The event spreads RESULT into itself, so its own `kind` hides RESULT.kind: read the view.
      const r = V().result || ev;
      if (r.kind === 'tie' || !r.points || r.team === null || r.team === undefined) {
        announce(() => t('say.hand_tie'));
        if (r.kind === 'tie') centerBanner('tie', () => t('banner.tie'), null, SCENE.hold);
      } else {
        const key = teamKey('say.hand_end', r.team);
        announce(() => t(key === 'say.hand_end' && r.points === 1 ? 'say.hand_end.one' : key, { team: teamLabel(r.team), points: r.points }));
      }
      break;
    }
    case 'redeal':
      centerBanner('redeal', () => t('banner.redeal'));
      announce(() => t(ev.reason === 'no_double' ? 'say.redeal.no_double' : 'say.redeal.five_doubles'));
      break;
    case 'redeal_declined':
      announce(() => (me ? t('say.redeal_declined.me') : t('say.redeal_declined', { name: who() })));
      break;
    case 'match_end': {
      // Celebrate only the viewer's own win; a loss gets a gracious banner,
      // and a pollona or viajera against you is announced without the party.
      const won = viewerWon(ev.winner);
      const lost = won === false;
      announce(() => t(teamKey('say.match_end', ev.winner), { team: teamLabel(ev.winner) }));
      if (lost) fill($('confetti'));
      const sfx = partnership() ? '' : '.me';
      const target = (V().rules || {}).target;
      const sub = () => (lost ? t(`match.lost.sub${sfx}`) : '');
      if (ev.viajera) centerBanner('viajera', () => t('banner.viajera'), () => (lost ? sub() : t('banner.viajera.sub', { target })), SCENE.hold, { muted: lost });
      else if (ev.pollona) centerBanner('pollona', () => t('banner.pollona'), sub, SCENE.hold, { muted: lost });
      else if (lost) centerBanner('lost', () => t(`banner.lost${sfx}`), sub, SCENE.hold, { muted: true });
      else if (won) centerBanner('won', () => t(`banner.won${sfx}`), null, SCENE.hold);
      if (won === true) { confetti(); sound.fanfare(); }
      break;
    }
    default:
      break;
  }
}

/** The neighbour's name when a stand-in made this play (event `by`: stand_in, timeout), else null. */
function standInFor(ev) {
  if (ev.by !== 'stand_in' && ev.by !== 'timeout') return null;
  return (ev.stand_in && ev.stand_in.name) || t('seat.standin.someone');
}

/** "Pancho jugó por ti el 5-3 al 5." (after "Se te acabó el tiempo." on a time-out); `end()` words its end. */
function playedForMe(ev, sub, end) {
  const tile = tileName(ev.tile || [0, 0]);
  const first = ev.end === null || ev.end === undefined;
  const said = first ? t('say.standin.open.me', { sub, tile }) : t('say.standin.play.me', { sub, tile, end: end() });
  return ev.by === 'timeout' ? `${t('say.timeout.me')} ${said}` : said;
}

/** Events missed while away (a replay): the plays a stand-in made for me, said in one line. */
export function sayMissedStandIn(events) {
  if (!isPlayer()) return;
  const mine = events.filter((e) => e.kind === 'play' && e.seat === mySeat() && standInFor(e) !== null);
  if (!mine.length) return;
  const sub = standInFor(mine[mine.length - 1]);
  const n = mine.length;
  announce(() => t(n === 1 ? 'say.standin.back.one' : 'say.standin.back', { sub, n }));
}

// Events of one batch (a play and the automatic passes after it, say) arrive
// together, all carrying the final view: the view renders at once, and the
// effects of the burst (sounds, stamps, banners, speech) play one after
// another from a queue, each holding the next back for its gap.
//
// The end of a hand is one scene, in this order: the last tile lands, the
// banner(s) show, the other hands turn face up at their seats (the banners
// go), then the score sheet opens. A new hand (its hand_start, or a sync)
// cancels every pending timer, banner, stamp, line of speech and effect.
const FX_GAP = { play: 420, pass: 520, draw: 300, capicua: 250, redeal: 1200 };
const TRANQUE_PASS_GAP = 320; // the passes that block the game go by quicker
const SCENE = { banner: 1500, matchBanner: 2200, reveal: 1400, hold: 8000 }; // hold: a safety net, the reveal takes them
// landing: the flight of the tile just played, when one is in the air; epoch: which hand the queue plays.
const fx = { queue: [], busy: false, timers: new Set(), scene: null, slamUntil: 0, landing: null, epoch: 0 };
const LANDING_PATIENCE_MS = 1500; // a flight that never reports its landing holds nothing up for longer
// The last tile lands for SLAM_MS: the rest of its batch, a few ms behind it,
// draws the board again, and the tile lands on that drawing too (not cut short).
const SLAM_MS = 250;

/** A timeout that a new hand cancels. */
function later(fn, ms) {
  const id = setTimeout(() => { fx.timers.delete(id); fn(); }, ms);
  fx.timers.add(id);
  return id;
}

/** Queue `run` (it plays an effect and returns how long the next one waits). */
function queueEffect(run, kind = '') {
  run.kind = kind;
  fx.queue.push(run);
  if (!fx.busy) pumpEffects();
}

export function paceEffects(ev, prev) {
  if (ev.kind === 'hand_start') clearEffects();
  // Known at once, before the board and seats are drawn: a neighbour's tile waits in the air, counts wait for draws.
  travel.expect(ev, prev, V(), !(isPlayer() && ev.seat === mySeat()));
  if (ev.kind === 'play') {
    S.animateLast = true;
    fx.slamUntil = performance.now() + SLAM_MS;
  }
  queueEffect(() => {
    handleEvent(ev, prev);
    return effectGap(ev);
  }, ev.kind);
}

function effectGap(ev) {
  if (ev.kind === 'pass' && fx.queue.some((run) => run.kind === 'tranque')) return TRANQUE_PASS_GAP;
  if (ev.kind === 'domino' || ev.kind === 'tranque') return SCENE.banner;
  if (ev.kind === 'hand_end') return $('center-banners').querySelector('[data-kind="tie"]') ? SCENE.banner : 0;
  if (ev.kind === 'match_end') return SCENE.matchBanner;
  return FX_GAP[ev.kind] || 0;
}

function pumpEffects() {
  // Once the batch's effects are told, a hand's end goes on: the hands face up, then the sheet.
  if (!fx.queue.length && fx.scene && !fx.scene.told) {
    fx.scene.told = true;
    fx.queue.push(revealHands, openSheet);
  }
  const run = fx.queue.shift();
  if (!run) { fx.busy = false; return; }
  fx.busy = true;
  let gap = 0;
  try { gap = run() || 0; } catch (e) { setTimeout(() => { throw e; }); }
  const landing = fx.landing;
  fx.landing = null;
  if (landing) {
    // A tile in the air: what follows (a banner, say) waits for it to land, and for its gap.
    const epoch = fx.epoch;
    const start = performance.now();
    Promise.race([landing, new Promise((r) => setTimeout(r, LANDING_PATIENCE_MS))]).then(() => {
      if (epoch === fx.epoch) later(pumpEffects, Math.max(0, gap - (performance.now() - start)));
    });
  } else if (gap) later(pumpEffects, gap); else pumpEffects();
}

/** A hand (or the match) ended while we watched: play its scene (once). */
export function startScene(v) {
  const key = overKey(v);
  if (S.panelHandShown === key || (fx.scene && fx.scene.key === key)) return;
  fx.scene = { key, told: false, revealed: false };
  if (!fx.busy) pumpEffects();
}

/** Whether the hands may show face up at the seats: not before the scene's reveal. */
export function revealDue() {
  if (S.replay) return true; // a replay shows every hand face up all along
  return !fx.scene || fx.scene.revealed || fx.scene.key !== overKey(V());
}

function removeBanners() {
  for (const el of document.querySelectorAll('#center-banners > *, .seat-banners > *')) el.remove();
}

function revealHands() {
  removeBanners(); // they have had their time: none is left over the sheet
  if (fx.scene) fx.scene.revealed = true;
  renderSeats();
  return SCENE.reveal;
}

function openSheet() {
  const key = fx.scene && fx.scene.key;
  fx.scene = null;
  if (key && overKey(V()) === key && S.panelHandShown !== key) {
    S.panelHandShown = key;
    openPanel('result');
  }
  return 0;
}

/** A new hand: nothing of the last one is still news. */
export function clearEffects() {
  for (const id of fx.timers) clearTimeout(id);
  fx.timers.clear();
  fx.queue.length = 0;
  fx.busy = false;
  fx.scene = null;
  fx.landing = null;
  fx.epoch += 1;
  travel.forget();
  speechWaiting.length = 0;
  removeBanners();
  fill($('speech'));
  fill($('confetti'));
  for (const card of seatCards.values()) card.el.classList.remove('seat--talking');
}

onLangChange(() => {
  for (const el of document.querySelectorAll('#center-banners > *, .seat-banners > *')) if (el.wordIt) el.wordIt();
});

/** Whether the tile just played is still landing: a render now lands it again (not cut short). */
export function slamming() { return performance.now() < fx.slamUntil; }
