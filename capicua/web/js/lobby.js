// The lobby of a private table ("Jugar con amigos"), shown by the table page
// while TABLE.status is "lobby" instead of the board and the hand: the seats
// around the table (names, who is connected, the neighbours and their level,
// the free seats), "Sentarme aquí" and "Levantarme", the watchers, the link to
// share; and for the host (TABLE.host_seat) moving players between seats and
// teams, seating a neighbour, emptying a seat, the settings and "Empezar".
// Nothing changes here: the page sends an intent and draws the next TABLE the
// server sends to everyone (docs/protocol.md, "The lobby"); the server refuses
// what is not allowed. The page's seat is the one the server's last welcome
// named (it sends one to every socket whose seat changed). Also the plain
// notices of a table this browser only watches: full, started, finished.

import { t, has, lang } from './i18n/index.js';
import { avatarSvg } from './neighbours.js';
import { $, h as el } from './dom.js';
import { nameLink, NEW_TAB } from './namelink.js';
import { tokenHeaders } from './me.js';

// The settings a host may choose (docs/protocol.md, "configure").
const GRACE_CHOICES = [10, 30, 60, 120]; // seconds a dropped player is waited for
const TURN_TIMER_CHOICES = [0, 15, 30, 60]; // seconds per turn; 0: no timer
const COPIED_MS = 2500;

/** What the lobby remembers between renders: choices in progress, not the table (that is the server's). */
const ui = {
  hooks: null, // see wireLobby
  ctx: null, // the last render's context
  moving: null, // the seat the host picked to move, waiting for where to
  fillLevel: {}, // seat -> the level chosen for the neighbour to seat there
  levels: null, // [level] from /api/presets, once asked
  defaultLevel: null,
  joinError: null, // a translation key
  copied: 0, // when the link was copied (ms), for the feedback
  drawn: '', // what the seats were drawn from (skip redrawing the same: an open select stays open)
  public: null, // the host's table is listed in the parque (GET /api/tables/{id}/public); null until asked
};

/**
 * Wire the lobby's fixed controls. Hooks: `send(frame)` sends an intent (false
 * when offline); `sit(seat)` is "Sentarme aquí"; `join(seat, nickname)` is the
 * same for a browser with no token yet (the page signs it in, then sits it);
 * `toast(text, code)` says something went wrong.
 */
export function wireLobby(hooks) {
  ui.hooks = hooks;
  $('lobby-copy').addEventListener('click', copyLink);
  $('lobby-share').addEventListener('click', shareLink);
  $('lobby-link').addEventListener('focus', () => $('lobby-link').select());
  $('lobby-grace').addEventListener('change', configure);
  $('lobby-timer').addEventListener('change', configure);
  $('lobby-start').addEventListener('click', () => send({ type: 'start' }));
  $('lobby-nickname').addEventListener('input', () => {
    if (ui.joinError) { ui.joinError = null; renderJoin(); }
  });
}

function send(frame) {
  if (!ui.hooks.send(frame)) ui.hooks.toast(t('err.offline'), 'offline');
}

/** A sign-in that failed ("Sentarme aquí" without a token): its words, under the nickname. */
export function joinFailed(code, field) {
  ui.joinError = code === 'network' ? 'home.error.network' : field === 'nickname' ? 'home.err.nickname' : 'home.err.server';
  renderJoin();
}

// ---------------------------------------------------------------- the lobby

/**
 * Draw the lobby. `ctx`: {table (TABLE), me (my seat or null), host (bool),
 * hasToken (bool), teams (the view's teams, or null), conn (the connection's
 * state: "open", "connecting", "reconnecting", "paused", …), place(seat): where
 * a seat sits as at play, seen from mine: {slot: "bottom"|"right"|"top"|"left",
 * order (of two seats in one slot)}}.
 */
export function renderLobby(ctx) {
  ui.ctx = ctx;
  const { table } = ctx;
  if (ui.moving !== null && (!ctx.host || !table.seats[ui.moving])) ui.moving = null;
  if (ctx.host && !ui.levels) loadLevels();
  $('lobby-title').textContent = hostName(table) ? t('lobby.title', { name: hostName(table) }) : t('lobby.title.plain');
  $('lobby-game').textContent = gameLine(table);
  const drawn = JSON.stringify([lang(), table.seats, table.host_seat, ctx.me, ctx.host, ctx.hasToken, ctx.teams, ui.moving, ui.levels]);
  if (drawn !== ui.drawn) {
    ui.drawn = drawn;
    renderSeats(ctx);
  }
  const watchers = $('lobby-watchers');
  watchers.textContent = table.watchers ? t('lobby.watchers', { n: table.watchers }) : t('lobby.watchers.none');
  renderJoin();
  renderShare(table);
  renderHost(ctx);
  renderStatusLine(ctx);
}

function hostName(table) {
  const s = typeof table.host_seat === 'number' ? table.seats[table.host_seat] : null;
  return s && s.name ? s.name : '';
}

function gameLine(table) {
  const rules = table.rules || {};
  const game = has(`preset.${table.preset}`) ? t(`preset.${table.preset}`) : table.preset;
  return rules.target ? `${game} · ${t('lobby.target', { n: rules.target })}` : game;
}

const emptySeats = (table) => table.seats.filter((s) => s.kind === 'empty').length;

function renderSeats(ctx) {
  const { table } = ctx;
  const ring = $('lobby-ring');
  ring.dataset.seats = String(table.seats.length);
  ring.classList.toggle('lobby-ring--moving', ui.moving !== null);
  const slots = {};
  for (const name of ['top', 'left', 'right', 'bottom']) slots[name] = el('div', { class: `lring-slot lring-slot--${name}` });
  for (const s of table.seats) {
    const { slot, order } = ctx.place(s.seat);
    const card = seatCard(ctx, s, slot);
    card.style.order = String(order); // two seats across the top (five players): in play order, as at the table
    (slots[slot] || slots.top).append(card);
  }
  const left = emptySeats(table);
  const centre = el('div', { class: 'lobby-centre' },
    el('strong', { text: left ? t(left === 1 ? 'lobby.centre.one' : 'lobby.centre', { n: left }) : t('lobby.centre.full') }),
    ui.moving !== null ? el('span', { text: t('lobby.move.where', { name: seatLabel(ctx, table.seats[ui.moving]) }) }) : null);
  ring.replaceChildren(slots.top, slots.left, centre, slots.right, slots.bottom);
}

/** A seat's name as the lobby says it: the name, "you", or "free seat". */
function seatLabel(ctx, s) {
  if (s.kind === 'empty') return t('lobby.seat.free');
  return s.seat === ctx.me ? t('lobby.seat.you', { name: s.name }) : s.name;
}

function seatCard(ctx, s, slot) {
  const { table } = ctx;
  const mine = s.seat === ctx.me;
  const card = el('div', {
    class: `lseat lseat--${slot} lseat--${s.kind}${mine ? ' lseat--me' : ''}${ui.moving === s.seat ? ' lseat--moving' : ''}`,
    'data-testid': 'lobby-seat', 'data-seat': s.seat, 'data-kind': s.kind,
  });
  const face = s.kind === 'empty'
    ? el('span', { class: 'lseat-chair', 'aria-hidden': 'true' })
    : avatarSvg(s.character || null, s.name, { human: s.kind === 'human', look: typeof s.avatar === 'object' ? s.avatar : null });
  card.append(el('div', { class: 'lseat-id' }, face,
    el('div', { class: 'lseat-meta' },
      el('span', { class: 'lseat-name', 'data-testid': 'lobby-seat-name' },
        nameLink(seatLabel(ctx, s), s.kind === 'human' ? s.player : null, NEW_TAB)),
      el('span', { class: 'lseat-chips' }, ...seatChips(ctx, s)))));
  const actions = seatActions(ctx, s);
  if (actions.length) card.append(el('div', { class: 'lseat-actions' }, ...actions));
  card.setAttribute('aria-label', [seatLabel(ctx, s), ...seatChips(ctx, s).map((c) => c.textContent)].join(', '));
  if (table.host_seat === s.seat) card.classList.add('lseat--host');
  return card;
}

function seatChips(ctx, s) {
  const chips = [];
  const { table, teams } = ctx;
  if (table.host_seat === s.seat) chips.push(el('span', { class: 'chip chip--host', text: t('lobby.host') }));
  if (s.kind === 'human') {
    chips.push(s.connected
      ? el('span', { class: 'chip chip--on', text: t('lobby.connected') })
      : el('span', { class: 'chip chip--off', text: t('lobby.disconnected') }));
  } else if (s.kind === 'bot') {
    // The level's short name ("botagorda", not "Botagorda (principiante)"): the chip fits a phone's seat card.
    chips.push(el('span', { class: 'chip chip--bot', text: t('lobby.neighbour', { level: levelShort(s.level) }) }));
  }
  // In a partnership game each seat says its side, so the host can see who plays with whom.
  if (table.rules && table.rules.partnership && Array.isArray(teams) && teams[s.seat] !== undefined) {
    chips.push(el('span', { class: `chip chip--team chip--team${teams[s.seat]}`, text: t(teams[s.seat] === 0 ? 'team.ns' : 'team.ew') }));
  }
  return chips;
}

function levelName(level) {
  return has(`level.${level}`) ? t(`level.${level}`) : String(level || '');
}

function levelShort(level) {
  return has(`levelshort.${level}`) ? t(`levelshort.${level}`) : levelName(level);
}

function seatActions(ctx, s) {
  const { table } = ctx;
  const out = [];
  const mine = s.seat === ctx.me;
  if (ctx.me === null && s.kind === 'empty') {
    out.push(el('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-testid': 'sit', onclick: () => sitAt(s.seat), text: t('lobby.sit') }));
  }
  if (mine && !ctx.host) {
    out.push(el('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'stand', onclick: () => send({ type: 'stand' }), text: t('lobby.stand') }));
  }
  if (!ctx.host) return out;
  if (ui.moving === null) {
    if (s.kind !== 'empty') out.push(el('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'move', onclick: () => pickToMove(s.seat), text: t('lobby.move') }));
  } else if (ui.moving === s.seat) {
    out.push(el('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'move-cancel', onclick: () => pickToMove(null), text: t('btn.cancel') }));
  } else {
    out.push(el('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-testid': 'move-here', onclick: () => moveTo(s.seat), text: t('lobby.move.here') }));
  }
  if (ui.moving !== null) return out;
  if (s.kind === 'empty' && ui.levels) out.push(...fillControls(s.seat));
  else if (s.kind !== 'empty' && s.seat !== table.host_seat) {
    out.push(el('button', { type: 'button', class: 'btn btn-ghost btn-small', 'data-testid': 'clear', onclick: () => send({ type: 'clear_seat', seat: s.seat }), text: t(s.kind === 'bot' ? 'lobby.clear.bot' : 'lobby.clear.human') }));
  }
  return out;
}

function fillControls(seat) {
  const level = ui.fillLevel[seat] || ui.defaultLevel;
  const id = `lobby-level-${seat}`;
  const select = el('select', { id, class: 'lseat-level', 'data-testid': 'fill-level', 'aria-label': t('lobby.fill.level') },
    ...ui.levels.map((lv) => new Option(levelName(lv), lv, false, lv === level)));
  select.addEventListener('change', () => { ui.fillLevel[seat] = select.value; });
  const fill = el('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'fill', onclick: () => send({ type: 'fill_seat', seat, level: select.value }), text: t('lobby.fill') });
  return [select, fill];
}

function pickToMove(seat) {
  ui.moving = seat;
  if (ui.ctx) renderLobby(ui.ctx);
}

function moveTo(seat) {
  const from = ui.moving;
  ui.moving = null;
  if (from !== null) send({ type: 'move_seat', seat: from, to: seat });
  if (ui.ctx) renderLobby(ui.ctx);
}

function sitAt(seat) {
  if (ui.ctx.hasToken) { ui.hooks.sit(seat); return; }
  const input = $('lobby-nickname');
  const nickname = input.value.trim();
  if (!nickname) {
    ui.joinError = 'lobby.join.needname';
    renderJoin();
    input.focus();
    return;
  }
  ui.hooks.join(seat, nickname);
}

async function loadLevels() {
  ui.levels = [];
  try {
    const r = await fetch('/api/presets', { headers: { Accept: 'application/json' } });
    const data = r.ok ? await r.json() : null;
    if (data && Array.isArray(data.levels) && data.levels.length) {
      ui.levels = data.levels.filter((lv) => typeof lv === 'string');
      ui.defaultLevel = ui.levels.includes(data.default_level) ? data.default_level : ui.levels[0];
    }
  } catch (_) { ui.levels = []; }
  if (!ui.levels.length) ui.levels = null; // ask again on the next render
  if (ui.ctx && ui.levels) renderLobby(ui.ctx);
}

// ---------------------------------------------------------------- joining, sharing, the host's box

function renderJoin() {
  const ctx = ui.ctx;
  if (!ctx) return;
  const box = $('lobby-join');
  box.hidden = !(ctx.me === null && !ctx.hasToken && emptySeats(ctx.table) > 0);
  const err = $('lobby-join-error');
  err.hidden = !ui.joinError;
  err.textContent = ui.joinError ? t(ui.joinError) : '';
}

function shareUrl(table) {
  return `${location.origin}/t/${encodeURIComponent(table.id)}`;
}

function renderShare(table) {
  const link = $('lobby-link');
  const url = shareUrl(table);
  if (link.value !== url) link.value = url;
  // "Invitar a tu gente": the Gente page with this table chosen, for a player seated here.
  const gente = $('lobby-gente');
  gente.hidden = !(ui.ctx && ui.ctx.me !== null && ui.ctx.hasToken);
  gente.href = `/gente?${new URLSearchParams({ mesa: table.id })}`;
  // The phone's share sheet, where the browser has one.
  $('lobby-share').hidden = typeof navigator.share !== 'function';
  $('lobby-copied').textContent = Date.now() - ui.copied < COPIED_MS ? t('lobby.copied') : '';
}

async function copyLink() {
  const link = $('lobby-link');
  let ok = false;
  try {
    await navigator.clipboard.writeText(link.value);
    ok = true;
  } catch (_) { ok = false; }
  if (!ok) {
    // No clipboard for this page (an insecure origin, a denied permission): the link is selected to copy by hand.
    link.focus();
    link.select();
    $('lobby-copied').textContent = t('lobby.copy.manual');
    return;
  }
  ui.copied = Date.now();
  $('lobby-copied').textContent = t('lobby.copied');
  setTimeout(() => { if (Date.now() - ui.copied >= COPIED_MS) $('lobby-copied').textContent = ''; }, COPIED_MS);
}

async function shareLink() {
  const table = ui.ctx && ui.ctx.table;
  if (!table || typeof navigator.share !== 'function') return;
  try {
    await navigator.share({ title: t('lobby.share.title'), text: t('lobby.share.text', { game: gameLine(table) }), url: shareUrl(table) });
  } catch (_) { /* the sheet was closed */ }
}

function fillChoices(select, choices, label) {
  if (select.options.length === choices.length && select.dataset.lang === lang()) return;
  const keep = select.value;
  select.replaceChildren(...choices.map((c) => new Option(label(c), String(c))));
  select.dataset.lang = lang();
  if (keep) select.value = keep;
}

const graceLabel = (s) => t('lobby.grace.s', { n: s });
const timerLabel = (s) => (s ? t('lobby.timer.s', { n: s }) : t('lobby.timer.off'));

function renderHost(ctx) {
  const { table } = ctx;
  $('lobby-host').hidden = !ctx.host;
  const settings = table.settings || {};
  $('lobby-settings').textContent = t('lobby.settings', { grace: graceLabel(settings.grace), timer: timerLabel(settings.turn_timer) });
  $('lobby-settings').hidden = ctx.host;
  if (!ctx.host) return;
  const grace = $('lobby-grace');
  const timer = $('lobby-timer');
  fillChoices(grace, GRACE_CHOICES, graceLabel);
  fillChoices(timer, TURN_TIMER_CHOICES, timerLabel);
  // The server's settings, unless the host is choosing right now.
  if (document.activeElement !== grace) grace.value = String(settings.grace);
  if (document.activeElement !== timer) timer.value = String(settings.turn_timer);
  $('lobby-start').disabled = emptySeats(table) > 0; // the status line says why
  renderPublic(table);
}

// "Mesa pública": the host lists the table in the parque, or keeps it by link only
// (the default). Kept by the server with the table (POST /api/tables/{id}/public), not in the log.
function renderPublic(table) {
  let input = $('lobby-public-input');
  if (!input) {
    input = el('input', { type: 'checkbox', id: 'lobby-public-input', 'data-testid': 'lobby-public',
      onchange: () => setPublic(table.id, input.checked) });
    $('lobby-host').insertBefore(el('label', { class: 'lobby-public', for: 'lobby-public-input' }, input,
      el('span', { id: 'lobby-public-text' })), $('lobby-start'));
    askPublic(table.id);
  }
  $('lobby-public-text').textContent = t('lobby.public');
  input.checked = !!ui.public;
  input.disabled = ui.public === null;
}

async function askPublic(tableId) {
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}/public`, { headers: { Accept: 'application/json' } });
    ui.public = r.ok ? !!(await r.json()).public : false;
  } catch (_) { ui.public = false; }
  if (ui.ctx) renderPublic(ui.ctx.table);
}

async function setPublic(tableId, wanted) {
  let ok = false;
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}/public`, {
      method: 'POST', headers: { ...tokenHeaders(), 'Content-Type': 'application/json' }, body: JSON.stringify({ public: wanted }) });
    ok = r.ok;
    if (ok) ui.public = !!(await r.json()).public;
  } catch (_) { ok = false; }
  if (!ok) ui.hooks.toast(t('lobby.public.err'), 'public');
  if (ui.ctx) renderPublic(ui.ctx.table);
}

function configure() {
  send({ type: 'configure', grace: Number($('lobby-grace').value), turn_timer: Number($('lobby-timer').value) });
}

/**
 * The lobby's status line (the table's own is not shown before the match):
 * the connection while it is not open, else what the lobby waits for, as this
 * viewer sees it — the host how many players are missing, a seated friend
 * whom the start waits for, a watcher how to sit.
 */
function renderStatusLine(ctx) {
  const { table } = ctx;
  const left = emptySeats(table);
  const host = hostName(table) || t('lobby.host.someone');
  let text;
  if (ctx.conn && ctx.conn !== 'open') text = t(`status.${ctx.conn}`);
  else if (ctx.host) text = left ? t(left === 1 ? 'lobby.status.host.one' : 'lobby.status.host', { n: left }) : t('lobby.status.host.ready');
  else if (ctx.me !== null) text = left ? t(left === 1 ? 'lobby.status.wait.one' : 'lobby.status.wait', { n: left, name: host }) : t('lobby.status.ready', { name: host });
  else if (left) text = t(ctx.hasToken ? 'lobby.pick' : 'lobby.pick.name');
  else text = t('lobby.status.ready', { name: host });
  const line = $('lobby-status');
  line.dataset.conn = ctx.conn || 'open';
  if (line.textContent !== text) line.textContent = text;
}

// ---------------------------------------------------------------- notices

/**
 * The plain notice for a table this browser is not seated at, or null:
 * "full" (no free seat: what a table_full refusal means), "started", "finished".
 */
export function noticeFor(table, me) {
  if (!table || me !== null) return null;
  if (table.status === 'finished') return 'finished';
  if (table.status === 'playing') return 'started';
  return emptySeats(table) === 0 ? 'full' : null;
}

/** The table's page as a watcher opens it ("Mirar"): no hello for a seat (docs/protocol.md, Pages). */
function watchUrl(tableId) {
  return `/t/${encodeURIComponent(tableId)}?mirar=1`;
}

/**
 * Show `kind`'s notice (null: none) in #table-notice, with "Mirar" (this table, watching) and "Inicio";
 * a finished match's (`matchNumber`) also with its replay, since the page shows no table under it.
 */
export function renderNotice(kind, tableId, matchNumber = null) {
  const box = $('table-notice');
  const replay = kind === 'finished' && typeof matchNumber === 'number' ? `/replay/${encodeURIComponent(tableId)}/${matchNumber}` : null;
  const drawn = kind ? `${kind}:${lang()}:${tableId}:${replay}` : '';
  if (box.dataset.drawn === drawn) return; // drawn already (a focused link keeps its focus)
  box.dataset.drawn = drawn;
  box.hidden = !kind;
  box.dataset.kind = kind || '';
  if (!kind) { box.replaceChildren(); return; }
  box.replaceChildren(
    el('p', { class: 'notice-text', 'data-testid': 'notice-text', text: t(`notice.${kind}`) }),
    el('div', { class: 'notice-actions' },
      replay ? el('a', { class: 'btn btn-small', href: replay, 'data-testid': 'notice-replay', text: t('replay.link') }) : null,
      el('a', { class: 'btn btn-small', href: watchUrl(tableId), 'data-testid': 'notice-watch', text: t('notice.watch') }),
      el('a', { class: 'btn btn-primary btn-small', href: '/', 'data-testid': 'notice-home', text: t('nav.home') })));
}
