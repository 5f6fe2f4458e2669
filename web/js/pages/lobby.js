// The lobby: create a game (game, options, opponent, time control) and see
// the live and finished games.

import { h, mount, title } from '../dom.js';
import { api, tokens } from '../api.js';
import { navigate } from '../app.js';

const OPTION_LABELS = {
  width: 'Board width',
  height: 'Board height',
  cross: 'Start with the cross',
  format: 'Championship format',
  stage: 'Championship stage',
  mode: 'Mode (clock)',
  minutes: 'Match clock, minutes',
};

export async function lobbyPage(root) {
  document.title = 'Tabula';
  const meta = await api.meta();
  const games = meta.games;
  const form = h('form', { id: 'new-game', class: 'card new-game', autocomplete: 'off' });
  const optionsBox = h('div', { class: 'options' });
  const levelSelect = h('select', { name: 'level', id: 'level' });
  const sideSelect = h('select', { name: 'side', id: 'side' });
  const gameSelect = h('select', { name: 'game', id: 'game' },
    games.map((g) => h('option', { value: g.id }, g.name)));
  const description = h('p', { class: 'hint game-description' });
  const clockNote = h('p', { class: 'hint clock-note' });
  const message = h('p', { class: 'error', role: 'alert' });

  const opponent = h('fieldset', { class: 'opponent' },
    h('legend', {}, 'Opponent'),
    radio('opponent', 'ai', 'The computer', true),
    h('label', { class: 'inline' }, 'Level ', levelSelect),
    radio('opponent', 'invite', 'Invite a friend (you get a link to send)'),
    radio('opponent', 'hotseat', 'Two players on this screen'),
  );

  const tcKinds = meta.time_controls || ['none', 'fischer'];
  const tcSelect = h('select', { name: 'tc', id: 'time-control' }, tcKinds.map((k) => h('option', { value: k }, tcLabel(k))));
  const tcFields = h('span', { class: 'tc-fields' });
  const timeControl = h('fieldset', { class: 'time-control' },
    h('legend', {}, 'Time control'), tcSelect, tcFields, clockNote);

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

  const renderGame = () => {
    const game = games.find((g) => g.id === gameSelect.value);
    description.textContent = game.description;
    mount(optionsBox, game.options.map((opt) => optionField(opt)));
    mount(levelSelect, game.levels.map((l) => h('option', { value: l.id, selected: l.id === game.default_level, title: l.description }, `${title(l.id)}`)));
    mount(sideSelect,
      h('option', { value: 'random' }, 'Random'),
      game.players.map((p, i) => h('option', { value: String(i) }, `${title(p)}${i === 0 ? ' (moves first)' : ''}`)));
    clockNote.textContent = game.clock_from_options || game.options.some((o) => o.key === 'mode')
      ? 'Cordots: the Competitive and Blitz modes bring their own clock, which replaces this one.'
      : '';
  };
  gameSelect.addEventListener('change', renderGame);

  mount(form,
    h('h2', {}, 'New game'),
    h('label', {}, 'Game ', gameSelect),
    description,
    h('fieldset', {}, h('legend', {}, 'Options'), optionsBox),
    opponent,
    h('label', {}, 'You play ', sideSelect),
    timeControl,
    h('button', { type: 'submit', class: 'primary', id: 'create-game' }, 'Create game'),
    message);
  renderGame();
  renderTcFields();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.textContent = '';
    const data = new FormData(form);
    const game = games.find((g) => g.id === data.get('game'));
    const options = {};
    for (const opt of game.options) options[opt.key] = String(data.get(`opt_${opt.key}`));
    const kind = data.get('opponent');
    const other = kind === 'ai' ? { kind: 'ai', level: data.get('level') }
      : kind === 'invite' ? { kind: 'open' } : { kind: 'me' };
    let side = data.get('side');
    if (side === 'random') side = Math.random() < 0.5 ? '0' : '1';
    const seats = side === '0' ? [{ kind: 'me' }, other] : [other, { kind: 'me' }];
    const body = { game: game.id, options, seats, time_control: timeControlFrom(data) };
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
  mount(root, h('div', { class: 'lobby' },
    form,
    h('section', { class: 'card lists' },
      h('h2', {}, 'Live games'), live,
      h('h2', {}, 'Recently finished'), finished)));

  const refresh = async () => {
    try {
      const [l, w, f] = await Promise.all([api.list('live'), api.list('waiting'), api.list('finished')]);
      mount(live, gameList([...w.games, ...l.games], 'Nobody is playing right now.'));
      mount(finished, gameList(f.games, 'No finished games yet.'));
    } catch (err) {
      mount(live, h('p', { class: 'error' }, err.message));
    }
  };
  refresh();
  const timer = setInterval(refresh, 5000);
  return () => clearInterval(timer);
}

function radio(name, value, label, checked = false) {
  return h('label', { class: 'radio' }, h('input', { type: 'radio', name, value, checked }), ' ', label);
}

function optionField(opt) {
  const name = `opt_${opt.key}`;
  const label = OPTION_LABELS[opt.key] || title(opt.key);
  let input;
  const range = /^(\d+)\.\.(\d+)$/.exec(opt.values);
  if (range) {
    input = h('input', { type: 'number', name, id: name, value: opt.default, min: range[1], max: range[2], class: 'small-number' });
  } else if (opt.values.includes('|')) {
    input = h('select', { name, id: name }, opt.values.split('|').map((v) => h('option', { value: v, selected: v === opt.default }, v)));
  } else {
    input = h('input', { type: 'text', name, id: name, value: opt.default });
  }
  return h('label', { class: 'option', title: opt.help }, `${label} `, input, h('small', { class: 'hint' }, opt.help));
}

function tcLabel(kind) {
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

function seatLabel(seat) {
  if (!seat) return '?';
  if (seat.kind === 'ai') return seat.name || `AI (${seat.level})`;
  if (!seat.joined) return 'open seat';
  return seat.name || 'Player';
}

function gameList(list, empty) {
  if (!list.length) return h('p', { class: 'hint' }, empty);
  return h('ul', {}, list.map((g) => {
    const players = (g.seats || []).map((seat) => `${title(seat.player)}: ${seatLabel(seat)}`).join(' vs ');
    const result = g.result ? (g.result.winner ? `${title(g.result.winner)} won (${g.result.reason})` : `Draw (${g.result.reason})`) : `${g.status === 'waiting' ? 'waiting for a player' : `${g.plies} plies, ${title(g.to_move)} to move`}`;
    const href = g.status === 'finished' ? `/replay/${g.id}` : `/game/${g.id}`;
    return h('li', { 'data-game-id': g.id },
      h('a', { href, 'data-link': true }, h('strong', {}, g.name || title(g.game))),
      ' ', h('span', { class: 'players' }, players),
      h('br'), h('small', { class: 'hint' }, result),
      g.status === 'finished' ? [' · ', h('a', { href: `/game/${g.id}`, 'data-link': true }, 'final position')] : null);
  }));
}
