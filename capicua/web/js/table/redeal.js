// @ts-check
// The five-doubles question (redeal_five_doubles=on_request): asked of the seat
// whose VIEW's legal moves are the two answers; the others wait.

import { t } from '../i18n/index.js';
import { $, h, fill } from '../dom.js';
import { S, V, isPlayer, send } from './state.js';

export function renderRedeal() {
  const v = V();
  const box = $('redeal-ask');
  if (v.phase !== 'redeal_question') { box.hidden = true; return; }
  box.hidden = false;
  // Asked: the VIEW's legal moves are the answers (they are this seat's only when it is asked).
  const asked = (v.legal || []).some((m) => 'redeal' in m);
  if (isPlayer() && asked) {
    fill(box, h('p', { text: t('redeal.question') }),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn btn-primary', onclick: () => send({ type: 'redeal', seq: S.seq, accept: true }), text: t('btn.yes_redeal') }),
        h('button', { type: 'button', class: 'btn', onclick: () => send({ type: 'redeal', seq: S.seq, accept: false }), text: t('btn.no_redeal') })));
  } else fill(box, h('p', { text: t('redeal.waiting') }));
}
