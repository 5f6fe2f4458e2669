// Cordots: custodial captures on 8×8 with Capturers and Victims. Moves are
// `b2-b3`, and a back-row sacrifice names the Victim promoted: `c7-c8=f2`.

import { s, h, choose, title } from '../dom.js';
import { GridBoard } from './grid.js';
import { fileRank } from './common.js';

const BAND = 44;
const MOVE_RE = /^([a-h][1-8])-([a-h][1-8])(?:=([a-h][1-8]))?$/;

/** A Capturer: a large disc with a four-point star (the pincers). */
export function capturerGlyph(color, cx, cy, r) {
  const g = s('g', { class: `cordots-piece capturer side-${color}` });
  g.append(s('circle', { cx, cy, r, class: 'body' }));
  const p = r * 0.62;
  const q = r * 0.2;
  g.append(s('path', {
    class: 'mark',
    d: `M${cx} ${cy - p}L${cx + q} ${cy - q}L${cx + p} ${cy}L${cx + q} ${cy + q}L${cx} ${cy + p}L${cx - q} ${cy + q}L${cx - p} ${cy}L${cx - q} ${cy - q}Z`,
  }));
  return g;
}

/** A Victim: a smaller, plain ring-marked disc. */
export function victimGlyph(color, cx, cy, r) {
  const g = s('g', { class: `cordots-piece victim side-${color}` });
  g.append(s('circle', { cx, cy, r: r * 0.68, class: 'body' }));
  g.append(s('circle', { cx, cy, r: r * 0.3, class: 'ring' }));
  return g;
}

export class CordotsBoard extends GridBoard {
  /** `bars`: the page shows the reserves in the players' bars; otherwise they are drawn above and below the board. */
  constructor(opts = {}) {
    super(opts);
    this.bands = !opts.bars;
  }

  get boardClass() { return 'cordots-board'; }
  get cell() { return 56; }
  get top() { return this.bands ? BAND : 0; }
  get bottom() { return this.bands ? BAND : 0; }
  get rightPad() { return this.bands ? 8 : 0; }

  parseMove(move) {
    const m = MOVE_RE.exec(move);
    return m ? { move, from: m[1], to: m[2], victim: m[3] || null } : null;
  }

  pieceAt(square) {
    if (!this.pieceMap || this.pieceMapFor !== this.state) {
      this.pieceMap = new Map(this.state.view.pieces.map((p) => [p.square, p]));
      this.pieceMapFor = this.state;
    }
    return this.pieceMap.get(square) || null;
  }

  ownerAt(square) {
    const piece = this.pieceAt(square);
    return piece ? piece.color : null;
  }

  async pickAmong(options) {
    // A forced sacrifice: the mover names the Victim that becomes a Capturer.
    this.candidates = options.map((m) => m.victim);
    this.draw();
    const picked = await choose('Sacrifice: which Victim becomes a Capturer?', options.map((m) => ({
      label: `Victim on ${m.victim}`,
      value: m.move,
    })), { id: 'sacrifice-dialog' });
    this.candidates = null;
    return picked;
  }

  /** A piece steps one square along a rank or a file. */
  premoveTargets(square) {
    return this.orthogonalNeighbours(square);
  }


  squareLabel(square) {
    const piece = this.pieceAt(square);
    return piece ? `${square}, ${piece.color} ${piece.piece}` : `${square}, empty`;
  }

  lastMoveSquares() {
    const last = this.state.view.last_move;
    return last ? [last.from, last.to] : [];
  }

  squareClasses(square) {
    const [, r] = fileRank(square);
    const classes = [];
    if (r === 0 || r === 7) classes.push('base-row');
    if (this.candidates && this.candidates.includes(square)) classes.push('candidate');
    const last = this.state.view.last_move;
    if (last && last.removed.includes(square)) classes.push('removed');
    return classes;
  }

  squareData(square) {
    const piece = this.pieceAt(square);
    return { 'data-piece': piece ? `${piece.color}-${piece.piece}` : '' };
  }

  drawSquare(g, square, x, y, { target }) {
    const cell = this.cell;
    const cx = x + cell / 2;
    const cy = y + cell / 2;
    const piece = this.pieceAt(square);
    const last = this.state.view.last_move;
    if (last && last.removed.includes(square) && !piece) {
      g.append(s('path', { d: `M${cx - 8} ${cy - 8}L${cx + 8} ${cy + 8}M${cx + 8} ${cy - 8}L${cx - 8} ${cy + 8}`, class: 'removed-mark' }));
    }
    if (piece) {
      g.append(s('g', { class: 'piece-art' }, piece.piece.startsWith('capt')
        ? capturerGlyph(piece.color, cx, cy, cell * 0.4)
        : victimGlyph(piece.color, cx, cy, cell * 0.4)));
    }
    if (last && last.restored === square) g.append(s('circle', { cx, cy, r: cell * 0.46, class: 'restored-mark' }));
    if (target) g.append(s('circle', { cx, cy, r: cell / 7, class: 'target-dot' }));
  }

  decorate(svg) {
    if (!this.bands) return;
    const view = this.state.view;
    const top = this.flipped ? 'white' : 'black';
    const bottom = this.flipped ? 'black' : 'white';
    svg.append(this.reserveBand(top, 4, view));
    svg.append(this.reserveBand(bottom, BAND + this.cell * 8 + this.margin, view));
  }

  reserveBand(color, y, view) {
    const reserve = view.reserves[color] || 0;
    const counts = view.counts ? view.counts[color] : null;
    const g = s('g', { class: `reserve reserve-${color}`, 'data-reserve': reserve });
    g.append(s('text', { x: this.margin, y: y + 24, class: 'reserve-label' }, `${title(color)} reserve: ${reserve}`));
    for (let i = 0; i < reserve; i++) g.append(capturerGlyph(color, this.margin + 150 + i * 26, y + 18, 11));
    if (counts) {
      g.append(s('text', { x: this.margin + this.cell * 8, y: y + 24, class: 'reserve-label', 'text-anchor': 'end' },
        `${counts.capturers} C · ${counts.victims} V`));
    }
    return g;
  }

  /** A player's reserve of lost Capturers and the pieces left, for the player's bar. */
  barExtras(player) {
    const view = this.state.view;
    const reserve = view.reserves[player] || 0;
    const counts = view.counts ? view.counts[player] : null;
    const icons = [];
    for (let i = 0; i < reserve; i++) {
      const icon = s('svg', { viewBox: '0 0 24 24', width: 18, height: 18, 'aria-hidden': 'true', class: 'reserve-icon' });
      icon.append(capturerGlyph(player, 12, 12, 10));
      icons.push(icon);
    }
    const label = `${title(player)}: ${reserve} Capturer${reserve === 1 ? '' : 's'} in reserve${counts ? `; ${counts.capturers} Capturers and ${counts.victims} Victims on the board` : ''}`;
    return h('span', { class: `reserve reserve-${player}`, 'data-reserve': reserve, role: 'img', 'aria-label': label, title: label },
      h('span', { class: 'reserve-count', 'aria-hidden': 'true' }, `reserve ${reserve}`), icons,
      counts ? h('span', { class: 'piece-counts', 'aria-hidden': 'true' }, `· ${counts.capturers} C · ${counts.victims} V`) : null);
  }

  gameInfo() {
    const view = this.state.view;
    if (view.ply_cap && view.mode === 'untimed') return `Ply ${this.state.plies} of ${view.ply_cap}`;
    return '';
  }

  soundFor(_previous, next) {
    const last = next.view.last_move;
    return last && last.removed && last.removed.length ? 'capture' : 'move';
  }
}
