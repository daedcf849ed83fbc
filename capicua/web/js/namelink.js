// A player's name as a link to their profile (/player/{id}) wherever it is shown: a guest's
// (the seats of a table, a lobby and a replay carry their player id), never a neighbour's,
// who has no profile. On a table's page the profile opens in a new tab, so the game stays.

import { h } from './dom.js';

/** `name` as a link to `player`'s profile, or as plain text when `player` is not a player id. */
export function nameLink(name, player, attrs = {}) {
  if (typeof player !== 'string' || !player) return h('span', { ...attrs, text: name });
  return h('a', { ...attrs, class: ['name-link', attrs.class].filter(Boolean).join(' '),
    href: `/player/${encodeURIComponent(player)}`, text: name });
}

/** The attributes of a name link on a page that must stay open (a table, a lobby, a replay). */
export const NEW_TAB = { target: '_blank', rel: 'noopener' };
