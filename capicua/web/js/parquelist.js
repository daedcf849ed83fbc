// The parque's listing (GET /api/parque), for the parque page and the home page's
// panel: who is around, the public tables waiting for players ("Sentarse"), the
// tables anyone may watch ("Mirar") and how many wait in the queue for each game.
// One small JSON, asked again every 15 s while the page is visible; the browser
// revalidates it with its ETag (an unchanged listing comes back as a 304, no body).

import { t, has, lang } from './i18n/index.js';
import { h } from './dom.js';
import { nameLink } from './namelink.js';

export const REFRESH_MS = 15000;

export function gameName(preset) {
  return has(`preset.${preset}`) ? t(`preset.${preset}`) : preset;
}

/** GET /api/parque: {ok, data} (data null when the answer was not the listing). */
export async function fetchParque() {
  try {
    const r = await fetch('/api/parque', { cache: 'no-cache', headers: { Accept: 'application/json' } });
    const data = r.ok ? await r.json() : null;
    const ok = !!(data && Array.isArray(data.waiting) && Array.isArray(data.playing));
    return { ok, data: ok ? data : null };
  } catch (_) {
    return { ok: false, data: null };
  }
}

/**
 * Call `draw(result)` now and every REFRESH_MS while the page is visible (and at once when it
 * shows again). Returns a function that asks again now (after the page changed the listing).
 */
export function keepFresh(draw) {
  let timer = null;
  const tick = async () => {
    clearTimeout(timer);
    if (document.visibilityState === 'visible') draw(await fetchParque());
    timer = setTimeout(tick, REFRESH_MS);
  };
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') tick(); });
  tick();
  return tick;
}

function levelsLine(levels) {
  if (!levels || !levels.length) return '';
  const named = [...new Set(levels)].map((lv) => (has(`level.${lv}`) ? t(`level.${lv}`) : lv));
  return t('parque.neighbours', { levels: named.join(', ') });
}

/** A public table waiting for players: game, target, seats free, host, the neighbours seated; "Sentarse". */
export function waitingRow(table) {
  const free = Number(table.free) || 0;
  return h('li', { class: 'pq-table', 'data-testid': 'pq-waiting', 'data-table': table.table_id },
    h('div', { class: 'pq-table-text' },
      h('strong', { text: gameName(table.preset) }),
      h('span', { class: 'pq-sub', text: [
        table.target ? t('parque.target', { n: table.target }) : '',
        t(free === 1 ? 'parque.free.one' : 'parque.free', { n: free }),
        table.host ? t('parque.host', { name: table.host }) : '',
        levelsLine(table.neighbours),
      ].filter(Boolean).join(' · ') })),
    h('a', { class: 'btn btn-primary pq-go', 'data-testid': 'pq-sit', href: `/t/${encodeURIComponent(table.table_id)}`,
      text: t('parque.sit') }));
}

/** A table being played that anyone may watch: game, players, score; "Mirar". */
export function playingRow(table) {
  const scores = Array.isArray(table.scores) ? table.scores.join('–') : '';
  return h('li', { class: 'pq-table', 'data-testid': 'pq-playing', 'data-table': table.table_id },
    h('div', { class: 'pq-table-text' },
      h('strong', { text: (table.players || []).join(', ') || gameName(table.preset) }),
      h('span', { class: 'pq-sub', text: [
        gameName(table.preset),
        scores ? t('parque.score', { score: scores }) : '',
        levelsLine(table.neighbours),
      ].filter(Boolean).join(' · ') })),
    h('a', { class: 'btn pq-go', 'data-testid': 'pq-watch', href: `/t/${encodeURIComponent(table.table_id)}?mirar=1`,
      text: t('parque.watch') }));
}

/** Someone around: their name (a link to their profile) and level, by its name in the page's language. */
export function personChip(person) {
  const level = person.level || {};
  const named = lang() === 'en' ? level.name_en : level.name;
  const levelText = typeof named === 'string' && named ? named
    : (Number.isInteger(level.number) ? t('parque.level', { n: level.number }) : '');
  return h('li', { class: 'pq-person', 'data-testid': 'pq-person' },
    nameLink(person.nickname, person.player, { class: 'pq-nick' }),
    levelText ? h('span', { class: 'pq-level', text: levelText }) : null);
}
