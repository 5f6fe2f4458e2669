// The list of moves, numbered in pairs as in chess ("1. e4 e5"). Each move
// is a button: picking one shows the position after it (the game page and
// the replay page step through a game with it).

import { h, mount } from './dom.js';
import { swatch } from './boards/index.js';

export class MoveList {
  /** `onSelect(ply)` is called when a move is picked. */
  constructor({ onSelect, id = 'move-list' }) {
    this.el = h('ol', { class: 'move-list', id, 'aria-label': 'Moves' });
    this.count = 0;
    this.el.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-ply]');
      if (button) onSelect(Number(button.dataset.ply));
    });
  }

  /**
   * Shows `moves` ({ply, player, move, display?, score?}); `name(m)` gives the
   * text of a move, `players` orders a score.
   */
  render(moves, { name = (m) => m.display || m.move, players = [] } = {}) {
    const rows = [];
    // A score is shown where it changes (a capture), not repeated on every move.
    const scoreText = (m) => (m.score ? players.map((p) => m.score[p]).join(':') : '');
    const changed = new Set(moves.filter((m, i) => m.score && scoreText(m) !== (i ? scoreText(moves[i - 1]) : players.map(() => 0).join(':'))).map((m) => m.ply));
    for (let i = 0; i < moves.length; i += 2) {
      const pair = moves.slice(i, i + 2);
      rows.push(h('li', { class: 'move-row', value: i / 2 + 1 },
        h('span', { class: 'move-number', 'aria-hidden': 'true' }, `${i / 2 + 1}.`),
        pair.map((m) => h('button', {
          type: 'button', class: 'move', 'data-ply': m.ply, 'data-player': m.player, title: `Move ${m.ply}: ${m.player}`,
        }, h('span', { class: swatch(m.player), 'aria-hidden': 'true' }), h('span', { class: 'move-text' }, name(m)),
        changed.has(m.ply) ? h('span', { class: 'move-score' }, scoreText(m)) : null))));
    }
    mount(this.el, rows);
    this.count = moves.length;
  }

  /** Marks the move whose position is shown (`ply`; 0 is the start) and scrolls it into view. */
  mark(ply, { live = false } = {}) {
    for (const b of this.el.querySelectorAll('button.current')) {
      b.classList.remove('current');
      b.removeAttribute('aria-current');
    }
    const button = this.el.querySelector(`button[data-ply="${ply}"]`);
    if (button) {
      button.classList.add('current');
      button.setAttribute('aria-current', 'step');
    }
    // Scrolling reads the layout: do it just after the next frame, whose
    // own layout it then reuses, instead of forcing one more while the page
    // is drawn (or at the start of that frame, before its own).
    cancelAnimationFrame(this.scrollFrame);
    clearTimeout(this.scrollTask);
    this.scrollFrame = requestAnimationFrame(() => {
      this.scrollTask = setTimeout(() => {
        if (live) this.el.scrollTop = this.el.scrollHeight;
        else if (button && button.isConnected) {
          const top = button.offsetTop - this.el.offsetTop;
          if (top < this.el.scrollTop || top > this.el.scrollTop + this.el.clientHeight - button.offsetHeight) {
            this.el.scrollTop = top - this.el.clientHeight / 2;
          }
        }
      });
    });
  }
}
