// The line of play. Lays out VIEW.center + VIEW.arms and renders it into an
// SVG scaled to fit the board element.
//
// Line layouts: a snake that turns at the board's edges. Cross layouts: a
// tree. Every arm starts at the tile it hangs from (the centre double, or in
// the double-nine cross the double that opened it: the arm's first tile
// touches that double's side) and turns only where going straight would
// leave the board or run into another line. The largest tile size at which
// the whole tree fits without overlaps wins, and the drawing is centred.
//
// Geometry is in units: a half tile is 1x1. A "turtle" walks outward: `p` is
// the point where the next tile attaches, `h` the heading, `last` the size of
// the tile it walked over, `canTurn` whether the next tile may hang off that
// tile's side (never right after a double laid crosswise: its sides belong to
// the lines it opens, or to nothing).

import { svg, drawTile, tileKey } from './tiles.js';

const DIRS = { E: [1, 0], W: [-1, 0], S: [0, 1], N: [0, -1] };
const OPP = { E: 'W', W: 'E', N: 'S', S: 'N' };
const CW = { E: 'S', S: 'W', W: 'N', N: 'E' };
const CCW = { E: 'N', N: 'W', W: 'S', S: 'E' };
const CENTRE_ARMS = { left: 'W', right: 'E', up: 'N', down: 'S' };
// Lines of different arms keep at least this gap (units) so they never read as joined.
const GAP = 0.12;
const PAD = 0.35;
const MIN_UNIT = 3;

function isDouble(t) { return t[0] === t[1]; }

/** The tile [inner, outer] laid at turtle `tu`: returns {item, turtle} (the turtle after it). */
function advance(tu, tile, inline = false, fold = null) {
  const [hx, hy] = DIRS[tu.h];
  const crosswise = isDouble(tile) && !inline;
  const len = crosswise ? 1 : 2;
  const wid = crosswise ? 2 : 1;
  const cx = tu.p.x + (hx * len) / 2;
  const cy = tu.p.y + (hy * len) / 2;
  const w = hx !== 0 ? len : wid;
  const h = hx !== 0 ? wid : len;
  // The inner half touches the previous tile: it goes left/top when walking W or N.
  const flip = tu.h === 'W' || tu.h === 'N';
  const item = makeItem(cx - w / 2, cy - h / 2, w, h, flip ? tile[1] : tile[0], flip ? tile[0] : tile[1], tile, tu.h, crosswise);
  const turtle = makeTurtle(tu.p.x + hx * len, tu.p.y + hy * len, tu.h, len, wid, !crosswise, fold);
  return { item, turtle };
}

/** The turtle turned to heading `nh`: the next tile hangs off the side of the last tile's outer half. */
function turned(tu, nh) {
  const [hx, hy] = DIRS[tu.h];
  const [nx, ny] = DIRS[nh];
  const oc = { x: tu.p.x - hx * 0.5, y: tu.p.y - hy * 0.5 };
  const half = tu.last.wid / 2;
  return makeTurtle(oc.x + nx * half, oc.y + ny * half, nh, tu.last.len, tu.last.wid, tu.canTurn, tu.fold);
}

/** A turtle (see the top of the file); `fold` is the rotation of a turn made at a block, else null. */
function makeTurtle(x, y, h, len, wid, canTurn, fold) {
  return { p: { x, y }, h, last: { len, wid }, canTurn, fold };
}

/**
 * A tile's place; every item has the same fields (the layout search tests
 * thousands of them against each other, and one shape keeps that fast).
 * `arm`/`index` name the tile in VIEW.arms (null for the centre and for slots).
 */
function makeItem(x, y, w, h, first, second, tile, heading, crosswise) {
  return { x, y, w, h, horizontal: w > h, first, second, tile, heading, crosswise, arm: null, index: -1 };
}

function centreItem(center) {
  const cross = isDouble(center);
  const w = cross ? 1 : 2;
  const h = cross ? 2 : 1;
  return makeItem(-w / 2, -h / 2, w, h, center[0], center[1], center, 'E', cross);
}

/** The turtle leaving `item` (a double or the centre) from its side in direction `d`. */
function sideTurtle(item, d) {
  const [dx, dy] = DIRS[d];
  const cx = item.x + item.w / 2;
  const cy = item.y + item.h / 2;
  const across = dx !== 0 ? item.h : item.w;
  return makeTurtle(cx + (dx * item.w) / 2, cy + (dy * item.h) / 2, d, dx !== 0 ? item.w : item.h, across, false, null);
}

/** A plain tile standing for "the next tile": the space an open end needs for its badge and ghost. */
function nextSlotTile(value) { return [value, value === 0 ? 1 : 0]; }

function endValue(view, name) {
  const e = (view.ends || []).find((x) => x.end === name);
  return e ? e.value : null;
}

/** The number a line starts from: its first tile's inner half, or the open end while it is empty. */
function armStart(view, name) {
  const arm = (view.arms || {})[name] || [];
  return arm.length ? arm[0][0] : endValue(view, name);
}

/**
 * The number of the double a line hangs from, for arms other than the
 * centre's (the double-nine cross opens them at doubles): its first number.
 */
export function armDouble(view, name) {
  if (name in CENTRE_ARMS) return null;
  return armStart(view, name);
}

// ---------------------------------------------------------------- line: the snake

/** One tile of a snake arm that folds towards `down` (N for the left arm, S for the right). */
function snakeStep(tu, tile, limit, down) {
  const len = isDouble(tile) ? 1 : 2;
  const nx = tu.p.x + DIRS[tu.h][0] * len;
  if (Math.abs(nx) <= limit + 1e-9) return advance(tu, tile);
  // At the edge: one tile down (inline, even a double), then back the other way.
  const fold = advance(turned(tu, down), tile, true);
  return { item: fold.item, turtle: turned(fold.turtle, OPP[tu.h]) };
}

/** Snake layout for a two-ended line; `limit` = half row width in units. */
function layoutLine(view, limit) {
  const items = [];
  const anchors = {};
  let corners = 0;
  if (!view.center) return { items, anchors, corners };
  const c = centreItem(view.center);
  items.push(c);
  const arms = view.arms || {};
  for (const [name, down] of [['left', 'N'], ['right', 'S']]) {
    let tu = sideTurtle(c, CENTRE_ARMS[name]);
    (arms[name] || []).forEach((tile, index) => {
      const before = tu.h;
      const step = snakeStep(tu, tile, limit, down);
      if (step.turtle.h !== before) corners += 1;
      step.item.arm = name;
      step.item.index = index;
      items.push(step.item);
      tu = step.turtle;
    });
    // An open end: its next tile's place (its ghost's) and the room kept for it.
    const place = (tile) => snakeStep(tu, tile, limit, down).item;
    anchors[name] = { cap: place(nextSlotTile(endValue(view, name) ?? 0)), place };
  }
  return { items, anchors, corners };
}

// ---------------------------------------------------------------- cross: the tree

function overlaps(a, b) {
  return a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
}
function inside(r, box) {
  return r.x >= box.x0 - 1e-9 && r.y >= box.y0 - 1e-9 && r.x + r.w <= box.x1 + 1e-9 && r.y + r.h <= box.y1 + 1e-9;
}

/** The lines hanging from each double: {value: [arm names in the engine's order]}. */
function branchesByDouble(view) {
  const out = new Map();
  for (const name of Object.keys(view.arms || {})) {
    if (name in CENTRE_ARMS) continue;
    const d = armStart(view, name);
    if (d === null || d === undefined) continue;
    if (!out.has(d)) out.set(d, []);
    out.get(d).push(name);
  }
  return out;
}

/**
 * The places `tile` may take at turtle `tu`, best first: straight on, then
 * turned (preferred rotation first). Right after a turn, turning the same way
 * again comes first: the line folds back beside itself, like the snake,
 * instead of running along the edge into the other lines.
 */
function stepOptions(tu, tile, rotation) {
  const straight = advance(tu, tile);
  if (!tu.canTurn) return [straight];
  // A turn made at a block may fold back at the next tile; the fold itself ends it.
  const towards = (rot) => advance(turned(tu, (rot === 'cw' ? CW : CCW)[tu.h]), tile, false, tu.fold ? null : rot);
  const flip = (rot) => (rot === 'cw' ? 'ccw' : 'cw');
  return tu.fold ? [towards(tu.fold), straight, towards(flip(tu.fold))] : [straight, towards(rotation), towards(flip(rotation))];
}

/** The first place of stepOptions that `blocked(item)` leaves free (else straight on, ok false). */
function greedyStep(tu, tile, rotation, blocked) {
  const options = stepOptions(tu, tile, rotation);
  const pick = options.find((o) => !blocked(o.item));
  return { ...(pick || options[0]), ok: !!pick };
}

/**
 * The order the tree is laid in: round by round, tile k of every line that
 * has one, each line starting the round after the double that opened it. The
 * lines grow together, as they do at the table, so that none takes the room
 * of the others. Lines whose double is nowhere on the table are `unrooted`.
 */
function layingOrder(view, branches) {
  const arms = view.arms || {};
  const names = Object.keys(arms);
  const birth = new Map(names.filter((n) => n in CENTRE_ARMS).map((n) => [n, 0]));
  // The engine lists lines in the order they opened: a double's line comes after the line holding it.
  for (const name of names) {
    if (!birth.has(name)) continue;
    arms[name].forEach((tile, j) => {
      if (!isDouble(tile)) return;
      for (const child of branches.get(tile[0]) || []) if (!birth.has(child)) birth.set(child, birth.get(name) + j + 1);
    });
  }
  const order = [];
  for (const [name, first] of birth) arms[name].forEach((_, index) => order.push({ name, index, round: first + index }));
  order.sort((x, y) => x.round - y.round || names.indexOf(x.name) - names.indexOf(y.name));
  return { order, unrooted: names.filter((n) => !birth.has(n)) };
}

// How many places one layout may try before it stops backtracking.
const TREE_BUDGET = 100;

/**
 * Tree layout inside `box` (units, centre tile at the origin): a depth-first
 * search over the places of each tile in laying order, where every open end
 * keeps room for its next tile (a dead end undoes the last tiles and tries
 * their next places). If the search fails, the tree is laid greedily anyway
 * and the overlaps count as penalty. Returns {items, anchors, penalty}:
 * penalty 0 means no overlap and nothing off the box.
 */
function layoutTree(view, box, rotation, { probe = false } = {}) {
  if (!view.center) return { items: [], anchors: {}, penalty: 0 };
  const branches = branchesByDouble(view);
  const { order, unrooted } = layingOrder(view, branches);
  const start = () => {
    const c = centreItem(view.center);
    const T = { view, box, rotation, branches, items: [c], taken: [c], lines: new Map(), penalty: 0, budget: TREE_BUDGET };
    for (const [name, d] of Object.entries(CENTRE_ARMS)) {
      const turtle = sideTurtle(c, d);
      if (name in (view.arms || {})) openLine(T, name, turtle, c, advance(turtle, nextSlotTile(view.center[0])).item);
    }
    return T;
  };
  let T = start();
  if (!layFrom(T, order, 0, false)) {
    // A probe only asks whether the tree fits; the greedy drawing with overlaps is for the last resort.
    if (probe) return { items: [], anchors: {}, penalty: Infinity };
    T = start();
    layFrom(T, order, 0, true);
  }
  const anchors = {};
  for (const [name, line] of T.lines) {
    const { turtle, prev, cap } = line;
    anchors[name] = { cap, place: (t) => greedyStep(turtle, t, rotation, blockedIn(T, [prev, cap])).item };
  }
  // A line whose double is nowhere on the table (never, with the engine's views) is not drawn: a layout that bad never wins.
  return { items: T.items, anchors, penalty: T.penalty + 100 * unrooted.length };
}

/** A test of places against the box and everything taken, except the (up to two) rects the place may touch. */
function blockedIn(T, ignore) {
  const a = ignore[0] || null;
  const b = ignore[1] || null;
  return (r) => {
    if (!inside(r, T.box)) return true;
    const taken = T.taken;
    for (let i = 0; i < taken.length; i++) {
      const o = taken[i];
      if (o !== a && o !== b && overlaps(r, o)) return true;
    }
    return false;
  };
}

/** A new open end at `turtle`, hanging from `from`; `cap` is kept free for its first tile. */
function openLine(T, name, turtle, from, cap) {
  T.taken.push(cap);
  T.lines.set(name, { turtle, prev: from, cap });
}

function layFrom(T, order, k, force) {
  if (k === order.length) return true;
  const { name, index } = order[k];
  const line = T.lines.get(name);
  const tile = T.view.arms[name][index];
  const blocked = blockedIn(T, [line.prev, line.cap]);
  const opens = isDouble(tile) ? T.branches.get(tile[0]) || [] : [];
  // A double fits only where both of the lines it opens can start.
  const fits = (o) => !blocked(o.item) && (!opens.length || planBranches(T, o.item, opens) !== null);
  const options = stepOptions(line.turtle, tile, T.rotation);
  const tries = force ? [options.find(fits) || options[0]] : byRoomAhead(T, line.turtle.h, options.filter(fits));
  for (const o of tries) {
    if (!force && T.budget-- <= 0) return false;
    const mark = { taken: T.taken.slice(), items: T.items.length, lines: new Map(T.lines), penalty: T.penalty };
    if (force && !fits(o)) T.penalty += 10;
    T.taken.splice(T.taken.indexOf(line.cap), 1);
    const item = o.item;
    item.arm = name;
    item.index = index;
    T.items.push(item);
    T.taken.push(item);
    if (opens.length) reserveBranches(T, item, opens);
    // The new open end needs room too (after a double: straight on, no turn hangs off it).
    const next = greedyStep(o.turtle, nextSlotTile(tile[1]), T.rotation, blockedIn(T, [item]));
    if (next.ok || force) {
      if (!next.ok) T.penalty += 1;
      T.taken.push(next.item);
      T.lines.set(name, { turtle: o.turtle, prev: item, cap: next.item });
      if (layFrom(T, order, k + 1, force)) return true;
    }
    T.taken = mark.taken;
    T.items.length = mark.items;
    T.lines = mark.lines;
    T.penalty = mark.penalty;
  }
  return false;
}

// A line goes on straight while it has room for this many more tiles ahead.
const ROOM_AHEAD = 2;

/**
 * Order the free places of a tile: straight on first while the line has
 * room ahead; otherwise the places with the most room ahead first (ties keep
 * the order of stepOptions), so that lines turn towards open table rather
 * than into a corner.
 */
function byRoomAhead(T, heading, options) {
  if (options.length < 2) return options;
  const room = options.map((o) => roomAhead(T, o));
  const straight = options.findIndex((o) => o.item.heading === heading);
  if (straight >= 0 && room[straight] >= ROOM_AHEAD) return [options[straight], ...options.filter((_, i) => i !== straight)];
  return options.map((o, i) => [o, room[i], i]).sort((a, b) => b[1] - a[1] || a[2] - b[2]).map((x) => x[0]);
}

/** How many plain tiles fit straight on after place `o` (up to 4). */
function roomAhead(T, o) {
  const blocked = blockedIn(T, [o.item]);
  let tu = o.turtle;
  for (let n = 0; n < 4; n++) {
    const step = advance(tu, [0, 1]);
    if (blocked(step.item)) return n;
    tu = step.turtle;
  }
  return 4;
}

/**
 * Where the first tile of each line a double opens goes: straight out of
 * each of its sides or, where that is taken, bent along the parent line (its
 * inner half still touching the double's side). null when a side has no room.
 */
function planBranches(T, double, names) {
  const sides = [CCW[double.heading], CW[double.heading]];
  const blocked = blockedIn(T, [double]);
  const plan = [];
  for (let i = 0; i < Math.min(2, names.length); i++) {
    const out = sideTurtle(double, sides[i]);
    const variants = [out, bentTurtle(out, double.heading), bentTurtle(out, OPP[double.heading])];
    const pick = variants.map((tu) => ({ tu, rect: advance(tu, nextSlotTile(double.tile[0])).item })).find((v) => !blocked(v.rect));
    if (!pick) return null;
    plan.push({ name: names[i], turtle: pick.tu, reserved: pick.rect });
  }
  return plan;
}

/** A turtle whose first tile's inner half sits just beyond `out`'s point, the tile running towards `d`. */
function bentTurtle(out, d) {
  const [sx, sy] = DIRS[out.h];
  const [dx, dy] = DIRS[d];
  return makeTurtle(out.p.x + sx * 0.5 - dx * 0.5, out.p.y + sy * 0.5 - dy * 0.5, d, out.last.len, out.last.wid, false, null);
}

/** Open the lines `double` opens, keeping room for their first tiles. */
function reserveBranches(T, double, names) {
  let plan = planBranches(T, double, names);
  if (!plan) {
    // No room (only when the layout is already failing): straight out, overlapping.
    T.penalty += 10;
    const sides = [CCW[double.heading], CW[double.heading]];
    plan = names.slice(0, 2).map((name, i) => {
      const turtle = sideTurtle(double, sides[i]);
      return { name, turtle, reserved: advance(turtle, nextSlotTile(double.tile[0])).item };
    });
  }
  for (const { name, turtle, reserved } of plan) openLine(T, name, turtle, double, reserved);
}

// ---------------------------------------------------------------- choosing a layout

function bbox(items, anchors) {
  let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
  const rects = [...items, ...Object.values(anchors).map((a) => a.cap)];
  for (const r of rects) {
    x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.w); y1 = Math.max(y1, r.y + r.h);
  }
  if (!Number.isFinite(x0)) return { x: -2, y: -1, w: 4, h: 2 };
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

function isCrossView(view) {
  const arms = view.arms || {};
  const layout = view.rules && view.rules.layout;
  if (layout && layout !== 'line') return true;
  return Object.keys(arms).some((k) => k !== 'left' && k !== 'right');
}

function bestSnake(view, pw, ph, maxUnit, prev) {
  const cands = [];
  for (let L = 3; L <= 24; L += 0.5) {
    const lay = layoutLine(view, L);
    const bb = bbox(lay.items, lay.anchors);
    const unit = Math.min(pw / (bb.w + 2 * PAD), ph / (bb.h + 2 * PAD));
    cands.push({ lay, bb, unit, param: L, score: Math.min(unit, maxUnit) * 1000 - lay.corners });
  }
  // Biggest tiles first; among equals, fewer turns, then the widest rows.
  let best = cands[0];
  for (const c of cands) if (c.score >= best.score) best = c;
  // Hysteresis: keep the previous shape unless the new one is clearly better.
  const kept = cands.find((c) => c.param === prev);
  const capped = (c) => Math.min(c.unit, maxUnit);
  if (kept && kept.lay.corners <= best.lay.corners && capped(kept) >= capped(best) * 0.92) best = kept;
  return best;
}

const OFFSETS = [[0, 0], [-0.2, 0], [0.2, 0], [0, -0.2], [0, 0.2], [-0.2, -0.2], [0.2, -0.2], [-0.2, 0.2], [0.2, 0.2]];
const TREE_PARAMS = OFFSETS.flatMap(([fx, fy]) => ['cw', 'ccw'].map((rotation) => ({ fx, fy, rotation, key: `${fx}:${fy}:${rotation}` })));

function treeAt(view, pw, ph, unit, param, probe = true) {
  const W = pw / unit - 2 * PAD;
  const H = ph / unit - 2 * PAD;
  const cx = param.fx * W;
  const cy = param.fy * H;
  const box = { x0: cx - W / 2, y0: cy - H / 2, x1: cx + W / 2, y1: cy + H / 2 };
  return layoutTree(view, box, param.rotation, { probe });
}

// A board that grew more than this (a turned phone, a wider window) gets its tree's size searched again.
const BOARD_GROWTH = 1.15;

/**
 * The tree at the biggest tile size where it fits. Unit sizes form a ladder,
 * searched by halves (fits at a size → fits at the smaller ones, near
 * enough); a size fits when any shape (offset, rotation) lays the tree
 * cleanly, the previous shape tried first. The previous shape stays even when
 * another one fits tiles up to 10% bigger, so the drawing does not flip for a
 * few pixels. Within a hand the previous shape and size are kept while the
 * tree still fits them: tiles never grow as the hand goes on, and the
 * drawing stays put.
 */

function bestTree(view, pw, ph, maxUnit, prev) {
  const tiles = tileCount(view);
  const kept = prev ? TREE_PARAMS.find((p) => p.key === prev.key) : null;
  // The same hand going on (as many tiles or more) on a board that has not grown much (a hand of a
  // different height below it moves its edge a little; a turned phone does not count).
  const sameHand = kept && prev.tiles <= tiles && pw <= prev.pw * BOARD_GROWTH && ph <= prev.ph * BOARD_GROWTH && prev.unit <= maxUnit;
  if (sameHand) {
    const lay = treeAt(view, pw, ph, prev.unit, kept);
    if (lay.penalty === 0) return treeResult(lay, prev.unit, kept, tiles, pw, ph);
  }
  const ladder = [];
  for (let u = maxUnit; u >= MIN_UNIT; u *= 0.94) ladder.push(u);
  const params = kept ? [kept, ...TREE_PARAMS.filter((p) => p !== kept)] : TREE_PARAMS;
  const fitAt = (i, shapes) => {
    for (const param of shapes) {
      const lay = treeAt(view, pw, ph, ladder[i], param);
      if (lay.penalty === 0) return { lay, unit: ladder[i], shape: param, index: i };
    }
    return null;
  };
  let best = null;
  if (sameHand) {
    // Within a hand tiles only shrink: the few sizes just below the last one first.
    const from = ladder.findIndex((u) => u < prev.unit - 1e-9);
    for (let i = from; from >= 0 && !best && i < Math.min(from + 3, ladder.length); i++) best = fitAt(i, params);
  }
  let lo = 0; let hi = best ? -1 : ladder.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const found = fitAt(mid, params);
    if (found) { best = found; hi = mid - 1; } else lo = mid + 1;
  }
  if (best && kept && best.shape !== kept) {
    for (let i = best.index + 1; i < ladder.length && ladder[i] >= best.unit * 0.9; i++) {
      const same = fitAt(i, [kept]);
      if (same) { best = same; break; }
    }
  }
  if (!best) {
    // Nothing fits cleanly even at the smallest size: the least-bad layout there.
    const unit = ladder[ladder.length - 1];
    const tries = TREE_PARAMS.map((param) => ({ lay: treeAt(view, pw, ph, unit, param, false), unit, shape: param }));
    best = tries.reduce((x, y) => (y.lay.penalty < x.lay.penalty ? y : x));
  }
  return treeResult(best.lay, best.unit, best.shape, tiles, pw, ph);
}

/** What bestLayout returns for a tree; `param` remembers the shape, size and board for the next call. */
function treeResult(lay, unit, shape, tiles, pw, ph) {
  return { lay, unit, bb: bbox(lay.items, lay.anchors), param: { key: shape.key, unit, tiles, pw, ph } };
}

function tileCount(view) {
  return (view.center ? 1 : 0) + Object.values(view.arms || {}).reduce((n, arm) => n + arm.length, 0);
}

let cache = { key: null, value: null };

/**
 * The layout with the biggest tiles for a board of pw x ph px, plus its
 * bounding box and unit size in px; `prev` is the previous call's `param`.
 */
function bestLayout(view, pw, ph, { maxUnit = 34, prev = null } = {}) {
  const cross = isCrossView(view);
  const key = JSON.stringify([view.center, view.arms, view.ends, pw, ph, maxUnit, prev]);
  if (cache.key === key) return cache.value;
  const best = cross ? bestTree(view, pw, ph, maxUnit, prev) : bestSnake(view, pw, ph, maxUnit, prev);
  best.cross = cross;
  cache = { key, value: best };
  return best;
}

// ---------------------------------------------------------------- drawing

/** The tile as it would lie at open end `end`: [inner, outer] with the end's number inside. */
function orientFor(tile, value) {
  return tile[0] === value ? [tile[0], tile[1]] : [tile[1], tile[0]];
}

function findLastItem(view, items) {
  const last = view.last;
  if (!last || !last.tile) return null;
  if (last.end === null || last.end === undefined) return items[0];
  const arm = (view.arms || {})[last.end] || [];
  return items.find((it) => it.arm === last.end && it.index === arm.length - 1) || null;
}

function drawLine(root, lay, lastItem, cross) {
  if (cross) {
    // The cross's heart, the first double, sits on a lighter patch of felt: the eye finds where the lines start.
    const c = lay.items[0];
    svg('rect', { x: c.x - 0.32, y: c.y - 0.32, width: c.w + 0.64, height: c.h + 0.64, rx: 0.45, class: 'centre-mark' }, root);
  }
  const g = svg('g', { class: 'line' }, root);
  for (const it of lay.items) {
    const tile = drawTile(g, it.first, it.second, { x: it.x, y: it.y, horizontal: it.horizontal, cls: it === lastItem ? 'tile--last' : '' });
    tile.dataset.tile = `${it.tile[0]}-${it.tile[1]}`;
    tile.dataset.key = tileKey(it.tile);
    if (it.arm !== null) { tile.dataset.arm = it.arm; tile.dataset.index = String(it.index); } else tile.dataset.center = 'true';
    if (it === lastItem) {
      svg('rect', { x: it.x - 0.06, y: it.y - 0.06, width: it.w + 0.12, height: it.h + 0.12, rx: 0.2, class: 'last-ring' }, tile);
    }
  }
}

/** Where an open end's badge goes: the middle of the first half of its next slot. */
function badgePos(cap) {
  const [hx, hy] = DIRS[cap.heading];
  const cx = cap.x + cap.w / 2;
  const cy = cap.y + cap.h / 2;
  const back = cap.crosswise ? 0 : 0.5;
  return { x: cx - hx * back, y: cy - hy * back };
}

// An open end's number stays readable on a crowded phone board: at least this radius in px.
const MIN_BADGE_PX = 7;

function badgeRadius(unit) { return Math.max(0.34, MIN_BADGE_PX / unit); }

function drawBadges(root, view, lay, ghostEnds, unit) {
  const g = svg('g', { class: 'ends' }, root);
  const r = badgeRadius(unit);
  for (const e of view.ends || []) {
    const a = lay.anchors[e.end];
    if (!a || ghostEnds.has(e.end)) continue;
    const pos = badgePos(a.cap);
    const b = svg('g', { class: `end-badge${e.double ? ' end-badge--double' : ''}`, 'data-end': e.end, 'data-value': e.value }, g);
    svg('circle', { cx: pos.x, cy: pos.y, r: r + 0.08, class: 'end-glow' }, b);
    svg('circle', { cx: pos.x, cy: pos.y, r, class: 'end-dot' }, b);
    const tx = svg('text', { x: pos.x, y: pos.y + r * 0.44, 'text-anchor': 'middle', class: 'end-num', style: `font-size: ${(r * 1.24).toFixed(3)}px` }, b);
    tx.textContent = String(e.value);
  }
}

/**
 * The middle of what shows (the tiles and the open ends' badges), kept where
 * the whole layout (with the room kept for the next tiles) still fits a
 * vw x vh viewBox.
 */
function viewCentre(lay, bb, vw, vh, unit) {
  const r = badgeRadius(unit);
  let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
  const add = (ax, ay, bx, by) => { x0 = Math.min(x0, ax); y0 = Math.min(y0, ay); x1 = Math.max(x1, bx); y1 = Math.max(y1, by); };
  for (const it of lay.items) add(it.x, it.y, it.x + it.w, it.y + it.h);
  for (const a of Object.values(lay.anchors)) { const p = badgePos(a.cap); add(p.x - r, p.y - r, p.x + r, p.y + r); }
  const clamp = (c, lo, size, view) => (view >= size ? Math.min(Math.max(c, lo + size - view / 2), lo + view / 2) : lo + size / 2);
  return { x: clamp((x0 + x1) / 2, bb.x, bb.w, vw), y: clamp((y0 + y1) / 2, bb.y, bb.h, vh) };
}

/**
 * A translucent copy of the chosen tile at each end it fits; tapping one plays there.
 * A `passive` ghost only shows a move (the replay's experto move): no button, its own testid.
 */
function drawGhosts(root, view, lay, ghosts, onEnd) {
  const g = svg('g', { class: 'ghosts' }, root);
  for (const { end, tile, label, passive = false, testid = 'ghost' } of ghosts) {
    const a = lay.anchors[end];
    const value = endValue(view, end);
    if (!a || value === null) continue;
    const it = a.place(orientFor(tile, value));
    const ghost = svg('g', {
      class: passive ? 'ghost ghost--passive' : 'ghost', 'data-testid': testid, 'data-end': end,
      'data-ghost-end': passive ? null : end, 'data-value': value, 'data-tile': `${tile[0]}-${tile[1]}`,
      role: passive ? 'img' : 'button', 'aria-label': label || String(value),
    }, g);
    svg('rect', { x: it.x - 0.1, y: it.y - 0.1, width: it.w + 0.2, height: it.h + 0.2, rx: 0.22, class: 'ghost-halo' }, ghost);
    drawTile(ghost, it.first, it.second, { x: it.x, y: it.y, horizontal: it.horizontal, cls: 'tile--ghost' });
    if (!passive) ghost.addEventListener('click', (ev) => { ev.stopPropagation(); if (onEnd) onEnd(end); });
  }
}

/**
 * Render the board into `container` (an element with a size).
 * opts: {ghosts: [{end, tile, label, passive, testid}], onEnd(endName), prev}
 * Returns {param} to feed back as `prev`.
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
    return { param: null };
  }
  const maxUnit = pw < 500 ? 30 : 46;
  const best = bestLayout(view, pw, ph, { maxUnit, prev: opts.prev ?? null });
  const { lay, bb } = best;
  // A viewBox the size of the board at this unit, the drawing in its middle.
  const unit = Math.min(best.unit, maxUnit);
  const vw = pw / unit; const vh = ph / unit;
  const c = viewCentre(lay, bb, vw, vh, unit);
  root.setAttribute('viewBox', `${(c.x - vw / 2).toFixed(3)} ${(c.y - vh / 2).toFixed(3)} ${vw.toFixed(3)} ${vh.toFixed(3)}`);
  drawLine(root, lay, findLastItem(view, lay.items), best.cross);
  const ghosts = opts.ghosts || [];
  drawBadges(root, view, lay, new Set(ghosts.map((x) => x.end)), unit);
  drawGhosts(root, view, lay, ghosts, opts.onEnd);
  return { param: best.param };
}
