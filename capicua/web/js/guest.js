// This browser's guest: one token for every table, kept in localStorage under
// `capicua.token` (docs/protocol.md, POST /api/players). The server keeps only
// its hash; the browser sends it with every hello and table request, so it
// comes back as the same player at every table. No account, no email.
// Also the tables this browser sat at ("Tus mesas abiertas"), without tokens.

const TOKEN_KEY = 'capicua.token';
const NICKNAME_KEY = 'capicua.nickname';
// The token's player id ({player, of: the token's last characters}): pages know "it is me" without asking.
const PLAYER_KEY = 'capicua.player';
export const TABLE_KEY = 'capicua:table:';
// Where tokens were kept before there was one per browser: read once, then dropped.
const LEGACY_TOKEN_PREF = 'capicua.pref.guest-token';

function getItem(key) {
  try { return localStorage.getItem(key); } catch (_) { return null; }
}
function setItem(key, value) {
  try { localStorage.setItem(key, value); } catch (_) { /* private mode: this tab only */ }
}

/** The token of a browser from before, kept as a pref or per table (the newest table's). */
function legacyToken() {
  let token = getItem(LEGACY_TOKEN_PREF);
  let newest = -1;
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(TABLE_KEY)) continue;
      const entry = JSON.parse(localStorage.getItem(key) || 'null');
      if (!entry || typeof entry.token !== 'string') continue;
      if (!token && (entry.created || 0) > newest) { token = entry.token; newest = entry.created || 0; }
      delete entry.token;
      delete entry.seat;
      localStorage.setItem(key, JSON.stringify(entry));
    }
    localStorage.removeItem(LEGACY_TOKEN_PREF);
  } catch (_) { /* no storage, or an entry that is not JSON */ }
  return token || null;
}

/** This browser's token, or null when it never got one. */
export function readToken() {
  const token = getItem(TOKEN_KEY);
  if (token) return token;
  const old = legacyToken();
  if (old) setItem(TOKEN_KEY, old);
  return old;
}

export function saveToken(token) {
  if (typeof token === 'string' && token) setItem(TOKEN_KEY, token);
}

/** Forget a token the server no longer knows (its store was reset): the next hello watches. */
export function forgetToken() {
  try { localStorage.removeItem(TOKEN_KEY); localStorage.removeItem(PLAYER_KEY); } catch (_) { /* ignore */ }
}

/** Remember the player id of `token` (POST /api/players says it, and the leaderboard's "me"). */
export function rememberPlayer(token, player) {
  if (typeof token === 'string' && token && typeof player === 'string' && player) {
    setItem(PLAYER_KEY, JSON.stringify({ player, of: token.slice(-8) }));
  }
}

/** This browser's player id as kept here (no request), or null: no token, or kept for another token. */
export function readPlayerId() {
  const token = readToken();
  if (!token) return null;
  try {
    const kept = JSON.parse(getItem(PLAYER_KEY) || 'null');
    return kept && kept.of === token.slice(-8) && typeof kept.player === 'string' ? kept.player : null;
  } catch (_) {
    return null; // not JSON
  }
}

export function readNickname() {
  return getItem(NICKNAME_KEY) || '';
}

export function saveNickname(nickname) {
  setItem(NICKNAME_KEY, nickname);
}

/**
 * POST /api/players: this browser's guest, named `nickname` (a new guest when it
 * has no token yet). Resolves to {token, nickname} or {error: code}.
 */
export async function signIn(nickname) {
  const body = { nickname };
  const token = readToken();
  if (token) body.token = token;
  let r;
  try {
    r = await fetch('/api/players', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (_) {
    return { error: 'network' };
  }
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (r.ok && data && typeof data.token === 'string') {
    saveToken(data.token);
    saveNickname(data.nickname);
    rememberPlayer(data.token, data.player);
    return { token: data.token, nickname: data.nickname };
  }
  const e = data && data.error && typeof data.error === 'object' ? data.error : {};
  return { error: typeof e.code === 'string' ? e.code : 'server', field: typeof e.field === 'string' ? e.field : null };
}

/** Remember a table this browser plays at, for the home page's "Tus mesas abiertas". */
export function rememberTable(tableId, preset) {
  const key = `${TABLE_KEY}${tableId}`;
  if (getItem(key)) return;
  setItem(key, JSON.stringify({ table_id: tableId, preset, created: Date.now() }));
}
