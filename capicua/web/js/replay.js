// The replay page: /replay/{table}/{match}[#h3m12]. A finished match, hand by
// hand and move by move, drawn by the live table's own renderer (table/main.js):
// this page asks GET /api/replay for the match's frames (the server replays
// the stored record with the engine: docs/protocol.md, "Replay") and feeds
// them to the renderer in place of a websocket — an `events` frame to step
// forward, a `sync` to go back or jump — so nothing of the rules lives here.
// Beside the table: the moves of the hand with what was said, the deal's
// fairness proof (the seed hashed again here) and the experto's analysis
// when GET /api/analysis has it: each hand's precision said in words, and at
// each costly decision the experto's move as a ghost on the board (board.js's
// own ghost, passive) with a comment over the board.

import { t, has, lang, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { tileSvg } from './tiles.js';
import { browserSha256 } from './sha256.js';
import { tokenHeaders } from './me.js';
import { $, h } from './dom.js';
import './invitations.js';

const [, rawTable = '', rawMatch = ''] = location.pathname.match(/^\/replay\/([^/]+)\/([^/?#]+)/) || [];
const tableId = decodeURIComponent(rawTable);
// A private table's match is for its players (this browser's token says who asks)
// or for whoever has its own link, /replay/{table}/{match}?k=KEY: the key goes on to the API.
const linkKey = new URLSearchParams(location.search).get('k');
const apiPath = (what) => `/api/${what}/${encodeURIComponent(tableId)}/${encodeURIComponent(rawMatch)}${linkKey ? `?k=${encodeURIComponent(linkKey)}` : ''}`;
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 1400; // a move at 1×
const HAND_END_MS = 5200; // the end-of-hand scene (banner, hands turned up, the sheet) at 1×
const POSITION = /^#h(\d+)m(\d+)$/; // #h3m12: hand 3, step 12 (0: the deal)

const R = {
  data: null, // the /api/replay answer
  hand: 0, // index of the hand shown
  step: 0, // index of its frame shown
  feed: null, // the renderer's onFrame
  settling: false, // feeding the step before a step that plays: no ghost is drawn on it
  playing: false,
  timer: null,
  speed: 1,
  error: null, // an error code of the API, or 'network'
  analysis: { status: 'loading', hands: [] }, // GET /api/analysis: ready | pending | none | loading
  localHash: new Map(), // hand index -> sha256 of its seed, computed here (null: no SubtleCrypto)
};

async function getJson(url) {
  const r = await fetch(url, { headers: tokenHeaders() });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { ok: r.ok, status: r.status, data };
}

// ---------------------------------------------------------------- positions

const hands = () => (R.data ? R.data.hands : []);
const frames = (hi = R.hand) => (hands()[hi] ? hands()[hi].frames : []);
const frameAt = (hi = R.hand, si = R.step) => frames(hi)[si];
const atStart = () => R.hand === 0 && R.step === 0;
const atEnd = () => R.hand === hands().length - 1 && R.step === frames().length - 1;

function nextOf(hi, si) {
  if (si + 1 < frames(hi).length) return [hi, si + 1];
  return hi + 1 < hands().length ? [hi + 1, 0] : null;
}
function prevOf(hi, si) {
  if (si > 0) return [hi, si - 1];
  return hi > 0 ? [hi - 1, frames(hi - 1).length - 1] : null;
}

/** What was said at the table after the step before `f` and up to `f` (the first step takes what came before it). */
function saidUpTo(f, before) {
  const from = before ? before.seq : -Infinity;
  return (R.data.said || []).filter((s) => s.seq > from && s.seq <= f.seq);
}

/**
 * Show step `si` of hand `hi`. The step right after the one shown plays as
 * the live table played it (its events, then what was said); any other jump
 * is a sync: the table as it was at that step, at once.
 */
function go(hi, si, { animate = false } = {}) {
  const f = frameAt(hi, si);
  if (!f) return;
  const next = nextOf(R.hand, R.step);
  const isNext = !!next && next[0] === hi && next[1] === si;
  const before = frameAt();
  R.hand = hi;
  R.step = si;
  if (animate && isNext) {
    // The step before as it ended (what of its effects is still pending is dropped: stepping on
    // quickly never leaves a queue of stale effects), then this step as the live table played it.
    R.settling = true;
    R.feed({ type: 'sync', seq: before.seq, view: before.view });
    R.settling = false;
    R.feed(f);
    for (const s of saidUpTo(f, before)) R.feed(s);
  } else {
    R.feed({ type: 'sync', seq: f.seq, view: f.view });
  }
  history.replaceState(null, '', `#h${hi + 1}m${si}`);
  renderReplay();
}

function stepForward() {
  const next = nextOf(R.hand, R.step);
  if (next) go(next[0], next[1], { animate: true });
  else pause();
}
function stepBack() {
  const prev = prevOf(R.hand, R.step);
  if (prev) go(prev[0], prev[1]);
}

function play() {
  if (atEnd()) go(0, 0);
  R.playing = true;
  schedule();
  renderReplay();
}
function pause() {
  R.playing = false;
  clearTimeout(R.timer);
  R.timer = null;
  renderReplay();
}
function schedule() {
  clearTimeout(R.timer);
  if (!R.playing) return;
  const ends = frameAt().events.some((e) => e.event.kind === 'hand_end');
  R.timer = setTimeout(() => {
    stepForward();
    if (R.playing) schedule();
  }, (ends ? HAND_END_MS : STEP_MS) / R.speed);
}

/** The position the link names (#h3m12), or the deal of the first hand. */
function linkedPosition() {
  const m = POSITION.exec(location.hash);
  if (!m) return [0, 0];
  const hi = Math.min(Math.max(Number(m[1]) - 1, 0), hands().length - 1);
  return [hi, Math.min(Number(m[2]), frames(hi).length - 1)];
}

// ---------------------------------------------------------------- words

function seatName(seat) {
  const info = R.data && R.data.table && R.data.table.seats ? R.data.table.seats[seat] : null;
  return (info && info.name) || t('seat.name', { n: seat + 1 });
}
function tileName(tile) {
  return tile[0] === tile[1] ? t('tile.double', { a: tile[0] }) : t('tile.name', { a: tile[0], b: tile[1] });
}
/** "al 5", "al doble 6": the open end a move went on, by its number on the table before the move (`before`). */
function endWords(end, before) {
  const e = before && (before.ends || []).find((x) => x.end === end);
  if (!e) return '';
  return e.double ? t('choose.end.double', { value: e.value }) : t('choose.end', { value: e.value });
}
/** The line of event `ev` of a step: `view` is the table after the step, `before` the table before it. */
function eventLine(ev, view, before) {
  switch (ev.kind) {
    case 'hand_start': return t('say.hand_start', { n: ev.hand_number, name: seatName(ev.opener) });
    case 'play':
      return ev.end === null || ev.end === undefined
        ? t('say.open', { name: seatName(ev.seat), tile: tileName(ev.tile) })
        : t('say.play', { name: seatName(ev.seat), tile: tileName(ev.tile), end: endWords(ev.end, before) });
    case 'pass':
      return ev.numbers && ev.numbers.length
        ? t('say.pass', { name: seatName(ev.seat), nums: ev.numbers.join(t('say.numbers.or')) })
        : t('say.pass.plain', { name: seatName(ev.seat) });
    case 'draw': return t('say.draw', { name: seatName(ev.seat) });
    case 'score': return t('say.score', { name: seatName(ev.seat), points: ev.points });
    case 'capicua': return t('say.capicua');
    case 'tranque': return t('say.tranque');
    case 'redeal': return t(ev.reason === 'no_double' ? 'say.redeal.no_double' : 'say.redeal.five_doubles');
    case 'redeal_declined': return t('say.redeal_declined', { name: seatName(ev.seat) });
    case 'hand_end': {
      const r = view.result || {};
      const line = r.kind === 'domino' ? t('result.domino', { name: seatName(r.seat) })
        : r.kind === 'tranque' ? t('result.tranque', { name: seatName(r.seat) }) : t('result.tie');
      return r.points ? `${line} · ${pointsWords(r.points)}` : line;
    }
    case 'match_end': return t('replay.match_end', { a: view.scores[0], b: view.scores[1] ?? '' });
    default: return null; // domino: the hand_end line says it
  }
}

function errorText(code) {
  return has(`replay.err.${code}`) ? t(`replay.err.${code}`) : t('replay.err.other');
}

// ---------------------------------------------------------------- the analysis

/** The analysis of hand `hi` (1-based in the answer), when the experto's is ready. */
function analysisOf(hi) {
  if (R.analysis.status !== 'ready') return [];
  return (R.analysis.hands || []).filter((a) => a.hand === hi + 1);
}

/** The step of hand `hi` that holds its `index`-th action (moves and passes, in the record's order). */
function stepOfAction(hi, index) {
  let seen = 0;
  const fs = frames(hi);
  for (let si = 0; si < fs.length; si++) {
    seen += fs[si].events.filter((e) => e.event.kind === 'play' || e.event.kind === 'pass' || e.event.kind === 'draw' || e.event.kind === 'redeal_declined').length;
    if (seen > index) return si;
  }
  return -1;
}

/** A number with at most one decimal, written as the page's language writes it (12,5 / 12.5). */
function decimal(x) {
  return x.toLocaleString(lang() === 'en' ? 'en' : 'es', { maximumFractionDigits: 1 });
}

/** "12,5 puntos", "1 punto": a number of points as it is shown (one decimal at most). */
function pointsWords(x) {
  const shown = Math.round(Math.abs(Number(x) || 0) * 10) / 10;
  return shown === 1 ? t('replay.points1') : t('replay.points', { n: decimal(shown) });
}

/** A move of the analysis ("el 6-4 al 4"), on the table `before` it. */
function moveWords(action, before) {
  if (!action || !Array.isArray(action.tile)) return '?';
  const end = action.end ? endWords(action.end, before) : '';
  return end ? `${tileName(action.tile)} ${end}` : tileName(action.tile);
}

/**
 * The costliest decisions of hand `hi`, each with `step`: the step that played it. The
 * step before (`step - 1`) is the table as the seat saw it when choosing: there the
 * experto's move shows as a ghost.
 */
function costlyDecisions(hi) {
  const out = [];
  for (const a of analysisOf(hi)) {
    const costly = new Set(a.costliest || []);
    for (const d of a.decisions || []) {
      const step = costly.has(d.index) ? stepOfAction(hi, d.index) : -1;
      if (step > 0) out.push({ ...d, step, before: frameAt(hi, step - 1).view }); // the table the choice was made at
    }
  }
  return out;
}

/** "el experto hubiera jugado X (−N puntos)" */
function expertWords(d) {
  return t('replay.expert', { move: moveWords(d.best, d.before), points: pointsWords(d.lost) });
}

/** Per step of hand `hi`: the costliest decisions made there. */
function costliestBySteps(hi) {
  const marks = new Map();
  for (const d of costlyDecisions(hi)) marks.set(d.step, [...(marks.get(d.step) || []), { seat: d.seat, step: d.step, words: expertWords(d) }]);
  return marks;
}

/** The experto's moves to draw on the board now (table/board.js asks at every drawing): at the step a costly choice was made from. */
function ghostsNow() {
  if (R.settling || !R.data) return [];
  return costlyDecisions(R.hand)
    .filter((d) => d.step - 1 === R.step && d.best && d.best.end !== null && d.best.end !== undefined)
    .map((d) => ({ end: d.best.end, tile: d.best.tile, passive: true, testid: 'expert-ghost',
      label: t('replay.ghost.label', { move: moveWords(d.best, d.before) }) }));
}

/** The comment over the board: at the step a costly choice was made from, and at the step that made it. */
function renderCoach() {
  const box = $('rp-coach');
  if (!box) return;
  const here = costlyDecisions(R.hand).filter((d) => d.step === R.step || d.step - 1 === R.step);
  box.hidden = !here.length;
  box.replaceChildren(...here.map((d) => {
    const name = seatName(d.seat);
    const played = d.step === R.step;
    const opening = !d.best || d.best.end === null || d.best.end === undefined;
    const text = played ? t('replay.coach.played', { name, played: moveWords(d.played, d.before), move: moveWords(d.best, d.before), points: pointsWords(d.lost) })
      : t(opening ? 'replay.coach.choosing.open' : 'replay.coach.choosing', { name, move: moveWords(d.best, d.before) });
    return h('p', { class: 'rp-coach-line', 'data-testid': 'replay-coach-line', 'data-when': played ? 'played' : 'choosing', 'data-seat': d.seat, text });
  }));
  // On the half of the board away from what it speaks of (the ghost, or the tile just played): on a
  // phone the comment covers a strip of the board, never that.
  const board = $('board');
  const spoken = board.querySelector('[data-testid="expert-ghost"]') || board.querySelector('.tile--last');
  const b = board.getBoundingClientRect();
  const m = spoken ? spoken.getBoundingClientRect() : null;
  box.classList.toggle('rp-coach--top', !!m && m.top + m.height / 2 > b.top + b.height / 2);
}

/** Precision in words: what it measures, what was at stake and what was given up. */
function precisionLines(a) {
  const name = seatName(a.seat);
  if (a.precision === null || a.precision === undefined) {
    return [h('p', { class: 'replay-precision', 'data-testid': 'replay-precision', 'data-seat': a.seat, text: t('replay.precision.none', { name }) })];
  }
  const n = decimal(Number(a.precision));
  return [
    h('p', { class: 'replay-precision', 'data-testid': 'replay-precision', 'data-seat': a.seat, title: t('replay.precision.title') },
      h('strong', { text: t('replay.precision', { name, n }) })),
    h('p', { class: 'replay-explain small', 'data-testid': 'replay-precision-explained', 'data-seat': a.seat, text: t('replay.precision.explain', { name, n }) }),
    typeof a.at_stake === 'number' && typeof a.lost === 'number'
      ? h('p', { class: 'replay-stake small', 'data-testid': 'replay-stake', 'data-seat': a.seat,
        text: t('replay.stake', { stake: pointsWords(a.at_stake), lost: pointsWords(a.lost) }) })
      : null,
  ];
}

function renderAnalysis() {
  const box = $('rp-analysis');
  const st = R.analysis.status;
  box.dataset.status = st;
  if (st !== 'ready') {
    box.replaceChildren(h('p', { class: 'muted', text: t(`replay.analysis.${st}`) }));
    return;
  }
  const mine = analysisOf(R.hand);
  if (!mine.length) { box.replaceChildren(h('p', { class: 'muted', text: t('replay.analysis.none_hand') })); return; }
  box.replaceChildren(...mine.flatMap(precisionLines));
}

// ---------------------------------------------------------------- rendering

function renderControls() {
  $('rp-back').disabled = atStart();
  $('rp-prev-hand').disabled = R.hand === 0 && R.step === 0;
  $('rp-forward').disabled = atEnd();
  $('rp-next-hand').disabled = R.hand >= hands().length - 1;
  const pb = $('rp-play');
  pb.setAttribute('aria-pressed', String(R.playing));
  pb.title = R.playing ? t('replay.pause') : t('replay.play');
  pb.setAttribute('aria-label', pb.title);
  const hs = $('rp-hand');
  hs.replaceChildren(...hands().map((_, i) => h('option', { value: String(i), text: t('replay.hand.n', { n: i + 1 }) })));
  hs.value = String(R.hand);
  const sp = $('rp-speed');
  sp.replaceChildren(...SPEEDS.map((x) => h('option', { value: String(x), text: `${x}×` })));
  sp.value = String(R.speed);
  const where = $('replay-where');
  where.textContent = t('replay.where', { hand: R.hand + 1, hands: hands().length, step: R.step, steps: frames().length - 1 });
  where.dataset.hand = String(R.hand + 1);
  where.dataset.step = String(R.step);
}

const drawn = { timeline: '', proof: '' }; // what the list and the proof show now: redrawn only when it changes

function renderTimeline() {
  const box = $('rp-timeline');
  const key = `${R.hand}:${lang()}:${R.analysis.status}`;
  if (drawn.timeline === key) { markStep(box); return; }
  drawn.timeline = key;
  const marks = costliestBySteps(R.hand);
  const items = frames().map((f, si) => {
    const before = si > 0 ? frames()[si - 1].view : null;
    const lines = f.events.map((e) => eventLine(e.event, f.view, before)).filter(Boolean);
    const said = saidUpTo(f, si > 0 ? frames()[si - 1] : (R.hand > 0 ? frames(R.hand - 1).at(-1) : null));
    const costly = marks.get(si) || [];
    const played = f.events.find((e) => e.event.kind === 'play');
    return h('li', { class: `rp-step${costly.length ? ' rp-step--costly' : ''}`, 'data-step': si },
      h('button', { type: 'button', class: 'rp-step-btn', 'data-testid': 'replay-step', onclick: () => { pause(); go(R.hand, si); } },
        h('span', { class: 'rp-n', text: String(si) }),
        played ? tileSvg(played.event.tile[0], played.event.tile[1], { horizontal: true }) : null,
        h('span', { class: 'rp-lines' }, ...lines.map((l) => h('span', { class: 'rp-line', text: l })))),
      ...said.map((s) => h('p', { class: 'rp-said', 'data-testid': 'replay-said' }, h('b', { text: `${s.name || seatName(s.seat)}: ` }),
        h('span', { text: `«${s.es}»` }), s.en && s.en !== s.es ? h('small', { text: ` ${s.en}` }) : null)),
      ...costly.map((c) => h('p', { class: 'rp-costly', 'data-testid': 'replay-costly' }, h('b', { text: `${seatName(c.seat)}: ` }), h('span', { text: c.words }),
        h('button', { type: 'button', class: 'rp-see', 'data-testid': 'replay-see', onclick: () => seeOnTheBoard(c.step - 1), text: t('replay.see') }))));
  });
  box.replaceChildren(...items);
  markStep(box);
}

/** "Verlo en la mesa": step `si` of this hand, and the table (the page's top) in sight with the ghost and the comment. */
function seeOnTheBoard(si) {
  pause();
  go(R.hand, si);
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  window.scrollTo({ top: 0, behavior: still ? 'auto' : 'smooth' });
}

/** The step shown, marked in the list and kept in sight (the list scrolls, never the page). */
function markStep(box) {
  for (const li of box.querySelectorAll('.rp-step--now')) {
    li.classList.remove('rp-step--now');
    li.firstChild.removeAttribute('aria-current');
  }
  const now = box.querySelector(`.rp-step[data-step="${R.step}"]`);
  if (!now) return;
  now.classList.add('rp-step--now');
  now.firstChild.setAttribute('aria-current', 'step');
  if (box.scrollHeight > box.clientHeight) box.scrollTop = Math.max(0, now.offsetTop - box.clientHeight / 2);
}

function tileRow(tiles, testid) {
  return h('span', { class: 'vf-tiles', 'data-testid': testid, 'data-tiles': tiles.map((x) => `${x[0]}-${x[1]}`).join(' ') },
    ...tiles.map((x) => tileSvg(x[0], x[1], { horizontal: true })));
}

function renderProof() {
  const box = $('rp-proof');
  const p = hands()[R.hand] && hands()[R.hand].proof;
  if (!p) { box.replaceChildren(h('p', { class: 'muted', text: t('replay.proof.none') })); return; }
  const local = R.localHash.get(R.hand);
  const key = `${R.hand}:${lang()}:${local}`;
  if (drawn.proof === key) return;
  drawn.proof = key;
  const localOk = typeof local === 'string' ? local === p.published_hash : null;
  const ok = p.hash_ok === true && p.deal_matches === true && localOk !== false;
  const q = new URLSearchParams({ table: tableId, hand: String(R.hand + 1), match: String(R.data.match) });
  box.replaceChildren(
    h('p', { class: `vf-verdict vf-verdict--${ok ? 'ok' : 'bad'}`, 'data-testid': 'replay-hash', 'data-ok': String(ok) },
      h('span', { text: ok ? t('verify.hash.ok') : t('verify.hash.bad') })),
    ok ? h('p', { class: 'vf-how small', text: localOk === true ? t('verify.hash.browser') : t('verify.hash.server') }) : null,
    p.deal_matches ? h('p', { class: 'small', text: t('verify.deal.ok') }) : null,
    h('dl', { class: 'vf-facts small' },
      h('dt', { text: t('verify.published') }), h('dd', {}, h('code', { class: 'hash-code', text: p.published_hash || '—' })),
      h('dt', { text: t('verify.seed') }), h('dd', {}, h('code', { class: 'hash-code', text: p.seed }))),
    h('h3', { text: t('verify.hands') }),
    h('ul', { class: 'vf-hands' }, ...p.hands.map((tiles, seat) => h('li', { class: 'vf-hand', 'data-testid': 'replay-dealt', 'data-seat': seat },
      h('span', { class: 'vf-name', text: seatName(seat) }), tileRow(tiles, 'replay-dealt-tiles')))),
    h('h3', { text: t('verify.sleeping', { n: p.sleeping.length }) }),
    p.sleeping.length ? tileRow(p.sleeping, 'replay-sleeping') : h('p', { class: 'muted', text: t('verify.sleeping.none') }),
    h('p', {}, h('a', { href: `/verify?${q}`, target: '_blank', rel: 'noopener', text: t('replay.proof.verify') })),
  );
}

function renderReplay() {
  if (!R.data) return;
  renderControls();
  renderTimeline();
  renderProof();
  renderAnalysis();
  renderCoach();
}

function renderMessage() {
  const box = $('replay-message');
  if (!box) return;
  if (!R.error) { box.replaceChildren(h('p', { text: t('replay.loading') })); return; }
  box.replaceChildren(
    h('h1', { text: t('replay.title.short') }),
    h('p', { class: 'replay-error', role: 'alert', 'data-testid': 'replay-error', 'data-code': R.error, text: errorText(R.error) }),
    h('p', {}, h('a', { class: 'btn', href: '/', text: t('nav.home') })));
}

// ---------------------------------------------------------------- boot

/** The renderer's source: the replay's frames, no intents taken (a replay cannot be played into). */
function replaySource(handlers) {
  R.feed = handlers.onFrame;
  return {
    connect() {
      handlers.onStatus('open');
      handlers.onFrame({ type: 'welcome', protocol: 2, seat: null, table: R.data.table });
      const [hi, si] = linkedPosition();
      go(hi, si);
    },
    send() { return false; },
    stop() { pause(); },
    restart() {},
  };
}

/** The live table's markup (table.html's body), put before the replay's controls: one page, two feeds. */
async function tableMarkup() {
  const r = await fetch('/static/table.html');
  const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
  const bar = $('replay');
  for (const el of [...doc.body.children]) bar.before(document.importNode(el, true));
}

async function loadAnalysis() {
  try {
    const { ok, status, data } = await getJson(apiPath('analysis'));
    if (ok && data && data.status === 'ready' && Array.isArray(data.hands)) {
      R.analysis = { status: 'ready', hands: data.hands };
      const f = frameAt();
      if (f) R.feed({ type: 'sync', seq: f.seq, view: f.view }); // the board again, with the experto's ghost where it goes
    }
    else if (ok && data && data.status === 'pending') R.analysis = { status: 'pending', hands: [] };
    else R.analysis = { status: status === 404 ? 'none' : 'failed', hands: [] };
  } catch (_) {
    R.analysis = { status: 'failed', hands: [] };
  }
  renderReplay();
}

async function hashSeeds() {
  for (const [i, hand] of hands().entries()) {
    if (hand.proof && typeof hand.proof.seed === 'string') R.localHash.set(i, await browserSha256(hand.proof.seed));
  }
  renderReplay();
}

function wireControls() {
  $('rp-back').addEventListener('click', () => { pause(); stepBack(); });
  $('rp-forward').addEventListener('click', () => { pause(); stepForward(); });
  $('rp-play').addEventListener('click', () => (R.playing ? pause() : play()));
  $('rp-prev-hand').addEventListener('click', () => { pause(); go(R.step > 0 ? R.hand : Math.max(R.hand - 1, 0), 0); });
  $('rp-next-hand').addEventListener('click', () => { pause(); if (R.hand + 1 < hands().length) go(R.hand + 1, 0); });
  $('rp-hand').addEventListener('change', (e) => {
    const hi = Number(e.target.value); // read before pause() draws the controls again
    pause();
    go(hi, 0);
  });
  $('rp-speed').addEventListener('change', (e) => { R.speed = Number(e.target.value) || 1; schedule(); });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLElement && e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowRight') { pause(); stepForward(); } else if (e.key === 'ArrowLeft') { pause(); stepBack(); }
  });
  window.addEventListener('hashchange', () => { const [hi, si] = linkedPosition(); if (hi !== R.hand || si !== R.step) go(hi, si); });
}

/** A private table's match: it is for its players, and the link they may share (the answer's `share`). */
function renderShare() {
  const share = R.data && typeof R.data.share === 'string' ? R.data.share : null;
  const column = document.querySelector('#replay-info .replay-col');
  if (!share || !column) return;
  let box = $('rp-share');
  if (!box) {
    box = h('p', { class: 'rp-share small', id: 'rp-share', 'data-testid': 'replay-share' });
    column.prepend(box); // at the head of the moves' column
  }
  box.replaceChildren(h('span', { class: 'muted', text: t('replay.share.note') }), ' ',
    h('a', { href: share, 'data-testid': 'replay-share-link', text: t('replay.share') }));
}

async function boot() {
  applyI18n();
  wireLangToggle();
  onLangChange(() => { renderMessage(); renderReplay(); renderShare(); });
  if (!tableId) { R.error = 'unknown_table'; renderMessage(); return; }
  try {
    const { ok, data } = await getJson(apiPath('replay'));
    if (!ok || !data || data.error) R.error = (data && data.error && data.error.code) || 'other';
    else R.data = data;
  } catch (_) {
    R.error = 'network';
  }
  if (R.error) { renderMessage(); return; }
  await tableMarkup();
  $('replay-head').remove(); // the table's own header (scores, libreta, language) takes its place
  $('replay-message').remove();
  $('replay').hidden = false;
  $('replay-info').hidden = false;
  renderShare();
  // The experto's comment goes over the board (on a phone the analysis is far below it).
  document.querySelector('.board-wrap').append(h('div', { class: 'rp-coach', id: 'rp-coach', 'data-testid': 'replay-coach', role: 'status', hidden: true }));
  wireControls();
  // The renderer's module wires the table's elements as it loads: only once they are in the page.
  const { mountTable } = await import('./table/main.js');
  mountTable(replaySource, { tableId, replay: { match: R.data.match, ghosts: ghostsNow } });
  loadAnalysis();
  hashSeeds();
}

boot();
