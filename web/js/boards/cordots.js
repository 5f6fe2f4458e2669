// Cordots: custodial captures on 8×8 with Capturers and Victims. Moves are
// `b2-b3`, and a back-row sacrifice names the Victim promoted: `c7-c8=f2`.

import { s, choose } from '../dom.js';
import { BoardBase, fileRank } from './common.js';

const CELL = 56;
const MARGIN = 22;
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

export class CordotsBoard extends BoardBase {
  squareXY(square) {
    let [f, r] = fileRank(square);
    if (this.flipped) { f = 7 - f; r = 7 - r; }
    return [MARGIN + f * CELL, BAND + (7 - r) * CELL];
  }

  movesFrom(square) {
    return this.legalMoves.map((m) => MOVE_RE.exec(m)).filter((m) => m && m[1] === square);
  }

  click(square) {
    return this.clickSquare(square, async (options) => {
      // A forced sacrifice: the mover names the Victim that becomes a Capturer.
      this.candidates = options.map((m) => m[3]);
      this.draw();
      const picked = await choose('Sacrifice: which Victim becomes a Capturer?', options.map((m) => ({
        label: `Victim on ${m[3]}`,
        value: m[0],
      })), { id: 'sacrifice-dialog' });
      this.candidates = null;
      return picked;
    });
  }

  render() {
    const view = this.state.view;
    const width = MARGIN + CELL * 8 + 8;
    const height = BAND * 2 + CELL * 8 + MARGIN;
    const svg = s('svg', {
      viewBox: `0 0 ${width} ${height}`, class: 'board cordots-board', role: 'img',
      'aria-label': 'Cordots board',
    });
    const pieces = new Map(view.pieces.map((p) => [p.square, p]));
    const targets = new Set(this.selected ? this.movesFrom(this.selected).map((m) => m[2]) : []);
    const sources = new Set(this.legalMoves.map((m) => m.slice(0, 2)));
    const last = view.last_move;
    const lastSquares = last ? [last.from, last.to] : [];
    const removed = new Set(last ? last.removed : []);
    const candidates = new Set(this.candidates || []);
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const square = 'abcdefgh'[f] + (r + 1);
        const [x, y] = this.squareXY(square);
        const classes = ['square', (f + r) % 2 ? 'light' : 'dark'];
        if (r === 0 || r === 7) classes.push('base-row');
        if (lastSquares.includes(square)) classes.push('last');
        if (this.selected === square) classes.push('selected');
        if (targets.has(square)) classes.push('target');
        if (sources.has(square)) classes.push('source');
        if (candidates.has(square)) classes.push('candidate');
        if (removed.has(square)) classes.push('removed');
        const piece = pieces.get(square);
        const g = s('g', {
          class: classes.join(' '), 'data-square': square,
          'data-piece': piece ? `${piece.color}-${piece.piece}` : '',
          onclick: () => this.click(square),
        });
        g.append(s('rect', { x, y, width: CELL, height: CELL, class: 'cell' }));
        const cx = x + CELL / 2;
        const cy = y + CELL / 2;
        if (removed.has(square) && !piece) {
          g.append(s('path', { d: `M${cx - 8} ${cy - 8}L${cx + 8} ${cy + 8}M${cx + 8} ${cy - 8}L${cx - 8} ${cy + 8}`, class: 'removed-mark' }));
        }
        if (piece) {
          g.append(piece.piece.startsWith('capt')
            ? capturerGlyph(piece.color, cx, cy, CELL * 0.4)
            : victimGlyph(piece.color, cx, cy, CELL * 0.4));
        }
        if (last && last.restored === square) {
          g.append(s('circle', { cx, cy, r: CELL * 0.46, class: 'restored-mark' }));
        }
        if (targets.has(square)) g.append(s('circle', { cx, cy, r: CELL / 7, class: 'target-dot' }));
        svg.append(g);
      }
    }
    for (let i = 0; i < 8; i++) {
      const file = this.flipped ? 7 - i : i;
      const rank = this.flipped ? i + 1 : 8 - i;
      svg.append(s('text', { x: MARGIN + i * CELL + CELL / 2, y: BAND + CELL * 8 + 15, class: 'coord', 'text-anchor': 'middle' }, 'abcdefgh'[file]));
      svg.append(s('text', { x: MARGIN / 2, y: BAND + i * CELL + CELL / 2 + 5, class: 'coord', 'text-anchor': 'middle' }, String(rank)));
    }
    const top = this.flipped ? 'white' : 'black';
    const bottom = this.flipped ? 'black' : 'white';
    svg.append(this.reserveBand(top, 4, view));
    svg.append(this.reserveBand(bottom, BAND + CELL * 8 + 22, view));
    return svg;
  }

  reserveBand(color, y, view) {
    const reserve = view.reserves[color] || 0;
    const counts = view.counts ? view.counts[color] : null;
    const g = s('g', { class: `reserve reserve-${color}`, 'data-reserve': reserve });
    g.append(s('text', { x: MARGIN, y: y + 24, class: 'reserve-label' },
      `${color === 'white' ? 'White' : 'Black'} reserve: ${reserve}`));
    for (let i = 0; i < reserve; i++) {
      g.append(capturerGlyph(color, MARGIN + 150 + i * 26, y + 18, 11));
    }
    if (counts) {
      g.append(s('text', { x: MARGIN + CELL * 8, y: y + 24, class: 'reserve-label', 'text-anchor': 'end' },
        `${counts.capturers} C · ${counts.victims} V`));
    }
    return g;
  }
}
