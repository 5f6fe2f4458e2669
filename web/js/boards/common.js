// What every board shares: selection state, flipping, and reading the legal
// move strings the server sends. Boards only *read* moves; the server decides
// which moves exist.

import { h } from '../dom.js';

export class BoardBase {
  /**
   * @param {object} opts
   * @param {(move: string) => void} opts.onMove called with a legal move string
   * @param {boolean} [opts.flipped]
   */
  constructor({ onMove = () => {}, flipped = false } = {}) {
    this.onMove = onMove;
    this.flipped = flipped;
    this.state = null;
    this.interactive = false;
    this.selected = null;
    this.el = h('div', { class: 'board-wrap' });
  }

  /** Show a new state; `interactive` says whether the viewer may move now. */
  setState(state, { interactive = false } = {}) {
    this.state = state;
    this.interactive = interactive && state.status === 'ongoing';
    this.selected = null;
    this.draw();
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.draw();
  }

  get legalMoves() {
    return this.interactive ? this.state.legal_moves || [] : [];
  }

  play(move) {
    this.selected = null;
    this.interactive = false;
    this.draw();
    this.onMove(move);
  }

  draw() {
    if (!this.state) return;
    this.el.replaceChildren(this.render());
  }

  /**
   * A click on a square of a from-to board (Cordots, Cumisitha). Boards
   * that use it give `movesFrom(square)`: the legal moves from a square as
   * [move, from, to, extra]. A click selects a source or plays to a target;
   * several moves between the same two squares (a promotion, a sacrifice)
   * are settled by `ask(options)`, which resolves to a move or null.
   */
  async clickSquare(square, ask) {
    if (this.selected) {
      const options = this.movesFrom(this.selected).filter((m) => m[2] === square);
      if (options.length === 1) return this.play(options[0][0]);
      if (options.length > 1) {
        const picked = await ask(options);
        if (picked) return this.play(picked);
        this.selected = null;
        return this.draw();
      }
    }
    this.selected = this.movesFrom(square).length > 0 && this.selected !== square ? square : null;
    this.draw();
  }

  /** Subclasses return the SVG (or a wrapper) for this.state. */
  render() {
    throw new Error('render() not implemented');
  }
}

/** Every square named in a move string such as `b2-b3`, `e7e8q`, `c7-c8=f2`. */
export function squaresIn(move) {
  return move ? (move.match(/[a-h][1-8]/g) || []) : [];
}

/** File index (0-based) and rank index (0-based) of a square name. */
export function fileRank(square) {
  return [square.charCodeAt(0) - 97, Number(square.slice(1)) - 1];
}
