// Leaderboards (one per game and speed category; provisional ratings are
// left out by the server) and the bots page (every bot with its ratings).

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { ratingText, categoryLabel, gameName } from '../players.js';

export const CATEGORIES = ['blitz', 'rapid', 'classical', 'untimed'];

/** /leaderboard?game=dots&category=blitz */
export async function leaderboardPage(root) {
  document.title = 'Leaderboards · Tabula';
  const meta = await api.meta();
  const params = new URLSearchParams(location.search);
  const game = meta.games.some((g) => g.id === params.get('game')) ? params.get('game') : meta.games[0].id;
  const category = CATEGORIES.includes(params.get('category')) ? params.get('category') : 'blitz';
  const tabs = (items, current, label, id, to) => h('nav', { class: 'tabs', 'aria-label': label, id },
    items.map(([value, text]) => h('a', {
      href: to(value), 'data-link': true, 'data-value': value, 'aria-current': value === current ? 'page' : false,
    }, text)));
  const table = h('div', { id: 'leaderboard', class: 'leaderboard' }, h('p', { class: 'hint' }, 'Loading…'));
  mount(root, h('div', { class: 'card board-list' },
    h('h1', {}, `${gameName(meta.games, game)} · ${categoryLabel(category)}`),
    tabs(meta.games.map((g) => [g.id, g.name]), game, 'Game', 'leaderboard-games', (g) => `/leaderboard?game=${g}&category=${category}`),
    tabs(CATEGORIES.map((c) => [c, categoryLabel(c)]), category, 'Speed', 'leaderboard-categories', (c) => `/leaderboard?game=${game}&category=${c}`),
    table,
    h('p', { class: 'hint' }, 'Only established ratings are listed: a provisional one (after only a few games) shows on the player\'s page.')));
  try {
    const res = await api.leaderboard(game, category);
    const players = res.players || [];
    mount(table, players.length
      ? h('table', { class: 'ranking' },
        h('caption', { class: 'sr-only' }, `Leaderboard for ${gameName(meta.games, game)}, ${categoryLabel(category)}`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, 'Games'))),
        h('tbody', {}, players.map((p) => h('tr', { 'data-user': p.user },
          h('td', {}, String(p.rank)),
          h('td', {}, h('a', { href: `/@/${encodeURIComponent(p.user)}`, 'data-link': true }, p.user),
            p.kind === 'bot' ? h('span', { class: 'badge bot-badge' }, 'BOT') : null),
          h('td', { class: 'num' }, ratingText(p)),
          h('td', { class: 'num' }, String(p.games ?? ''))))))
      : h('p', { class: 'hint' }, 'Nobody has an established rating here yet.'));
  } catch (err) {
    mount(table, h('p', { class: 'error' }, err.message));
  }
}

/** /bots: every bot account with its ratings. */
export async function botsPage(root) {
  document.title = 'Bots · Tabula';
  const [meta, res] = await Promise.all([api.meta(), api.bots()]);
  // The built-in levels weakest first, then everyone else's bots by name.
  const LEVELS = ['random', 'easy', 'medium', 'hard', 'expert', 'perfect'];
  const rank = (b) => (b.builtin && LEVELS.includes(b.level) ? LEVELS.indexOf(b.level) : LEVELS.length);
  const bots = (res.bots || []).map((b) => ({ ...b, user: b.username || b.user }))
    .sort((a, b) => rank(a) - rank(b) || a.user.localeCompare(b.user));
  mount(root, h('div', { class: 'card board-list' },
    h('h1', {}, 'Bots'),
    h('p', { class: 'hint' }, 'Bots play rated games against people and each other. Challenge one from its page. To run your own, make a bot account and a token on its page, then run ',
      h('code', {}, 'tabula bot --server URL --token T --level medium'), '.'),
    bots.length
      ? h('ul', { class: 'bot-list', id: 'bot-list' }, bots.map((b) => h('li', { 'data-user': b.user },
        h('div', { class: 'game-line' },
          h('span', { class: `presence ${b.online ? 'online' : 'away'}`, role: 'img', 'aria-label': b.online ? 'online' : 'offline', title: b.online ? 'online' : 'offline' }), ' ',
          h('a', { href: `/@/${encodeURIComponent(b.user)}`, 'data-link': true, class: 'game-name' }, b.user),
          b.builtin ? h('span', { class: 'badge' }, b.level ? `built in · ${b.level}` : 'built in') : null),
        h('small', { class: 'hint bot-ratings' }, (b.ratings || []).length
          ? b.ratings.map((r) => `${gameName(meta.games, r.game)} ${categoryLabel(r.category)} ${ratingText(r)}`).join(' · ')
          : 'No rated games yet.'))))
      : h('p', { class: 'hint', id: 'bot-list' }, 'No bots yet.')));
}
