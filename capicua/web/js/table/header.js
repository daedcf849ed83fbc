// The top bar and the status line: the scores, watchers, the boneyard count, the
// deal's hash and its proof, the connection, the toggles (subtitles, sound); and the
// page that only says the table cannot be shown.

import { t } from '../i18n/index.js';
import { svg } from '../tiles.js';
import * as sound from '../sound.js';
import { onSettings, saveSettings } from '../settings.js';
import { $, h, fill } from '../dom.js';
import { S, V, isPlayer, myTeam, partnership, teamOrder, teamLabel, connShown } from './state.js';
import { renderTicker } from './effects.js';
import { renderAll } from './main.js';

/**
 * The table cannot be shown (no such table): the page says so on its own, in
 * the current language (`key`), with a way home; the top bar keeps its language toggle.
 */
export function showFatal(key) {
  S.fatal = key;
  renderFatal();
}

export function renderFatal() {
  const box = $('fatal');
  box.hidden = !S.fatal;
  if (!S.fatal) return;
  fill(box,
    h('div', { class: 'fatal-card' },
      h('p', { text: t(S.fatal) }),
      h('a', { class: 'btn btn-primary', href: '/', text: t('btn.home'), 'data-testid': 'go-home' })));
}

export function renderScores() {
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

export function renderStatus() {
  const v = V();
  const rules = v.rules || {};
  // The tiles left out of the hands, as the view's rules say: drawn from in a
  // draw game, sleeping all hand long otherwise, and none where every tile is dealt.
  const counted = typeof v.boneyard === 'number' && (rules.drawing === true || rules.sleeping !== 0);
  const sl = $('sleeping');
  sl.hidden = !counted;
  sl.textContent = counted ? t(rules.drawing ? 'boneyard' : 'sleeping', { n: v.boneyard }) : '';
  renderTicker();
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

/** The connection changed: the status line says so (in the lobby, its own line). */
export function renderConn() {
  if (document.body.dataset.lobby === 'on') renderAll(); else renderStatus();
}

function lockIcon() {
  const s = svg('svg', { viewBox: '0 0 24 24', class: 'lock', 'aria-hidden': 'true' });
  svg('path', { d: 'M7 10V7a5 5 0 0 1 10 0v3h1a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1zm2 0h6V7a3 3 0 0 0-6 0z' }, s);
  return s;
}

/** The verify page of this table's current hand (the server looks up its seed, rules and deal). */
export function verifyUrl() {
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

export function renderToggles() {
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
  saveSettings({ subtitles: !readToggle('capicua.subs', true) }); // kept here at once, then for the player's other devices
  renderToggles();
});
onSettings(renderToggles); // the player's subtitles as the server says them
$('sound-btn').addEventListener('click', () => { sound.setSoundEnabled(!sound.soundEnabled()); renderToggles(); });
$('seed-hash').addEventListener('click', () => {
  const pop = $('seed-pop');
  pop.hidden = !pop.hidden;
  $('seed-hash').setAttribute('aria-expanded', String(!pop.hidden));
});
