// Who this browser's guest is, for "Mi perfil": the server tells a token's player
// id only to its holder (POST /api/players, and GET /api/leaderboard's "me"), and
// the answer is kept in localStorage (guest.js) so no page asks again.
// The token goes in the Authorization header, never in a URL: an address is written
// to the server's access log and the browser's history (docs/protocol.md).

import { readToken, readPlayerId, rememberPlayer } from './guest.js';

/** The headers of an API request that says who asks: JSON, and this browser's token when it has one. */
export function tokenHeaders() {
  const token = readToken();
  return token ? { Accept: 'application/json', Authorization: `Bearer ${token}` } : { Accept: 'application/json' };
}

/** GET /api/leaderboard with this browser's token: the answer's JSON, or null. */
export async function leaderboardFor(board, period) {
  const q = new URLSearchParams({ board, period });
  const r = await fetch(`/api/leaderboard?${q}`, { headers: tokenHeaders() });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { ok: r.ok, status: r.status, data };
}

/** This browser's player id, or null (no token, or a token the server does not know). */
export async function myPlayerId() {
  const token = readToken();
  if (!token) return null;
  const kept = readPlayerId();
  if (kept) return kept;
  try {
    const { ok, data } = await leaderboardFor('neighbours', 'all');
    const player = ok && data && data.me && typeof data.me.player === 'string' ? data.me.player : null;
    if (player) rememberPlayer(token, player);
    return player;
  } catch (_) {
    return null;
  }
}

/** Show link `el` to this browser's profile once its player id is known. */
export async function wireProfileLink(el) {
  if (!el) return;
  const player = await myPlayerId();
  if (!player) return;
  el.href = `/player/${encodeURIComponent(player)}`;
  el.hidden = false;
}
