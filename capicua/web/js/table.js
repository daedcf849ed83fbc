// The table's renderer: fed frames of docs/protocol.md by a source (mountTable),
// keeps seq, renders the VIEW, and sends intents (play, next_hand, redeal) to the
// source. The live table (live.js) feeds it a websocket; a replay (replay.js) feeds
// it the frames of a finished match. Test hooks: data-testid attributes,
// body[data-phase], body[data-turn].

import { t, has, lang, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { tileSvg, tileKey, sameTile, svg } from './tiles.js';
import { renderBoard } from './board.js';
import * as travel from './travel.js';
import { loadNeighbours, neighbour, avatarSvg } from './neighbours.js';
import * as sound from './sound.js';
import { wireLobby, renderLobby, joinFailed, noticeFor, renderNotice } from './lobby.js';
import { readToken, forgetToken, readNickname, signIn, rememberTable } from './guest.js';
import * as countdown from './countdown.js';
import { createTalk } from './talk.js';
import { $, h } from './dom.js';
import { renderRematch } from './rematch.js';
import { renderHandover } from './handover.js';

/** Replace an element's children, skipping null/undefined/false. */
function fill(el, ...kids) {
  el.replaceChildren(...kids.flat().filter((k) => k !== null && k !== undefined && k !== false));
}
// ---------------------------------------------------------------- state

const pageTableId = decodeURIComponent((location.pathname.match(/\/t\/([^/?#]+)/) || [])[1] || new URLSearchParams(location.search).get('table') || '');
// The link with ?mirar=1 ("Mirar") watches: the hello says watch, the page shows the public view only.
const watchOnly = new URLSearchParams(location.search).get('mirar') === '1';
const S = {
  tableId: pageTableId,
  watch: watchOnly, // this page only watches: its hello says so, and no notice explains it
  replay: null, // {match, ghosts()}: the frames are a finished match's, every hand face up (replay.js)
  honours: null, // the last honours frame (a level-up, achievements), shown until closed or the next match
  token: readToken(), // this browser's one token (guest.js); null until it signs in
  seat: null, // the seat this socket plays as the last welcome said (null: watching)
  host: false, // this browser opened the table: its seat is TABLE.host_seat
  notice: null, // the notice shown of a table this browser only watches (lobby.js noticeFor), or null
  sitAfterHello: null, // the seat to ask for once the hello with a new token is welcomed
  rematchFor: null, // the match whose "Otra partida" was sent
  nickname: readNickname(),
  tableInfo: null,
  view: null,
  seq: 0,
  pending: null, // {tile, options}
  awaiting: false,
  awaitTimer: null,
  boardShape: null, // the board layout's shape, kept from render to render so the drawing does not flip
  animateLast: false,
  panel: null, // null | 'libreta' | 'result'
  panelHandShown: null, // hand number whose result panel was auto-opened
  nextSentFor: null,
  panelFocusKey: null, // `${mode}:${hand}:${phase}` the panel last took the focus for
  panelReturnFocus: null, // what had the focus before the panel opened
  status: 'connecting',
  paused: false, // the server cannot save: nothing changes until it says so
  fatal: null, // the key of what makes the table unusable ("err.unknown_table"): the page says only that
};

// ---------------------------------------------------------------- helpers

const V = () => S.view || {};
const nPlayers = () => (V().rules && V().rules.players) || (V().counts && V().counts.length) || 4;
const isPlayer = () => typeof V().seat === 'number' || (S.view === null && typeof S.seat === 'number');
const mySeat = () => (typeof V().seat === 'number' ? V().seat : (typeof S.seat === 'number' ? S.seat : 0));
const isMyTurn = () => isPlayer() && V().phase === 'play' && V().turn === mySeat();
const teams = () => V().teams || [0, 1, 0, 1].slice(0, nPlayers());
const myTeam = () => teams()[mySeat()];
const partnership = () => {
  const r = V().rules || {};
  if (typeof r.partnership === 'boolean') return r.partnership;
  return nPlayers() === 4 && (V().scores || []).length === 2;
};

// Where each seat sits, counted from mine in play order (2 to 5 players).
const SLOTS = {
  2: ['bottom', 'top'],
  3: ['bottom', 'right', 'left'],
  4: ['bottom', 'right', 'top', 'left'],
  5: ['bottom', 'right', 'top', 'top', 'left'],
};
const clockwise = () => !!(V().rules && V().rules.direction === 'clockwise');
function relOf(seat, me = mySeat()) { const n = nPlayers(); return (seat - me + n) % n; }
function slotOf(seat, me = mySeat()) {
  const n = nPlayers();
  const slot = (SLOTS[n] || SLOTS[4])[relOf(seat, me)] || 'top';
  // SLOTS assume counter-clockwise play (the next player sits on my right).
  if (clockwise()) return slot === 'left' ? 'right' : slot === 'right' ? 'left' : slot;
  return slot;
}

/** The TABLE's seat (docs/protocol.md): {seat, kind, name, …}, or {} before the welcome. */
function seatInfo(seat) {
  return (S.tableInfo && S.tableInfo.seats[seat]) || {};
}
function seatCharacter(seat) {
  return seatInfo(seat).character || null;
}
function seatIsHuman(seat) {
  return seatInfo(seat).kind === 'human';
}
function seatName(seat) {
  if (seat === null || seat === undefined) return '?';
  const name = seatInfo(seat).name;
  if (name) return name;
  if (isPlayer() && seat === mySeat()) return S.nickname || t('seat.you');
  const rel = relOf(seat);
  if (nPlayers() === 4) return [t('seat.you'), t('seat.right'), t('seat.partner'), t('seat.left')][rel];
  return t('seat.name', { n: seat + 1 });
}
/** A neighbour's bot level, or a guest's level in the standings (the seat's player_level). */
function seatLevel(seat) {
  const info = seatInfo(seat);
  if (info.kind === 'human') return info.player_level ? t('seat.player_level', { name: levelName(info.player_level) }) : '';
  const lv = info.level;
  return lv ? (has(`levelshort.${lv}`) ? t(`levelshort.${lv}`) : lv) : '';
}
const levelName = (level) => (lang() === 'en' && level.name_en ? level.name_en : level.name);
/** The score columns in the order shown: the viewer's own side first ("Nosotros", whatever the seat), then the others. */
function teamOrder() {
  const cols = (V().scores || []).map((_, i) => i);
  const mine = isPlayer() ? myTeam() : null;
  return mine === null || mine === undefined || !cols.includes(mine) ? cols : [mine, ...cols.filter((c) => c !== mine)];
}
function teamLabel(team) {
  if (!partnership()) return seatName(team);
  if (!isPlayer()) return team === 0 ? t('team.ns') : t('team.ew');
  return team === myTeam() ? t('team.us') : t('team.them');
}
/**
 * Pick the phrasing that agrees with who `team` is, seen from this screen:
 * key.us / key.them in partnership games, key.me when it is the viewer's own
 * seat in individual games, else key (a neutral phrasing for any name).
 */
function teamKey(key, team) {
  if (!isPlayer()) return key;
  if (partnership()) return team === myTeam() ? `${key}.us` : `${key}.them`;
  return team === myTeam() ? `${key}.me` : key;
}
/** true when the viewer's team (or own seat) won `winner`, false when it lost, null for spectators. */
function viewerWon(winner) {
  if (!isPlayer() || winner === null || winner === undefined) return null;
  return winner === myTeam();
}
/**
 * The open end a play went on, as it showed before the tile: {value, double}
 * ("al 5", "al doble 6": what players say, never left or right). Read from the
 * line the tile now lies in (each tile is kept as [inner, outer]: inner is the
 * number it matched); the tile before it on that line, or the line's start (the
 * centre tile, or the double a cross line grows from), says whether it was a double.
 */
function endBefore(ev) {
  const v = V();
  const line = (v.arms || {})[ev.end] || [];
  const key = tileKey(ev.tile || [0, 0]);
  const i = line.findIndex((tl) => tileKey(tl) === key);
  if (i < 0) return null;
  const below = i > 0 ? line[i - 1] : null;
  const centre = v.center || [];
  const double = below ? below[0] === below[1] : /^arm\d+$/.test(ev.end) || (centre.length === 2 && centre[0] === centre[1]);
  return { value: line[i][0], double };
}

/** A play's end in words, fixed when the play is shown: "al 5", "al doble 6" (the language may change later). */
function endWords(ev) {
  const e = endBefore(ev);
  if (!e) return () => endChoiceLabel(ev.end); // not on the board any more: the end as it shows now
  return () => t(e.double ? 'choose.end.double' : 'choose.end', { value: e.value });
}
/** "12 puntos", "1 punto": the pips left in a hand. */
function pipsText(n) {
  return n === 1 ? t('seat.pips.one') : t('seat.pips', { n });
}
function tileName(tile) {
  return tile[0] === tile[1] ? t('tile.double', { a: tile[0] }) : t('tile.name', { a: tile[0], b: tile[1] });
}
function optionsFor(tile) {
  const out = [];
  for (const l of V().legal || []) {
    if (!sameTile(l.tile, tile)) continue;
    if (!out.some((o) => (o.end ?? null) === (l.end ?? null))) out.push(l);
  }
  return out;
}
function isPlayable(tile) { return isMyTurn() && optionsFor(tile).length > 0; }

// ---------------------------------------------------------------- announcements, toasts, banners

let announceBuf = [];
let announceTimer = null;
let tickerSay = null; // the status line's last announcement, as a function of the language
/**
 * Tell screen readers, and show on the status line. `msg` is a string or a
 * function that words it in the current language: then the status line
 * follows the language toggle (renderTicker).
 */
function announce(msg) {
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

function toast(msg, code = '') {
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
function clearHandBanners() {
  for (const el of $('center-banners').querySelectorAll('.cbanner--hand')) el.remove();
}

/** A stamp over a seat (¡Paso!, +10), worded by `text()`. */
function seatBanner(seat, kind, text, ms = 1900) {
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

/**
 * The table cannot be shown (no such table): the page says so on its own, in
 * the current language (`key`), with a way home; the top bar keeps its language toggle.
 */
function showFatal(key) {
  S.fatal = key;
  renderFatal();
}

function renderFatal() {
  const box = $('fatal');
  box.hidden = !S.fatal;
  if (!S.fatal) return;
  fill(box,
    h('div', { class: 'fatal-card' },
      h('p', { text: t(S.fatal) }),
      h('a', { class: 'btn btn-primary', href: '/', text: t('btn.home'), 'data-testid': 'go-home' })));
}

// ---------------------------------------------------------------- seats

const seatCards = new Map();
let seatLayoutKey = '';

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

/**
 * The seat whose turn runs on the clock (TABLE.deadline), once this page
 * counts it and while that seat is on turn (a table frame names the next
 * deadline a moment after the events that moved the turn).
 */
function clockedSeat() {
  const d = S.tableInfo && S.tableInfo.deadline;
  const v = V();
  if (!d || countdown.seatOnClock() !== d.seat) return null;
  return (v.phase === 'play' || v.phase === 'redeal_question') && v.turn === d.seat ? d.seat : null;
}

function renderSeats() {
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
      h('span', { class: 'seat-name', 'data-testid': 'seat-name', text: seatName(s) }),
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

// ---------------------------------------------------------------- speech

// What is said at the table (the neighbours' lines, the players' phrases) goes
// in a strip of its own under the board, never over it: one line at a time on
// a phone, two side by side on a wide screen. A line waits for room (only the
// newest SPEECH_WAITING neighbours' lines wait: stale talk is dropped; a
// player's phrase is never dropped), and the speaker's seat is marked while it shows.
const SPEECH_WAITING = 2;
const speechWaiting = [];
const speechRoom = () => (window.matchMedia('(max-width: 640px)').matches ? 1 : 2);

/** A said frame: said in its turn among the effects of its batch, by `name` (the frame's) or the seat's. */
function showBubble(seat, es, en, { name = '', by = 'neighbour' } = {}) {
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

// ---------------------------------------------------------------- header, status

function renderScores() {
  const v = V();
  const box = $('scores');
  const scores = v.scores || [];
  const target = v.rules && v.rules.target;
  const parts = teamOrder().map((i) => h('span', { class: `score${partnership() && isPlayer() && i === myTeam() ? ' score--us' : ''}`, 'data-team': i },
    h('span', { class: 'score-name', text: teamLabel(i) }), h('b', { class: 'score-pts', text: String(scores[i]) })));
  fill(box, ...parts, target ? h('span', { class: 'score-target', text: t('scores.to', { target }) }) : null, watchersChip('watchers'));
  // A phone's header has no room left: there the status line under the board says it.
  let line = $('watchers-line');
  if (!line) { line = h('span', { id: 'watchers-line', class: 'watchers-line' }); $('sleeping').before(line); }
  fill(line, watchersChip('watchers-line-chip'));
}

/** "2 mirando": how many watch the table (TABLE.watchers), when anyone does. */
function watchersChip(testid) {
  const n = (S.tableInfo && S.tableInfo.watchers) || 0;
  if (n <= 0) return null;
  const words = t(n === 1 ? 'watchers.one' : 'watchers.many', { n });
  const eye = svg('svg', { viewBox: '0 0 24 24', class: 'watchers-eye', 'aria-hidden': 'true' });
  svg('path', { d: 'M12 5c5 0 9 4.5 10 7-1 2.5-5 7-10 7S3 14.5 2 12c1-2.5 5-7 10-7zm0 3a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm0 2.2a1.8 1.8 0 1 1 0 3.6 1.8 1.8 0 0 1 0-3.6z' }, eye);
  return h('span', { class: 'watchers', 'data-testid': testid, 'data-n': n, title: words }, eye, h('span', { text: words }));
}

function renderStatus() {
  const v = V();
  const rules = v.rules || {};
  // The tiles left out of the hands, as the view's rules say: drawn from in a
  // draw game, sleeping all hand long otherwise, and none where every tile is dealt.
  const counted = typeof v.boneyard === 'number' && (rules.drawing === true || rules.sleeping !== 0);
  const sl = $('sleeping');
  sl.hidden = !counted;
  sl.textContent = counted ? t(rules.drawing ? 'boneyard' : 'sleeping', { n: v.boneyard }) : '';
  if (tickerSay) $('ticker').textContent = tickerSay();
  const chip = $('seed-hash');
  if (v.seed_hash) {
    chip.hidden = false;
    chip.dataset.hash = v.seed_hash;
    fill(chip, lockIcon(), h('span', { class: 'seed-label', text: t('seed.label') }), h('code', { text: `${String(v.seed_hash).slice(0, 8)}…` }));
    chip.title = t('seed.title');
  } else chip.hidden = true;
  renderSeedPop();
  const conn = $('conn');
  const shown = connShown();
  conn.hidden = shown === 'open';
  conn.textContent = t(`status.${shown}`);
  conn.dataset.status = shown;
}

/** The connection's state as the status line says it: "open" (nothing to say), "paused", "reconnecting", … */
function connShown() {
  return S.status === 'open' && S.paused ? 'paused' : S.status;
}

/** The connection changed: the status line says so (in the lobby, its own line). */
function renderConn() {
  if (document.body.dataset.lobby === 'on') renderAll(); else renderStatus();
}

function lockIcon() {
  const s = svg('svg', { viewBox: '0 0 24 24', class: 'lock', 'aria-hidden': 'true' });
  svg('path', { d: 'M7 10V7a5 5 0 0 1 10 0v3h1a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1zm2 0h6V7a3 3 0 0 0-6 0z' }, s);
  return s;
}

/** The verify page of this table's current hand (the server looks up its seed, rules and deal). */
function verifyUrl() {
  const q = new URLSearchParams({ table: S.tableId });
  if (typeof V().hand_number === 'number') q.set('hand', String(V().hand_number));
  if (S.replay) q.set('match', String(S.replay.match));
  return `/verify?${q.toString()}`;
}

function renderSeedPop() {
  const v = V();
  const pop = $('seed-pop');
  const seed = v.result && v.result.seed;
  fill(pop, 
    h('p', { text: t('seed.explain') }),
    v.seed_hash ? h('p', {}, h('span', { text: 'sha256: ' }), h('code', { class: 'hash-code', text: v.seed_hash })) : null,
    seed ? h('p', {}, h('span', { text: `${t('result.seed')}: ` }), h('code', { class: 'hash-code', text: seed })) : null,
    seed ? h('p', {}, h('a', { href: verifyUrl(), target: '_blank', rel: 'noopener', 'data-testid': 'seed-verify-link', text: t('result.verify') })) : null,
  );
}

// ---------------------------------------------------------------- board

function renderBoardArea() {
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
  const options = S.pending ? S.pending.options : drag && drag.active ? drag.options : [];
  return options.filter((o) => o.end !== null && o.end !== undefined).map((o) => ({ end: o.end, tile: o.tile, label: endChoiceLabel(o.end) }));
}

// ---------------------------------------------------------------- tiles in the air

/**
 * Put back what is still in the air after a render: the board tiles flying
 * in (renderBoardArea), the drawers' counts and face-down tiles, and the
 * player's own drawn tiles that have not reached the hand yet.
 */
function renderInFlight() {
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
function seatTileEl(seat) {
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
function showDraw(seat) {
  seatBanner(seat, 'draw', () => t('banner.draw'), 700);
  renderInFlight();
  travel.landDraw(seat, boneyardRect(), (key) => drawTarget(seat, key)).then(renderInFlight);
}

// ---------------------------------------------------------------- hand, choice

function renderHand() {
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

/** The end as the chooser says it: "al 9", "al doble 6". */
function endChoiceLabel(end) {
  const e = (V().ends || []).find((x) => x.end === end);
  if (!e) return String(end);
  return e.double ? t('choose.end.double', { value: e.value }) : t('choose.end', { value: e.value });
}

/** The options of the pending tile, one per outcome (ends with the same number and double-ness play alike). */
function choiceGroups() {
  const ends = V().ends || [];
  const groups = [];
  for (const o of S.pending ? S.pending.options : []) {
    const e = ends.find((x) => x.end === o.end);
    const value = e ? e.value : null;
    const double = !!(e && e.double);
    if (!groups.some((g) => g.value === value && g.double === double)) groups.push({ end: o.end, value, double });
  }
  return groups;
}

function renderChooser() {
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

/** Two ends showing the same number (and the same double-ness) give the same result. */
function sameOutcome(opts) {
  if (opts.some((o) => o.end === null || o.end === undefined)) return true;
  const ends = opts.map((o) => (V().ends || []).find((e) => e.end === o.end));
  if (ends.some((e) => !e)) return false;
  return ends.every((e) => e.value === ends[0].value && !!e.double === !!ends[0].double);
}

function chooseEnd(end) {
  if (!S.pending) return;
  const opt = S.pending.options.find((o) => o.end === end);
  if (opt) sendPlay(opt);
}

/** A ghost was tapped (or a tile dropped on it): play the pending or dragged tile there. */
function playAtEnd(end) {
  if (S.pending) { chooseEnd(end); return; }
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

function sendPlay(opt) {
  const frame = { type: 'play', seq: S.seq, tile: [opt.tile[0], opt.tile[1]], end: opt.end === undefined ? null : opt.end };
  const key = S.pending ? S.pending.key : tileKey(opt.tile);
  S.pending = null;
  if (!conn.send(frame)) { toast(t('err.offline'), 'offline'); renderHand(); renderBoardArea(); return; }
  S.awaiting = true;
  clearTimeout(S.awaitTimer);
  S.awaitTimer = setTimeout(() => { S.awaiting = false; renderHand(); }, 4000);
  renderHand();
  renderBoardArea();
  const b = $('hand').querySelector(`[data-key="${key}"]`);
  if (b) b.classList.add('tile-btn--sent');
}

// ---------------------------------------------------------------- dragging a tile onto the board

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

// ---------------------------------------------------------------- redeal question

function renderRedeal() {
  const v = V();
  const box = $('redeal-ask');
  if (v.phase !== 'redeal_question') { box.hidden = true; return; }
  box.hidden = false;
  const doubles = (v.hand || []).filter((x) => x[0] === x[1]).length;
  const asked = Array.isArray(v.redeal_pending) ? v.redeal_pending[0] === mySeat() : (v.turn === mySeat() || v.turn === null || v.turn === undefined);
  if (isPlayer() && doubles >= 5 && asked) {
    fill(box, h('p', { text: t('redeal.question') }),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn btn-primary', onclick: () => conn.send({ type: 'redeal', seq: S.seq, accept: true }), text: t('btn.yes_redeal') }),
        h('button', { type: 'button', class: 'btn', onclick: () => conn.send({ type: 'redeal', seq: S.seq, accept: false }), text: t('btn.no_redeal') })));
  } else fill(box, h('p', { text: t('redeal.waiting') }));
}

// ---------------------------------------------------------------- panel: result + libreta + match over

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
function renderHonours() {
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

function renderPanel() {
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
    deal: () => { if (!conn.send({ type: 'deal_now', seq: S.seq })) toast(t('err.offline'), 'offline'); },
  });
  $('play-again').hidden = v.phase !== 'match_over';
  // "Otra partida": a ready check of everyone here (rematch.js, TABLE.rematch).
  const rematch = $('rematch');
  rematch.hidden = !(v.phase === 'match_over' && isPlayer() && !S.replay);
  renderRematch({
    button: rematch, box: rematchBox(), table: rematch.hidden ? null : S.tableInfo, me: mySeat(),
    sent: !!S.tableInfo && S.rematchFor === S.tableInfo.match_number, name: seatName, redraw: renderPanel,
    send: (frame) => { if (conn.send(frame)) return true; toast(t('err.offline'), 'offline'); return false; },
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

function openPanel(mode) { S.panel = mode; renderPanel(); }
function closePanel() { S.panel = null; renderPanel(); }

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
  if (!conn.send({ type: 'rematch' })) { toast(t('err.offline'), 'offline'); return; }
  S.rematchFor = S.tableInfo && S.tableInfo.match_number;
  renderPanel();
});
$('next-hand').addEventListener('click', () => {
  const v = V();
  if (conn.send({ type: 'next_hand', seq: S.seq })) { S.nextSentFor = v.hand_number; renderPanel(); } else toast(t('err.offline'), 'offline');
});

// ---------------------------------------------------------------- header toggles

function renderToggles() {
  const subsOn = readToggle('capicua.subs', true);
  document.body.classList.toggle('subs-off', !subsOn);
  const sb = $('subs-btn');
  sb.setAttribute('aria-pressed', String(subsOn));
  sb.title = subsOn ? t('btn.subs.on') : t('btn.subs.off');
  sb.setAttribute('aria-label', sb.title);
  const snd = $('sound-btn');
  snd.setAttribute('aria-pressed', String(sound.soundEnabled()));
  snd.title = sound.soundEnabled() ? t('btn.sound.on') : t('btn.sound.off');
  snd.setAttribute('aria-label', snd.title);
  snd.classList.toggle('is-off', !sound.soundEnabled());
  sb.classList.toggle('is-off', !subsOn);
}
function readToggle(key, dflt) {
  try { const v = localStorage.getItem(key); return v === null ? dflt : v === 'on'; } catch (_) { return dflt; }
}
$('subs-btn').addEventListener('click', () => {
  const on = !readToggle('capicua.subs', true);
  try { localStorage.setItem('capicua.subs', on ? 'on' : 'off'); } catch (_) { /* ignore */ }
  renderToggles();
});
$('sound-btn').addEventListener('click', () => { sound.setSoundEnabled(!sound.soundEnabled()); renderToggles(); });
$('seed-hash').addEventListener('click', () => {
  const pop = $('seed-pop');
  pop.hidden = !pop.hidden;
  $('seed-hash').setAttribute('aria-expanded', String(!pop.hidden));
});

// ---------------------------------------------------------------- render all

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

function renderAll() {
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

// ---------------------------------------------------------------- events

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

function overKey(v) { return `${v.hand_number}:${v.phase}`; }

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
function sayMissedStandIn(events) {
  if (!isPlayer()) return;
  const mine = events.filter((e) => e.kind === 'play' && e.seat === mySeat() && standInFor(e) !== null);
  if (!mine.length) return;
  const sub = standInFor(mine[mine.length - 1]);
  const n = mine.length;
  announce(() => t(n === 1 ? 'say.standin.back.one' : 'say.standin.back', { sub, n }));
}

// ---------------------------------------------------------------- effects and the end-of-hand scene

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

function paceEffects(ev, prev) {
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
function startScene(v) {
  const key = overKey(v);
  if (S.panelHandShown === key || (fx.scene && fx.scene.key === key)) return;
  fx.scene = { key, told: false, revealed: false };
  if (!fx.busy) pumpEffects();
}

/** Whether the hands may show face up at the seats: not before the scene's reveal. */
function revealDue() {
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
function clearEffects() {
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

function afterViewChange(prev, { sync }) {
  const v = V();
  const wasMine = prev && isPlayer() && prev.phase === 'play' && prev.turn === prev.seat;
  // A sync shows the table as it is now: what was pending is no longer news.
  if (sync) clearEffects();
  else if (performance.now() < fx.slamUntil) S.animateLast = true;
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
    const n = new Set((v.legal || []).map((l) => tileKey(l.tile))).size;
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
    conn.stop();
    showFatal('err.unknown_table');
    renderAll();
    return;
  }
  // A token this server does not know (its store was reset): forget it and watch; sitting asks for a name again.
  if (code === 'unauthorized' && !S.tableInfo && S.token) {
    forgetToken();
    S.token = null;
    conn.restart();
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

function onFrame(f) {
  switch (f.type) {
    case 'welcome':
      // A welcome is sent once what the hello changed is stored: the table can save.
      S.paused = false;
      if (f.table) S.tableInfo = f.table;
      welcomed(f);
      countdown.follow(S.tableInfo && S.tableInfo.deadline);
      seatLayoutKey = '';
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

// ---------------------------------------------------------------- boot

let conn = null; // the source of frames (mountTable): a websocket, or a replay

const talk = createTalk($('talk'), {
  say: (phrase) => conn.send({ type: 'say', phrase }),
  offline: () => toast(t('err.offline'), 'offline'),
});
// The player on the clock hears it once, ten seconds before the stand-in plays for them.
countdown.onWarning((seat) => { if (isPlayer() && seat === mySeat()) announce(() => t('timer.warn')); });

// ---------------------------------------------------------------- the lobby: sitting down

/** "Sentarme aquí": ask for `seat`; the welcome that follows says it is mine (or an error why not). */
function sit(seat) {
  if (!conn.send({ type: 'sit', seat })) toast(t('err.offline'), 'offline');
}

/** "Sentarme aquí" with no token yet: sign in with the nickname, say hello again as that player, then sit. */
async function join(seat, nickname) {
  const got = await signIn(nickname);
  if (got.error) { joinFailed(got.error, got.field); return; }
  S.token = got.token;
  S.nickname = got.nickname;
  S.sitAfterHello = seat;
  conn.restart();
}

wireLobby({ send: (frame) => conn.send(frame), sit, join, toast });

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
  conn = source({
    hello: () => ({ type: 'hello', table: S.tableId, token: S.token, last_seq: S.seq, ...(S.watch ? { watch: true } : {}) }),
    onFrame,
    onStatus: (st) => { S.status = st; renderConn(); },
  });
  if (!S.tableId) {
    showFatal('err.unknown_table');
    renderAll();
  } else {
    renderAll();
    loadNeighbours().then(() => renderAll());
    conn.connect();
  }
  let resizeTimer = null;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderBoardArea, 60);
  }).observe($('board'));
  window.addEventListener('beforeunload', () => conn.stop());
  return conn;
}
