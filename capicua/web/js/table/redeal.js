// The five-doubles question (redeal_five_doubles=on_request): asked of the seat
// whose VIEW's legal moves are the two answers; the others wait.

import { t } from '../i18n/index.js';
import { $, h, fill } from '../dom.js';
import { S, V, isPlayer, mySeat, send } from './state.js';

export function renderRedeal() {
  const v = V();
  const box = $('redeal-ask');
  if (v.phase !== 'redeal_question') { box.hidden = true; return; }
  box.hidden = false;
  const doubles = (v.hand || []).filter((x) => x[0] === x[1]).length;
  const asked = Array.isArray(v.redeal_pending) ? v.redeal_pending[0] === mySeat() : (v.turn === mySeat() || v.turn === null || v.turn === undefined);
  if (isPlayer() && doubles >= 5 && asked) {
    fill(box, h('p', { text: t('redeal.question') }),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn btn-primary', onclick: () => send({ type: 'redeal', seq: S.seq, accept: true }), text: t('btn.yes_redeal') }),
        h('button', { type: 'button', class: 'btn', onclick: () => send({ type: 'redeal', seq: S.seq, accept: false }), text: t('btn.no_redeal') })));
  } else fill(box, h('p', { text: t('redeal.waiting') }));
}
