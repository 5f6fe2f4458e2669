// Dots (Points): a lattice of W×H intersections. A move is a point `x-y`;
// the server says which points are playable and which territories exist,
// and the board only draws them.

import { s } from '../dom.js';
import { BoardBase } from './common.js';

const CELL = 18;
const PAD = 22;

export class DotsBoard extends BoardBase {
  xy(x, y) {
    const { width, height } = this.state.view;
    if (this.flipped) { x = width + 1 - x; y = height + 1 - y; }
    return [PAD + (x - 1) * CELL, PAD + (height - y) * CELL];
  }

  render() {
    const view = this.state.view;
    const { width, height } = view;
    const w = PAD * 2 + (width - 1) * CELL;
    const hgt = PAD * 2 + (height - 1) * CELL;
    const svg = s('svg', {
      viewBox: `0 0 ${w} ${hgt}`, class: `board dots-board to-move-${this.state.to_move}`,
      role: 'img', 'aria-label': 'Dots board',
    });
    svg.append(s('rect', { x: 0, y: 0, width: w, height: hgt, class: 'paper' }));

    const grid = [];
    for (let x = 1; x <= width; x++) {
      const [px, top] = this.xy(x, height);
      const [, bottom] = this.xy(x, 1);
      grid.push(`M${px} ${Math.min(top, bottom)}V${Math.max(top, bottom)}`);
    }
    for (let y = 1; y <= height; y++) {
      const [left, py] = this.xy(1, y);
      const [right] = this.xy(width, y);
      grid.push(`M${Math.min(left, right)} ${py}H${Math.max(left, right)}`);
    }
    svg.append(s('path', { d: grid.join(''), class: 'grid' }));

    for (let x = 1; x <= width; x++) {
      if (x === 1 || x % 5 === 0 || x === width) {
        const [px, py] = this.xy(x, this.flipped ? height : 1);
        svg.append(s('text', { x: px, y: py + 15, class: 'coord', 'text-anchor': 'middle' }, String(x)));
      }
    }
    for (let y = 1; y <= height; y++) {
      if (y === 1 || y % 5 === 0 || y === height) {
        const [px, py] = this.xy(this.flipped ? width : 1, y);
        svg.append(s('text', { x: px - 12, y: py + 3.5, class: 'coord', 'text-anchor': 'middle' }, String(y)));
      }
    }

    // Territories: the loop of wall dots, shaded inside and outlined.
    for (const t of view.territories || []) {
      const d = t.wall.map(([x, y], i) => `${i ? 'L' : 'M'}${this.xy(x, y).join(' ')}`).join('') + 'Z';
      svg.append(s('path', {
        d, class: `territory territory-${t.owner}`, 'data-owner': t.owner, 'data-captured': t.captured,
      }));
    }
    // Empty bases: a faint hint that a point is enclosed (playing there is suicide).
    for (const [owner, points] of Object.entries(view.bases || {})) {
      for (const [x, y] of points) {
        const [px, py] = this.xy(x, y);
        svg.append(s('rect', { x: px - CELL / 2, y: py - CELL / 2, width: CELL, height: CELL, class: `base base-${owner}` }));
      }
    }

    const last = view.last_move;
    for (const dot of view.dots) {
      const [px, py] = this.xy(dot.x, dot.y);
      const name = `${dot.x}-${dot.y}`;
      const classes = ['dot', `dot-${dot.color}`];
      if (dot.captured) classes.push('captured');
      svg.append(s('circle', {
        cx: px, cy: py, r: dot.captured ? 4.6 : 5.8, class: classes.join(' '), 'data-point': name,
      }));
      if (name === last) svg.append(s('circle', { cx: px, cy: py, r: 8.5, class: 'last-move' }));
    }

    // Click targets: only the points the server lists as legal.
    const hits = s('g', { class: 'hits' });
    for (const move of this.legalMoves) {
      const m = /^(\d+)-(\d+)$/.exec(move);
      if (!m) continue;
      const [px, py] = this.xy(Number(m[1]), Number(m[2]));
      hits.append(s('circle', {
        cx: px, cy: py, r: CELL / 2, class: 'hit target', 'data-point': move,
        onclick: () => this.play(move),
      }));
    }
    svg.append(hits);
    return svg;
  }
}
