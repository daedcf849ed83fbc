// @ts-check
// The table page's state: the ONE mutable object (S) that every module reads, and the
// selectors that answer from it and from the VIEW (docs/protocol.md) what the page
// shows: who sits where, whose turn, which team is mine, a tile's legal options, the
// words of seats, teams, tiles and ends. Nothing here draws.

import { t, has, lang } from '../i18n/index.js';
import { tileKey, sameTile } from '../tiles.js';
import { readToken, readNickname } from '../guest.js';
import * as countdown from '../countdown.js';

/** @typedef {import('../protocol.js').View} View */
/** @typedef {import('../protocol.js').Table} Table */
/** @typedef {import('../protocol.js').Seat} Seat */
/** @typedef {import('../protocol.js').End} End */
/** @typedef {import('../protocol.js').Tile} Tile */
/** @typedef {{tile: Tile, end: string | null}} PlayOption a legal play of the VIEW */

export const pageTableId = decodeURIComponent((location.pathname.match(/\/t\/([^/?#]+)/) || [])[1] || new URLSearchParams(location.search).get('table') || '');
// The link with ?mirar=1 ("Mirar") watches: the hello says watch, the page shows the public view only.
export const watchOnly = new URLSearchParams(location.search).get('mirar') === '1';
export const S = {
  tableId: pageTableId,
  watch: watchOnly, // this page only watches: its hello says so, and no notice explains it
  replay: null, // {match, ghosts()}: the frames are a finished match's, every hand face up (replay.js)
  honours: null, // the last honours frame (a level-up, achievements), shown until closed or the next match
  token: readToken(), // this browser's one token (guest.js); null until it signs in
  seat: null, // the seat this socket plays as the last welcome said (null: watching)
  host: false, // this browser opened the table: its seat is TABLE.host_seat
  notice: null, // the notice shown of a table this browser only watches (lobby.js noticeFor), or null
  // The seat to ask for once the hello with a new token is welcomed; an accepted invitation's
  // link (?sentarme=SEAT, invitations.js) asks for that seat from the first hello.
  sitAfterHello: /^[0-9]$/.test(new URLSearchParams(location.search).get('sentarme') || '')
    ? Number(new URLSearchParams(location.search).get('sentarme')) : null,
  rematchFor: null, // the match whose "Otra partida" was sent
  nickname: readNickname(),
  tableInfo: /** @type {Table | null} */ (null), // the TABLE of the last welcome or table frame
  view: /** @type {View | null} */ (null), // this seat's VIEW after the last sync or events frame
  seq: 0,
  pending: /** @type {{key: string, tile: Tile, options: PlayOption[]} | null} */ (null), // the tile whose end is being chosen
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

/** The VIEW, or an empty one before the first: every field may be missing. */
export const V = () => /** @type {View} */ (S.view || {});
export const nPlayers = () => (V().rules && V().rules.players) || (V().counts && V().counts.length) || 4;
export const isPlayer = () => typeof V().seat === 'number' || (S.view === null && typeof S.seat === 'number');
export const mySeat = () => (typeof V().seat === 'number' ? V().seat : (typeof S.seat === 'number' ? S.seat : 0));
export const isMyTurn = () => isPlayer() && V().phase === 'play' && V().turn === mySeat();
export const teams = () => V().teams || [0, 1, 0, 1].slice(0, nPlayers());
export const myTeam = () => teams()[mySeat()];
export const partnership = () => {
  const r = V().rules;
  if (r && typeof r.partnership === 'boolean') return r.partnership;
  return nPlayers() === 4 && (V().scores || []).length === 2;
};

// Where each seat sits, counted from mine in play order (2 to 5 players).
const SLOTS = {
  2: ['bottom', 'top'],
  3: ['bottom', 'right', 'left'],
  4: ['bottom', 'right', 'top', 'left'],
  5: ['bottom', 'right', 'top', 'top', 'left'],
};
export const clockwise = () => !!(V().rules && V().rules.direction === 'clockwise');
export function relOf(seat, me = mySeat()) { const n = nPlayers(); return (seat - me + n) % n; }
export function slotOf(seat, me = mySeat()) {
  const n = nPlayers();
  const slot = (SLOTS[n] || SLOTS[4])[relOf(seat, me)] || 'top';
  // SLOTS assume counter-clockwise play (the next player sits on my right).
  if (clockwise()) return slot === 'left' ? 'right' : slot === 'right' ? 'left' : slot;
  return slot;
}

/**
 * The TABLE's seat (docs/protocol.md): {seat, kind, name, …}, or {} before the welcome.
 * @param {number} seat
 * @returns {Partial<Seat>}
 */
export function seatInfo(seat) {
  return (S.tableInfo && S.tableInfo.seats[seat]) || {};
}
export function seatCharacter(seat) {
  return seatInfo(seat).character || null;
}
export function seatIsHuman(seat) {
  return seatInfo(seat).kind === 'human';
}
export function seatName(seat) {
  if (seat === null || seat === undefined) return '?';
  const name = seatInfo(seat).name;
  if (name) return name;
  if (isPlayer() && seat === mySeat()) return S.nickname || t('seat.you');
  const rel = relOf(seat);
  if (nPlayers() === 4) return [t('seat.you'), t('seat.right'), t('seat.partner'), t('seat.left')][rel];
  return t('seat.name', { n: seat + 1 });
}
/** A neighbour's bot level, or a guest's level in the standings (the seat's player_level). */
export function seatLevel(seat) {
  const info = seatInfo(seat);
  if (info.kind === 'human') return info.player_level ? t('seat.player_level', { name: levelName(info.player_level) }) : '';
  const lv = info.level;
  return lv ? (has(`levelshort.${lv}`) ? t(`levelshort.${lv}`) : lv) : '';
}
export const levelName = (level) => (lang() === 'en' && level.name_en ? level.name_en : level.name);
/** The score columns in the order shown: the viewer's own side first ("Nosotros", whatever the seat), then the others. */
export function teamOrder() {
  const cols = (V().scores || []).map((_, i) => i);
  const mine = isPlayer() ? myTeam() : null;
  return mine === null || mine === undefined || !cols.includes(mine) ? cols : [mine, ...cols.filter((c) => c !== mine)];
}
export function teamLabel(team) {
  if (!partnership()) return seatName(team);
  if (!isPlayer()) return team === 0 ? t('team.ns') : t('team.ew');
  return team === myTeam() ? t('team.us') : t('team.them');
}
/**
 * Pick the phrasing that agrees with who `team` is, seen from this screen:
 * key.us / key.them in partnership games, key.me when it is the viewer's own
 * seat in individual games, else key (a neutral phrasing for any name).
 */
export function teamKey(key, team) {
  if (!isPlayer()) return key;
  if (partnership()) return team === myTeam() ? `${key}.us` : `${key}.them`;
  return team === myTeam() ? `${key}.me` : key;
}
/** true when the viewer's team (or own seat) won `winner`, false when it lost, null for spectators. */
export function viewerWon(winner) {
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
export function endWords(ev) {
  const e = endBefore(ev);
  if (!e) return () => endChoiceLabel(ev.end); // not on the board any more: the end as it shows now
  return () => t(e.double ? 'choose.end.double' : 'choose.end', { value: e.value });
}
/** "12 puntos", "1 punto": the pips left in a hand. */
export function pipsText(n) {
  return n === 1 ? t('seat.pips.one') : t('seat.pips', { n });
}
export function tileName(tile) {
  return tile[0] === tile[1] ? t('tile.double', { a: tile[0] }) : t('tile.name', { a: tile[0], b: tile[1] });
}
/**
 * The VIEW's legal plays of `tile`, one per end.
 * @param {Tile} tile
 * @returns {PlayOption[]}
 */
export function optionsFor(tile) {
  const out = [];
  for (const l of V().legal || []) {
    if (!('tile' in l) || !sameTile(l.tile, tile)) continue;
    if (!out.some((o) => (o.end ?? null) === (l.end ?? null))) out.push(l);
  }
  return out;
}
export function isPlayable(tile) { return isMyTurn() && optionsFor(tile).length > 0; }

/**
 * The seat whose turn runs on the clock (TABLE.deadline), once this page
 * counts it and while that seat is on turn (a table frame names the next
 * deadline a moment after the events that moved the turn).
 */
export function clockedSeat() {
  const d = S.tableInfo && S.tableInfo.deadline;
  const v = V();
  if (!d || countdown.seatOnClock() !== d.seat) return null;
  return (v.phase === 'play' || v.phase === 'redeal_question') && v.turn === d.seat ? d.seat : null;
}

/** The connection's state as the status line says it: "open" (nothing to say), "paused", "reconnecting", … */
export function connShown() {
  return S.status === 'open' && S.paused ? 'paused' : S.status;
}

/**
 * The VIEW's open end named `end` ({end, value, double, playable, outcome}), or undefined.
 * @param {string | null | undefined} end
 * @returns {End | undefined}
 */
export function endOf(end) {
  return (V().ends || []).find((x) => x.end === end);
}

/** The end as the chooser says it: "al 9", "al doble 6". */
export function endChoiceLabel(end) {
  const e = endOf(end);
  if (!e) return String(end);
  return e.double ? t('choose.end.double', { value: e.value }) : t('choose.end', { value: e.value });
}

/** @param {View} v */
export function overKey(v) { return `${v.hand_number}:${v.phase}`; }

let conn = null; // the source of frames (mountTable): a websocket, or a replay

/** The source of frames and taker of intents (net.js's Connection, or a replay): connect, send, stop, restart. */
export function connection() { return conn; }
export function setConnection(source) { conn = source; }
/** Send an intent frame; false when it could not go (offline). */
export function send(frame) { return conn.send(frame); }
