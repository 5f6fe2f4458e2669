// How to play: one page per game. The text lives in web/howto/<game>.html;
// its examples are real positions computed by the engines
// (web/howto/examples.json, checked by the browser-tests crate).

import { h, mount, title } from '../dom.js';
import { createBoard } from '../boards/index.js';
import { api } from '../api.js';

let examplesPromise = null;
function examples() {
  examplesPromise ||= fetch('/howto/examples.json').then((r) => {
    if (!r.ok) throw new Error(`examples: ${r.status}`);
    return r.json();
  });
  return examplesPromise;
}

export async function howtoPage(root, [game]) {
  // The games, their names and descriptions come from the server's registry.
  const games = (await api.meta()).games;
  const nav = h('nav', { class: 'games', 'aria-label': 'Games' }, games.map((g) => h('a', { href: `/howto/${g.id}`, 'data-link': true, 'aria-current': g.id === game ? 'page' : null }, g.name)));
  const known = games.find((g) => g.id === game);
  document.title = known ? `How to play ${known.name} · Tabula` : 'How to play · Tabula';
  if (!game) {
    mount(root, h('article', { class: 'howto card' },
      h('h1', {}, 'How to play'),
      h('ul', { class: 'howto-index' }, games.map((g) => h('li', {}, h('a', { href: `/howto/${g.id}`, 'data-link': true }, g.name), ' — ', g.description)))));
    return null;
  }
  if (!known) throw new Error(`no rules page for '${game}'`);
  const res = await fetch(`/howto/${game}.html`);
  if (!res.ok) throw new Error(`the rules page for ${known.name} is missing (${res.status})`);
  const body = h('div', { class: 'rules' });
  body.innerHTML = await res.text();
  mount(root, h('article', { class: 'howto card', 'data-game': game }, nav, body,
    h('p', {}, h('a', { href: `/?game=${encodeURIComponent(game)}`, 'data-link': true, class: 'button' }, `Play ${known.name}`))));

  const all = await examples();
  for (const slot of body.querySelectorAll('[data-example]')) {
    const example = all[slot.dataset.example];
    const caption = slot.innerHTML;
    if (!example) {
      slot.replaceChildren(h('p', { class: 'error' }, `Missing example ${slot.dataset.example}.`));
      continue;
    }
    const board = createBoard(example.game, {});
    board.setState({ ...example.state, view: example.view }, { interactive: slot.dataset.lit !== undefined });
    if (slot.dataset.select) { board.selected = slot.dataset.select; board.draw(); }
    // Examples are for looking: picking a target only clears the selection.
    board.play = () => { board.selected = null; board.draw(); };
    const figure = h('div', { class: 'caption' });
    figure.innerHTML = caption;
    figure.append(facts(example));
    slot.replaceChildren(h('div', { class: 'board-host' }, board.el), figure);
    slot.classList.add('example');
  }
  return null;
}

/** What the engine says about the example position: moves, score, result. */
function facts(example) {
  const state = example.state;
  const lines = [];
  if (example.moves.length) lines.push(`Moves: ${example.moves.join(' ')}`);
  if (state.score) lines.push(`Score: ${Object.entries(state.score).map(([p, n]) => `${title(p)} ${n}`).join(' : ')}`);
  if (state.status === 'over') {
    lines.push(state.winner ? `Result: ${title(state.winner)} wins (${state.reason})` : `Result: draw (${state.reason})`);
  } else {
    lines.push(`${title(state.to_move)} to move`);
  }
  return h('p', { class: 'hint facts' }, lines.join(' · '));
}
