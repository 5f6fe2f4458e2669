// Cold War: a 3×3 board whose squares hold bases of one to three pieces.
// Moves: `b2` (create or bolster), `b2-b3` (transfer), `b2xb3` (attack),
// `b2>b3` (conquer).

import { s, choose } from '../dom.js';
import { GridBoard } from './grid.js';

const COLORS = { x: '#2563c9', o: '#d1432b' };
const MOVE_RE = /^([a-c][1-3])(?:([-x>])([a-c][1-3]))?$/;

/** Parse a Cold War move string into {move, from, to, kind}; a placement has from = null. */
export function parseColdWarMove(move) {
  const m = MOVE_RE.exec(move);
  if (!m) return null;
  if (!m[2]) return { move, from: null, to: m[1], kind: '+' };
  return { move, from: m[1], to: m[3], kind: m[2] };
}

export class ColdWarBoard extends GridBoard {
  get boardClass() { return 'coldwar-board'; }
  get files() { return 3; }
  get ranks() { return 3; }
  get cell() { return 100; }
  get margin() { return 28; }
  /** Room for the outer half of the squares' 2-unit borders. */
  get top() { return 2; }
  get rightPad() { return 2; }

  parseMove(move) {
    return parseColdWarMove(move);
  }

  cellAt(square) {
    return this.state.view.cells.find((c) => c.square === square) || { square, owner: null, count: 0 };
  }

  ownerAt(square) {
    return this.cellAt(square).owner;
  }

  pickAmong(options) {
    return choose('Attack or conquer?', options.map((m) => ({
      label: m.kind === '>' ? `Conquer ${m.to} (take the square)` : `Attack ${m.to}`,
      value: m.move,
    })));
  }

  /** A piece steps one square along a rank or a file. */
  premoveTargets(square) {
    return this.orthogonalNeighbours(square);
  }


  canPremovePlace(square) {
    const cell = this.cellAt(square);
    return !cell.owner || (cell.owner === this.premoveSide && cell.count < 3);
  }

  squareLabel(square) {
    const cell = this.cellAt(square);
    if (!cell.owner) return `${square}, empty`;
    return `${square}, ${cell.owner.toUpperCase()} base of ${cell.count}`;
  }

  lastMoveSquares() {
    const last = this.state.view.last_move;
    return last ? (last.match(/[a-c][1-3]/g) || []) : [];
  }

  squareData(square) {
    const cell = this.cellAt(square);
    return { 'data-owner': cell.owner || '', 'data-count': cell.count };
  }

  /** The mark a target square shows: + to place, - transfer, x attack, > conquer. */
  targetKind(square) {
    if (this.selected) {
      const m = this.movesFrom(this.selected).find((mv) => mv.to === square);
      if (m) return m.kind;
      if (square === this.selected && this.placeOn(square)) return '+';
      return null;
    }
    return this.placeOn(square) ? '+' : null;
  }

  drawSquare(g, square, x, y, { target, premovable }) {
    const cell = this.cellAt(square);
    if (cell.owner) g.append(s('g', { class: 'piece-art' }, this.stack(x, y, cell.owner, cell.count)));
    const kind = premovable ? (target ? '-' : null) : this.targetKind(square);
    if (kind) g.append(targetMark(x, y, kind, !!cell.owner, this.cell));
  }

  stack(x, y, owner, count) {
    // Pieces drawn as discs seen slightly from the side, piled bottom-up.
    const CELL = this.cell;
    const g = s('g', { class: `stack stack-${owner}` });
    const cx = x + CELL / 2;
    const base = y + CELL * 0.72;
    for (let i = 0; i < count; i++) {
      const cy = base - i * 15;
      g.append(s('ellipse', { cx, cy: cy + 5, rx: 30, ry: 12, fill: shade(COLORS[owner]), class: 'piece-side' }));
      g.append(s('rect', { x: cx - 30, y: cy - 1, width: 60, height: 6, fill: shade(COLORS[owner]) }));
      g.append(s('ellipse', { cx, cy: cy - 1, rx: 30, ry: 12, fill: COLORS[owner], stroke: '#0003', class: 'piece' }));
    }
    const topY = base - (count - 1) * 15 - 1;
    g.append(mark(owner, cx, topY));
    g.append(s('text', { x: x + CELL - 8, y: y + 18, class: 'count', 'text-anchor': 'end' }, String(count)));
    return g;
  }

  soundFor(_previous, next) {
    const last = next.view.last_move || '';
    return /[x>]/.test(last) ? 'capture' : 'move';
  }
}

function mark(owner, cx, cy) {
  if (owner === 'x') {
    return s('path', { d: `M${cx - 8} ${cy - 5} L${cx + 8} ${cy + 5} M${cx + 8} ${cy - 5} L${cx - 8} ${cy + 5}`, class: 'glyph' });
  }
  return s('ellipse', { cx, cy, rx: 8, ry: 4.5, class: 'glyph', fill: 'none' });
}

function targetMark(x, y, kind, occupied, CELL) {
  const cx = x + CELL / 2;
  const cy = y + CELL / 2;
  if (occupied && kind !== '+') {
    return s('rect', { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, class: `target-ring kind-${kind === 'x' ? 'attack' : kind === '>' ? 'conquer' : 'transfer'}` });
  }
  return s('circle', { cx, cy: occupied ? y + 14 : cy, r: occupied ? 7 : 11, class: 'target-dot' });
}

function shade(hex) {
  const n = parseInt(hex.slice(1), 16);
  const dim = (v) => Math.round(v * 0.7);
  return `rgb(${dim(n >> 16)},${dim((n >> 8) & 255)},${dim(n & 255)})`;
}
