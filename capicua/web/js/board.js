// The line of play. Lays out VIEW.center + VIEW.arms as a snake that turns
// at the board's edges (line layouts) or as a pinwheel cross (cross layouts),
// then renders it into an SVG scaled to fit the board element.
//
// Geometry is in units: a half tile is 1x1. A "turtle" walks outward from the
// centre: `p` is the point where the next tile attaches, `h` the heading.

import { svg, drawTile } from './tiles.js';

const DIRS = { E: [1, 0], W: [-1, 0], S: [0, 1], N: [0, -1] };
const OPP = { E: 'W', W: 'E', N: 'S', S: 'N' };

function isDouble(t) { return t[0] === t[1]; }

/** Place tile [inner, outer] at the turtle; returns the item. */
function place(st, tile, forceInline = false) {
  const [hx, hy] = DIRS[st.h];
  const cross = isDouble(tile) && !forceInline;
  const len = cross ? 1 : 2;
  const wid = cross ? 2 : 1;
  const cx = st.p.x + (hx * len) / 2;
  const cy = st.p.y + (hy * len) / 2;
  const along = hx !== 0; // travelling horizontally
  const w = along ? len : wid;
  const h = along ? wid : len;
  // The tile is drawn horizontal when its long side is horizontal.
  const horizontal = w > h;
  // Which number goes left/top: the inner half touches the previous tile.
  let first = tile[0];
  let second = tile[1];
  if (st.h === 'W' || st.h === 'N') { first = tile[1]; second = tile[0]; }
  const item = { x: cx - w / 2, y: cy - h / 2, w, h, horizontal, first, second, tile, heading: st.h };
  st.p = { x: st.p.x + hx * len, y: st.p.y + hy * len };
  st.last = { len, wid };
  st.items.push(item);
  return item;
}

/** Turn the turtle: the next tile hangs off the side of the last tile's outer half. */
function turn(st, nh) {
  const [hx, hy] = DIRS[st.h];
  const [nx, ny] = DIRS[nh];
  const oc = { x: st.p.x - hx * 0.5, y: st.p.y - hy * 0.5 };
  const half = st.last.wid / 2;
  st.p = { x: oc.x + nx * half, y: oc.y + ny * half };
  st.h = nh;
  st.corners += 1;
}

function centreItem(center) {
  const cross = isDouble(center);
  const w = cross ? 1 : 2;
  const h = cross ? 2 : 1;
  return {
    item: { x: -w / 2, y: -h / 2, w, h, horizontal: !cross, first: center[0], second: center[1], tile: center, heading: 'E', center: true },
    len: w, wid: h,
  };
}

/** Snake layout for a two-ended line; `limit` = half row width in units. */
export function layoutLine(view, limit) {
  const items = [];
  const anchors = {};
  let corners = 0;
  if (!view.center) return { items, anchors, corners };
  const c = centreItem(view.center);
  items.push(c.item);
  const arms = view.arms || {};
  const specs = [
    ['left', 'W', 'N'],
    ['right', 'E', 'S'],
  ];
  for (const [name, h0, down] of specs) {
    const st = { p: { x: DIRS[h0][0] * c.len / 2, y: 0 }, h: h0, last: { len: c.len, wid: c.wid }, items, corners: 0 };
    for (const tile of arms[name] || []) {
      const len = isDouble(tile) ? 1 : 2;
      const nx = st.p.x + DIRS[st.h][0] * len;
      if (Math.abs(nx) > limit + 1e-9) {
        const back = OPP[st.h];
        turn(st, down);
        place(st, tile, true);
        turn(st, back);
      } else {
        place(st, tile);
      }
    }
    anchors[name] = { x: st.p.x, y: st.p.y, h: st.h };
    corners += st.corners;
  }
  return { items, anchors, corners };
}

/** Pinwheel cross: each arm runs straight for `k` tiles, then turns once, clockwise. */
export function layoutCross(view, k) {
  const items = [];
  const anchors = {};
  let corners = 0;
  if (!view.center) return { items, anchors, corners, extra: [] };
  const c = centreItem(view.center);
  items.push(c.item);
  const arms = view.arms || {};
  const specs = { left: ['W', 'N'], right: ['E', 'S'], up: ['N', 'E'], down: ['S', 'W'] };
  const starts = {
    left: { x: -c.len / 2, y: 0 }, right: { x: c.len / 2, y: 0 },
    up: { x: 0, y: -c.wid / 2 }, down: { x: 0, y: c.wid / 2 },
  };
  const lastFor = { left: { len: c.len, wid: c.wid }, right: { len: c.len, wid: c.wid }, up: { len: c.wid, wid: c.len }, down: { len: c.wid, wid: c.len } };
  for (const name of ['left', 'right', 'up', 'down']) {
    const [h0, bend] = specs[name];
    const st = { p: { ...starts[name] }, h: h0, last: lastFor[name], items, corners: 0 };
    (arms[name] || []).forEach((tile, i) => {
      if (i === k) turn(st, bend);
      place(st, tile);
    });
    anchors[name] = { x: st.p.x, y: st.p.y, h: st.h };
    corners += st.corners;
  }
  const extra = Object.keys(arms).filter((n) => !['left', 'right', 'up', 'down'].includes(n));
  return { items, anchors, corners, extra };
}

function bbox(items, anchors) {
  let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
  for (const it of items) {
    x0 = Math.min(x0, it.x); y0 = Math.min(y0, it.y);
    x1 = Math.max(x1, it.x + it.w); y1 = Math.max(y1, it.y + it.h);
  }
  for (const a of Object.values(anchors)) {
    const [hx, hy] = DIRS[a.h];
    const bx = a.x + hx * 0.55; const by = a.y + hy * 0.55;
    x0 = Math.min(x0, bx - 0.5); x1 = Math.max(x1, bx + 0.5);
    y0 = Math.min(y0, by - 0.5); y1 = Math.max(y1, by + 0.5);
  }
  if (!Number.isFinite(x0)) return { x: -2, y: -1, w: 4, h: 2 };
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

export function isCrossView(view) {
  const arms = view.arms || {};
  const layout = view.rules && view.rules.layout;
  if (layout && layout !== 'line') return true;
  return Object.keys(arms).some((k) => k !== 'left' && k !== 'right');
}

/**
 * Choose the row width that gives the biggest tiles for a board of pw x ph px.
 * Returns the layout plus its bounding box and unit size in px.
 */
export function bestLayout(view, pw, ph, { maxUnit = 34, prevLimit = null } = {}) {
  const cross = isCrossView(view);
  const pad = 0.35;
  const evalAt = (param) => {
    const lay = cross ? layoutCross(view, param) : layoutLine(view, param);
    const bb = bbox(lay.items, lay.anchors);
    const unit = Math.min(pw / (bb.w + 2 * pad), ph / (bb.h + 2 * pad));
    return { lay, bb, unit, param, score: Math.min(unit, maxUnit) * 1000 - lay.corners };
  };
  const cands = [];
  if (cross) {
    for (let k = 2; k <= 12; k++) cands.push(evalAt(k));
  } else {
    for (let L = 3; L <= 24; L += 0.5) cands.push(evalAt(L));
  }
  // Biggest tiles first; among equals, fewer turns, then the widest rows.
  let best = cands[0];
  for (const c of cands) if (c.score >= best.score) best = c;
  // Hysteresis: keep the previous shape unless the new one is clearly better.
  if (prevLimit !== null) {
    const prev = cands.find((c) => c.param === prevLimit);
    const capped = (c) => Math.min(c.unit, maxUnit);
    if (prev && prev.lay.corners <= best.lay.corners && capped(prev) >= capped(best) * 0.92) best = prev;
  }
  best.pad = pad;
  best.cross = cross;
  return best;
}

function endLabelPos(a) {
  const [hx, hy] = DIRS[a.h];
  return { x: a.x + hx * 0.55, y: a.y + hy * 0.55 };
}

/**
 * Render the board into `container` (an element with a size).
 * opts: {lastKey, choiceEnds: Set of end names to highlight, onEnd(endName), prevLimit, t}
 * Returns {limit} to feed back as prevLimit.
 */
export function renderBoard(container, view, opts = {}) {
  const rect = container.getBoundingClientRect();
  const pw = Math.max(120, rect.width);
  const ph = Math.max(120, rect.height);
  container.querySelectorAll('svg.board-svg').forEach((n) => n.remove());
  const root = svg('svg', { class: 'board-svg', role: 'img', preserveAspectRatio: 'xMidYMid meet' });
  container.appendChild(root);
  if (!view || !view.center) {
    root.setAttribute('viewBox', '0 0 10 6');
    return { limit: null };
  }
  const maxUnit = pw < 500 ? 30 : 46;
  const best = bestLayout(view, pw, ph, { maxUnit, prevLimit: opts.prevLimit ?? null });
  const { lay, bb, pad } = best;
  // Centre the drawing: use a viewBox at least as large as the px box at maxUnit.
  const unit = Math.min(best.unit, maxUnit);
  const vw = pw / unit; const vh = ph / unit;
  const cx = bb.x + bb.w / 2; const cy = bb.y + bb.h / 2;
  root.setAttribute('viewBox', `${(cx - vw / 2).toFixed(3)} ${(cy - vh / 2).toFixed(3)} ${vw.toFixed(3)} ${vh.toFixed(3)}`);
  void pad;

  const last = view.last;
  const lastEnd = last ? last.end : undefined;
  const arms = view.arms || {};
  // Find the last-played item: the outermost tile of that arm (or the centre).
  let lastItem = null;
  if (last && last.tile) {
    if (lastEnd === null || lastEnd === undefined) lastItem = lay.items[0];
    else {
      const arm = arms[lastEnd] || [];
      const outer = arm[arm.length - 1];
      if (outer) lastItem = lay.items.find((it) => it.tile === outer) || null;
    }
  }
  const gTiles = svg('g', { class: 'line' }, root);
  for (const it of lay.items) {
    const cls = it === lastItem ? 'tile--last' : '';
    const g = drawTile(gTiles, it.first, it.second, { x: it.x, y: it.y, horizontal: it.horizontal, cls });
    g.dataset.tile = `${it.tile[0]}-${it.tile[1]}`;
    if (it === lastItem) {
      svg('rect', { x: it.x - 0.06, y: it.y - 0.06, width: it.w + 0.12, height: it.h + 0.12, rx: 0.2, class: 'last-ring' }, g);
    }
  }
  // Open ends: a glowing number badge beyond each end.
  const gEnds = svg('g', { class: 'ends' }, root);
  const choice = opts.choiceEnds || new Set();
  for (const e of view.ends || []) {
    const a = lay.anchors[e.end];
    if (!a) continue;
    const pos = endLabelPos(a);
    const hot = choice.has(e.end);
    const g = svg('g', { class: `end-badge${hot ? ' end-badge--choice' : ''}${e.double ? ' end-badge--double' : ''}`, 'data-end': e.end }, gEnds);
    svg('circle', { cx: pos.x, cy: pos.y, r: hot ? 0.62 : 0.42, class: 'end-glow' }, g);
    svg('circle', { cx: pos.x, cy: pos.y, r: 0.34, class: 'end-dot' }, g);
    const tx = svg('text', { x: pos.x, y: pos.y + 0.13, 'text-anchor': 'middle', class: 'end-num' }, g);
    tx.textContent = String(e.value);
    if (hot && opts.onEnd) {
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '-1');
      g.addEventListener('click', (ev) => { ev.stopPropagation(); opts.onEnd(e.end); });
    }
  }
  // Cross layouts: extra arms (double-nine cross) drawn as labelled strips below.
  if (best.cross && lay.extra && lay.extra.length) {
    let y = bb.y + bb.h + 0.8;
    for (const name of lay.extra) {
      const st = { p: { x: bb.x + 1.2, y: y + 0.5 }, h: 'E', last: { len: 2, wid: 1 }, items: [], corners: 0 };
      const label = svg('text', { x: bb.x, y: y + 0.68, class: 'arm-label' }, root);
      label.textContent = name.replace(/^arm/, '');
      for (const tile of arms[name] || []) place(st, tile, true);
      for (const it of st.items) drawTile(gTiles, it.first, it.second, { x: it.x, y: it.y, horizontal: it.horizontal });
      const e = (view.ends || []).find((en) => en.end === name);
      if (e) {
        const g = svg('g', { class: `end-badge${choice.has(name) ? ' end-badge--choice' : ''}`, 'data-end': name }, gEnds);
        svg('circle', { cx: st.p.x + 0.55, cy: st.p.y, r: 0.42, class: 'end-glow' }, g);
        svg('circle', { cx: st.p.x + 0.55, cy: st.p.y, r: 0.34, class: 'end-dot' }, g);
        const tx = svg('text', { x: st.p.x + 0.55, y: st.p.y + 0.13, 'text-anchor': 'middle', class: 'end-num' }, g);
        tx.textContent = String(e.value);
        if (choice.has(name) && opts.onEnd) g.addEventListener('click', () => opts.onEnd(name));
      }
      y += 1.6;
    }
    // Grow the viewBox to include the strips.
    const vb = root.getAttribute('viewBox').split(' ').map(Number);
    const needH = y - vb[1];
    if (needH > vb[3]) root.setAttribute('viewBox', `${vb[0]} ${vb[1]} ${vb[2] * needH / vb[3]} ${needH}`);
  }
  return { limit: best.param };
}
