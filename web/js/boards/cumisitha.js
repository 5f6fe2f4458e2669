// Cumisitha: chess as Ludii reconstructs it. Moves are UCI strings
// (`e2e4`, `e7e8q`); people read and type SAN (the view's `san` table).

import { s, h, choose } from '../dom.js';
import { GridBoard } from './grid.js';
import { fileRank } from './common.js';
import { pieceGlyph, pieceIcon, PIECE_NAMES } from './pieces.js';

const UCI_RE = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;
const VALUES = { q: 9, r: 5, b: 3, n: 3, p: 1 };

export class CumisithaBoard extends GridBoard {
  get boardClass() { return 'cumisitha-board'; }

  parseMove(move) {
    const m = UCI_RE.exec(move);
    return m ? { move, from: m[1], to: m[2], promotion: m[3] || null } : null;
  }

  pieceAt(square) {
    const [f, r] = fileRank(square);
    return this.state.view.squares[r * 8 + f] || null;
  }

  ownerAt(square) {
    const piece = this.pieceAt(square);
    if (!piece) return null;
    return piece === piece.toUpperCase() ? 'white' : 'black';
  }

  pickAmong(options) {
    const white = this.state.to_move === 'white';
    return choose('Promote to', ['q', 'r', 'b', 'n']
      .filter((p) => options.some((m) => m.promotion === p))
      .map((p) => ({
        label: PIECE_NAMES[p],
        value: options.find((m) => m.promotion === p).move,
        icon: pieceIcon(white ? p.toUpperCase() : p),
      })), { id: 'promotion-dialog' });
  }

  /** A premoved promotion becomes a queen, as on lichess. */
  premoveChoice(options) {
    const queen = options.find((m) => m.promotion === 'q');
    return queen ? queen.move : null;
  }

  /** Where a piece could go next turn, whatever stands in the way (lichess's premove squares). */
  premoveTargets(square) {
    const piece = this.pieceAt(square);
    const out = new Set();
    if (!piece) return out;
    const white = piece === piece.toUpperCase();
    const [f, r] = fileRank(square);
    const add = (df, dr) => {
      const nf = f + df;
      const nr = r + dr;
      if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) out.add('abcdefgh'[nf] + (nr + 1));
    };
    const rays = (dirs) => { for (const [df, dr] of dirs) for (let k = 1; k < 8; k++) add(df * k, dr * k); };
    const straight = [[1, 0], [-1, 0], [0, 1], [0, -1]];
    const diagonal = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
    switch (piece.toLowerCase()) {
      case 'p': {
        const dir = white ? 1 : -1;
        add(0, dir);
        if (r === (white ? 1 : 6)) add(0, 2 * dir);
        add(-1, dir);
        add(1, dir);
        break;
      }
      case 'n': for (const [df, dr] of [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]) add(df, dr); break;
      case 'b': rays(diagonal); break;
      case 'r': rays(straight); break;
      case 'q': rays([...straight, ...diagonal]); break;
      case 'k':
        for (const [df, dr] of [...straight, ...diagonal]) add(df, dr);
        if (square === (white ? 'e1' : 'e8')) { add(2, 0); add(-2, 0); }
        break;
      default: break;
    }
    return out;
  }

  squareLabel(square) {
    const piece = this.pieceAt(square);
    if (!piece) return `${square}, empty`;
    const color = piece === piece.toUpperCase() ? 'white' : 'black';
    return `${square}, ${color} ${PIECE_NAMES[piece.toLowerCase()].toLowerCase()}`;
  }

  lastMoveSquares() {
    const last = this.state.view.last_move;
    return last ? [last.from, last.to] : [];
  }

  squareClasses(square) {
    return this.state.view.check === square ? ['check'] : [];
  }

  squareData(square) {
    return { 'data-piece': this.pieceAt(square) || '' };
  }

  drawSquare(g, square, x, y, { target }) {
    const piece = this.pieceAt(square);
    const cell = this.cell;
    if (piece) g.append(s('g', { class: 'piece-art' }, pieceGlyph(piece, x + 2, y + 2, cell - 4)));
    if (target) {
      g.append(piece
        ? s('circle', { cx: x + cell / 2, cy: y + cell / 2, r: cell / 2 - 3, class: 'target-capture' })
        : s('circle', { cx: x + cell / 2, cy: y + cell / 2, r: cell / 7, class: 'target-dot' }));
    }
  }

  /** The material one side is up, as lichess shows it: the pieces and +points. */
  barExtras(player) {
    const counts = { white: {}, black: {} };
    for (const piece of this.state.view.squares) {
      if (!piece) continue;
      const side = piece === piece.toUpperCase() ? 'white' : 'black';
      const kind = piece.toLowerCase();
      counts[side][kind] = (counts[side][kind] || 0) + 1;
    }
    const other = player === 'white' ? 'black' : 'white';
    const icons = [];
    const words = [];
    let points = 0;
    for (const kind of ['q', 'r', 'b', 'n', 'p']) {
      const up = (counts[player][kind] || 0) - (counts[other][kind] || 0);
      points += up * VALUES[kind];
      if (up > 0) words.push(`${up} ${PIECE_NAMES[kind].toLowerCase()}${up > 1 ? 's' : ''}`);
      for (let i = 0; i < up; i++) icons.push(pieceIcon(other === 'white' ? kind.toUpperCase() : kind, 18));
    }
    if (!icons.length && points <= 0) return null;
    const label = `${player} is up ${words.join(', ') || 'material'}${points > 0 ? ` (+${points})` : ''}`;
    return h('span', { class: 'material', 'data-material': player, role: 'img', 'aria-label': label, title: label },
      icons, points > 0 ? h('span', { class: 'material-points', 'aria-hidden': 'true' }, `+${points}`) : null);
  }

  soundFor(previous, next) {
    if (next.view.check) return 'check';
    const count = (st) => st.view.squares.filter(Boolean).length;
    return previous && count(next) < count(previous) ? 'capture' : 'move';
  }
}
