// Replay: step through a game move by move. Each position comes from the
// server (which replays the record with the engine), and is cached here.

import { h, mount, title } from '../dom.js';
import { api } from '../api.js';
import { createBoard, swatch } from '../boards/index.js';
import { sanMoves } from '../pgn.js';

export async function replayPage(root, [gameId]) {
  const game = await api.game(gameId);
  document.title = `Replay · ${game.name} · Tabula`;
  const total = game.moves.length;
  const cache = new Map();
  let ply = total;
  let flipped = false;
  const board = createBoard(game.game, { flipped });
  const slider = h('input', { type: 'range', min: 0, max: total, value: total, id: 'replay-slider', 'aria-label': 'ply' });
  const label = h('span', { class: 'replay-ply', id: 'replay-ply' });
  const list = h('ol', { class: 'move-list replay-moves', id: 'move-list' });
  const info = h('p', { class: 'status-line' });
  const error = h('p', { class: 'error' });

  const go = async (target) => {
    ply = Math.max(0, Math.min(total, target));
    slider.value = ply;
    label.textContent = `${ply} / ${total}`;
    for (const li of list.children) li.classList.toggle('current', Number(li.dataset.ply) === ply);
    const current = list.querySelector('.current');
    if (current) current.scrollIntoView({ block: 'nearest' });
    try {
      if (!cache.has(ply)) cache.set(ply, await api.position(gameId, ply));
      if (Number(slider.value) !== ply) return; // the user moved on meanwhile
      const pos = cache.get(ply);
      board.setState({ ...pos.state, view: pos.view }, { interactive: false });
      error.textContent = '';
      const m = ply > 0 ? game.moves[ply - 1] : null;
      const score = pos.state.score ? ` · score ${game.players.map((p) => pos.state.score[p]).join(':')}` : '';
      info.textContent = (m ? `After ${ply}. ${title(m.player)} ${m.move}` : 'Start position') + score;
    } catch (err) {
      error.textContent = err.message;
    }
  };

  mount(list, game.moves.map((m) => h('li', {
    'data-ply': m.ply, onclick: () => go(m.ply),
  }, h('span', { class: swatch(m.player) }), h('span', { class: 'move' }, m.move),
  m.score ? h('span', { class: 'move-score' }, game.players.map((p) => m.score[p]).join(':')) : null)));

  if (game.record_format === 'pgn' && total) {
    try {
      const res = await fetch(api.exportUrl(gameId));
      const san = res.ok ? sanMoves(await res.text()) : [];
      if (san.length >= total) {
        list.querySelectorAll('li .move').forEach((el, i) => { el.textContent = san[i]; });
      }
    } catch { /* keep the UCI moves */ }
  }

  const result = game.result
    ? (game.result.winner ? `${title(game.result.winner)} won: ${game.result.reason}` : `Draw: ${game.result.reason}`)
    : 'This game is not finished yet.';
  const button = (text, id, fn) => h('button', { type: 'button', id, onclick: fn }, text);
  slider.addEventListener('input', () => go(Number(slider.value)));

  mount(root, h('div', { class: 'game-page replay-page', 'data-game': game.game },
    h('div', { class: 'board-column' },
      h('h1', { class: 'game-title' }, `Replay · ${game.name}`),
      h('div', { class: 'board-host' }, board.el),
      h('div', { class: 'replay-controls' },
        button('|◀', 'replay-start', () => go(0)),
        button('◀', 'replay-prev', () => go(ply - 1)),
        slider, label,
        button('▶', 'replay-next', () => go(ply + 1)),
        button('▶|', 'replay-end', () => go(total)))),
    h('aside', { class: 'side-column card' },
      h('p', { class: 'result-banner', id: 'result-banner', 'data-winner': game.result ? (game.result.winner || 'draw') : 'none' }, result),
      info, error,
      h('p', {},
        button('Flip board', 'flip', () => { flipped = !flipped; board.setFlipped(flipped); }),
        ' ', h('a', { href: api.exportUrl(gameId), download: '', class: 'button', id: 'export' }, `Export ${game.record_format.toUpperCase()}`),
        ' ', h('a', { href: `/game/${gameId}`, 'data-link': true }, 'Game page')),
      h('h3', {}, 'Moves'), list)));

  const keys = (event) => {
    if (event.key === 'ArrowLeft') go(ply - 1);
    else if (event.key === 'ArrowRight') go(ply + 1);
    else if (event.key === 'Home') go(0);
    else if (event.key === 'End') go(total);
  };
  document.addEventListener('keydown', keys);
  await go(total);
  return () => document.removeEventListener('keydown', keys);
}
