// Rules and vocabulary pages: both languages are in the HTML (.lang-es / .lang-en);
// CSS shows the current one (html[data-lang]). This only wires the toggle.
import { applyI18n, wireLangToggle } from './i18n/index.js';
import './invitations.js';

applyI18n();
wireLangToggle();
