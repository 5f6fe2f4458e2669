// Cold War: a 3×3 board whose squares hold bases of one to three pieces.
// Moves: `b2` (create or bolster), `b2-b3` (transfer), `b2xb3` (attack),
// `b2>b3` (conquer).

import { s, choose } from '../dom.js';
import { BoardBase, squaresIn, fileRank } from './common.js';

const CELL = 100;
const MARGIN = 28;
const COLORS = { x: '#2563c9', o: '#d1432b' };
const MOVE_RE = /^([a-c][1-3])(?:([-x>])([a-c][1-3]))?$/;

/** Parse a Cold War move string into {from, kind, to} or {place}. */
export function parseColdWarMove(move) {
  const m = MOVE_RE.exec(move);
  if (!m) return null;
  if (!m[2]) return { place: m[1], move };
  return { from: m[1], kind: m[2], to: m[3], move };
}

export class ColdWarBoard extends BoardBase {
  cellXY(square) {
    let [f, r] = fileRank(square);
    if (this.flipped) { f = 2 - f; r = 2 - r; }
    return [MARGIN + f * CELL, MARGIN + (2 - r) * CELL];
  }

  async click(square) {
    const moves = this.legalMoves.map(parseColdWarMove).filter(Boolean);
    const sourcesFrom = (sq) => moves.filter((m) => m.from === sq);
    const placeOn = moves.find((m) => m.place === square);
    if (this.selected) {
      const options = sourcesFrom(this.selected).filter((m) => m.to === square);
      if (options.length === 1) return this.play(options[0].move);
      if (options.length > 1) {
        const picked = await choose('Attack or conquer?', options.map((m) => ({
          label: m.kind === '>' ? `Conquer ${m.to} (take the square)` : `Attack ${m.to}`,
          value: m.move,
        })));
        if (picked) return this.play(picked);
        return;
      }
      if (square === this.selected && placeOn) return this.play(placeOn.move);
    }
    if (sourcesFrom(square).length > 0 && square !== this.selected) {
      this.selected = square;
      return this.draw();
    }
    if (placeOn) return this.play(placeOn.move);
    this.selected = null;
    this.draw();
  }

  render() {
    const view = this.state.view;
    const size = MARGIN * 2 + CELL * 3;
    const moves = this.legalMoves.map(parseColdWarMove).filter(Boolean);
    const last = squaresIn(view.last_move);
    const targets = new Map();
    if (this.selected) {
      for (const m of moves.filter((m) => m.from === this.selected)) targets.set(m.to, m.kind);
      if (moves.some((m) => m.place === this.selected)) targets.set(this.selected, '+');
    } else {
      for (const m of moves) if (m.place) targets.set(m.place, '+');
    }
    const sources = new Set(moves.filter((m) => m.from).map((m) => m.from));

    const svg = s('svg', {
      viewBox: `0 0 ${size} ${size}`, class: 'board coldwar-board', role: 'img',
      'aria-label': 'Cold War board',
    });
    for (const cell of view.cells) {
      const [x, y] = this.cellXY(cell.square);
      const [f, r] = fileRank(cell.square);
      const classes = ['square', (f + r) % 2 ? 'light' : 'dark'];
      if (last.includes(cell.square)) classes.push('last');
      if (this.selected === cell.square) classes.push('selected');
      if (targets.has(cell.square)) classes.push('target');
      if (sources.has(cell.square)) classes.push('source');
      const group = s('g', {
        class: classes.join(' '), 'data-square': cell.square,
        'data-owner': cell.owner || '', 'data-count': cell.count,
        onclick: () => this.click(cell.square),
      });
      group.append(s('rect', { x, y, width: CELL, height: CELL, class: 'cell' }));
      if (cell.owner) group.append(this.stack(x, y, cell.owner, cell.count));
      const kind = targets.get(cell.square);
      if (kind) group.append(targetMark(x, y, kind, !!cell.owner));
      svg.append(group);
    }
    svg.append(...coordinates(this.flipped, size));
    return svg;
  }

  stack(x, y, owner, count) {
    // Pieces drawn as discs seen slightly from the side, piled bottom-up.
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
}

function mark(owner, cx, cy) {
  if (owner === 'x') {
    return s('path', { d: `M${cx - 8} ${cy - 5} L${cx + 8} ${cy + 5} M${cx + 8} ${cy - 5} L${cx - 8} ${cy + 5}`, class: 'glyph' });
  }
  return s('ellipse', { cx, cy, rx: 8, ry: 4.5, class: 'glyph', fill: 'none' });
}

function targetMark(x, y, kind, occupied) {
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

function coordinates(flipped, size) {
  const out = [];
  for (let i = 0; i < 3; i++) {
    const file = flipped ? 2 - i : i;
    const rank = flipped ? i + 1 : 3 - i;
    out.push(s('text', { x: MARGIN + i * CELL + CELL / 2, y: size - 8, class: 'coord', 'text-anchor': 'middle' }, 'abc'[file]));
    out.push(s('text', { x: 12, y: MARGIN + i * CELL + CELL / 2 + 5, class: 'coord', 'text-anchor': 'middle' }, String(rank)));
  }
  return out;
}
