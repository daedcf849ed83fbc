// @ts-check
// The frames of the websocket protocol (version 2) as the page reads them: JSDoc types
// of docs/protocol.md "Server → client", built by capicua/table/protocol.py (the frames)
// and capicua/engine/state.py Match.view (the VIEW). Types only: the modules that read
// frames name them in JSDoc (`@param {import('../protocol.js').View} v`), so nothing of
// this file is loaded by a page.

/** A tile: its two numbers. @typedef {[number, number]} Tile */

/**
 * The rules a VIEW carries (capicua/engine/rules.py Rules.describe); the page reads a few.
 * @typedef {object} Rules
 * @property {string} preset
 * @property {number} max_pip
 * @property {number} players
 * @property {boolean} partnership
 * @property {number} target
 * @property {'line' | 'cross'} layout
 * @property {'counterclockwise' | 'clockwise'} [direction]
 * @property {boolean} [drawing]
 * @property {number} [sleeping]
 * @property {string} [redeal_five_doubles]
 */

/**
 * An open end of the board. Covering two ends of equal `outcome` with one tile is one
 * move: the same position as far as any rule reads (the chooser asks only between outcomes).
 * @typedef {object} End
 * @property {string} end the end's name: "left", "right", "up", "down", "arm0"…
 * @property {number} value the number it shows
 * @property {boolean} double whether a double lies at it
 * @property {boolean} playable
 * @property {number} outcome
 */

/**
 * A legal move of the seat on turn: a play (`end` null for the hand's first tile), or an
 * answer to the five-doubles question.
 * @typedef {{tile: Tile, end: string | null} | {redeal: boolean}} Legal
 */

/**
 * A hand's result (RESULT).
 * @typedef {object} Result
 * @property {'domino' | 'tranque' | 'tie' | 'target'} kind
 * @property {number | null} seat
 * @property {number | null} team
 * @property {number} points
 * @property {boolean} capicua
 * @property {number[]} pip_totals
 * @property {number | null} next_opener
 * @property {string} seed the hand's seed, revealed
 */

/**
 * @typedef {object} MatchResult
 * @property {number} winner the winning team (the seat in individual games)
 * @property {boolean} pollona
 * @property {boolean} viajera
 */

/**
 * A row of the score sheet.
 * @typedef {object} SheetRow
 * @property {number} hand
 * @property {string} kind
 * @property {number | null} team
 * @property {number} points
 * @property {number[]} scores
 */

/**
 * What one seat may know of the match (Match.view(seat)); a spectator's has no `hand`.
 * @typedef {object} View
 * @property {Rules} rules
 * @property {number | null} seat
 * @property {number} hand_number
 * @property {'new' | 'redeal_question' | 'play' | 'hand_over' | 'match_over'} phase
 * @property {number | null} turn
 * @property {number | null} opener
 * @property {Tile[]} [hand]
 * @property {number[]} counts
 * @property {number} boneyard
 * @property {Tile | null} center
 * @property {Object<string, Tile[]>} arms tiles outward from the center, each [inner, outer]
 * @property {End[]} ends
 * @property {{seat: number, tile: Tile, end: string | null} | null} last
 * @property {Legal[]} legal only for the seat on turn, else []
 * @property {object[]} history
 * @property {number[][]} passed_on per seat: numbers it is known not to hold
 * @property {number[]} [redeal_pending] the seats still to answer the five-doubles question
 * @property {number[]} scores
 * @property {number[]} teams
 * @property {SheetRow[]} sheet
 * @property {string | null} seed_hash
 * @property {Result | null} result
 * @property {Tile[][] | null} revealed
 * @property {MatchResult | null} match_result
 */

/**
 * One game event (EVENT): `kind` says which; the other fields are the kind's.
 * @typedef {object} GameEvent
 * @property {'hand_start' | 'play' | 'pass' | 'draw' | 'score' | 'domino' | 'tranque' | 'capicua' | 'hand_end' | 'redeal' | 'redeal_declined' | 'match_end'} kind
 * @property {number} [seat]
 * @property {Tile} [tile]
 * @property {string | null} [end]
 * @property {'human' | 'bot' | 'stand_in' | 'timeout' | 'auto'} [by]
 * @property {{name: string, character: string | null}} [stand_in]
 * @property {number[]} [numbers]
 * @property {number} [points]
 * @property {number} [hand_number]
 * @property {number} [opener]
 * @property {string} [reason]
 * @property {number} [winner]
 * @property {boolean} [pollona]
 * @property {boolean} [viajera]
 */

/**
 * @typedef {object} Level
 * @property {number} [number]
 * @property {string} [id]
 * @property {string} name
 * @property {string} [name_en]
 */

/**
 * A seat of the TABLE.
 * @typedef {object} Seat
 * @property {number} seat
 * @property {'human' | 'bot' | 'empty'} kind
 * @property {string} name
 * @property {string | null} [player] a guest's player id: their profile is /player/{player}
 * @property {boolean} [connected]
 * @property {{name: string, character: string | null} | null} [stand_in]
 * @property {Level | null} [player_level]
 * @property {string} [level]
 * @property {string | null} [character]
 * @property {{es: string, en: string}} [tagline]
 * @property {object} [avatar]
 */

/**
 * The turn's (or the next hand's) deadline.
 * @typedef {object} Deadline
 * @property {'turn' | 'next_hand'} for
 * @property {number | null} seat
 * @property {number} at ms since the epoch
 * @property {number} ms
 * @property {number} left
 */

/**
 * The table around the match (TABLE).
 * @typedef {object} Table
 * @property {string} id
 * @property {string} preset
 * @property {Rules} rules
 * @property {boolean} private
 * @property {'lobby' | 'playing' | 'finished'} status
 * @property {number | null} host_seat
 * @property {Seat[]} seats
 * @property {number} watchers
 * @property {{grace: number, turn_timer: number}} settings
 * @property {number} match_number
 * @property {{players: number[], ready: number[], gone: number[], stand_in: number[], deciders: number[]} | null} rematch
 * @property {Deadline | null} deadline
 */

/** @typedef {{type: 'welcome', protocol: number, seat: number | null, table: Table}} Welcome */
/** @typedef {{type: 'sync', seq: number, view: View}} Sync */
/** @typedef {{type: 'events', seq: number, events: {seq: number, event: GameEvent}[], view: View, replayed?: boolean}} Events */
/** @typedef {{type: 'table', seq: number, table: Table}} TableFrame */
/** @typedef {{type: 'said', seq: number, seat: number, phrase: string, es: string, en: string, by: 'player' | 'neighbour', name: string}} Said */
/** @typedef {{type: 'honours', seat: number, level_up: Level | null, achievements: Level[]}} Honours */
/** @typedef {{type: 'paused', paused: boolean}} Paused */
/** @typedef {{type: 'error', code: string, message: string, seq: number | null}} ErrorFrame */
/** @typedef {{type: 'pong'}} Pong */

/**
 * Every frame the server sends.
 * @typedef {Welcome | Sync | Events | TableFrame | Said | Honours | Paused | ErrorFrame | Pong} ServerFrame
 */

export {};
