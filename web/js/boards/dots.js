// Dots (Points): a lattice of W×H intersections. A move is a point `x-y`;
// the server says which points are playable and which territories exist,
// and the board only draws them.
//
// With a mouse a click plays the point under it. On a touch screen the
// lattice can be pinched and panned, and a tap first previews a point and a
// second tap on it plays it; while the points are closer than 24 CSS pixels
// a tap only zooms in, so no tap target is ever smaller than that.

import { s, h } from '../dom.js';
import { BoardBase } from './common.js';

const CELL = 18;
const PAD = 20;
const MIN_TAP_PX = 24;
const ZOOM_TAP_PX = 34;
const MAX_CELL_PX = 72;
const TAP_SLOP_PX = 10;
/** Championship formats: the move at which the game ends (Full: protection counts from move 240 on). */
const FORMAT_LIMITS = { express: 240, extended: 360, full: 720 };

export class DotsBoard extends BoardBase {
  /** Dots has no sides to a board: nobody sees it turned round by default. */
  static sided = false;

  constructor(opts = {}) {
    super({ label: 'Dots board', ...opts });
    this.zoomable = opts.zoomable !== false;
    this.zoom = { s: 1, tx: 0, ty: 0 };
    this.preview = null;
    this.hover = null;
    this.pointers = new Map();
    this.gesture = null;
    this.geometry = '';
    this.viewport = h('div', { class: 'dots-viewport' });
    this.stage.append(this.viewport);
    this.toolbar = null;
    if (this.zoomable) {
      this.previewNote = h('span', { class: 'preview-note', 'aria-live': 'polite' });
      this.toolbar = h('div', { class: 'dots-toolbar' },
        h('button', { type: 'button', class: 'zoom-out', 'aria-label': 'Zoom out', onclick: () => this.zoomBy(1 / 1.6) }, '−'),
        h('button', { type: 'button', class: 'zoom-in', 'aria-label': 'Zoom in', onclick: () => this.zoomBy(1.6) }, '+'),
        h('button', { type: 'button', class: 'zoom-fit', onclick: () => this.setZoom(1, 0, 0) }, 'Fit'),
        this.previewNote);
      this.el.append(this.toolbar);
    }
    const vp = this.viewport;
    vp.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    vp.addEventListener('pointermove', (e) => this.onPointerMove(e));
    vp.addEventListener('pointerup', (e) => this.onPointerUp(e));
    vp.addEventListener('pointercancel', (e) => this.onPointerCancel(e));
    vp.addEventListener('pointerleave', (e) => { if (e.pointerType === 'mouse') this.setHover(null); });
    vp.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.el.tabulaBoard = this;
  }

  get aspect() {
    const v = this.state && this.state.view;
    if (!v) return 39 / 32;
    return (PAD * 2 + (v.width - 1) * CELL) / (PAD * 2 + (v.height - 1) * CELL);
  }

  // ----- geometry -----

  /** SVG coordinates of lattice point (x, y). */
  xy(x, y) {
    const { width, height } = this.state.view;
    if (this.flipped) { x = width + 1 - x; y = height + 1 - y; }
    return [PAD + (x - 1) * CELL, PAD + (height - y) * CELL];
  }

  /** The lattice point nearest a screen position, with how far off it is (in cells): {x, y, name, off}. */
  pointAt(clientX, clientY) {
    if (!this.svg) return null;
    const { width, height } = this.state.view;
    const rect = this.viewport.getBoundingClientRect();
    const units = this.svgWidth / rect.width;
    const sx = ((clientX - rect.left - this.zoom.tx) / this.zoom.s) * units;
    const sy = ((clientY - rect.top - this.zoom.ty) / this.zoom.s) * units;
    const gx = (sx - PAD) / CELL;
    const gy = (sy - PAD) / CELL;
    const rx = Math.round(gx);
    const ry = Math.round(gy);
    let x = rx + 1;
    let y = height - ry;
    if (this.flipped) { x = width + 1 - x; y = height + 1 - y; }
    if (x < 1 || y < 1 || x > width || y > height) return null;
    return { x, y, name: `${x}-${y}`, off: Math.max(Math.abs(gx - rx), Math.abs(gy - ry)) };
  }

  /** Screen position of a point, e.g. '10-11' (for tests and the keyboard). */
  clientPoint(name) {
    const [x, y] = name.split('-').map(Number);
    const [px, py] = this.xy(x, y);
    const rect = this.viewport.getBoundingClientRect();
    const k = rect.width / this.svgWidth;
    return [rect.left + this.zoom.tx + px * k * this.zoom.s, rect.top + this.zoom.ty + py * k * this.zoom.s];
  }

  /** The distance between neighbouring points on screen, in CSS pixels. */
  cellPx() {
    const width = this.viewport.getBoundingClientRect().width || 1;
    return (width / this.svgWidth) * CELL * this.zoom.s;
  }

  get legalSet() {
    if (!this.legalCache || this.legalCacheFor !== this.state || this.legalCacheInteractive !== this.interactive) {
      this.legalCache = new Set(this.legalMoves);
      this.legalCacheFor = this.state;
      this.legalCacheInteractive = this.interactive;
    }
    return this.legalCache;
  }

  /** The legal point right under a screen position (within half a cell), or null. */
  legalAt(clientX, clientY) {
    const p = this.pointAt(clientX, clientY);
    return p && p.off <= 0.5 && this.legalSet.has(p.name) ? p.name : null;
  }

  // ----- zoom and pan -----

  maxScale() {
    const base = this.cellPx() / this.zoom.s;
    return Math.max(1, MAX_CELL_PX / base);
  }

  setZoom(scale, tx, ty) {
    const rect = this.viewport.getBoundingClientRect();
    const s2 = Math.min(Math.max(scale, 1), this.maxScale());
    const minX = rect.width - rect.width * s2;
    const minY = rect.height - rect.height * s2;
    this.zoom = { s: s2, tx: Math.min(0, Math.max(minX, tx)), ty: Math.min(0, Math.max(minY, ty)) };
    this.applyZoom();
  }

  /** Zooms by `factor` keeping the screen point (cx, cy) where it is (default: the middle). */
  zoomBy(factor, clientX, clientY) {
    const rect = this.viewport.getBoundingClientRect();
    const cx = clientX === undefined ? rect.width / 2 : clientX - rect.left;
    const cy = clientY === undefined ? rect.height / 2 : clientY - rect.top;
    const { s: s0, tx, ty } = this.zoom;
    const s1 = Math.min(Math.max(s0 * factor, 1), this.maxScale());
    this.setZoom(s1, cx - ((cx - tx) / s0) * s1, cy - ((cy - ty) / s0) * s1);
  }

  applyZoom() {
    if (!this.svg) return;
    const { s: scale, tx, ty } = this.zoom;
    this.svg.style.transform = scale === 1 && !tx && !ty ? '' : `translate(${tx}px, ${ty}px) scale(${scale})`;
    this.el.dataset.zoom = scale.toFixed(3);
    this.el.classList.toggle('zoomed', scale > 1.001);
  }

  onWheel(e) {
    if (!this.zoomable || !(e.ctrlKey || e.metaKey || this.zoom.s > 1)) return;
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) this.zoomBy(Math.exp(-e.deltaY / 300), e.clientX, e.clientY);
    else this.setZoom(this.zoom.s, this.zoom.tx - e.deltaX, this.zoom.ty - e.deltaY);
  }

  // ----- pointers -----

  onPointerDown(e) {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    try { this.viewport.setPointerCapture(e.pointerId); } catch { /* synthetic pointer */ }
    if (this.pointers.size === 2 && this.zoomable) {
      const [a, b] = [...this.pointers.values()];
      const rect = this.viewport.getBoundingClientRect();
      this.gesture = {
        kind: 'pinch', d0: Math.hypot(a.x - b.x, a.y - b.y) || 1, zoom: { ...this.zoom },
        mx: (a.x + b.x) / 2 - rect.left, my: (a.y + b.y) / 2 - rect.top,
      };
    } else if (this.pointers.size === 1) {
      this.gesture = { kind: 'tap', x: e.clientX, y: e.clientY, zoom: { ...this.zoom }, type: e.pointerType };
    }
    if (e.pointerType !== 'mouse') e.preventDefault();
  }

  onPointerMove(e) {
    if (e.pointerType === 'mouse' && !this.pointers.size) {
      this.setHover(this.legalAt(e.clientX, e.clientY));
      return;
    }
    if (!this.pointers.has(e.pointerId)) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const g = this.gesture;
    if (!g) return;
    if (g.kind === 'pinch' && this.pointers.size >= 2) {
      const [a, b] = [...this.pointers.values()];
      const rect = this.viewport.getBoundingClientRect();
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const mx = (a.x + b.x) / 2 - rect.left;
      const my = (a.y + b.y) / 2 - rect.top;
      const s1 = Math.min(Math.max(g.zoom.s * (d / g.d0), 1), this.maxScale());
      // The board point under the fingers' midpoint stays under it.
      const cx = (g.mx - g.zoom.tx) / g.zoom.s;
      const cy = (g.my - g.zoom.ty) / g.zoom.s;
      this.setZoom(s1, mx - cx * s1, my - cy * s1);
    } else if (g.kind === 'tap' || g.kind === 'pan') {
      const dx = e.clientX - g.x;
      const dy = e.clientY - g.y;
      if (g.kind === 'tap' && Math.hypot(dx, dy) > TAP_SLOP_PX) g.kind = 'pan';
      if (g.kind === 'pan' && this.zoom.s > 1) this.setZoom(this.zoom.s, g.zoom.tx + dx, g.zoom.ty + dy);
    }
  }

  onPointerUp(e) {
    if (!this.pointers.has(e.pointerId)) return;
    this.pointers.delete(e.pointerId);
    const g = this.gesture;
    if (this.pointers.size > 0) {
      // One finger of a pinch lifted: what is left is a pan, never a tap.
      if (g && g.kind === 'pinch') {
        const [rest] = [...this.pointers.values()];
        this.gesture = { kind: 'pan', x: rest.x, y: rest.y, zoom: { ...this.zoom } };
      }
      return;
    }
    this.gesture = null;
    if (!g || g.kind !== 'tap') return;
    if (g.type === 'mouse') this.clickAt(e.clientX, e.clientY);
    else this.tapAt(e.clientX, e.clientY);
  }

  onPointerCancel(e) {
    this.pointers.delete(e.pointerId);
    if (!this.pointers.size) this.gesture = null;
  }

  /** A mouse click plays the point under it. */
  clickAt(clientX, clientY) {
    const point = this.legalAt(clientX, clientY);
    if (point) this.play(point);
  }

  /** A tap: zoom in while the points are too close, else preview, and a tap on the preview plays it. */
  tapAt(clientX, clientY) {
    if (!this.interactive) return;
    if (this.zoomable && this.cellPx() < MIN_TAP_PX) {
      this.zoomBy(ZOOM_TAP_PX / this.cellPx(), clientX, clientY);
      this.setPreview(null, 'Zoomed in: tap a point to preview it.');
      return;
    }
    const point = this.legalAt(clientX, clientY);
    if (point && point === this.preview) {
      this.play(point);
    } else {
      this.setPreview(point, point ? `Tap ${point} again to play it.` : 'Not a playable point.');
    }
  }

  setPreview(point, note = '') {
    this.preview = point;
    if (this.previewNote) this.previewNote.textContent = note;
    this.drawMarks();
  }

  setHover(point) {
    if (point === this.hover) return;
    this.hover = point;
    this.drawMarks();
  }

  play(move) {
    this.preview = null;
    this.hover = null;
    if (this.previewNote) this.previewNote.textContent = '';
    super.play(move);
  }

  // ----- keyboard -----

  keyboardHelp() {
    return 'Use the arrow keys to move between the points and Enter or Space to play a dot on the point. Escape cancels.';
  }

  defaultCursor() {
    const view = this.state.view;
    return view.last_move || `${Math.ceil(view.width / 2)}-${Math.ceil(view.height / 2)}`;
  }

  moveCursor(dx, dy) {
    const { width, height } = this.state.view;
    let [x, y] = this.cursor.split('-').map(Number);
    const sign = this.flipped ? -1 : 1;
    x = Math.max(1, Math.min(width, x + dx * sign));
    y = Math.max(1, Math.min(height, y + dy * sign));
    this.cursor = `${x}-${y}`;
    this.keepInView(this.cursor);
  }

  keepInView(name) {
    if (this.zoom.s <= 1) return;
    const rect = this.viewport.getBoundingClientRect();
    const [cx, cy] = this.clientPoint(name);
    const margin = this.cellPx() * 2;
    let { tx, ty } = this.zoom;
    if (cx < rect.left + margin) tx += rect.left + margin - cx;
    if (cx > rect.right - margin) tx -= cx - (rect.right - margin);
    if (cy < rect.top + margin) ty += rect.top + margin - cy;
    if (cy > rect.bottom - margin) ty -= cy - (rect.bottom - margin);
    this.setZoom(this.zoom.s, tx, ty);
  }

  activate() {
    if (this.legalSet.has(this.cursor)) this.play(this.cursor);
    else this.announce(`${this.cursor} is not a playable point.`);
  }

  describeCursor() {
    const name = this.cursor;
    const dot = this.state.view.dots.find((d) => `${d.x}-${d.y}` === name);
    let what = 'empty';
    if (dot) what = `${dot.captured ? 'captured ' : ''}${dot.color} dot${dot.grounded || dot.captured ? '' : ', not grounded'}`;
    return `${name}, ${what}${this.legalSet.has(name) ? ', playable' : ''}.`;
  }

  cancel() {
    this.setPreview(null);
    super.cancel();
  }

  // ----- drawing -----

  draw() {
    if (!this.state) return;
    const view = this.state.view;
    const geometry = `${view.width}x${view.height}:${this.flipped}`;
    if (geometry !== this.geometry) {
      this.geometry = geometry;
      this.buildLattice();
    }
    this.svg.setAttribute('class', `board dots-board to-move-${this.state.to_move}${this.interactive ? ' interactive' : ''}`);
    this.drawPosition();
    this.drawMarks();
  }

  /** The parts that change only with the board's size or orientation: paper, lines, coordinates. */
  buildLattice() {
    const { width, height } = this.state.view;
    this.svgWidth = PAD * 2 + (width - 1) * CELL;
    const hgt = PAD * 2 + (height - 1) * CELL;
    this.svg = s('svg', { viewBox: `0 0 ${this.svgWidth} ${hgt}`, 'aria-hidden': 'true' });
    this.svg.append(s('rect', { x: 0, y: 0, width: this.svgWidth, height: hgt, class: 'paper' }));
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
    this.svg.append(s('path', { d: grid.join(''), class: 'grid' }));
    for (let x = 1; x <= width; x++) {
      if (x === 1 || x % 5 === 0 || x === width) {
        const [px, py] = this.xy(x, this.flipped ? height : 1);
        this.svg.append(s('text', { x: px, y: py + 14, class: 'coord', 'text-anchor': 'middle' }, String(x)));
      }
    }
    for (let y = 1; y <= height; y++) {
      if (y === 1 || y % 5 === 0 || y === height) {
        const [px, py] = this.xy(this.flipped ? width : 1, y);
        this.svg.append(s('text', { x: px - 11, y: py + 3.5, class: 'coord', 'text-anchor': 'middle' }, String(y)));
      }
    }
    this.positionLayer = s('g', { class: 'position' });
    this.marksLayer = s('g', { class: 'marks' });
    this.svg.append(this.positionLayer, this.marksLayer);
    this.viewport.replaceChildren(this.svg);
    this.viewport.style.aspectRatio = `${this.svgWidth} / ${hgt}`;
    this.applyZoom();
  }

  /** Territories, empty bases and the dots. */
  drawPosition() {
    const view = this.state.view;
    const parts = [];
    for (const t of view.territories || []) {
      const d = t.wall.map(([x, y], i) => `${i ? 'L' : 'M'}${this.xy(x, y).join(' ')}`).join('') + 'Z';
      parts.push(s('path', { d, class: `territory territory-${t.owner}`, 'data-owner': t.owner, 'data-captured': t.captured }));
    }
    // Empty bases: a faint hint that a point is enclosed (playing there is suicide).
    for (const [owner, points] of Object.entries(view.bases || {})) {
      for (const [x, y] of points) {
        const [px, py] = this.xy(x, y);
        parts.push(s('rect', { x: px - CELL / 2, y: py - CELL / 2, width: CELL, height: CELL, class: `base base-${owner}` }));
      }
    }
    for (const dot of view.dots) {
      const [px, py] = this.xy(dot.x, dot.y);
      const name = `${dot.x}-${dot.y}`;
      const classes = ['dot', `dot-${dot.color}`];
      if (dot.captured) classes.push('captured');
      else if (dot.grounded === false) classes.push('ungrounded');
      parts.push(s('circle', { cx: px, cy: py, r: dot.captured ? 4.6 : 5.8, class: classes.join(' '), 'data-point': name }));
      if (!dot.captured && dot.grounded === false) parts.push(s('circle', { cx: px, cy: py, r: 1.5, class: 'ungrounded-mark' }));
    }
    this.positionLayer.replaceChildren(...parts);
    if (this.preview && !this.legalSet.has(this.preview)) this.setPreview(null);
  }

  /** The last move, the hover and preview ghosts and the keyboard cursor. */
  drawMarks() {
    if (!this.marksLayer) return;
    const marks = [];
    const ghost = (name, cls) => {
      const [x, y] = name.split('-').map(Number);
      const [px, py] = this.xy(x, y);
      return s('circle', { cx: px, cy: py, r: 5.8, class: `ghost ghost-${this.state.to_move} ${cls}`, 'data-point': name });
    };
    const last = this.state.view.last_move;
    if (last) {
      const [x, y] = last.split('-').map(Number);
      const [px, py] = this.xy(x, y);
      marks.push(s('circle', { cx: px, cy: py, r: 8.5, class: 'last-move' }));
    }
    if (this.hover && this.legalSet.has(this.hover)) marks.push(ghost(this.hover, 'hover'));
    if (this.preview) {
      const g = ghost(this.preview, 'preview');
      const [cx, cy] = [g.getAttribute('cx'), g.getAttribute('cy')];
      marks.push(s('circle', { cx, cy, r: 9.5, class: 'preview-ring' }), g);
    }
    if (this.focused && this.cursor) {
      const [x, y] = this.cursor.split('-').map(Number);
      const [px, py] = this.xy(x, y);
      marks.push(s('rect', { x: px - CELL / 2 + 1, y: py - CELL / 2 + 1, width: CELL - 2, height: CELL - 2, class: 'cursor-ring' }));
    }
    this.marksLayer.replaceChildren(...marks);
    this.el.dataset.preview = this.preview || '';
    this.el.dataset.cursor = this.cursor || '';
  }

  // ----- around the board -----

  /** Dots not connected to the edge: the ones that can still be captured. */
  barExtras(player) {
    const u = this.state.view.ungrounded && this.state.view.ungrounded[player];
    if (!u) return null;
    const label = `${u.dots} ${player} dot${u.dots === 1 ? '' : 's'} not grounded`;
    return h('span', { class: 'ungrounded-count', title: label, 'aria-label': label, role: 'img' },
      h('span', { class: `ungrounded-swatch swatch-${player}`, 'aria-hidden': 'true' }), h('span', { 'aria-hidden': 'true' }, String(u.dots)));
  }

  /** The move counter of the championship formats. */
  gameInfo() {
    const view = this.state.view;
    const limit = FORMAT_LIMITS[view.format];
    if (!limit) return '';
    const over = view.moves >= limit && this.state.status === 'ongoing';
    return `Move ${view.moves} of ${limit}${over && view.stage === 'knockout' ? ' · extra time (golden dot)' : ''}`;
  }

  soundFor(previous, next) {
    const caught = (st) => st.view.dots.filter((d) => d.captured).length;
    return previous && caught(next) > caught(previous) ? 'capture' : 'move';
  }
}
