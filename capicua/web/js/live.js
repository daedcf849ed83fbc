// The live table (/t/{id}): the table's renderer (table/main.js) fed by the websocket.

import { mountTable } from './table/main.js';
import { Connection } from './net.js';
import './invitations.js'; // an invitation to another table shows here too

mountTable((handlers) => new Connection(handlers));
