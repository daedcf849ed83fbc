// SVG domino tiles: ivory faces with black pips (0..9 for double-nine sets)
// and face-down backs. Coordinates are in "units": one half of a tile is 1x1.

export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(el);
  return el;
}

// Pip positions in a 3x3 grid (col, row), for a half seen upright.
const P = {
  tl: [0, 0], tc: [1, 0], tr: [2, 0],
  ml: [0, 1], mc: [1, 1], mr: [2, 1],
  bl: [0, 2], bc: [1, 2], br: [2, 2],
};
const LAYOUT = {
  0: [],
  1: ['mc'],
  2: ['tl', 'br'],
  3: ['tl', 'mc', 'br'],
  4: ['tl', 'tr', 'bl', 'br'],
  5: ['tl', 'tr', 'mc', 'bl', 'br'],
  6: ['tl', 'ml', 'bl', 'tr', 'mr', 'br'],
  7: ['tl', 'ml', 'bl', 'tr', 'mr', 'br', 'mc'],
  8: ['tl', 'tc', 'tr', 'ml', 'mr', 'bl', 'bc', 'br'],
  9: ['tl', 'tc', 'tr', 'ml', 'mc', 'mr', 'bl', 'bc', 'br'],
  10: ['tl', 'tc', 'tr', 'ml', 'mr', 'bl', 'bc', 'br', 'mc', 'mc'],
};

const OFF = [0.24, 0.5, 0.76];

function pipCoords(n) {
  const names = LAYOUT[n] || [];
  if (n > 9) {
    // Beyond double-nine (not used by our presets): draw a number instead.
    return null;
  }
  return names.map((k) => P[k]);
}

/** Draw `n` pips in the unit square at (x, y); rotated=true turns the layout 90 degrees. */
export function drawPips(g, n, x, y, rotated, cls = 'pip') {
  const coords = pipCoords(n);
  if (coords === null) {
    const tx = svg('text', { x: x + 0.5, y: y + 0.66, 'text-anchor': 'middle', 'font-size': 0.5, class: 'pip-num' }, g);
    tx.textContent = String(n);
    return;
  }
  const r = n >= 7 ? 0.085 : 0.095;
  for (const [c, rr] of coords) {
    const cx = rotated ? OFF[2 - rr] : OFF[c];
    const cy = rotated ? OFF[c] : OFF[rr];
    svg('circle', { cx: x + cx, cy: y + cy, r, class: cls }, g);
  }
}

/**
 * Draw a face-up tile into `parent` (an SVG element).
 * first/second: numbers; horizontal: first half left, else first half on top.
 * x, y: top-left in units; the tile is 2x1 (horizontal) or 1x2 (vertical).
 */
export function drawTile(parent, first, second, { x = 0, y = 0, horizontal = false, cls = '' } = {}) {
  const g = svg('g', { class: `tile ${cls}`.trim() }, parent);
  const w = horizontal ? 2 : 1;
  const h = horizontal ? 1 : 2;
  const inset = 0.035;
  svg('rect', { x: x + 0.05, y: y + 0.08, width: w - 2 * inset, height: h - 2 * inset, rx: 0.14, class: 'tile-shadow' }, g);
  svg('rect', { x: x + inset, y: y + inset, width: w - 2 * inset, height: h - 2 * inset, rx: 0.14, class: 'tile-face' }, g);
  if (horizontal) {
    svg('line', { x1: x + 1, y1: y + 0.14, x2: x + 1, y2: y + 0.86, class: 'tile-divider' }, g);
    drawPips(g, first, x, y, true);
    drawPips(g, second, x + 1, y, true);
  } else {
    svg('line', { x1: x + 0.14, y1: y + 1, x2: x + 0.86, y2: y + 1, class: 'tile-divider' }, g);
    drawPips(g, first, x, y, false);
    drawPips(g, second, x, y + 1, false);
  }
  svg('circle', { cx: x + w / 2, cy: y + h / 2, r: 0.055, class: 'tile-pin' }, g);
  return g;
}

/** A face-down tile (the back), same geometry as drawTile. */
export function drawBack(parent, { x = 0, y = 0, horizontal = false, cls = '' } = {}) {
  const g = svg('g', { class: `tile tile--back ${cls}`.trim() }, parent);
  const w = horizontal ? 2 : 1;
  const h = horizontal ? 1 : 2;
  svg('rect', { x: x + 0.04, y: y + 0.07, width: w - 0.07, height: h - 0.07, rx: 0.14, class: 'tile-shadow' }, g);
  svg('rect', { x: x + 0.035, y: y + 0.035, width: w - 0.07, height: h - 0.07, rx: 0.14, class: 'back-face' }, g);
  svg('rect', { x: x + 0.16, y: y + 0.16, width: w - 0.32, height: h - 0.32, rx: 0.08, class: 'back-inlay' }, g);
  return g;
}

/** A standalone <svg> with one vertical tile (used for the player's hand and mini tiles). */
export function tileSvg(a, b, { horizontal = false, back = false, title = null } = {}) {
  const w = horizontal ? 2 : 1;
  const h = horizontal ? 1 : 2;
  const root = svg('svg', {
    viewBox: `-0.02 -0.02 ${w + 0.08} ${h + 0.1}`,
    class: 'tile-svg',
    'aria-hidden': title ? null : 'true',
    role: title ? 'img' : null,
    focusable: 'false',
  });
  if (title) svg('title', {}, root).textContent = title;
  if (back) drawBack(root, { horizontal });
  else drawTile(root, a, b, { horizontal });
  return root;
}

/** Normalised key of a tile: "a-b" with a <= b. */
export function tileKey(t) {
  const a = Math.min(t[0], t[1]);
  const b = Math.max(t[0], t[1]);
  return `${a}-${b}`;
}

export function sameTile(t, u) { return tileKey(t) === tileKey(u); }
