// "Llévate tu jugador" on the other browser (/llevar#CODE): the code comes in the
// link's fragment — never sent in a request, so never in a server's log — and is
// posted to POST /api/keys/use, which answers a new token of the key's player. The
// fragment is dropped from the address at once (history), then kept only in memory.

import { t, applyI18n, wireLangToggle, onLangChange } from './i18n/index.js';
import { readToken, saveToken, saveNickname, rememberPlayer } from './guest.js';
import { loadSettings } from './settings.js';
import { $ } from './dom.js';

const code = decodeURIComponent(location.hash.slice(1));
history.replaceState(null, '', location.pathname); // the key leaves the address bar and the history
const L = { done: null, error: code ? null : 'no_code' };

function render() {
  $('lv-already').hidden = !(readToken() && !L.done);
  $('lv-form').hidden = Boolean(L.done || L.error === 'no_code');
  const result = $('lv-result');
  result.hidden = !(L.done || L.error);
  result.dataset.code = L.error || 'ok';
  if (L.done) result.textContent = t('lv.done', { name: L.done.nickname });
  else if (L.error) {
    const known = ['no_code', 'unknown_key', 'key_used', 'key_expired', 'too_fast', 'network'];
    result.textContent = t(`lv.err.${known.includes(L.error) ? L.error : 'other'}`);
  }
  const profile = $('lv-profile');
  profile.hidden = !L.done;
  if (L.done) profile.href = `/player/${encodeURIComponent(L.done.player)}`;
}

async function useKey(event) {
  event.preventDefault();
  $('lv-go').disabled = true;
  let r = null;
  let data = null;
  try {
    r = await fetch('/api/keys/use', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code, only_here: $('lv-only-here').checked }),
    });
    data = await r.json().catch(() => null);
  } catch (_) {
    L.error = 'network';
  }
  if (r && r.ok && data && typeof data.token === 'string') {
    saveToken(data.token);
    saveNickname(data.nickname);
    rememberPlayer(data.token, data.player);
    L.done = data;
    L.error = null;
    await loadSettings(); // the player's settings come with them
  } else if (r) {
    L.error = (data && data.error && data.error.code) || 'server';
  }
  $('lv-go').disabled = false;
  render();
}

$('lv-form').addEventListener('submit', useKey);
$('lv-go').disabled = false; // enabled once the key is posted from here, never by the form itself
applyI18n();
wireLangToggle();
onLangChange(render);
render();
