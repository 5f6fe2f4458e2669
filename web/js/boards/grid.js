// The square-grid board shared by Cordots, Cumisitha and Cold War: the
// checkered squares and their coordinates, and every way of moving on them:
// click-click, drag and drop (mouse, touch, pen), the keyboard, and
// lichess-style premoves. A game's board class says how to read its move
// strings, draws what stands on a square, and settles a move that needs a
// choice (a promotion, a sacrifice, attack or conquer).

import { s, h } from '../dom.js';
import { BoardBase, fileRank } from './common.js';

const FILES = 'abcdefghijklmnopqrstuvwxyz';
const DRAG_START_PX = 5;

export class GridBoard extends BoardBase {
  constructor(opts) {
    super(opts);
    this.premove = null;
    this.pointer = null;
    this.ghost = null;
    this.el.classList.add('grid-board-wrap');
    this.stage.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.stage.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.stage.addEventListener('pointerup', (e) => this.onPointerUp(e));
    this.stage.addEventListener('pointercancel', () => this.endDrag());
    this.stage.addEventListener('contextmenu', (e) => {
      // A right click cancels a premove or a selection, as on lichess.
      if (this.premove || this.selected) { e.preventDefault(); this.premove = null; this.selected = null; this.draw(); }
    });
  }

  get canPremove() {
    return true;
  }

  // ----- geometry: subclasses may change these -----

  get files() { return 8; }
  get ranks() { return 8; }
  /** Size of a square in SVG units. */
  get cell() { return 60; }
  /** Left margin (rank numbers) and bottom margin (file letters). */
  get margin() { return 22; }
  /** Space above the squares. */
  get top() { return 0; }
  /** Space below the file letters. */
  get bottom() { return 0; }

  /** Width over height of the drawing (the page sizes the board with it). */
  get aspect() {
    return (this.margin + this.cell * this.files + this.rightPad) / (this.top + this.cell * this.ranks + this.margin + this.bottom);
  }

  squareName(f, r) {
    return FILES[f] + (r + 1);
  }

  /** Top-left corner of a square in SVG units, seen from the side at the bottom. */
  squareXY(square) {
    let [f, r] = fileRank(square);
    if (this.flipped) { f = this.files - 1 - f; r = this.ranks - 1 - r; }
    return [this.margin + f * this.cell, this.top + (this.ranks - 1 - r) * this.cell];
  }

  /** The square under a point of the screen, or null. */
  squareAt(clientX, clientY) {
    const svg = this.stage.querySelector('svg');
    if (!svg) return null;
    const box = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    const x = vb.x + ((clientX - box.left) / box.width) * vb.width;
    const y = vb.y + ((clientY - box.top) / box.height) * vb.height;
    let f = Math.floor((x - this.margin) / this.cell);
    let r = this.ranks - 1 - Math.floor((y - this.top) / this.cell);
    if (f < 0 || r < 0 || f >= this.files || r >= this.ranks) return null;
    if (this.flipped) { f = this.files - 1 - f; r = this.ranks - 1 - r; }
    return this.squareName(f, r);
  }

  // ----- moves: subclasses implement parseMove -----

  /** A move string as {move, from, to}; `from` is null for a move onto one square (Cold War's placements). */
  parseMove(_move) {
    return null;
  }

  get moves() {
    if (!this.parsed) this.parsed = this.legalMoves.map((m) => this.parseMove(m)).filter(Boolean);
    return this.parsed;
  }

  movesFrom(square) {
    return this.moves.filter((m) => m.from === square);
  }

  placeOn(square) {
    return this.moves.find((m) => !m.from && m.to === square) || null;
  }

  /** Several legal moves between the same squares: ask which one (resolves to a move or null). */
  async pickAmong(options) {
    return options[0].move;
  }

  /** A premove with several readings: the one to play without asking, or null to ask. */
  premoveChoice(_options) {
    return null;
  }

  // ----- premoves: what the viewer's pieces could do once it is their turn -----

  /** The player whose piece stands on a square, or null. */
  ownerAt(_square) {
    return null;
  }

  /** Squares a piece on `square` might go to on the next turn (ignoring what may happen before). */
  premoveTargets(_square) {
    return new Set();
  }

  /** The squares beside `square` along its rank and file. */
  orthogonalNeighbours(square) {
    const [f, r] = fileRank(square);
    const out = new Set();
    for (const [df, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const nf = f + df;
      const nr = r + dr;
      if (nf >= 0 && nf < this.files && nr >= 0 && nr < this.ranks) out.add(this.squareName(nf, nr));
    }
    return out;
  }

  /** Whether a one-square move (a placement) could be premoved on `square`. */
  canPremovePlace(_square) {
    return false;
  }

  canDrag(square) {
    if (this.interactive) return this.movesFrom(square).length > 0;
    return !!this.premoveSide && this.ownerAt(square) === this.premoveSide;
  }

  // ----- clicks -----

  async click(square) {
    if (this.interactive) return this.clickLive(square);
    if (this.premoveSide) return this.clickPremove(square);
    return undefined;
  }

  async clickLive(square) {
    if (this.selected) {
      const options = this.movesFrom(this.selected).filter((m) => m.to === square);
      if (options.length) return this.choose(options);
      if (square === this.selected) {
        const place = this.placeOn(square);
        if (place) return this.play(place.move);
        this.selected = null;
        this.draw();
        return this.announce('Nothing selected.');
      }
    }
    if (this.movesFrom(square).length > 0) {
      this.selected = square;
      this.draw();
      return this.announce(this.describeSelection());
    }
    const place = this.placeOn(square);
    if (place) return this.play(place.move);
    this.selected = null;
    this.draw();
    return undefined;
  }

  async choose(options) {
    const picked = options.length === 1 ? options[0].move : await this.pickAmong(options);
    if (picked) return this.play(picked);
    this.selected = null;
    this.draw();
    return undefined;
  }

  clickPremove(square) {
    const from = this.selected;
    if (from && square !== from && this.premoveTargets(from).has(square)) {
      this.setPremove({ from, to: square });
    } else if (from && square === from && this.canPremovePlace(square)) {
      this.setPremove({ from: null, to: square });
    } else if (square !== from && this.ownerAt(square) === this.premoveSide) {
      this.premove = null;
      this.selected = square;
      this.draw();
      this.announce(`Premove: ${this.squareLabel(square)} selected.`);
    } else if (!from && this.canPremovePlace(square)) {
      this.setPremove({ from: null, to: square });
    } else {
      this.selected = null;
      const had = !!this.premove;
      this.premove = null;
      this.draw();
      if (had) this.announce('Premove cancelled.');
    }
  }

  setPremove(premove) {
    this.premove = premove;
    this.selected = null;
    this.draw();
    this.announce(`Premove ${premove.from ? `${premove.from} to ${premove.to}` : premove.to}, played when it is your turn.`);
  }

  /** A premove waiting for this turn is played at once if it is legal, else dropped. */
  afterState() {
    if (!this.premove) return;
    if (!this.interactive) {
      if (!this.premoveSide) { this.premove = null; this.draw(); }
      return;
    }
    const p = this.premove;
    this.premove = null;
    const options = p.from ? this.movesFrom(p.from).filter((m) => m.to === p.to) : [this.placeOn(p.to)].filter(Boolean);
    if (!options.length) {
      this.draw();
      this.announce('The premove is not legal now; it was dropped.');
      return;
    }
    const auto = options.length === 1 ? options[0].move : this.premoveChoice(options);
    // After the page has finished showing the new state.
    queueMicrotask(() => {
      if (!this.interactive) return;
      if (auto) this.play(auto);
      else { this.selected = p.from; this.choose(options); }
    });
  }

  // ----- pointer: click-click and drag and drop -----

  onPointerDown(e) {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    if (this.pointer) return; // a second finger: ignore
    const square = this.squareAt(e.clientX, e.clientY);
    if (!square) return;
    const draggable = this.canDrag(square);
    this.pointer = { id: e.pointerId, square, x: e.clientX, y: e.clientY, dragging: false, draggable };
    if (draggable) {
      e.preventDefault();
      try { this.stage.setPointerCapture(e.pointerId); } catch { /* synthetic pointer */ }
    }
  }

  onPointerMove(e) {
    const p = this.pointer;
    if (!p || p.id !== e.pointerId || !p.draggable) return;
    if (!p.dragging) {
      if (Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_START_PX) return;
      p.dragging = true;
      if (this.selected !== p.square) {
        if (this.interactive || this.premoveSide) { this.selected = p.square; this.premove = null; }
        this.draw();
      }
      this.startGhost(p.square);
    }
    this.moveGhost(e.clientX, e.clientY);
    const over = this.squareAt(e.clientX, e.clientY);
    for (const g of this.stage.querySelectorAll('.square.drag-over')) g.classList.remove('drag-over');
    if (over) this.stage.querySelector(`[data-square="${over}"]`)?.classList.add('drag-over');
  }

  onPointerUp(e) {
    const p = this.pointer;
    if (!p || p.id !== e.pointerId) return;
    this.pointer = null;
    const square = this.squareAt(e.clientX, e.clientY);
    if (p.dragging) {
      this.endDrag();
      if (square && square !== p.square) {
        this.selected = p.square;
        this.click(square);
      } else {
        this.draw();
      }
      return;
    }
    if (square) this.click(square);
  }

  startGhost(square) {
    const g = this.stage.querySelector(`[data-square="${square}"] .piece-art`);
    const svg = this.stage.querySelector('svg');
    if (!g || !svg) return;
    const [x, y] = this.squareXY(square);
    const size = (svg.getBoundingClientRect().width / svg.viewBox.baseVal.width) * this.cell;
    const art = s('svg', { viewBox: `${x} ${y} ${this.cell} ${this.cell}`, width: size, height: size, class: svg.getAttribute('class') });
    art.append(g.cloneNode(true));
    this.ghost = h('div', { class: 'drag-ghost', 'aria-hidden': 'true' }, art);
    this.ghost.style.width = `${size}px`;
    this.ghost.style.height = `${size}px`;
    document.body.append(this.ghost);
    this.stage.classList.add('dragging');
    this.dragFrom = square;
    this.stage.querySelector(`[data-square="${square}"]`)?.classList.add('drag-from');
  }

  moveGhost(x, y) {
    if (!this.ghost) return;
    const half = parseFloat(this.ghost.style.width) / 2;
    this.ghost.style.transform = `translate(${x - half}px, ${y - half}px)`;
  }

  endDrag() {
    this.pointer = null;
    if (this.ghost) this.ghost.remove();
    this.ghost = null;
    this.dragFrom = null;
    this.stage.classList.remove('dragging');
  }

  // ----- keyboard -----

  defaultCursor() {
    if (this.selected) return this.selected;
    const last = this.lastMoveSquares();
    if (last.length) return last[last.length - 1];
    const first = this.moves.find((m) => m.from) || this.moves[0];
    return first ? first.from || first.to : this.squareName(0, 0);
  }

  moveCursor(dx, dy) {
    let [f, r] = fileRank(this.cursor);
    const sign = this.flipped ? -1 : 1;
    f = Math.max(0, Math.min(this.files - 1, f + dx * sign));
    r = Math.max(0, Math.min(this.ranks - 1, r + dy * sign));
    this.cursor = this.squareName(f, r);
  }

  activate() {
    this.click(this.cursor);
  }

  cancel() {
    this.premove = null;
    super.cancel();
  }

  describeCursor() {
    const sq = this.cursor;
    if (!sq) return '';
    const parts = [this.squareLabel(sq)];
    if (this.selected && this.movesFrom(this.selected).some((m) => m.to === sq)) parts.push(`a move from ${this.selected}`);
    else if (this.movesFrom(sq).length) parts.push('can move');
    else if (this.placeOn(sq)) parts.push('you can play here');
    return parts.join(', ') + '.';
  }

  describeSelection() {
    const targets = [...new Set(this.movesFrom(this.selected).map((m) => m.to))];
    return `${this.squareLabel(this.selected)} selected. Moves to ${targets.join(', ')}.`;
  }

  /** A square and what stands on it, for screen readers: "e2, white pawn". */
  squareLabel(square) {
    return square;
  }

  lastMoveSquares() {
    return [];
  }

  // ----- drawing -----

  /** The classes of a square (beyond square/light/dark) and the marks on it. */
  render() {
    const cell = this.cell;
    const width = this.margin + cell * this.files + this.rightPad;
    const height = this.top + cell * this.ranks + this.margin + this.bottom;
    const svg = s('svg', {
      viewBox: `0 0 ${width} ${height}`, class: `board ${this.boardClass}`, 'aria-hidden': 'true',
    });
    const premovable = !this.interactive && this.premoveSide;
    const targets = new Set();
    if (this.selected) {
      if (premovable) for (const t of this.premoveTargets(this.selected)) targets.add(t);
      else for (const m of this.movesFrom(this.selected)) targets.add(m.to);
    }
    const sources = new Set(this.moves.filter((m) => m.from).map((m) => m.from));
    const last = new Set(this.lastMoveSquares());
    const premoved = new Set(this.premove ? [this.premove.from, this.premove.to].filter(Boolean) : []);
    const cursor = this.focused ? this.cursor : null;
    for (let r = 0; r < this.ranks; r++) {
      for (let f = 0; f < this.files; f++) {
        const square = this.squareName(f, r);
        const [x, y] = this.squareXY(square);
        const classes = ['square', (f + r) % 2 ? 'light' : 'dark', ...this.squareClasses(square)];
        if (last.has(square)) classes.push('last');
        if (this.selected === square) classes.push('selected');
        if (targets.has(square)) classes.push(premovable ? 'premove-target' : 'target');
        if (sources.has(square)) classes.push('source');
        if (this.placeOn(square)) classes.push('placeable');
        if (premoved.has(square)) classes.push('premove');
        if (cursor === square) classes.push('cursor');
        if (this.dragFrom === square) classes.push('drag-from');
        const g = s('g', { class: classes.join(' '), 'data-square': square, ...this.squareData(square) });
        g.append(s('rect', { x, y, width: cell, height: cell, class: 'cell' }));
        this.drawSquare(g, square, x, y, { target: targets.has(square), premovable });
        if (cursor === square) g.append(s('rect', { x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, class: 'cursor-ring' }));
        svg.append(g);
      }
    }
    this.drawCoordinates(svg, height);
    this.decorate(svg);
    this.el.dataset.cursor = this.cursor || '';
    return svg;
  }

  get boardClass() { return ''; }
  get rightPad() { return 0; }
  squareClasses(_square) { return []; }
  squareData(_square) { return {}; }
  /** Draws what stands on a square; the piece goes in a `.piece-art` group so it can be dragged. */
  drawSquare(_g, _square, _x, _y, _marks) {}
  decorate(_svg) {}

  drawCoordinates(svg, height) {
    for (let i = 0; i < this.files; i++) {
      const file = this.flipped ? this.files - 1 - i : i;
      svg.append(s('text', { x: this.margin + i * this.cell + this.cell / 2, y: height - this.bottom - 6, class: 'coord', 'text-anchor': 'middle' }, FILES[file]));
    }
    for (let i = 0; i < this.ranks; i++) {
      const rank = this.flipped ? i + 1 : this.ranks - i;
      svg.append(s('text', { x: this.margin / 2, y: this.top + i * this.cell + this.cell / 2 + 5, class: 'coord', 'text-anchor': 'middle' }, String(rank)));
    }
  }
}
