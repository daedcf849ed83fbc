// Who this browser's guest is, for "Mi perfil": the server tells a token's player
// id only to its holder (GET /api/leaderboard?token=… answers with "me"), and the
// answer is kept for the tab so every page does not ask again.

import { readToken } from './guest.js';

const KEY = 'capicua.me';

/** GET /api/leaderboard with this browser's token: the answer's JSON, or null. */
export async function leaderboardFor(board, period) {
  const q = new URLSearchParams({ board, period });
  const token = readToken();
  if (token) q.set('token', token);
  const r = await fetch(`/api/leaderboard?${q}`, { headers: { Accept: 'application/json' } });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { ok: r.ok, status: r.status, data };
}

/** Remember the player id of this browser's token (from a leaderboard's "me"). */
export function rememberMe(token, player) {
  try { sessionStorage.setItem(KEY, JSON.stringify({ token, player })); } catch (_) { /* private mode */ }
}

/** This browser's player id, or null (no token, or a token the server does not know). */
export async function myPlayerId() {
  const token = readToken();
  if (!token) return null;
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    if (kept && kept.token === token && typeof kept.player === 'string') return kept.player;
  } catch (_) { /* not JSON, or no storage */ }
  try {
    const { ok, data } = await leaderboardFor('neighbours', 'all');
    const player = ok && data && data.me && typeof data.me.player === 'string' ? data.me.player : null;
    if (player) rememberMe(token, player);
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
