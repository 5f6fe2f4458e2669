// A player's page, /@/NAME: ratings per game and speed category
// (provisional ones marked "?"), the rating-history graph, result counts and
// the game history with filters by game and result. On your own page: API
// tokens (bot accounts) and closing the account.

import { h, mount, capitalise } from '../dom.js';
import { api } from '../api.js';
import { me, whoAmI, setAccount } from '../account.js';
import { ratingGraph } from '../graph.js';
import { navigate } from '../app.js';
import { ratingText, ratingDiffText, categoryLabel, gameName, resultFor } from '../players.js';
import { seatName } from '../seats.js';

export async function profilePage(root, [name]) {
  await whoAmI();
  let profile;
  let meta;
  let hasChallenges;
  try {
    [profile, meta, hasChallenges] = await Promise.all([api.user(name), api.meta(), me() ? api.has('/api/challenges') : false]);
  } catch (err) {
    if (err.status !== 404) throw err;
    document.title = 'No such player · Tabula';
    mount(root, h('div', { class: 'card error-page', id: 'unknown-user' }, h('h1', {}, 'No such player'),
      h('p', {}, `Nobody plays here as “${name}”. `, h('a', { href: '/leaderboard', 'data-link': true }, 'See the leaderboards'), '.')));
    return;
  }
  const user = { ...profile.user, name: profile.user.username, bot: profile.user.kind === 'bot' };
  document.title = `${user.name} · Tabula`;
  const own = !!me() && me().username.toLowerCase() === user.name.toLowerCase();
  const games = meta.games;

  const ratings = (profile.ratings || []).slice().sort((a, b) => (b.games || 0) - (a.games || 0));
  const ratingsCard = h('section', { class: 'card ratings-card', 'aria-labelledby': 'ratings-title' },
    h('h2', { id: 'ratings-title' }, 'Ratings'),
    ratings.length
      ? h('ul', { class: 'rating-list', id: 'ratings' }, ratings.map((r) => h('li', {
        'data-game': r.game, 'data-category': r.category, 'data-provisional': !!r.provisional,
      },
      h('span', { class: 'rating-game' }, `${gameName(games, r.game)} · ${categoryLabel(r.category)}`),
      h('strong', { class: 'rating-value', title: r.provisional ? 'Provisional: too few rated games to be sure' : `±${Math.round(2 * (r.deviation || 0))}` }, ratingText(r)),
      h('small', { class: 'hint' }, `${r.games ?? 0} ${r.games === 1 ? 'game' : 'games'}`))))
      : h('p', { class: 'hint', id: 'ratings' }, 'No rated games yet.'));

  const graphHost = h('div', { class: 'graph-host', id: 'graph-host' }, h('p', { class: 'hint' }, 'Loading…'));
  const graphCard = h('section', { class: 'card graph-card', 'aria-labelledby': 'graph-title' }, h('h2', { id: 'graph-title' }, 'Rating history'), graphHost);

  const counts = profile.counts || {};
  const countItem = (key, label) => h('div', { class: 'count', 'data-count': key }, h('strong', {}, String(counts[key] ?? 0)), h('span', {}, label));
  const countsCard = h('section', { class: 'card counts-card', 'aria-labelledby': 'counts-title' },
    h('h2', { id: 'counts-title' }, 'Results'),
    h('div', { class: 'counts', id: 'result-counts' },
      countItem('games', 'games'), countItem('wins', 'wins'), countItem('losses', 'losses'), countItem('draws', 'draws'),
      countItem('aborted', 'aborted')));

  // ----- the game history, filtered by game and result -----
  const gameFilter = h('select', { id: 'filter-game', name: 'game' }, h('option', { value: '' }, 'All games'), games.map((g) => h('option', { value: g.id }, g.name)));
  const resultFilter = h('select', { id: 'filter-result', name: 'result' },
    [['', 'All results'], ['win', 'Wins'], ['loss', 'Losses'], ['draw', 'Draws'], ['aborted', 'Aborted']].map(([v, l]) => h('option', { value: v }, l)));
  const historyList = h('div', { class: 'game-list', id: 'profile-games' }, h('p', { class: 'hint' }, 'Loading…'));
  const filters = h('form', { class: 'filters', id: 'history-filters', 'aria-label': 'Filter the games' },
    h('label', { for: 'filter-game' }, 'Game '), gameFilter, h('label', { for: 'filter-result' }, 'Result '), resultFilter);
  const historyCard = h('section', { class: 'card history-card', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, 'Games'), filters, historyList);
  const loadGames = async () => {
    mount(historyList, h('p', { class: 'hint' }, 'Loading…'));
    try {
      const list = await api.userGames(user.name, { game: gameFilter.value, result: resultFilter.value, limit: 50 });
      mount(historyList, historyItems(list.games || [], user.name, games));
    } catch (err) {
      mount(historyList, h('p', { class: 'error' }, err.message));
    }
  };
  filters.addEventListener('change', loadGames);

  const head = h('header', { class: 'profile-head card' },
    h('h1', { id: 'profile-name' }, user.name,
      user.bot ? h('span', { class: 'badge bot-badge', title: 'A bot account' }, 'BOT') : null,
      user.closed ? h('span', { class: 'badge' }, 'closed') : null),
    user.created_at_ms ? h('p', { class: 'hint' }, `Member since ${new Date(user.created_at_ms).toLocaleDateString()}`) : null,
    !own && me() && hasChallenges && !user.closed ? h('p', {}, h('a', { href: `/?challenge=${encodeURIComponent(user.name)}`, 'data-link': true, class: 'button', id: 'challenge-user' }, `Challenge ${user.name}`)) : null);

  mount(root, h('div', { class: 'profile-page', 'data-user': user.name },
    head,
    h('div', { class: 'profile-grid' },
      h('div', { class: 'profile-side' }, ratingsCard, countsCard),
      h('div', { class: 'profile-main' }, graphCard, historyCard)),
    own ? ownCards(user, counts) : null));

  loadGames();
  try {
    // One series per rating, each asked for on its own (the server keeps a history per game and category).
    const histories = await Promise.all(ratings.map((r) => api.ratingHistory(user.name, r.game, r.category)));
    const series = ratings.map((r, i) => ({
      key: `${r.game}-${r.category}`,
      label: `${gameName(games, r.game)} · ${categoryLabel(r.category)}`,
      points: (histories[i].points || []).map((p) => ({ t: p.at_ms, rating: p.rating })),
    }));
    mount(graphHost, ratingGraph(series, { width: graphHost.clientWidth || 640 }));
  } catch (err) {
    mount(graphHost, h('p', { class: 'error' }, err.message));
  }
}

function historyItems(list, name, games) {
  if (!list.length) return h('p', { class: 'hint' }, 'No games match.');
  return h('ul', {}, list.map((g) => {
    const seats = g.seats || [];
    const mine = seats.find((st) => st.player === g.my_player)
      || seats.find((st) => st.user && st.user.toLowerCase() === name.toLowerCase());
    const other = seats.find((st) => st !== mine);
    const outcome = g.result_for_me || resultFor(g, mine && mine.player);
    const change = g.rating_changes && mine ? g.rating_changes[mine.player] : null;
    const diff = change && typeof change.diff === 'number' ? change.diff : null;
    return h('li', { 'data-game-id': g.id, 'data-outcome': outcome },
      h('div', { class: 'game-line' },
        h('a', { href: g.status === 'finished' || g.status === 'aborted' ? `/replay/${g.id}` : `/game/${g.id}`, 'data-link': true, class: 'game-name' }, gameName(games, g.game)),
        ' vs ', other ? playerLink(other) : '?',
        h('span', { class: `outcome outcome-${outcome}` }, ` ${capitalise(outcome)}`),
        diff !== null ? h('span', { class: `rating-diff ${diff > 0 ? 'up' : diff < 0 ? 'down' : ''}` }, ` ${ratingDiffText(diff)}`) : null),
      h('small', { class: 'hint' },
        [g.rated ? 'Rated' : 'Casual', g.category ? categoryLabel(g.category) : null, g.result && g.result.reason ? capitalise(g.result.reason) : null,
          g.updated_at_ms || g.created_at_ms ? new Date(g.updated_at_ms || g.created_at_ms).toLocaleString() : null].filter(Boolean).join(' · ')));
  }));
}

/** A seat as a link to its player's page (AIs and guests as plain names). */
export function playerLink(seat) {
  const rating = seat.rating ? ` (${ratingText(seat)})` : '';
  if (!seat.user) return seatName(seat) + rating;
  return h('a', { href: `/@/${encodeURIComponent(seat.user)}`, 'data-link': true }, seat.user + rating);
}

function ownCards(user, counts) {
  const cards = [];
  if (user.bot) cards.push(tokensCard());
  else if (!counts.games) cards.push(becomeBotCard());
  cards.push(closeCard(user));
  return h('div', { class: 'profile-own' }, cards);
}

function tokensCard() {
  const list = h('div', { id: 'token-list' }, h('p', { class: 'hint' }, 'Loading…'));
  const shown = h('div', { id: 'new-token', 'aria-live': 'polite' });
  const label = h('input', { type: 'text', id: 'token-label', name: 'label', maxlength: 60, placeholder: 'e.g. my engine on the laptop' });
  const error = h('p', { class: 'error', role: 'alert', id: 'token-error' });
  const load = async () => {
    try {
      const res = await api.tokens();
      const tokens = res.tokens || [];
      mount(list, tokens.length
        ? h('ul', { class: 'token-list' }, tokens.map((t) => h('li', { 'data-token-id': t.id },
          h('span', {}, t.description || 'Token', ' ', h('small', { class: 'hint' }, [
            t.scopes ? t.scopes.join(', ') : null,
            t.created_at_ms ? `made ${new Date(t.created_at_ms).toLocaleDateString()}` : null,
            t.last_used_ms ? `last used ${new Date(t.last_used_ms).toLocaleString()}` : null].filter(Boolean).join(' · '))),
          h('button', {
            type: 'button', class: 'danger revoke-token', 'aria-label': `Revoke ${t.description || 'token'}`,
            onclick: async () => {
              try { await api.revokeToken(t.id); mount(shown); load(); } catch (err) { error.textContent = err.message; }
            },
          }, 'Revoke'))))
        : h('p', { class: 'hint' }, 'No tokens yet.'));
    } catch (err) {
      mount(list, h('p', { class: 'error' }, err.message));
    }
  };
  const form = h('form', { class: 'row', id: 'token-form' }, h('label', { for: 'token-label' }, 'Name '), label,
    h('button', { type: 'submit', id: 'create-token' }, 'Create a token'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      const res = await api.createToken(label.value.trim() || 'token', ['bot:play', 'challenge:write']);
      label.value = '';
      const secret = res.token.secret;
      const input = h('input', { type: 'text', readonly: true, value: secret, id: 'token-secret', 'aria-label': 'The new token' });
      mount(shown, h('p', { class: 'token-once' }, h('strong', {}, 'Copy this token now: '), 'it is shown only once.'),
        h('div', { class: 'copy-row' }, input, h('button', {
          type: 'button', onclick: async () => { input.select(); try { await navigator.clipboard.writeText(secret); } catch { document.execCommand('copy'); } },
        }, 'Copy')),
        h('p', { class: 'hint' }, 'Run your bot with ', h('code', {}, `tabula bot --server ${location.origin} --token … --level medium`), '.'));
      load();
    } catch (err) {
      error.textContent = err.message;
    }
  });
  load();
  return h('section', { class: 'card tokens-card', 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title' }, 'API tokens'),
    h('p', { class: 'hint' }, 'A bot plays through a token. Anyone holding one can play as this bot: revoke a token you no longer use.'),
    form, error, shown, list);
}

function closeCard(user) {
  const password = h('input', { type: 'password', id: 'close-password', autocomplete: 'current-password', required: true });
  const error = h('p', { class: 'error', role: 'alert', id: 'close-error' });
  const form = h('form', { id: 'close-account-form', class: 'row' },
    h('label', { for: 'close-password' }, 'Password '), password,
    h('button', { type: 'submit', class: 'danger', id: 'close-account' }, 'Close my account'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    if (!confirm(`Close the account ${user.name}? Your games stay, under an anonymous name; you cannot log in again.`)) return;
    try {
      await api.closeAccount(password.value);
      setAccount(null);
      navigate('/', { replace: true });
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return h('details', { class: 'card close-card' },
    h('summary', {}, 'Close the account'),
    h('p', { class: 'hint' }, 'Your games stay, shown under an anonymous name. The name cannot be used to log in again.'),
    form, error);
}

function becomeBotCard() {
  const error = h('p', { class: 'error', role: 'alert', id: 'bot-error' });
  return h('details', { class: 'card bot-card' },
    h('summary', {}, 'Make this a bot account'),
    h('p', { class: 'hint' }, 'A bot account plays through API tokens (', h('code', {}, 'tabula bot'), ' or your own program), not through this site. Only an account with no games can become one, and it cannot be undone.'),
    h('button', {
      type: 'button', id: 'become-bot',
      onclick: async () => {
        error.textContent = '';
        if (!confirm('Turn this account into a bot account for good?')) return;
        try { await api.becomeBot(); location.reload(); } catch (err) { error.textContent = err.message; }
      },
    }, 'Make it a bot'), error);
}
