// Replay: step through a game move by move. Each position comes from the
// server (which replays the record with the engine), and is cached here.

import { h, mount, title, capitalise } from '../dom.js';
import { api } from '../api.js';
import { createBoard } from '../boards/index.js';
import { MoveList } from '../movelist.js';
import { icon } from '../icons.js';

export async function replayPage(root, [gameId]) {
  const game = await api.game(gameId);
  document.title = `Replay · ${game.name} · Tabula`;
  const total = game.moves.length;
  const cache = new Map();
  let ply = total;
  let flipped = false;
  const board = createBoard(game.game, { flipped, keyboard: false });
  const slider = h('input', { type: 'range', min: 0, max: total, value: total, id: 'replay-slider', 'aria-label': 'Move number' });
  const label = h('span', { class: 'replay-ply', id: 'replay-ply' });
  const list = new MoveList({ onSelect: (p) => go(p) });
  const info = h('p', { class: 'status-line' });
  const error = h('p', { class: 'error' });
  const nameOf = (m) => m.display || m.move;
  const analyse = h('a', { href: `/analysis?game=${encodeURIComponent(gameId)}&ply=${total}`, 'data-link': true, class: 'button', id: 'analyse-link' }, 'Analyse');

  const go = async (target) => {
    ply = Math.max(0, Math.min(total, target));
    slider.value = ply;
    label.textContent = `${ply} / ${total}`;
    analyse.setAttribute('href', `/analysis?game=${encodeURIComponent(gameId)}&ply=${ply}`);
    list.mark(ply);
    try {
      if (!cache.has(ply)) cache.set(ply, await api.position(gameId, ply));
      if (Number(slider.value) !== ply) return; // the user moved on meanwhile
      const pos = cache.get(ply);
      board.setState({ ...pos.state, view: pos.view }, { interactive: false });
      error.textContent = '';
      const m = ply > 0 ? game.moves[ply - 1] : null;
      const score = pos.state.score ? ` · score ${game.players.map((p) => pos.state.score[p]).join(':')}` : '';
      const extra = board.gameInfo();
      info.textContent = (m ? `After move ${ply}: ${title(m.player)} ${nameOf(m)}` : 'Start position') + score + (extra ? ` · ${extra}` : '');
    } catch (err) {
      error.textContent = err.message;
    }
  };

  // The last position came with the game: draw it at once (no layout shift while the first position loads).
  cache.set(total, { state: game.state, view: game.view });
  board.setState({ ...game.state, view: game.view }, { interactive: false });
  list.render(game.moves, { name: nameOf, players: game.players });
  const result = game.result
    ? (game.result.winner ? `${title(game.result.winner)} won: ${capitalise(game.result.reason)}` : `Draw: ${capitalise(game.result.reason)}`)
    : 'This game is not finished yet.';
  const button = (text, id, fn, labelText) => h('button', { type: 'button', id, onclick: fn, 'aria-label': labelText, title: labelText }, text);
  slider.addEventListener('input', () => go(Number(slider.value)));

  const host = h('div', { class: 'board-host' }, board.el);
  mount(root, h('div', { class: 'game-page replay-page', 'data-game': game.game },
    h('div', { class: 'board-column' },
      h('h1', { class: 'game-title' }, `Replay · ${game.name}`),
      host,
      h('div', { class: 'replay-controls' },
        button(icon('first'), 'replay-start', () => go(0), 'First position'),
        button(icon('prev'), 'replay-prev', () => go(ply - 1), 'Previous move'),
        slider, label,
        button(icon('next'), 'replay-next', () => go(ply + 1), 'Next move'),
        button(icon('last'), 'replay-end', () => go(total), 'Last position'))),
    h('aside', { class: 'side-column' },
      h('section', { class: 'card' },
        h('p', { class: 'result-banner', id: 'result-banner', 'data-winner': game.result ? (game.result.winner || 'draw') : 'none' }, result),
        info, error,
        h('p', {},
          button('Flip board', 'flip', () => { flipped = !flipped; board.setFlipped(flipped); }),
          ' ', h('a', { href: api.exportUrl(gameId), download: '', class: 'button', id: 'export' }, `Export ${game.record_format.toUpperCase()}`),
          game.result ? [' ', analyse] : null,
          ' ', h('a', { href: `/game/${gameId}`, 'data-link': true }, 'Game page'))),
      h('section', { class: 'card moves-card' }, h('h2', {}, 'Moves'), list.el))));

  const keys = (event) => {
    if (event.target.closest('input, textarea, select')) return;
    if (event.key === 'ArrowLeft') go(ply - 1);
    else if (event.key === 'ArrowRight') go(ply + 1);
    else if (event.key === 'Home') go(0);
    else if (event.key === 'End') go(total);
  };
  document.addEventListener('keydown', keys);
  root.querySelector('.replay-page').style.setProperty('--aspect', board.aspect);
  await go(total);
  return () => document.removeEventListener('keydown', keys);
}
