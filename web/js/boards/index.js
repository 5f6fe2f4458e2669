// The board class for each game id.

import { ColdWarBoard } from './coldwar.js';
import { CordotsBoard } from './cordots.js';
import { CumisithaBoard } from './cumisitha.js';
import { DotsBoard } from './dots.js';

export const BOARDS = {
  coldwar: ColdWarBoard,
  cordots: CordotsBoard,
  cumisitha: CumisithaBoard,
  dots: DotsBoard,
};

export function createBoard(gameId, opts) {
  const Board = BOARDS[gameId];
  if (!Board) throw new Error(`no board for the game '${gameId}'`);
  return new Board(opts);
}

/** A player's colour swatch class, shared by the pages. */
export function swatch(player) {
  return `swatch swatch-${player}`;
}
