// The bot neighbours of the barrio: names, avatar colours, and a small SVG face.
// The server's GET /api/neighbours is the source of truth; this roster is the
// fallback when it cannot be fetched (and fills in missing colours).

import { svg } from './tiles.js';

export const ROSTER = {
  cuca: { name: 'Cuca', skin: '#c98e63', hair: '#e8e4dc', shirt: '#d1495b', style: 'glasses' },
  pancho: { name: 'Pancho', skin: '#8d5a3b', hair: '#2b1d14', shirt: '#2a9d8f', style: 'hat' },
  yoli: { name: 'Yoli', skin: '#e0ac7e', hair: '#5a2e1a', shirt: '#f4a261', style: 'bun' },
  chucho: { name: 'Chucho', skin: '#6b4226', hair: '#1b1b1b', shirt: '#264653', style: 'cap' },
  mima: { name: 'Mima', skin: '#f0c8a0', hair: '#9b9b9b', shirt: '#8e6fb5', style: 'bun' },
  cheo: { name: 'Cheo', skin: '#a86b45', hair: '#3a2618', shirt: '#e9c46a', style: 'moustache' },
  fefa: { name: 'Fefa', skin: '#d49a6a', hair: '#171010', shirt: '#3a86ff', style: 'curls' },
  nene: { name: 'Nene', skin: '#b77b52', hair: '#2e1c10', shirt: '#ef476f', style: 'cap' },
};

const known = { ...ROSTER };

function hash(s) {
  let h = 2166136261;
  for (const ch of String(s)) { h ^= ch.charCodeAt(0); h = Math.imul(h, 16777619); }
  return h >>> 0;
}

const SKINS = ['#f0c8a0', '#e0ac7e', '#c98e63', '#a86b45', '#8d5a3b', '#6b4226'];
const HAIRS = ['#1b1b1b', '#3a2618', '#5a2e1a', '#9b9b9b', '#e8e4dc', '#7a3b1d'];
const SHIRTS = ['#d1495b', '#2a9d8f', '#f4a261', '#264653', '#8e6fb5', '#e9c46a', '#3a86ff', '#ef476f'];
const STYLES = ['glasses', 'hat', 'bun', 'cap', 'moustache', 'curls', 'plain'];

/** Merge what the server says about its characters into the known roster. */
export function mergeNeighbours(data) {
  const list = Array.isArray(data) ? data : (data && (data.neighbours || data.characters || data.bots)) || [];
  const items = Array.isArray(list) ? list : Object.entries(list).map(([id, v]) => ({ id, ...v }));
  for (const n of items) {
    if (!n || !n.id) continue;
    const id = String(n.id).toLowerCase();
    const base = known[id] || {};
    const col = n.avatar || n.colours || n.colors || {};
    const arr = Array.isArray(col) ? col : null;
    known[id] = {
      ...base,
      name: n.name || base.name || id,
      level: n.level || base.level,
      style: (!Array.isArray(col) && col.style) || base.style || STYLES[hash(id) % STYLES.length],
      styleText: n.style,
      skin: (arr ? arr[0] : col.skin) || base.skin,
      hair: (arr ? arr[1] : col.hair) || base.hair,
      shirt: (arr ? arr[2] : (col.shirt || col.bg || col.background)) || base.shirt,
    };
  }
}

export async function loadNeighbours() {
  try {
    const r = await fetch('/api/neighbours', { headers: { Accept: 'application/json' } });
    if (r.ok) mergeNeighbours(await r.json());
  } catch (_) { /* fallback roster */ }
}

export function neighbour(id) {
  if (!id) return null;
  return known[String(id).toLowerCase()] || null;
}

/** Avatar look for a character id or any name (deterministic from the name). */
export function lookFor(id, name, override = null) {
  const n = override ? { ...(neighbour(id) || {}), ...Object.fromEntries(Object.entries(override).filter(([, v]) => typeof v === 'string' && v)) } : neighbour(id);
  const h = hash(id || name || '?');
  return {
    skin: (n && n.skin) || SKINS[h % SKINS.length],
    hair: (n && n.hair) || HAIRS[(h >> 3) % HAIRS.length],
    shirt: (n && n.shirt) || SHIRTS[(h >> 6) % SHIRTS.length],
    style: (n && n.style) || STYLES[(h >> 9) % STYLES.length],
  };
}

/** A small round avatar face as an <svg>. */
export function avatarSvg(id, name, { human = false, look: override = null } = {}) {
  const look = lookFor(id, name, override);
  const root = svg('svg', { viewBox: '0 0 40 40', class: 'avatar', 'aria-hidden': 'true', focusable: 'false' });
  svg('circle', { cx: 20, cy: 20, r: 20, fill: look.shirt }, root);
  // shoulders
  svg('path', { d: 'M6 40 C8 30 32 30 34 40 Z', fill: 'rgba(0,0,0,0.18)' }, root);
  // neck + head
  svg('rect', { x: 16.5, y: 24, width: 7, height: 6, fill: look.skin }, root);
  svg('ellipse', { cx: 20, cy: 18, rx: 9.5, ry: 10.5, fill: look.skin }, root);
  const s = look.style;
  if (s === 'bun') {
    svg('circle', { cx: 20, cy: 6.5, r: 4.5, fill: look.hair }, root);
    svg('path', { d: 'M10.5 17 C10 7 30 7 29.5 17 C27 11 13 11 10.5 17 Z', fill: look.hair }, root);
  } else if (s === 'curls') {
    for (const [x, y] of [[12, 11], [16, 8], [20, 7], [24, 8], [28, 11], [10.5, 15], [29.5, 15]]) svg('circle', { cx: x, cy: y, r: 3.6, fill: look.hair }, root);
  } else if (s === 'hat') {
    svg('ellipse', { cx: 20, cy: 11, rx: 15, ry: 3, fill: '#e9d8a6' }, root);
    svg('path', { d: 'M12.5 11 C13 3 27 3 27.5 11 Z', fill: '#e9d8a6' }, root);
    svg('rect', { x: 12.8, y: 8.6, width: 14.4, height: 2, fill: '#7a3b1d' }, root);
  } else if (s === 'cap') {
    svg('path', { d: 'M10.5 14 C10.5 5 29.5 5 29.5 14 Z', fill: look.shirt === '#264653' ? '#e76f51' : '#264653' }, root);
    svg('path', { d: 'M24 13 L34 14 L29.5 14 Z', fill: '#1d3557' }, root);
  } else {
    svg('path', { d: 'M10.5 17 C9.5 6 30.5 6 29.5 17 C27 10.5 13 10.5 10.5 17 Z', fill: look.hair }, root);
  }
  // eyes and mouth
  svg('circle', { cx: 16.3, cy: 18.5, r: 1.15, fill: '#1b1b1b' }, root);
  svg('circle', { cx: 23.7, cy: 18.5, r: 1.15, fill: '#1b1b1b' }, root);
  if (s === 'glasses') {
    svg('circle', { cx: 16.3, cy: 18.5, r: 3, fill: 'none', stroke: '#3b2a20', 'stroke-width': 0.9 }, root);
    svg('circle', { cx: 23.7, cy: 18.5, r: 3, fill: 'none', stroke: '#3b2a20', 'stroke-width': 0.9 }, root);
    svg('line', { x1: 19.3, y1: 18.5, x2: 20.7, y2: 18.5, stroke: '#3b2a20', 'stroke-width': 0.9 }, root);
  }
  if (s === 'moustache') svg('path', { d: 'M15.5 23.3 C18 21.8 22 21.8 24.5 23.3 C22 22.8 18 22.8 15.5 23.3 Z', fill: look.hair, stroke: look.hair, 'stroke-width': 1.2 }, root);
  svg('path', { d: 'M16.5 24 Q20 27 23.5 24', fill: 'none', stroke: '#5b2a1a', 'stroke-width': 1.1, 'stroke-linecap': 'round' }, root);
  if (human) svg('circle', { cx: 33, cy: 33, r: 5, fill: '#f2c14e', stroke: '#fff', 'stroke-width': 1.2 }, root);
  return root;
}
