// Between two hands (docs/protocol.md: `next_hand`, `deal_now`, TABLE.deadline).
// "Siguiente mano" carries the countdown when the table deals by itself (a turn
// timer times the wait between hands too: TABLE.deadline `for: "next_hand"`), and
// the host of a private table who is ready may deal without waiting for the others
// ("Repartir ya"). It decides nothing itself: the server deals.
import { t } from './i18n/index.js';
import { h } from './dom.js';
import * as countdown from './countdown.js';

/**
 * Draw "Siguiente mano": `button` (shown or hidden by the caller), `table`: TABLE,
 * `sent`: this page said "Siguiente mano" for this hand, `host`: this page is the
 * host's seat, `deal()`: send `deal_now` (at the page's seq when clicked). The
 * "Repartir ya" button is made beside it the first time the host needs it.
 */
export function renderHandover({ button, table, sent, host, deal }) {
  const d = table && table.deadline;
  const timed = !button.hidden && !!d && d.for === 'next_hand';
  button.disabled = sent;
  button.replaceChildren(
    h('span', { text: sent ? t('btn.waiting') : t('btn.next_hand') }),
    timed ? countdown.countdownEl({ testid: 'next-countdown' }) : '',
  );
  if (timed) button.title = t('next.auto');
  else button.removeAttribute('title');
  const offer = !button.hidden && sent && host && !!table && table.private;
  let now = document.getElementById('deal-now');
  if (!now && offer) {
    now = h('button', { type: 'button', class: 'btn', id: 'deal-now', 'data-testid': 'deal-now', onclick: () => deal() });
    button.after(now);
  }
  if (now) {
    now.hidden = !offer;
    now.textContent = t('btn.deal_now');
    now.title = t('btn.deal_now.title');
  }
}
