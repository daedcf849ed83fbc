// Invitations to a table (Gente), shown in every page of this browser: each page's
// script imports this module, which asks GET /api/invitations while the page is
// visible — every poll_s seconds (20) and at once when it becomes visible again —
// with the ETag of the last answer, so an unchanged list is a bodiless 304
// (docs/architecture.md, "Invitations"). A hidden tab asks nothing; a browser
// without a token (never signed in) asks nothing.
// A notice per invitation: "Aceptar" takes the seat (POST …/accept, then the table
// page sits there: ?sentarme=SEAT), "Ahora no" dismisses it (POST …/dismiss).

import { t, has, onLangChange } from './i18n/index.js';
import { readToken } from './guest.js';
import { h, fill } from './dom.js';

const I = {
  etag: null,
  list: [], // the invitations of the last answer
  pollMs: 20000,
  timer: 0,
  asking: false,
  stopped: false, // the server does not know this browser's token: ask no more
  gone: new Set(), // ids answered here (hidden at once, whatever the next poll says)
  errors: new Map(), // id → the code of a refused answer, shown on its notice
  box: null,
};
const visible = () => document.visibilityState === 'visible';
const here = () => decodeURIComponent((location.pathname.match(/^\/t\/([^/?#]+)/) || [])[1] || '');

function headers(token) {
  return { Accept: 'application/json', Authorization: `Bearer ${token}` };
}

function schedule() {
  clearTimeout(I.timer);
  if (!I.stopped && visible()) I.timer = setTimeout(poll, I.pollMs);
}

/** Ask for this browser's invitations (a 304 changes nothing). */
export async function poll() {
  const token = readToken();
  if (!token || I.stopped || I.asking || !visible()) return;
  I.asking = true;
  try {
    const r = await fetch('/api/invitations', {
      headers: I.etag ? { ...headers(token), 'If-None-Match': I.etag } : headers(token), cache: 'no-store' });
    if (r.status === 200) {
      const data = await r.json();
      I.etag = r.headers.get('ETag');
      I.list = Array.isArray(data.invitations) ? data.invitations : [];
      if (Number.isFinite(data.poll_s) && data.poll_s >= 5) I.pollMs = data.poll_s * 1000;
      render();
    } else if (r.status === 401) {
      I.stopped = true;
    }
  } catch (_) { /* offline: the next poll tries again */ }
  I.asking = false;
  schedule();
}

const presetName = (name) => (name && has(`preset.${name}`) ? t(`preset.${name}`) : (name || ''));

async function answer(inv, verb) {
  const token = readToken();
  if (!token) return;
  let r = null;
  let data = null;
  try {
    r = await fetch(`/api/invitations/${encodeURIComponent(inv.id)}/${verb}`, { method: 'POST', headers: headers(token) });
    data = await r.json();
  } catch (_) { r = null; }
  if (verb === 'accept' && r && r.ok && data && typeof data.url === 'string' && data.url.startsWith('/t/')) {
    location.href = data.url;
    return;
  }
  if (verb === 'dismiss' || (r && r.ok)) { I.gone.add(inv.id); render(); return; }
  const code = r ? (data && data.error && data.error.code) || 'other' : 'network';
  I.errors.set(inv.id, code);
  render();
}

function notice(inv) {
  const code = I.errors.get(inv.id);
  const free = inv.free_seats === 1 ? t('inv.free1') : t('inv.free', { n: inv.free_seats });
  return h('div', { class: 'inv-notice', role: 'alertdialog', 'aria-labelledby': `inv-${inv.id}`,
    'data-testid': 'invite-notice', 'data-table': inv.table },
  h('p', { class: 'inv-text', id: `inv-${inv.id}` },
    h('strong', { text: t('inv.from', { name: inv.from.nickname }) }),
    h('span', { class: 'inv-game', text: `${presetName(inv.preset)} · ${free}` })),
  code ? h('p', { class: 'inv-error', role: 'alert', 'data-testid': 'invite-error', 'data-code': code,
    text: t(has(`inv.err.${code}`) ? `inv.err.${code}` : 'inv.err.other') }) : null,
  h('div', { class: 'inv-actions' },
    code ? null : h('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-testid': 'invite-accept',
      text: t('inv.accept'), onclick: () => answer(inv, 'accept') }),
    h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'invite-dismiss',
      text: t(code ? 'inv.close' : 'inv.later'), onclick: () => answer(inv, 'dismiss') })));
}

function render() {
  const shown = I.list.filter((inv) => !I.gone.has(inv.id) && inv.table !== here()).slice(0, 3);
  if (!I.box) {
    if (!shown.length) return;
    I.box = h('section', { class: 'inv-notices', 'data-testid': 'invite-notices', 'aria-live': 'polite',
      'aria-label': t('inv.region') });
    document.body.append(I.box);
  }
  I.box.setAttribute('aria-label', t('inv.region'));
  fill(I.box, shown.map(notice));
  I.box.hidden = !shown.length;
}

document.addEventListener('visibilitychange', () => {
  if (visible()) poll();
  else clearTimeout(I.timer);
});
onLangChange(render);
poll();
