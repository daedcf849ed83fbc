// Gente (/gente): the people this browser's player shared a table with, newest first
// (GET /api/gente, a page at a time: "Ver más"), with their level and whether they
// are around now; "Invitar" sends one an invitation to a table of yours waiting in
// its lobby (POST /api/invitations; the tables come with the list, ?mesa=ID picks
// one); "Silenciar" mutes their invitations (PUT/DELETE /api/mutes/{id}). The search
// box finds any player by the start of their nickname (GET /api/players?q=) and
// links to their profile. Nothing is decided here: the server says who, and why not.

import { t, has, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { readToken } from './guest.js';
import { tokenHeaders, wireProfileLink } from './me.js';
import { $, h, fill } from './dom.js';
import './invitations.js';

const G = {
  people: [], next: null, tables: [], table: null, error: null, loading: true,
  sent: new Map(), // player → 'sent' or an error code of their last invitation
  found: null, foundError: null, asked: 0,
  mutes: [], // whom this player mutes (GET /api/mutes): unmuted here even when no longer in the list
};
const wanted = new URLSearchParams(location.search).get('mesa');

const presetName = (name) => (name && has(`preset.${name}`) ? t(`preset.${name}`) : (name || ''));
const levelName = (level) => (level && typeof level.name === 'string' ? level.name : '');
const profileLink = (p) => h('a', { href: `/player/${encodeURIComponent(p.player)}`, 'data-testid': 'gente-name', text: p.nickname });

async function api(path, options = {}) {
  let r;
  try { r = await fetch(path, { ...options, headers: { ...tokenHeaders(), ...(options.headers || {}) } }); } catch (_) {
    return { ok: false, status: 0, data: null };
  }
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { ok: r.ok, status: r.status, data };
}
const codeOf = (got) => (got.status === 0 ? 'network' : (got.data && got.data.error && got.data.error.code) || 'other');

// ---------------------------------------------------------------- the list

async function load(more = false) {
  if (!readToken()) { G.loading = false; G.error = 'no_token'; render(); return; }
  G.loading = true;
  render();
  const q = more && G.next ? `?${new URLSearchParams({ after: G.next })}` : '';
  const got = await api(`/api/gente${q}`);
  G.loading = false;
  if (!got.ok || !got.data || !Array.isArray(got.data.people)) { G.error = codeOf(got); render(); return; }
  G.error = null;
  G.people = more ? [...G.people, ...got.data.people] : got.data.people;
  G.next = got.data.next;
  G.tables = Array.isArray(got.data.tables) ? got.data.tables : [];
  if (!G.tables.some((x) => x.table === G.table)) {
    G.table = (G.tables.find((x) => x.table === wanted) || G.tables[0] || { table: null }).table;
  }
  render();
}

async function invite(p) {
  if (!G.table) return;
  G.sent.set(p.player, 'sending');
  render();
  const got = await api('/api/invitations', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ player: p.player, table: G.table }) });
  G.sent.set(p.player, got.ok || codeOf(got) === 'already_invited' ? 'sent' : codeOf(got));
  render();
}

async function toggleMute(p) {
  const got = await api(`/api/mutes/${encodeURIComponent(p.player)}`, { method: p.muted ? 'DELETE' : 'PUT' });
  if (got.ok && got.data) {
    for (const q of G.people) if (q.player === p.player) q.muted = !!got.data.muted;
    await loadMutes();
  }
  render();
}

async function loadMutes() {
  const got = await api('/api/mutes');
  G.mutes = got.ok && got.data && Array.isArray(got.data.mutes) ? got.data.mutes : [];
}

function renderMutes() {
  if (!G.mutes.length) return null;
  return h('details', { class: 'gente-mutes', 'data-testid': 'gente-mutes' },
    h('summary', { text: t('gente.mutes', { n: G.mutes.length }) }),
    h('ul', { class: 'gente-list' }, G.mutes.map((m) => h('li', { class: 'gente-row', 'data-testid': 'gente-muted', 'data-player': m.player },
      h('div', { class: 'gente-who' }, profileLink(m)),
      h('button', { type: 'button', class: 'btn btn-small', text: t('gente.unmute'),
        title: t('gente.unmute.title', { name: m.nickname }), onclick: () => toggleMute({ ...m, muted: true }) })))));
}

function inviteButton(p) {
  const table = G.tables.find((x) => x.table === G.table);
  if (table && Array.isArray(table.seated) && table.seated.includes(p.player)) {
    return h('span', { class: 'gente-sent', 'data-testid': 'gente-seated', text: t('gente.seated') });
  }
  const state = G.sent.get(p.player);
  if (state === 'sent') return h('span', { class: 'gente-sent', 'data-testid': 'gente-sent', text: t('gente.sent') });
  const err = state && state !== 'sending'
    ? h('span', { class: 'gente-error', role: 'alert', 'data-testid': 'gente-error', 'data-code': state,
      text: t(has(`gente.err.${state}`) ? `gente.err.${state}` : 'gente.err.other') }) : null;
  return [err, h('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-testid': 'gente-invite',
    disabled: !G.table || state === 'sending', title: G.table ? null : t('gente.invite.none'),
    text: t('gente.invite'), onclick: () => invite(p) })];
}

function personRow(p) {
  return h('li', { class: 'gente-row', 'data-testid': 'gente-row', 'data-player': p.player, 'data-around': p.around ? '1' : '0' },
    h('div', { class: 'gente-who' },
      profileLink(p),
      p.around ? h('span', { class: 'gente-around', 'data-testid': 'gente-around', text: t('gente.around') }) : null,
      h('span', { class: 'lb-level', text: [levelName(p.level), p.matches ? t(p.matches === 1 ? 'gente.matches1' : 'gente.matches', { n: p.matches }) : ''].filter(Boolean).join(' · ') })),
    h('div', { class: 'gente-actions' },
      inviteButton(p),
      h('button', { type: 'button', class: 'btn btn-small gente-mute', 'data-testid': 'gente-mute', 'aria-pressed': p.muted ? 'true' : 'false',
        title: t(p.muted ? 'gente.unmute.title' : 'gente.mute.title', { name: p.nickname }),
        text: t(p.muted ? 'gente.unmute' : 'gente.mute'), onclick: () => toggleMute(p) })));
}

function renderTables() {
  const box = $('gente-invite-to');
  if (!G.tables.length) {
    fill(box, G.error ? null : h('p', { class: 'hint', 'data-testid': 'gente-no-table' },
      t('gente.invite.none'), ' ', h('a', { href: '/', text: t('gente.invite.open') })));
    return;
  }
  const select = h('select', { id: 'gente-table', 'data-testid': 'gente-table',
    onchange: (ev) => { G.table = ev.target.value; G.sent.clear(); render(); } },
  G.tables.map((x) => h('option', { value: x.table, selected: x.table === G.table,
    text: t(x.free_seats === 1 ? 'gente.table1' : 'gente.table', { game: presetName(x.preset), n: x.free_seats }) })));
  fill(box, h('label', { for: 'gente-table', text: t('gente.invite.to') }), select);
}

function render() {
  renderTables();
  const body = $('gente-body');
  body.setAttribute('aria-busy', G.loading ? 'true' : 'false');
  if (G.error) {
    fill(body, h('p', { class: G.error === 'no_token' ? 'hint' : 'form-error', 'data-testid': 'gente-error-page', 'data-code': G.error,
      text: t(has(`gente.page.${G.error}`) ? `gente.page.${G.error}` : 'gente.page.other') }));
    return;
  }
  if (G.loading && !G.people.length) { fill(body, h('p', { class: 'muted', text: t('gente.loading') })); return; }
  if (!G.people.length) { fill(body, h('p', { class: 'lb-empty', 'data-testid': 'gente-empty', text: t('gente.empty') }), renderMutes()); return; }
  fill(body,
    h('ul', { class: 'gente-list', 'data-testid': 'gente-list' }, G.people.map(personRow)),
    G.next ? h('button', { type: 'button', class: 'btn', 'data-testid': 'gente-more', disabled: G.loading,
      text: t('gente.more'), onclick: () => load(true) }) : null,
    renderMutes());
}

// ---------------------------------------------------------------- the search

async function search(ev) {
  ev.preventDefault();
  const q = $('gente-q').value.trim();
  const asked = ++G.asked;
  if (q.length < 2) { G.found = null; G.foundError = 'short'; renderFound(); return; }
  const got = await api(`/api/players?${new URLSearchParams({ q })}`);
  if (asked !== G.asked) return;
  G.found = got.ok && got.data && Array.isArray(got.data.players) ? got.data.players : null;
  G.foundError = G.found ? null : codeOf(got);
  renderFound();
}

function renderFound() {
  const box = $('gente-found');
  if (G.foundError) {
    fill(box, h('p', { class: 'form-error', 'data-testid': 'gente-found-error', 'data-code': G.foundError,
      text: t(has(`gente.search.err.${G.foundError}`) ? `gente.search.err.${G.foundError}` : 'gente.page.other') }));
    return;
  }
  if (!G.found) { fill(box); return; }
  if (!G.found.length) { fill(box, h('p', { class: 'muted', 'data-testid': 'gente-found-none', text: t('gente.search.none') })); return; }
  fill(box, h('ul', { class: 'gente-list gente-found-list' }, G.found.map((p) => h('li', { class: 'gente-row', 'data-testid': 'gente-found-row', 'data-player': p.player },
    h('div', { class: 'gente-who' }, profileLink(p), h('span', { class: 'lb-level', text: levelName(p.level) }))))));
}

applyI18n();
wireLangToggle();
$('gente-search').addEventListener('submit', search);
onLangChange(() => { render(); renderFound(); });
wireProfileLink($('gente-profile'));
load();
if (readToken()) loadMutes().then(render);
