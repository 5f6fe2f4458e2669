// Cumisitha: chess as Ludii reconstructs it. Moves are UCI strings
// (`e2e4`, `e7e8q`); the board lights the targets of the picked piece and
// asks which piece a pawn becomes.

import { s, choose } from '../dom.js';
import { BoardBase, fileRank } from './common.js';
import { pieceGlyph, pieceIcon, PIECE_NAMES } from './pieces.js';

const CELL = 60;
const MARGIN = 22;
const UCI_RE = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;

export class CumisithaBoard extends BoardBase {
  squareXY(square) {
    let [f, r] = fileRank(square);
    if (this.flipped) { f = 7 - f; r = 7 - r; }
    return [MARGIN + f * CELL, (7 - r) * CELL];
  }

  movesFrom(square) {
    return this.legalMoves.map((m) => UCI_RE.exec(m)).filter((m) => m && m[1] === square);
  }

  click(square) {
    return this.clickSquare(square, (options) => {
      const white = this.state.view.to_move === 'white';
      return choose('Promote to', ['q', 'r', 'b', 'n']
        .filter((p) => options.some((m) => m[3] === p))
        .map((p) => ({
          label: PIECE_NAMES[p],
          value: options.find((m) => m[3] === p)[0],
          icon: pieceIcon(white ? p.toUpperCase() : p),
        })), { id: 'promotion-dialog' });
    });
  }

  render() {
    const view = this.state.view;
    const width = MARGIN + CELL * 8;
    const height = CELL * 8 + MARGIN;
    const svg = s('svg', {
      viewBox: `0 0 ${width} ${height}`, class: 'board cumisitha-board', role: 'img',
      'aria-label': 'Cumisitha board',
    });
    const targets = new Map();
    if (this.selected) {
      for (const m of this.movesFrom(this.selected)) targets.set(m[2], true);
    }
    const sources = new Set(this.legalMoves.map((m) => m.slice(0, 2)));
    const last = view.last_move ? [view.last_move.from, view.last_move.to] : [];
    for (let i = 0; i < 64; i++) {
      const square = 'abcdefgh'[i % 8] + String(Math.floor(i / 8) + 1);
      const [x, y] = this.squareXY(square);
      const piece = view.squares[i];
      const light = (i % 8 + Math.floor(i / 8)) % 2 === 1;
      const classes = ['square', light ? 'light' : 'dark'];
      if (last.includes(square)) classes.push('last');
      if (this.selected === square) classes.push('selected');
      if (targets.has(square)) classes.push('target');
      if (sources.has(square)) classes.push('source');
      if (view.check === square) classes.push('check');
      const g = s('g', {
        class: classes.join(' '), 'data-square': square, 'data-piece': piece || '',
        onclick: () => this.click(square),
      });
      g.append(s('rect', { x, y, width: CELL, height: CELL, class: 'cell' }));
      if (piece) g.append(pieceGlyph(piece, x + 2, y + 2, CELL - 4));
      if (targets.has(square)) {
        g.append(piece
          ? s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - 3, class: 'target-capture' })
          : s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 7, class: 'target-dot' }));
      }
      svg.append(g);
    }
    for (let i = 0; i < 8; i++) {
      const file = this.flipped ? 7 - i : i;
      const rank = this.flipped ? i + 1 : 8 - i;
      svg.append(s('text', { x: MARGIN + i * CELL + CELL / 2, y: height - 6, class: 'coord', 'text-anchor': 'middle' }, 'abcdefgh'[file]));
      svg.append(s('text', { x: MARGIN / 2, y: i * CELL + CELL / 2 + 5, class: 'coord', 'text-anchor': 'middle' }, String(rank)));
    }
    return svg;
  }
}
