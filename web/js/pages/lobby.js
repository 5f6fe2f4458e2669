// The lobby: create a game (game, options, opponent, time control) and see
// the live and finished games. Everything about a game comes from the
// server's meta (/api/games/meta): its options, AI levels, and which options
// bring their own clock.

import { h, mount, title, capitalise } from '../dom.js';
import { api, tokens } from '../api.js';
import { navigate } from '../app.js';
import { seatName } from '../seats.js';

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
  const meta = await api.meta();
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

  const opponent = h('fieldset', { class: 'opponent' },
    h('legend', {}, 'Opponent'),
    h('div', { class: 'segmented' },
      radio('opponent', 'ai', 'Computer', true),
      radio('opponent', 'invite', 'A friend (invite link)'),
      radio('opponent', 'hotseat', 'Two on this screen')),
    h('div', { class: 'row' }, levelLabel, h('label', { class: 'inline', for: 'side' }, 'You play ', sideSelect),
      h('label', { class: 'inline', for: 'player-name' }, 'Your name ',
        h('input', { type: 'text', id: 'player-name', name: 'player_name', maxlength: 40, placeholder: 'optional', value: localStorage.getItem('tabula.name') || '', autocomplete: 'nickname' }))));

  const tcKinds = meta.time_controls || ['none', 'fischer'];
  const tcSelect = h('select', { name: 'tc', id: 'time-control', 'aria-label': 'Time control' }, tcKinds.map((k) => h('option', { value: k }, tcLabel(k))));
  const tcFields = h('span', { class: 'tc-fields' });
  const timeControl = h('fieldset', { class: 'time-control', id: 'time-control-set' },
    h('legend', {}, 'Time control'), h('div', { class: 'row' }, tcSelect, tcFields));

  const currentGame = () => games.find((g) => g.id === gameSelect.value);
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
    const kind = form.querySelector('input[name=opponent]:checked').value;
    levelLabel.hidden = kind !== 'ai';
    levelSelect.disabled = kind !== 'ai';
  };

  const renderGame = () => {
    const game = currentGame();
    description.textContent = game.description;
    mount(optionsBox, game.options.map((opt) => optionField(opt)));
    optionsSet.hidden = game.options.length === 0;
    mount(levelSelect, game.levels.map((l) => h('option', { value: l.id, selected: l.id === game.default_level, title: l.description }, `${title(l.id)}`)));
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
    h('button', { type: 'submit', class: 'primary', id: 'create-game' }, 'Create game'),
    message);
  renderGame();
  renderTcFields();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.textContent = '';
    const data = new FormData(form);
    const game = currentGame();
    const options = {};
    for (const opt of game.options) options[opt.key] = String(data.get(`opt_${opt.key}`) ?? opt.default);
    const kind = data.get('opponent');
    const other = kind === 'ai' ? { kind: 'ai', level: data.get('level') }
      : kind === 'invite' ? { kind: 'open' } : { kind: 'me' };
    // Your name goes on your seat (and is remembered for joining friends' games); two on one screen stay unnamed.
    const name = String(data.get('player_name') || '').trim();
    try { if (name) localStorage.setItem('tabula.name', name); else localStorage.removeItem('tabula.name'); } catch { /* private mode */ }
    const me = name && kind !== 'hotseat' ? { kind: 'me', name } : { kind: 'me' };
    let side = data.get('side');
    if (side === 'random') side = Math.random() < 0.5 ? '0' : '1';
    const seats = side === '0' ? [me, other] : [other, me];
    const body = { game: game.id, options, seats };
    if (!clockFixedBy(game, options)) body.time_control = timeControlFrom(data);
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
    h('section', { class: 'card lists', 'aria-label': 'Games' },
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
function optionApplies(opt, values) {
  const when = opt.applies_when;
  if (!when) return true;
  return Object.entries(when).every(([key, allowed]) => allowed.includes(values[key]));
}

function radio(name, value, label, checked = false) {
  const id = `${name}-${value}`;
  return h('span', { class: 'radio' },
    h('input', { type: 'radio', name, value, checked, id }), h('label', { for: id }, label));
}

function optionField(opt) {
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
