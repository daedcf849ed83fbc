// The parque (/parque): who is around, the public tables waiting for players,
// the tables anyone may watch (parquelist.js), and "Jugar con gente": the page
// joins the queue (POST /api/parque/queue with this browser's token, or a new
// guest's), polls it every 2 s (a turn not polled for 30 s is dropped: closing
// the page leaves the queue), and goes to the table the matcher seats it at.
// "Salir de la cola" leaves it. The games come from GET /api/presets.

import { t, has, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { readToken, saveToken, readNickname, saveNickname, rememberTable } from './guest.js';
import { tokenHeaders } from './me.js';
import { $, fill } from './dom.js';
import { gameName, keepFresh, waitingRow, playingRow, personChip } from './parquelist.js';
import './invitations.js';

const POLL_MS = 2000;
const WAIT_KEY = 'capicua.parque.wait';
const PRESET_KEY = 'capicua.parque.preset';

const P = { listing: null, queued: null, error: null, poller: null, presets: [], refresh: () => {} };

function pref(key) { try { return localStorage.getItem(key); } catch (_) { return null; } }
function keep(key, value) { try { localStorage.setItem(key, value); } catch (_) { /* private mode */ } }

async function api(method, path, body) {
  const init = { method, headers: { ...tokenHeaders() } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  try {
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch (_) { data = null; }
    return { ok: r.ok, status: r.status, data };
  } catch (_) {
    return { ok: false, status: 0, data: null };
  }
}

// ---------------------------------------------------------------- the listing

function renderListing() {
  const d = P.listing;
  if (!d) return;
  const around = Array.isArray(d.around) ? d.around : [];
  fill($('pq-around'), around.map(personChip));
  $('pq-around-empty').hidden = around.length > 0;
  const counts = d.queue && d.queue.counts ? Object.entries(d.queue.counts) : [];
  $('pq-queue-counts').textContent = counts.length
    ? t('parque.queue.counts', { list: counts.map(([preset, n]) => `${gameName(preset)}: ${n}`).join(' · ') })
    : t('parque.queue.none');
  fill($('pq-waiting-list'), d.waiting.map(waitingRow));
  $('pq-waiting-empty').hidden = d.waiting.length > 0;
  fill($('pq-playing-list'), d.playing.map(playingRow));
  $('pq-playing-empty').hidden = d.playing.length > 0;
}

// ---------------------------------------------------------------- the queue

function chosenWait() {
  const input = document.querySelector('input[name="wait"]:checked');
  const v = input ? input.value : '60';
  return v === 'never' ? null : Number(v);
}

function errorText(code, field) {
  if (code === 'network') return t('parque.err.network');
  if (field === 'nickname') return t('home.err.nickname');
  return has(`parque.err.${code}`) ? t(`parque.err.${code}`) : t('parque.err.other');
}

function renderQueue() {
  const q = P.queued;
  $('pq-form').hidden = !!q;
  $('pq-waiting').hidden = !q;
  const err = $('pq-error');
  err.hidden = !P.error;
  err.textContent = P.error ? errorText(P.error.code, P.error.field) : '';
  if (P.error) err.dataset.code = P.error.code; else delete err.dataset.code;
  if (!q) return;
  const others = Math.max(0, (q.waiting || 1) - 1);
  $('pq-waiting-text').textContent = t(others === 1 ? 'parque.queued.one' : 'parque.queued', { game: gameName(q.preset), n: others });
  $('pq-waiting-hint').textContent = q.wait === null || q.wait === undefined
    ? t('parque.queued.never', { s: q.waited_s || 0 })
    : t('parque.queued.wait', { s: q.waited_s || 0, wait: q.wait });
}

function seatedAt(tableId, preset) {
  stopPolling();
  rememberTable(tableId, preset);
  location.assign(`/t/${encodeURIComponent(tableId)}`);
}

function stopPolling() {
  clearTimeout(P.poller);
  P.poller = null;
}

async function poll() {
  stopPolling();
  const got = await api('GET', '/api/parque/queue');
  if (got.ok && got.data && got.data.state === 'seated') { seatedAt(got.data.table_id, got.data.preset); return; }
  if (got.ok && got.data && got.data.state === 'waiting') P.queued = got.data;
  else if (got.status === 404 || got.status === 401) P.queued = null; // out of the queue (left in another tab)
  renderQueue();
  if (P.queued || got.status === 0) P.poller = setTimeout(poll, POLL_MS);
}

async function join(ev) {
  ev.preventDefault();
  const nickname = $('pq-nickname').value.trim();
  const preset = $('pq-preset').value || 'cubano';
  const wait = chosenWait();
  keep(WAIT_KEY, wait === null ? 'never' : String(wait));
  keep(PRESET_KEY, preset);
  const body = { nickname, preset, wait };
  const token = readToken();
  if (token) body.token = token;
  $('pq-join').disabled = true;
  const got = await api('POST', '/api/parque/queue', body);
  $('pq-join').disabled = false;
  if (!got.ok) {
    const error = got.data && got.data.error;
    P.error = got.status === 0 ? { code: 'network' } : { code: (error && error.code) || 'other', field: error && error.field };
    renderQueue();
    return;
  }
  saveToken(got.data.token);
  saveNickname(nickname);
  P.error = null;
  P.queued = got.data;
  renderQueue();
  P.refresh();
  P.poller = setTimeout(poll, POLL_MS);
}

async function leave() {
  stopPolling();
  const got = await api('DELETE', '/api/parque/queue');
  if (!got.ok && got.status !== 404) {
    P.error = { code: got.status === 0 ? 'network' : ((got.data && got.data.error && got.data.error.code) || 'other') };
  } else {
    P.error = null;
    P.queued = null;
    P.refresh();
  }
  renderQueue();
  if (P.queued) poll(); // still queued (a network error): keep the turn alive
}

// ---------------------------------------------------------------- the games

async function loadPresets() {
  const got = await api('GET', '/api/presets');
  const presets = got.ok && got.data && Array.isArray(got.data.presets) ? got.data.presets.map((p) => p.name) : ['cubano'];
  P.presets = presets;
  fillPresets(pref(PRESET_KEY) || (got.data && got.data.default) || presets[0]);
}

function fillPresets(chosen) {
  const sel = $('pq-preset');
  const current = chosen || sel.value;
  sel.replaceChildren(...P.presets.map((name) => new Option(gameName(name), name)));
  sel.value = P.presets.includes(current) ? current : P.presets[0];
}

function start() {
  applyI18n();
  wireLangToggle();
  $('pq-nickname').value = readNickname() || '';
  const wait = pref(WAIT_KEY);
  const input = wait && document.querySelector(`input[name="wait"][value="${wait}"]`);
  if (input) input.checked = true;
  $('pq-form').addEventListener('submit', join);
  $('pq-leave').addEventListener('click', leave);
  $('pq-nickname').addEventListener('input', () => { if (P.error) { P.error = null; renderQueue(); } });
  onLangChange(() => { fillPresets(); renderListing(); renderQueue(); });
  loadPresets();
  P.refresh = keepFresh((got) => { if (got.ok) { P.listing = got.data; renderListing(); } });
  if (readToken()) poll(); // a turn this browser already holds (a reload, another tab)
  renderQueue();
}

start();
