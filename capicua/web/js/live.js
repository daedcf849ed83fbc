// The live table (/t/{id}): the table's renderer (table.js) fed by the websocket.

import { mountTable } from './table.js';
import { Connection } from './net.js';

mountTable((handlers) => new Connection(handlers));
