// What every board shares: the state it shows, whether the viewer may move,
// flipping, the keyboard (the board is one focusable widget with a cursor and
// a spoken description of the square under it), and reading typed moves.
// Boards only *read* moves: the server lists the legal ones and decides.

import { h } from '../dom.js';

let boardCount = 0;

export class BoardBase {
  /** True for boards whose second player naturally sits at the top and may see it turned. */
  static sided = true;

  /**
   * @param {object} opts
   * @param {(move: string) => void} [opts.onMove] called with a legal move string
   * @param {boolean} [opts.flipped]
   * @param {boolean} [opts.keyboard] make the board a focusable widget (the game page)
   * @param {string} [opts.label] what the board is, for screen readers
   */
  constructor({ onMove = () => {}, flipped = false, keyboard = false, label = 'Board' } = {}) {
    this.onMove = onMove;
    this.flipped = flipped;
    this.state = null;
    this.interactive = false;
    this.premoveSide = null;
    this.selected = null;
    this.cursor = null;
    this.keyboard = keyboard;
    this.label = label;
    this.stage = h('div', { class: 'board-stage' });
    this.el = h('div', { class: 'board-wrap' }, this.stage);
    if (keyboard) {
      const id = `board-help-${++boardCount}`;
      this.live = h('p', { class: 'sr-only', 'aria-live': 'polite', id: `${id}-live` });
      this.el.append(h('p', { class: 'sr-only', id }, this.keyboardHelp()), this.live);
      this.el.setAttribute('tabindex', '0');
      this.el.setAttribute('role', 'application');
      this.el.setAttribute('aria-label', label);
      this.el.setAttribute('aria-describedby', id);
      this.el.addEventListener('keydown', (e) => this.onKey(e));
      this.el.addEventListener('focus', () => { if (!this.state) return; if (!this.cursor) this.cursor = this.defaultCursor(); this.draw(); this.announce(this.describeCursor()); });
      this.el.addEventListener('blur', () => this.draw());
    }
  }

  /**
   * Show a new state. `interactive`: the viewer may move now; `premoveSide`:
   * the player the viewer is, while the other side is on move (premoves).
   */
  setState(state, { interactive = false, premoveSide = null } = {}) {
    const changed = !this.state || this.state.plies !== state.plies || this.state.position !== state.position;
    this.state = state;
    this.interactive = interactive && state.status === 'ongoing';
    this.premoveSide = !this.interactive && state.status === 'ongoing' ? premoveSide : null;
    this.parsed = null;
    if (changed || !this.interactive && !this.premoveSide) this.selected = null;
    this.draw();
    this.afterState();
  }

  /** Whether moves can be made ahead of the turn (premoves). */
  get canPremove() {
    return false;
  }

  /** Hook for subclasses: runs after every setState (premoves are played here). */
  afterState() {}

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
    this.onMove(move); // first: the move is on its way while the board redraws
    this.draw();
  }

  draw() {
    if (!this.state) return;
    this.stage.replaceChildren(this.render());
  }

  /** Subclasses return the SVG for this.state. */
  render() {
    throw new Error('render() not implemented');
  }

  // ----- notation -----

  /** How people write a legal move (SAN for Cumisitha): the view's table, else the move itself. */
  display(move, state = this.state) {
    const table = state && state.view && state.view.san;
    return (table && table[move]) || move;
  }

  /**
   * A typed move, read against the legal moves in the game's notation and
   * the way people write them. Returns {move} or {error}. Looser readings
   * (any case, without separators) are used only when they are unambiguous.
   */
  readTyped(text) {
    const typed = text.trim().replace(/[+#!?]+$/g, '');
    if (!typed) return { error: 'Type a move first.' };
    if (!this.state || this.state.status !== 'ongoing') return { error: 'The game is over.' };
    const legal = this.state.legal_moves || [];
    const forms = legal.map((m) => [m, [m, this.display(m)]]);
    const tiers = [
      (s) => s,
      (s) => s.toLowerCase().replace(/[\s,;]+/g, '-'),
      (s) => s.toLowerCase().replace(/[\s,;:=x-]+/g, ''),
    ];
    for (const norm of tiers) {
      const want = norm(typed);
      const hits = forms.filter(([, names]) => names.some((n) => norm(n.replace(/[+#]+$/, '')) === want)).map(([m]) => m);
      if (hits.length === 1) return { move: hits[0] };
      if (hits.length > 1) return { error: `'${typed}' could be ${hits.map((m) => this.display(m)).join(' or ')}.` };
    }
    const examples = legal.slice(0, 3).map((m) => this.display(m)).join(', ');
    return { error: `'${typed}' is not a legal move here${examples ? ` (for example ${examples})` : ''}.` };
  }

  // ----- what the page shows around the board -----

  /** Extra things for a player's bar (captured material, reserves): an element or null. */
  barExtras(_player) {
    return null;
  }

  /** A line about the game under the board (a move counter), or ''. */
  gameInfo() {
    return '';
  }

  /** Which sound a new position makes: 'move', 'capture' or 'check'. */
  soundFor(_previous, _next) {
    return 'move';
  }

  // ----- keyboard -----

  keyboardHelp() {
    return 'Use the arrow keys to move around the board and Enter or Space to pick a square. Escape cancels.';
  }

  announce(text) {
    if (this.live && text) this.live.textContent = text;
  }

  /** Where the cursor starts. */
  defaultCursor() {
    return null;
  }

  /** Moves the cursor by a screen step (dx right, dy up). */
  moveCursor(_dx, _dy) {}

  /** Enter/Space on the cursor. */
  activate() {}

  /** Escape. */
  cancel() {
    this.selected = null;
    this.draw();
    this.announce('Cancelled.');
  }

  describeCursor() {
    return '';
  }

  onKey(event) {
    if (!this.state) return;
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (steps[event.key]) {
      event.preventDefault();
      if (!this.cursor) this.cursor = this.defaultCursor();
      else this.moveCursor(...steps[event.key]);
      this.draw();
      this.announce(this.describeCursor());
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      if (!this.cursor) this.cursor = this.defaultCursor();
      this.activate();
    } else if (event.key === 'Escape') {
      this.cancel();
    }
  }

  /** True while the board has the keyboard focus (the cursor is drawn then). */
  get focused() {
    return this.keyboard && document.activeElement === this.el;
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
