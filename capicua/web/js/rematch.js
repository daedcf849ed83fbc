// "Otra partida" by consent, at the end of a match (docs/protocol.md, `rematch`).
// TABLE.rematch says who is here and ready, whose player is gone and who decides
// for a gone seat; this module words it on the button ("Otra partida · 2/3 listos")
// and, under it, what the page waits for and the decisions a decider may take:
// leave the seat to a neighbour (`stand_in`), give it to a neighbour (`fill_seat`),
// or, the host, back to the lobby (`to_lobby`). It decides nothing itself.
import { t } from './i18n/index.js';
import { h } from './dom.js';

const ui = {
  levels: null, // [level] from /api/presets, once a decider needs them
  defaultLevel: null,
  fillLevel: {}, // seat -> the level chosen for the neighbour to seat there
  loading: false,
};

/**
 * Draw the ready check: `button` is "Otra partida", `box` the lines under it.
 * `table`: TABLE; `me`: this page's seat; `sent`: this page said "Otra partida"
 * for this match already (before the table frame says so); `name(seat)`: a seat's
 * name; `send(frame)`: false when offline; `redraw()`: draw again (levels came).
 * Returns whether the ready check is shown.
 */
export function renderRematch({ button, box, table, me, sent, name, send, redraw }) {
  const check = table && table.rematch;
  if (!check) {
    button.textContent = t('btn.rematch');
    button.disabled = sent;
    delete button.dataset.ready;
    box.hidden = true;
    box.replaceChildren();
    return false;
  }
  const ready = check.ready.includes(me) || sent;
  const counted = check.players.length + check.gone.length + check.stand_in.length > 1;
  const count = { ready: check.ready.length, of: check.players.length };
  button.textContent = counted ? t('rematch.count', count) : t('btn.rematch');
  button.disabled = ready;
  button.dataset.ready = String(ready);
  const decider = check.deciders.includes(me);
  const host = typeof table.host_seat === 'number' ? table.host_seat : null;
  const lines = [];
  const waitingHere = check.players.filter((s) => !check.ready.includes(s) && s !== me);
  if (ready && waitingHere.length) lines.push(status('rematch.waiting', { names: listOf(waitingHere.map(name)) }));
  else if (ready && check.gone.length && !decider) {
    lines.push(status('rematch.waiting.decision', { host: host === null ? '' : name(host), names: listOf(check.gone.map(name)) }));
  } else if (!ready && counted) lines.push(status('rematch.when'));
  for (const seat of check.gone) lines.push(goneSeat(seat, name(seat), decider, host, name, send, redraw));
  for (const seat of check.stand_in) {
    lines.push(h('p', { class: 'rematch-line', 'data-testid': 'rematch-stand-in-set', 'data-seat': seat, text: t('rematch.stand_in.set', { name: name(seat) }) }));
  }
  if (table.private && host === me) {
    lines.push(h('p', { class: 'rematch-line rematch-lobby' },
      h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'to-lobby', text: t('rematch.to_lobby'),
        onclick: () => send({ type: 'to_lobby' }) })));
  }
  box.replaceChildren(...lines);
  box.hidden = !lines.length;
  return true;
}

function status(key, params) {
  return h('p', { class: 'rematch-status', 'data-testid': 'rematch-status', role: 'status', text: t(key, params) });
}

/** A gone player's seat: what a decider may do with it, or who decides. */
function goneSeat(seat, who, decider, host, name, send, redraw) {
  const line = h('div', { class: 'rematch-gone', 'data-testid': 'rematch-gone', 'data-seat': seat },
    h('p', { class: 'rematch-line', text: t('rematch.gone', { name: who }) }));
  if (!decider) {
    line.append(h('p', { class: 'rematch-line muted', text: host === null ? t('rematch.decides.someone') : t('rematch.decides', { host: name(host) }) }));
    return line;
  }
  const acts = h('div', { class: 'rematch-acts' },
    h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'rematch-stand-in', text: t('rematch.stand_in', { name: who }),
      onclick: () => send({ type: 'stand_in', seat }) }));
  if (seat !== host) acts.append(...fillControls(seat, send, redraw));
  line.append(acts);
  return line;
}

function fillControls(seat, send, redraw) {
  if (!ui.levels) { loadLevels(redraw); return []; }
  const level = ui.fillLevel[seat] || ui.defaultLevel;
  const select = h('select', { class: 'lseat-level', 'data-testid': 'rematch-fill-level', 'aria-label': t('lobby.fill.level') },
    ...ui.levels.map((lv) => new Option(t(`level.${lv}`), lv, false, lv === level)));
  select.addEventListener('change', () => { ui.fillLevel[seat] = select.value; });
  return [h('span', { class: 'rematch-fill' }, select,
    h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'rematch-fill', text: t('rematch.fill'),
      onclick: () => send({ type: 'fill_seat', seat, level: select.value }) }))];
}

async function loadLevels(redraw) {
  if (ui.loading) return;
  ui.loading = true;
  try {
    const r = await fetch('/api/presets', { headers: { Accept: 'application/json' } });
    const data = r.ok ? await r.json() : null;
    const levels = data && Array.isArray(data.levels) ? data.levels.filter((lv) => typeof lv === 'string') : [];
    if (levels.length) {
      ui.levels = levels;
      ui.defaultLevel = levels.includes(data.default_level) ? data.default_level : levels[0];
    }
  } catch (_) { /* asked again on the next draw */ }
  ui.loading = false;
  if (ui.levels) redraw();
}

function listOf(names) {
  if (names.length < 2) return names.join('');
  return `${names.slice(0, -1).join(', ')}${t('rematch.and')}${names[names.length - 1]}`;
}
