// Building the page's elements: one helper for every page (table, lobby, talk,
// replay, verify, leaderboard, profile).

export const $ = (id) => document.getElementById(id);

const SVG = 'http://www.w3.org/2000/svg';

/** Sets `attrs` on `el` (class, text, on<event> handlers, dataset, other attributes) and appends `kids`. */
function dress(el, attrs, kids) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) el.append(kid);
  return el;
}

/** An HTML element: h('p', {class: 'x', text: 'hola'}, child, …). */
export const h = (tag, attrs = {}, ...kids) => dress(document.createElement(tag), attrs, kids);

/** An SVG element, the same way. */
export const s = (tag, attrs = {}, ...kids) => dress(document.createElementNS(SVG, tag), attrs, kids);

/** Replace an element's children, skipping null/undefined/false. */
export function fill(el, ...kids) {
  el.replaceChildren(...kids.flat().filter((k) => k !== null && k !== undefined && k !== false));
}
