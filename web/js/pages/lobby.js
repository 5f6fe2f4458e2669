// The lobby: create a game (game, options, opponent, time control) and see
// the live and finished games. Everything about a game comes from the
// server's meta (/api/games/meta): its options, AI levels, and which options
// bring their own clock.

import { h, mount, title, capitalise } from '../dom.js';
import { api, tokens, GameSocket } from '../api.js';
import { navigate } from '../app.js';
import { seatName } from '../seats.js';
import { whoAmI, me } from '../account.js';
import { ratingText, categoryLabel, gameName } from '../players.js';

/** Labels for options whose meta has no `label` yet (the key is shown capitalised otherwise). */
const OPTION_LABELS = {
  width: 'Board width',
  height: 'Board height',
  cross: 'Start with the cross',
  format: 'Championship format',
  stage: 'Championship stage',
  mode: 'Mode',
  minutes: 'Match clock, minutes',
};

export async function lobbyPage(root) {
  document.title = 'Tabula';
  const [meta, account] = await Promise.all([api.meta(), whoAmI()]);
  // Both are for players with an account: a guest's browser does not ask (and logs no 401).
  const [hasChallenges, hasPool] = account ? await Promise.all([api.has('/api/challenges'), api.has('/api/pool')]) : [false, false];
  const games = meta.games;
  const form = h('form', { id: 'new-game', class: 'card new-game', autocomplete: 'off', 'aria-labelledby': 'new-game-title' });
  const optionsBox = h('div', { class: 'options' });
  const optionsSet = h('fieldset', { class: 'options-set' }, h('legend', {}, 'Options'), optionsBox);
  const levelSelect = h('select', { name: 'level', id: 'level' });
  const levelLabel = h('label', { class: 'inline level-field', for: 'level' }, 'Level ', levelSelect);
  const sideSelect = h('select', { name: 'side', id: 'side' });
  // `/?game=dots` (the How to play pages link so) picks the game.
  const wanted = new URLSearchParams(location.search).get('game');
  const gameSelect = h('select', { name: 'game', id: 'game' },
    games.map((g) => h('option', { value: g.id, selected: g.id === wanted }, g.name)));
  const description = h('p', { class: 'hint game-description', id: 'game-description' });
  const clockNote = h('p', { class: 'hint clock-note', id: 'clock-note' });
  const message = h('p', { class: 'error', role: 'alert' });

  const nameLabel = h('label', { class: 'inline', for: 'player-name' }, 'Your name ',
    h('input', { type: 'text', id: 'player-name', name: 'player_name', maxlength: 40, placeholder: 'optional', value: localStorage.getItem('tabula.name') || '', autocomplete: 'nickname' }));
  const friendInput = h('input', { type: 'text', id: 'friend', name: 'friend', maxlength: 20, placeholder: 'empty: an invite link', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false' });
  const friendLabel = h('label', { class: 'inline', for: 'friend' }, 'Their username ', friendInput);
  friendInput.addEventListener('input', () => refreshDependent());
  const ratedBox = h('input', { type: 'checkbox', id: 'rated', name: 'rated' });
  const ratedLabel = h('label', { class: 'check', for: 'rated' }, ratedBox, ' Rated');
  const rangeFields = h('span', { class: 'range-fields' },
    h('label', { class: 'inline', for: 'range-min' }, 'Opponent rating from ', h('input', { type: 'number', id: 'range-min', name: 'range_min', min: 0, max: 4000, step: 50, class: 'small-number', placeholder: 'any' })),
    h('label', { class: 'inline', for: 'range-max' }, ' to ', h('input', { type: 'number', id: 'range-max', name: 'range_max', min: 0, max: 4000, step: 50, class: 'small-number', placeholder: 'any' })));
  const ratedNote = h('p', { class: 'hint rated-note', id: 'rated-note' });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'create-game' }, 'Create game');

  const opponent = h('fieldset', { class: 'opponent' },
    h('legend', {}, 'Opponent'),
    h('div', { class: 'segmented' },
      radio('opponent', 'ai', 'Computer', true),
      radio('opponent', 'seek', 'Anyone (open challenge)'),
      radio('opponent', 'invite', 'A friend (invite link or name)'),
      radio('opponent', 'hotseat', 'Two on this screen')),
    h('div', { class: 'row' }, levelLabel, h('label', { class: 'inline', for: 'side' }, 'You play ', sideSelect),
      nameLabel, friendLabel),
    h('div', { class: 'row rated-row' }, ratedLabel, rangeFields),
    ratedNote);

  const tcKinds = meta.time_controls || ['none', 'fischer'];
  const tcSelect = h('select', { name: 'tc', id: 'time-control', 'aria-label': 'Time control' }, tcKinds.map((k) => h('option', { value: k }, tcLabel(k))));
  const tcFields = h('span', { class: 'tc-fields' });
  const timeControl = h('fieldset', { class: 'time-control', id: 'time-control-set' },
    h('legend', {}, 'Time control'), h('div', { class: 'row' }, tcSelect, tcFields));

  const currentGame = () => games.find((g) => g.id === gameSelect.value);
  const opponentKind = () => form.querySelector('input[name=opponent]:checked').value;
  const optionValues = () => {
    const values = {};
    for (const opt of currentGame().options) {
      const field = form.querySelector(`[name="opt_${opt.key}"]`);
      values[opt.key] = field ? String(field.value) : opt.default;
    }
    return values;
  };

  const renderTcFields = () => {
    const kind = tcSelect.value;
    const num = (name, value, label, step = 1) => h('label', { class: 'inline' }, label + ' ',
      h('input', { type: 'number', name, value, min: 0, step, class: 'small-number' }));
    mount(tcFields,
      kind === 'fischer' && [num('base_min', 5, 'minutes', 0.5), num('inc_s', 3, '+ seconds per move')],
      kind === 'match_clock' && [num('total_min', 20, 'minutes'), num('overtime_min', 5, 'overtime minutes')],
      kind === 'shot_clock' && num('per_move_s', 45, 'seconds per move'));
  };
  tcSelect.addEventListener('change', renderTcFields);

  /** Show only what applies: options that matter for the values chosen, and the time control unless the options bring a clock. */
  const refreshDependent = () => {
    const game = currentGame();
    const values = optionValues();
    for (const opt of game.options) {
      const field = optionsBox.querySelector(`[data-option="${opt.key}"]`);
      if (field) field.hidden = !optionApplies(opt, values);
    }
    const fixed = clockFixedBy(game, values);
    timeControl.hidden = !!fixed;
    tcSelect.disabled = !!fixed;
    clockNote.textContent = fixed ? `${fixed.label} ${fixed.clocked ? 'brings its own clock' : 'is played without a clock'}.` : '';
    const kind = opponentKind();
    levelLabel.hidden = kind !== 'ai';
    levelSelect.disabled = kind !== 'ai';
    const account = me();
    nameLabel.hidden = !!account || kind === 'hotseat';
    friendLabel.hidden = !account || kind !== 'invite' || !hasChallenges;
    const canRate = !!account && (kind === 'seek' || (kind === 'invite' && !!friendInput.value.trim()));
    ratedLabel.hidden = !canRate;
    ratedBox.disabled = !canRate;
    rangeFields.hidden = !canRate || !ratedBox.checked || kind !== 'seek';
    ratedNote.textContent = !account && kind === 'seek' ? 'Log in to post a rated challenge; a casual one is open to anyone.' : '';
    submit.textContent = kind === 'seek' ? 'Post the challenge' : kind === 'invite' && friendInput.value.trim() ? 'Send the challenge' : 'Create game';
  };

  const renderGame = () => {
    const game = currentGame();
    description.textContent = game.description;
    mount(optionsBox, game.options.map((opt) => optionField(opt)));
    optionsSet.hidden = game.options.length === 0;
    mount(levelSelect, game.levels.map((l) => h('option', { value: l.id, selected: l.id === game.default_level, title: l.description }, l.elo == null ? levelName(l.id) : `${levelName(l.id)} (Elo ${l.elo})`)));
    mount(sideSelect,
      h('option', { value: 'random' }, 'Random'),
      game.players.map((p, i) => h('option', { value: String(i) }, `${title(p)}${i === 0 ? ' (moves first)' : ''}`)));
    refreshDependent();
  };
  gameSelect.addEventListener('change', renderGame);
  form.addEventListener('change', (event) => { if (event.target !== gameSelect) refreshDependent(); });

  mount(form,
    h('h2', { id: 'new-game-title' }, 'New game'),
    h('div', { class: 'row' }, h('label', { for: 'game' }, 'Game '), gameSelect),
    description,
    optionsSet,
    opponent,
    timeControl,
    clockNote,
    submit,
    message);
  renderGame();
  renderTcFields();
  // `/?challenge=NAME` (a profile's "Challenge" link) fills in a direct challenge.
  const challenged = new URLSearchParams(location.search).get('challenge');
  if (challenged && me() && hasChallenges) {
    form.querySelector('input[name=opponent][value=invite]').checked = true;
    friendInput.value = challenged;
    refreshDependent();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.textContent = '';
    const data = new FormData(form);
    const game = currentGame();
    const options = {};
    for (const opt of game.options) options[opt.key] = String(data.get(`opt_${opt.key}`) ?? opt.default);
    const kind = data.get('opponent');
    const other = kind === 'ai' ? { kind: 'ai', level: data.get('level') }
      : kind === 'invite' || kind === 'seek' ? { kind: 'open' } : { kind: 'me' };
    const rated = !ratedBox.disabled && ratedBox.checked;
    // Your name goes on your seat (and is remembered for joining friends' games); two on one screen stay unnamed.
    const name = String(data.get('player_name') || '').trim();
    try { if (name) localStorage.setItem('tabula.name', name); else localStorage.removeItem('tabula.name'); } catch { /* private mode */ }
    const mySeat = name && kind !== 'hotseat' && !me() ? { kind: 'me', name } : { kind: 'me' };
    let side = data.get('side');
    const friend = kind === 'invite' && me() && hasChallenges ? String(data.get('friend') || '').trim() : '';
    const timeControl = clockFixedBy(game, options) ? undefined : timeControlFrom(data);
    if (friend) {
      // A direct challenge: the friend accepts or declines it in their lobby.
      try {
        const res = await api.challenge({ to: friend, game: game.id, options, time_control: timeControl, rated, color: { random: 'random', 0: 'first', 1: 'second' }[side] });
        const sent = res.challenge || {};
        // A bot may accept at once; otherwise the lobby follows the challenge until it is answered.
        if (sent.status === 'accepted' && sent.game_id) { navigate(`/game/${sent.game_id}`); return; }
        if (sent.id) followed.set(sent.id, sent);
        friendInput.value = '';
        refreshDependent();
        message.textContent = '';
        refresh();
      } catch (err) {
        message.textContent = err.message;
      }
      return;
    }
    if (side === 'random') side = Math.random() < 0.5 ? '0' : '1';
    const seats = side === '0' ? [mySeat, other] : [other, mySeat];
    const body = { game: game.id, options, seats };
    if (timeControl) body.time_control = timeControl;
    if (kind === 'seek') {
      body.public = true;
      body.rated = rated;
      const lo = data.get('range_min');
      const hi = data.get('range_max');
      if (rated && (lo || hi)) body.rating_range = [Number(lo || 0), Number(hi || 4000)];
    } else if (kind === 'invite') {
      body.public = false;
    }
    try {
      const created = await api.create(body);
      tokens.add(created.game.id, created.tokens || {});
      if (created.invites && created.invites.length) {
        localStorage.setItem(`tabula.invites.${created.game.id}`, JSON.stringify(created.invites));
      }
      navigate(`/game/${created.game.id}`);
    } catch (err) {
      message.textContent = err.message;
    }
  });

  const live = h('div', { class: 'game-list', id: 'live-games' }, h('p', { class: 'hint' }, 'Loading…'));
  const finished = h('div', { class: 'game-list', id: 'finished-games' }, h('p', { class: 'hint' }, 'Loading…'));
  const seekList = h('div', { class: 'game-list', id: 'seeks' }, h('p', { class: 'hint' }, 'Loading…'));
  const seekError = h('p', { class: 'error', role: 'alert', id: 'seek-error' });
  const challengeBox = h('section', { class: 'card challenges', id: 'challenges', 'aria-labelledby': 'challenges-title', hidden: true });
  const pool = hasPool ? quickPairing(games, () => gameSelect.value, optionValues) : { el: null, render() {}, stop() {} };
  mount(root, h('div', { class: 'lobby' },
    h('div', { class: 'lobby-main' }, form, pool.el),
    h('div', { class: 'lobby-side' },
      challengeBox,
      h('section', { class: 'card seeks-card', 'aria-labelledby': 'seeks-title' },
        h('h2', { id: 'seeks-title' }, 'Open challenges'), seekError, seekList),
      h('section', { class: 'card lists', 'aria-label': 'Games' },
        h('h2', {}, 'Live games'), live,
        h('h2', {}, 'Recently finished'), finished))));

  const joinSeek = async (seek) => {
    seekError.textContent = '';
    try {
      const joined = await api.joinOpen(seek.id);
      if (joined.token) tokens.add(seek.id, { [joined.player]: joined.token });
      navigate(`/game/${seek.id}`);
    } catch (err) {
      seekError.textContent = err.message;
      refresh();
    }
  };
  const cancelSeek = async (seek) => {
    seekError.textContent = '';
    try {
      await api.abort(seek.id, Object.values(tokens.get(seek.id))[0]);
      refresh();
    } catch (err) {
      seekError.textContent = err.message;
    }
  };

  let left = false;
  const refresh = async () => {
    if (left) return;
    const account = me();
    const asks = [api.list('live'), api.list('finished'), api.seeks().catch((err) => ({ error: err })),
      account && hasChallenges ? api.challenges().catch((err) => ({ error: err })) : null];
    try {
      const [l, f, s, c] = await Promise.all(asks);
      if (left) return; // the page changed while the lists were asked for
      redraw(live, l.games, () => gameList(l.games, 'Nobody is playing right now.'));
      redraw(finished, f.games, () => gameList(f.games, 'No finished games yet.'));
      if (s.error) redraw(seekList, s.error.message, () => h('p', { class: 'error' }, s.error.message));
      else {
        redraw(seekList, [s.seeks, me()], () => seekItems(s.seeks || [], games, { join: joinSeek, cancel: cancelSeek }));
        keepSeeksOpen(s.seeks || []);
      }
      redraw(challengeBox, [c, [...followed.values()]], () => renderChallenges(challengeBox, c, games, refresh), { self: true });
      if (c && !c.error) followOutgoing(c.out || []);
    } catch (err) {
      mount(live, h('p', { class: 'error' }, err.message));
    }
  };
  // A seek lives while its creator is around: the lobby keeps a connection
  // open to each of your own waiting games, as the game page does.
  const watching = new Map();
  const keepSeeksOpen = (seeks) => {
    const account = me();
    const mine = new Set(seeks.filter((sk) => (account && sk.creator && sk.creator.user && sk.creator.user.toLowerCase() === account.username.toLowerCase())
      || Object.keys(tokens.get(sk.id)).length > 0).map((sk) => sk.id));
    for (const [id, socket] of watching) if (!mine.has(id)) { socket.close(); watching.delete(id); }
    for (const id of mine) {
      if (watching.has(id)) continue;
      watching.set(id, new GameSocket(id, {
        hello: () => Object.values(tokens.get(id))[0] || null,
        // Someone took it: off to the game, as on the game page.
        onState: (game) => { if (game.status === 'live') navigate(`/game/${id}`); },
      }));
    }
  };
  refresh();
  const timer = setInterval(refresh, 4000);
  return () => {
    left = true;
    clearInterval(timer);
    pool.stop();
    for (const socket of watching.values()) socket.close();
  };
}

/**
 * Redraws a list only when what it shows changed, so a poll every few
 * seconds neither moves the keyboard focus nor replaces a button under the
 * pointer. `self`: `draw` fills the node itself.
 */
/** A level's label: `level-7` reads "Level 7", `hard` "Hard". */
function levelName(id) {
  return title(id.replace(/-/g, ' '));
}

const drawnKeys = new WeakMap();
function redraw(node, data, draw, { self = false } = {}) {
  const key = JSON.stringify(data);
  if (drawnKeys.get(node) === key) return;
  drawnKeys.set(node, key);
  if (self) draw();
  else mount(node, draw());
}

/** The open challenges: Join for anyone eligible, Cancel for your own. */
function seekItems(seeks, games, { join, cancel }) {
  if (!seeks.length) return h('p', { class: 'hint' }, 'No open challenges. Post one with “Anyone (open challenge)”.');
  const account = me();
  return h('ul', {}, seeks.map((sk) => {
    const creator = sk.creator || {};
    const mine = (account && creator.user && creator.user.toLowerCase() === account.username.toLowerCase())
      || Object.keys(tokens.get(sk.id)).length > 0;
    const who = creator.user
      ? h('a', { href: `/@/${encodeURIComponent(creator.user)}`, 'data-link': true, class: 'seek-creator' }, creator.user)
      : h('span', { class: 'seek-creator' }, creator.name || 'Guest');
    const rating = creator.rating ? ` (${ratingText(creator)})` : '';
    const opts = Object.entries(sk.options || {}).map(([k, v]) => `${k} ${v}`).join(', ');
    const range = sk.rating_range ? `rating ${sk.rating_range[0]}–${sk.rating_range[1]}` : null;
    let action;
    if (mine) action = h('button', { type: 'button', class: 'cancel-seek', onclick: () => cancel(sk) }, 'Cancel');
    else if (sk.eligible === false) action = h('span', { class: 'hint not-eligible' }, sk.rated && !account ? 'Log in to join' : 'Not open to you');
    else action = h('button', { type: 'button', class: 'primary join-seek', onclick: () => join(sk), 'aria-label': `Join ${creator.user || creator.name || 'the'} ${sk.name || gameName(games, sk.game)} game` }, 'Join');
    return h('li', { 'data-seek-id': sk.id, 'data-game': sk.game, 'data-rated': !!sk.rated, class: 'seek' },
      h('div', { class: 'game-line' },
        h('span', { class: 'game-name' }, sk.name || gameName(games, sk.game)), ' ', who, rating,
        h('span', { class: 'seek-action' }, action)),
      h('small', { class: 'hint' }, [sk.rated ? 'Rated' : 'Casual', categoryLabel(sk.category), clockText(sk.time_control), opts || null, range,
        sk.open_player ? `you play ${title(sk.open_player)}` : null].filter(Boolean).join(' · ')));
  }));
}

/** A time control in a few characters: 5+3, 20 min match clock, 45 s per move, no clock. */
export function clockText(tc) {
  if (!tc || tc.kind === 'none') return 'no clock';
  const min = (ms) => { const m = ms / 60000; return Number.isInteger(m) ? String(m) : m.toFixed(1); };
  if (tc.kind === 'fischer') return `${min(tc.base_ms)}+${Math.round(tc.increment_ms / 1000)}`;
  if (tc.kind === 'match_clock') return `${min(tc.total_ms)} min match clock`;
  if (tc.kind === 'shot_clock') return `${Math.round(tc.per_move_ms / 1000)} s per move`;
  return tc.kind;
}

/** Direct challenges to and from the logged-in player, with Accept, Decline and Cancel. */
function renderChallenges(box, list, games, refresh) {
  const incoming = (list && list.in) || [];
  const outgoing = (list && list.out) || [];
  box.hidden = !list || (!incoming.length && !outgoing.length && !list.error && !followed.size);
  if (box.hidden) { mount(box); return; }
  const error = h('p', { class: 'error', role: 'alert', id: 'challenge-error' });
  const act = (fn) => async () => {
    try { await fn(); } catch (err) { error.textContent = err.message; }
    refresh();
  };
  const describe = (c) => [gameName(games, c.game), c.rated ? 'rated' : 'casual', categoryLabel(c.category), clockText(c.time_control)].filter(Boolean).join(' · ');
  const person = (p) => p && p.user ? `${p.user}${p.rating ? ` (${Math.round(p.rating)})` : ''}` : '?';
  mount(box,
    h('h2', { id: 'challenges-title' }, 'Challenges'),
    list && list.error ? h('p', { class: 'error' }, list.error.message) : null,
    h('ul', { class: 'challenge-list' },
      incoming.map((c) => h('li', { 'data-challenge-id': c.id, class: 'challenge-in' },
        h('span', {}, h('strong', {}, person(c.from)), ' challenges you: ', describe(c)),
        h('span', { class: 'challenge-actions' },
          h('button', { type: 'button', class: 'primary accept-challenge', onclick: act(async () => {
            const res = await api.answerChallenge(c.id, 'accept');
            navigate(`/game/${res.game_id || (res.challenge && res.challenge.game_id)}`);
          }) }, 'Accept'),
          h('button', { type: 'button', class: 'decline-challenge', onclick: act(() => api.answerChallenge(c.id, 'decline')) }, 'Decline')))),
      outgoing.map((c) => h('li', { 'data-challenge-id': c.id, class: 'challenge-out' },
        h('span', {}, 'You challenge ', h('strong', {}, person(c.to)), ': ', describe(c), ' · waiting for an answer'),
        h('span', { class: 'challenge-actions' },
          h('button', { type: 'button', class: 'cancel-challenge', onclick: act(() => api.answerChallenge(c.id, 'cancel')) }, 'Cancel'))))),
    [...followed.values()].filter((f) => f.status && f.status !== 'pending').map((f) => h('p', { class: 'hint challenge-answer' },
      `${(f.to && f.to.user) || 'Your opponent'} ${f.status === 'declined' ? 'declined' : f.status === 'expired' ? 'did not answer' : f.status} your challenge.`)),
    error);
}

/** Outgoing challenges seen pending, followed until answered: an accepted one opens its game. */
const followed = new Map();
function followOutgoing(outgoing) {
  for (const c of outgoing) followed.set(c.id, c);
  for (const [id, c] of followed) {
    // An answer is shown for a minute, then forgotten.
    if (c.answeredAt && Date.now() - c.answeredAt > 60000) followed.delete(id);
    if (outgoing.some((o) => o.id === id) || c.status !== 'pending') continue;
    api.challengeStatus(id).then((res) => {
      const now = { ...(res.challenge || {}), answeredAt: Date.now() };
      followed.set(id, now);
      if (now.status === 'accepted' && now.game_id) {
        followed.delete(id);
        if (location.pathname === '/') navigate(`/game/${now.game_id}`);
      }
    }).catch(() => followed.delete(id));
  }
}

/** Quick pairing: pick a clock, the server pairs you with someone of a similar rating. */
function quickPairing(games, currentGame, currentOptions) {
  const el = h('section', { class: 'card pool-card', id: 'quick-pairing', 'aria-labelledby': 'pool-title' });
  const CLOCKS = [['fischer:180+2', '3+2', 'blitz'], ['fischer:300+3', '5+3', 'blitz'], ['fischer:600+5', '10+5', 'rapid'], ['fischer:900+10', '15+10', 'rapid'], ['fischer:1800+20', '30+20', 'classical']];
  let waiting = null;
  let timer = null;
  const status = h('p', { class: 'hint', id: 'pool-status', 'aria-live': 'polite' });
  const rated = h('input', { type: 'checkbox', id: 'pool-rated', checked: true });
  const stop = () => { clearInterval(timer); timer = null; };
  const poll = async () => {
    try {
      const res = await api.poolStatus();
      if (res.status === 'paired' && res.game_id) {
        stop();
        waiting = null;
        navigate(`/game/${res.game_id}`);
      } else if (res.status !== 'waiting') {
        stop();
        waiting = null;
        render();
      }
    } catch (err) {
      status.textContent = err.message;
    }
  };
  const join = async (tc, label) => {
    status.textContent = '';
    try {
      const res = await api.poolJoin({ game: currentGame(), options: currentOptions(), time_control: tc, rated: rated.checked });
      if (res.status === 'paired' && res.game_id) { navigate(`/game/${res.game_id}`); return; }
      waiting = `${gameName(games, currentGame())} ${label}${rated.checked ? ', rated' : ''}`;
      render();
      stop();
      timer = setInterval(poll, 1000);
    } catch (err) {
      status.textContent = err.message;
    }
  };
  const leave = async () => {
    stop();
    waiting = null;
    try { await api.poolLeave(); } catch (err) { status.textContent = err.message; }
    render();
  };
  const render = () => {
    if (!me()) {
      mount(el, h('h2', { id: 'pool-title' }, 'Quick pairing'),
        h('p', { class: 'hint' }, h('a', { href: '/login', 'data-link': true }, 'Log in'), ' to be paired with a player of your strength.'));
      return;
    }
    mount(el, h('h2', { id: 'pool-title' }, 'Quick pairing'),
      waiting
        ? [h('p', { class: 'pool-waiting' }, `Looking for an opponent: ${waiting}…`), h('button', { type: 'button', id: 'pool-leave', onclick: leave }, 'Stop looking')]
        : [h('p', { class: 'hint' }, 'The game chosen above, against a player of similar rating.'),
          h('div', { class: 'pool-clocks' }, CLOCKS.map(([tc, label, cat]) => h('button', {
            type: 'button', class: 'pool-clock', 'data-tc': tc, onclick: () => join(tc, label),
          }, h('strong', {}, label), h('small', {}, categoryLabel(cat))))),
          h('label', { class: 'check', for: 'pool-rated' }, rated, ' Rated')],
      status);
  };
  render();
  return { el, render, stop };
}

/**
 * The option (as {key, value, label, clocked}) that sets the game's clock, or
 * null. The meta names those options in `clock_options`; the server takes
 * such a game's clock from them alone, so no time control is picked:
 * `clocked` says whether the chosen value brings a clock (Cordots' `blitz`)
 * or none (its `untimed`). `clock_values` (when the server sends it) lists
 * the values that bring one; without it, the default value is the one
 * without a clock.
 */
export function clockFixedBy(game, values) {
  for (const entry of game.clock_options || []) {
    const key = typeof entry === 'string' ? entry : entry.key;
    const opt = game.options.find((o) => o.key === key);
    if (!opt) continue;
    const value = values[key] ?? opt.default;
    const listed = (typeof entry === 'object' && entry.values) || (game.clock_values && game.clock_values[key]);
    const clocked = listed ? listed.includes(value) : value !== opt.default;
    return { key, value, clocked, label: `${opt.label || OPTION_LABELS[key] || title(key)} “${value}”` };
  }
  return null;
}

/** Whether an option matters for the other values chosen (`applies_when` in the meta: {key: [values]}). */
export function optionApplies(opt, values) {
  const when = opt.applies_when;
  if (!when) return true;
  return Object.entries(when).every(([key, allowed]) => allowed.includes(values[key]));
}

function radio(name, value, label, checked = false) {
  const id = `${name}-${value}`;
  return h('span', { class: 'radio' },
    h('input', { type: 'radio', name, value, checked, id }), h('label', { for: id }, label));
}

export function optionField(opt) {
  const name = `opt_${opt.key}`;
  const label = opt.label || OPTION_LABELS[opt.key] || title(opt.key);
  let input;
  const range = /^(\d+)\.\.(\d+)$/.exec(opt.values);
  const help = `${name}-help`;
  if (range) {
    input = h('input', { type: 'number', name, id: name, value: opt.default, min: range[1], max: range[2], class: 'small-number', 'aria-describedby': help });
  } else if (opt.values.includes('|')) {
    input = h('select', { name, id: name, 'aria-describedby': help }, opt.values.split('|').map((v) => h('option', { value: v, selected: v === opt.default }, v)));
  } else {
    input = h('input', { type: 'text', name, id: name, value: opt.default, 'aria-describedby': help });
  }
  // A long explanation gets the whole row; short ones sit side by side.
  return h('div', { class: 'option', 'data-option': opt.key, 'data-wide': (opt.help || '').length > 70 },
    h('label', { for: name }, label), input, h('small', { class: 'hint', id: help }, opt.help));
}

export function tcLabel(kind) {
  return { none: 'No clock', fischer: 'Fischer (base + increment)', match_clock: 'Match clock', shot_clock: 'Per-move clock' }[kind] || kind;
}

function timeControlFrom(data) {
  const n = (key) => Number(data.get(key));
  switch (data.get('tc')) {
    case 'fischer': return { kind: 'fischer', base_ms: Math.round(n('base_min') * 60000), increment_ms: Math.round(n('inc_s') * 1000) };
    case 'match_clock': return { kind: 'match_clock', total_ms: Math.round(n('total_min') * 60000), overtime_ms: Math.round(n('overtime_min') * 60000) };
    case 'shot_clock': return { kind: 'shot_clock', per_move_ms: Math.round(n('per_move_s') * 1000) };
    default: return { kind: 'none' };
  }
}

function gameList(list, empty) {
  if (!list.length) return h('p', { class: 'hint' }, empty);
  return h('ul', {}, list.map((g) => {
    const players = (g.seats || []).map((seat, i) => [
      i ? h('span', { class: 'versus' }, ' vs ') : null,
      h('span', { class: 'seat', title: title(seat.player) },
        h('span', { class: `swatch swatch-${seat.player}`, role: 'img', 'aria-label': title(seat.player) }), ' ',
        seatName(seat, (g.seats || []).map((st) => st.player))),
    ]);
    let result;
    if (g.result) {
      const reason = capitalise(g.result.reason || '');
      result = g.result.winner ? `${title(g.result.winner)} won · ${reason}` : `Draw · ${reason}`;
    } else if (g.status === 'waiting') {
      result = 'Waiting for a player';
    } else {
      result = `${g.plies} ${g.plies === 1 ? 'move' : 'moves'} · ${title(g.to_move)} to move`;
    }
    const href = g.status === 'finished' ? `/replay/${g.id}` : `/game/${g.id}`;
    return h('li', { 'data-game-id': g.id },
      h('div', { class: 'game-line' }, h('a', { href, 'data-link': true, class: 'game-name' }, g.name || title(g.game)), ' ', h('span', { class: 'players' }, players)),
      h('small', { class: 'hint' }, result,
        g.status === 'finished' ? [' · ', h('a', { href: `/game/${g.id}`, 'data-link': true }, 'final position')] : null));
  }));
}
