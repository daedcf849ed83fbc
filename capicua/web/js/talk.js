// Table talk without señas: a button beside the hand opens a palette of the
// table's fixed phrases and a few emoji (GET /api/phrases); choosing one says
// it ({type: "say", phrase: id}). There is no free text anywhere, so nobody
// can sing their tiles to a partner. Spectators get no button: they hear, and
// los mirones son de palo.

import { t } from './i18n/index.js';
import { svg } from './tiles.js';
import { h as el } from './dom.js';

const EMOJI_PREFIX = 'emoji_'; // the catalogue's emoji are phrases whose id says so: a row of their own

/**
 * The talk control, mounted in `box`. `say(id)` sends the phrase and returns
 * false when the socket is down; `offline()` tells the player so.
 */
export function createTalk(box, { say, offline }) {
  let phrases = null; // [{id, es, en}] once loaded
  let loading = null;
  let open = false;
  const button = el('button', {
    type: 'button', class: 'btn talk-btn', 'data-testid': 'talk-btn', 'aria-expanded': 'false', 'aria-controls': 'talk-palette',
    onclick: () => (open ? close(true) : show()),
  });
  const label = el('span', { class: 'talk-label' });
  const icon = svg('svg', { viewBox: '0 0 24 24', class: 'talk-icon', 'aria-hidden': 'true' });
  svg('path', { d: 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z' }, icon);
  for (const cx of [7.5, 12, 16.5]) svg('circle', { cx, cy: 11, r: 1.4, class: 'talk-dot' }, icon);
  button.append(icon, label);
  const palette = el('div', { class: 'talk-palette', id: 'talk-palette', 'data-testid': 'talk-palette', role: 'group', hidden: true });
  box.append(button, palette);

  function load() {
    if (!loading) {
      loading = fetch('/api/phrases')
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
        .then((body) => { phrases = Array.isArray(body.phrases) ? body.phrases : []; })
        .catch(() => { loading = null; }); // asked again on the next opening
    }
    return loading;
  }

  function phraseButton(p, emoji) {
    return el('button', {
      type: 'button', class: emoji ? 'phrase phrase--emoji' : 'phrase', 'data-testid': 'phrase', 'data-phrase': p.id,
      title: emoji ? null : p.en, onclick: () => choose(p.id),
    }, el('span', { class: 'phrase-es', lang: 'es', text: p.es }), emoji ? null : el('span', { class: 'phrase-en', lang: 'en', text: p.en }));
  }

  function renderPalette() {
    palette.setAttribute('aria-label', t('talk.title'));
    if (!phrases) {
      palette.replaceChildren(el('p', { class: 'talk-note', text: loading ? t('talk.loading') : t('talk.unavailable') }));
      return;
    }
    const words = phrases.filter((p) => !p.id.startsWith(EMOJI_PREFIX));
    const emoji = phrases.filter((p) => p.id.startsWith(EMOJI_PREFIX));
    palette.replaceChildren(
      el('p', { class: 'talk-title', text: t('talk.title') }),
      // The emoji first: a quick reaction is one tap away, the phrases scroll under them on a phone.
      emoji.length ? el('div', { class: 'talk-emoji' }, ...emoji.map((p) => phraseButton(p, true))) : null,
      el('div', { class: 'talk-phrases' }, ...words.map((p) => phraseButton(p, false))),
      el('p', { class: 'talk-note', text: t('talk.note') }),
    );
  }

  function show() {
    open = true;
    palette.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    renderPalette();
    const focusFirst = () => { const first = palette.querySelector('button'); if (first && open) first.focus({ preventScroll: true }); };
    if (phrases) focusFirst();
    else load().then(() => { if (open) { renderPalette(); focusFirst(); } });
  }

  function close(refocus) {
    if (!open) return;
    open = false;
    palette.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus({ preventScroll: true });
  }

  function choose(id) {
    close(true);
    if (!say(id)) offline();
  }

  // Escape or a click elsewhere closes the palette.
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape' && open) { ev.stopPropagation(); close(true); } }, true);
  document.addEventListener('pointerdown', (ev) => { if (open && !box.contains(ev.target)) close(false); });

  return {
    /** Show the button to players (who may talk), hide it from spectators; word it in the current language. */
    render(canTalk) {
      box.hidden = !canTalk;
      if (!canTalk) close(false);
      label.textContent = t('talk.btn');
      button.title = t('talk.btn.title');
      button.setAttribute('aria-label', t('talk.btn')); // on a phone the button is its icon alone
      if (open) renderPalette();
    },
  };
}
