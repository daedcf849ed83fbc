// A QR code drawn in the page ("Llévate tu jugador": the key's link), no outside
// service and no library: byte mode (the text as UTF-8), error correction level M,
// versions 1 to 10 (up to 213 bytes: a link of ~80 characters needs version 5).
// The steps are ISO/IEC 18004's: the bits (mode, count, bytes, terminator, pad),
// Reed–Solomon codewords per block over GF(256), the blocks interleaved, the
// function patterns, the zigzag placement, the mask with the lowest penalty, the
// format (and from version 7 the version) information. No DOM here: qrPath()
// gives an SVG path that the page draws (tests/web/test_qr.py holds the modules
// to the `segno` package's for the same text, version and mask).

// Per version at level M: [EC codewords per block, [[blocks, data codewords per block], …]].
const BLOCKS_M = [null,
  [10, [[1, 16]]], [16, [[1, 28]]], [26, [[1, 44]]], [18, [[2, 32]]], [24, [[2, 43]]],
  [16, [[4, 27]]], [18, [[4, 31]]], [22, [[2, 38], [2, 39]]], [22, [[3, 36], [2, 37]]], [26, [[4, 43], [1, 44]]]];
const ALIGN = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
export const MAX_VERSION = 10;
const ECL_M = 0; // the format bits of level M

// GF(256) modulo x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) { EXP[i] = x; LOG[x] = i; x <<= 1; if (x & 0x100) x ^= 0x11d; }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

/** The generator polynomial of `degree` EC codewords, its leading 1 left out. */
function divisor(degree) {
  const r = new Array(degree).fill(0);
  r[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) { r[j] = mul(r[j], root); if (j + 1 < degree) r[j] ^= r[j + 1]; }
    root = mul(root, 2);
  }
  return r;
}

function remainder(data, div) {
  const r = new Array(div.length).fill(0);
  for (const b of data) {
    const f = b ^ r.shift();
    r.push(0);
    div.forEach((c, i) => { r[i] ^= mul(c, f); });
  }
  return r;
}

const dataCodewords = (v) => BLOCKS_M[v][1].reduce((n, [count, size]) => n + count * size, 0);
const countBits = (v) => (v < 10 ? 8 : 16);

/** The smallest version whose level-M data holds `n` bytes, or 0 when none up to MAX_VERSION does. */
export function versionFor(n) {
  for (let v = 1; v <= MAX_VERSION; v++) if (4 + countBits(v) + 8 * n <= 8 * dataCodewords(v)) return v;
  return 0;
}

/** The data and EC codewords of `bytes` at version `v`, interleaved as they are placed. */
function codewords(bytes, v) {
  const bits = [];
  const put = (value, n) => { for (let i = n - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  const capacity = 8 * dataCodewords(v);
  put(0b0100, 4);
  put(bytes.length, countBits(v));
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  const [ecLen, groups] = BLOCKS_M[v];
  const div = divisor(ecLen);
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let k = 0; k < count; k++) {
      const part = data.slice(at, at + size);
      at += size;
      blocks.push({ data: part, ec: remainder(part, div) });
    }
  }
  const out = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < ecLen; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

class Grid {
  constructor(v) {
    this.size = 17 + 4 * v;
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.fixed = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }

  set(x, y, dark) { this.dark[y][x] = dark; this.fixed[y][x] = true; }
}

function drawFunctionPatterns(g, v) {
  const n = g.size;
  for (let i = 0; i < n; i++) { g.set(6, i, i % 2 === 0); g.set(i, 6, i % 2 === 0); }
  for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx; const y = cy + dy;
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        if (x >= 0 && x < n && y >= 0 && y < n) g.set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  const at = ALIGN[v];
  const last = at.length - 1;
  at.forEach((ay, i) => at.forEach((ax, j) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) g.set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
  }));
  drawFormat(g, 0); // reserved now, written once the mask is chosen
  if (v >= 7) {
    let rem = v;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (v << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = n - 11 + (i % 3); const b = Math.floor(i / 3);
      g.set(a, b, dark);
      g.set(b, a, dark);
    }
  }
}

function drawFormat(g, mask) {
  const n = g.size;
  const data = (ECL_M << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const bit = (i) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) g.set(8, i, bit(i));
  g.set(8, 7, bit(6));
  g.set(8, 8, bit(7));
  g.set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) g.set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) g.set(n - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) g.set(8, n - 15 + i, bit(i));
  g.set(8, n - 8, true); // the dark module
}

function drawCodewords(g, words) {
  const n = g.size;
  let i = 0;
  for (let right = n - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5; // the vertical timing pattern's column is skipped
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < n; vert++) {
      const y = upward ? n - 1 - vert : vert;
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        if (g.fixed[y][x] || i >= words.length * 8) continue;
        g.dark[y][x] = ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        i++;
      }
    }
  }
}

function applyMask(g, mask) {
  for (let y = 0; y < g.size; y++) for (let x = 0; x < g.size; x++) if (!g.fixed[y][x] && MASKS[mask](x, y)) g.dark[y][x] = !g.dark[y][x];
}

/** The penalty of the masked symbol (the standard's four rules): the mask with the lowest is used. */
function penalty(m) {
  const n = m.length;
  let score = 0;
  const lines = [];
  for (let i = 0; i < n; i++) { lines.push(m[i]); lines.push(m.map((row) => row[i])); }
  const finder = [true, false, true, true, true, false, true];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= n; i++) {
      if (i < n && line[i] === line[i - 1]) { run++; continue; }
      if (run >= 5) score += 3 + (run - 5);
      run = 1;
    }
    for (let i = 0; i + 7 <= n; i++) {
      if (!finder.every((d, k) => line[i + k] === d)) continue;
      const lightBefore = i >= 4 && [1, 2, 3, 4].every((k) => !line[i - k]);
      const lightAfter = i + 11 <= n && [0, 1, 2, 3].every((k) => !line[i + 7 + k]);
      if (lightBefore) score += 40;
      if (lightAfter) score += 40;
    }
  }
  for (let y = 0; y + 1 < n; y++) {
    for (let x = 0; x + 1 < n; x++) {
      const c = m[y][x];
      if (m[y][x + 1] === c && m[y + 1][x] === c && m[y + 1][x + 1] === c) score += 3;
    }
  }
  const dark = m.reduce((a, row) => a + row.filter(Boolean).length, 0);
  score += 10 * Math.floor(Math.abs((dark * 100) / (n * n) - 50) / 5);
  return score;
}

/**
 * The QR code of `text` (UTF-8, byte mode, level M): {version, mask, size, modules}
 * (modules[y][x], true for dark), at the smallest version that holds it, with the
 * mask of lowest penalty unless `mask` (0–7) is given. Throws for a text over 213 bytes.
 */
export function qrMatrix(text, { mask = null, version = null } = {}) {
  const bytes = Array.from(new TextEncoder().encode(text));
  const fits = versionFor(bytes.length);
  const v = version === null ? fits : version;
  if (!fits || v < fits || v > MAX_VERSION) throw new RangeError(`a QR code of version ≤ ${MAX_VERSION} holds no ${bytes.length} bytes`);
  const words = codewords(bytes, v);
  const draw = (k) => {
    const g = new Grid(v);
    drawFunctionPatterns(g, v);
    drawCodewords(g, words);
    applyMask(g, k);
    drawFormat(g, k);
    return g;
  };
  let best = null;
  for (const k of mask === null ? [0, 1, 2, 3, 4, 5, 6, 7] : [mask]) {
    const g = draw(k);
    const p = mask === null ? penalty(g.dark) : 0;
    if (best === null || p < best.p) best = { g, k, p };
  }
  return { version: v, mask: best.k, size: best.g.size, modules: best.g.dark };
}

/** An SVG path of the dark modules (one unit each), `quiet` modules of margin around them. */
export function qrPath(modules, quiet = 4) {
  const parts = [];
  modules.forEach((row, y) => row.forEach((dark, x) => { if (dark) parts.push(`M${x + quiet} ${y + quiet}h1v1h-1z`); }));
  return parts.join('');
}
