// The tournament list (/tournaments: open for entries, running, finished)
// and the form that creates one (/tournaments/new): game, options and clock
// as in the lobby (from /api/games/meta), the system with its numbers, rated
// or not, the start time and the entry limits.

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { navigate } from '../app.js';
import { whoAmI } from '../account.js';
import { categoryLabel, gameName } from '../players.js';
import { clockFixedBy, optionApplies, optionField, tcLabel } from './lobby.js';

/** The systems the form offers, in the order shown. */
const SYSTEMS = [
  ['round_robin', 'Round-robin'],
  ['swiss', 'Swiss'],
  ['knockout', 'Knockout'],
  ['arena', 'Arena'],
  ['championship', 'Championship'],
];

const STATUS_SECTIONS = [
  ['registration', 'Open for entries', 'No tournament is taking entries. Create one!'],
  ['running', 'Running', 'No tournament is being played right now.'],
  ['finished', 'Finished', 'No finished tournaments yet.'],
];

/** "Round-robin · 3+2 · Rated · Blitz": how a tournament is played, in one line. */
export function tournamentKind(t, games) {
  return [gameName(games, t.game) || t.game_name, systemText(t.system) || t.system_name, clockLabel(t.time_control),
    t.rated ? 'Rated' : 'Casual', t.category && t.category !== 'untimed' ? categoryLabel(t.category) : null].filter(Boolean).join(' · ');
}

/** The system with its numbers: "double round-robin", "Swiss, 5 rounds", "knockout, best of 3". */
export function systemText(system) {
  if (!system) return '';
  switch (system.kind) {
    case 'round_robin': return system.cycles > 1 ? `round-robin ×${system.cycles}` : 'round-robin';
    case 'swiss': return `Swiss, ${system.rounds} rounds`;
    case 'knockout': return `knockout${system.rules && system.rules.games > 1 ? `, best of ${system.rules.games}` : ''}`;
    case 'arena': return `arena, ${Math.round(system.duration_ms / 60000)} min`;
    case 'championship': return `championship: ${system.groups} groups, top ${system.advance} go through`;
    default: return system.kind;
  }
}

/** A clock's text form ("fischer:180+2", "match:20+5", "shot:45", "none") as players read it. */
export function clockLabel(text) {
  if (!text || text === 'none') return 'No clock';
  const [kind, arg = ''] = String(text).split(':');
  const min = (sec) => { const m = Number(sec) / 60; return Number.isInteger(m) ? String(m) : m.toFixed(1); };
  if (kind === 'fischer') { const [b, i = '0'] = arg.split('+'); return `${min(b)}+${i}`; }
  if (kind === 'match') { const [m, o] = arg.split('+'); return `${m} min match clock${o ? ` (+${o})` : ''}`; }
  if (kind === 'shot') return `${arg} s per move`;
  return text;
}

/** A start time as "in 4 min", "in 2 h", or a date, for the lists. */
export function startText(ms, now = Date.now()) {
  if (!ms) return '';
  const diff = ms - now;
  if (diff <= 0) return `started ${new Date(ms).toLocaleString()}`;
  if (diff < 60_000) return 'starts in under a minute';
  if (diff < 3600_000) return `starts in ${Math.round(diff / 60_000)} min`;
  if (diff < 86400_000) return `starts in ${Math.round(diff / 3600_000)} h`;
  return `starts ${new Date(ms).toLocaleString()}`;
}

/** /tournaments */
export async function tournamentsPage(root) {
  document.title = 'Tournaments · Tabula';
  const [meta] = await Promise.all([api.meta(), whoAmI()]);
  const lists = STATUS_SECTIONS.map(([status, heading, empty]) => ({
    status, empty,
    el: h('div', { class: 'tournament-list', id: `tournaments-${status}` }, h('p', { class: 'hint' }, 'Loading…')),
    heading,
  }));
  const error = h('p', { class: 'error', role: 'alert', id: 'tournaments-error' });
  mount(root, h('div', { class: 'tournaments-page' },
    h('header', { class: 'card tournaments-head' },
      h('h1', {}, 'Tournaments'),
      h('p', { class: 'hint' }, 'Round-robin, Swiss, knockout, arena and the Dots championship, for every game. Anyone with an account can enter, bots included.'),
      h('a', { href: '/tournaments/new', 'data-link': true, class: 'button primary', id: 'new-tournament' }, 'Create a tournament')),
    error,
    lists.map((l) => h('section', { class: 'card', 'aria-labelledby': `tournaments-${l.status}-title` },
      h('h2', { id: `tournaments-${l.status}-title` }, l.heading), l.el))));

  let left = false;
  let lastKey = null;
  const refresh = async () => {
    try {
      const res = await api.tournaments('all');
      if (left) return;
      error.textContent = '';
      const all = res.tournaments || [];
      const key = JSON.stringify(all);
      if (key === lastKey) return; // unchanged: keep the focus where it is
      lastKey = key;
      for (const l of lists) {
        const here = all.filter((t) => t.status === l.status);
        mount(l.el, here.length ? h('ul', {}, here.map((t) => listItem(t, meta.games))) : h('p', { class: 'hint' }, l.empty));
      }
    } catch (err) {
      if (!left) error.textContent = err.message;
    }
  };
  await refresh();
  const timer = setInterval(refresh, 5000);
  return () => { left = true; clearInterval(timer); };
}

function listItem(t, games) {
  const count = t.player_count ?? (Array.isArray(t.players) ? t.players.length : t.players);
  const entries = `${count ?? 0}${t.max_players ? ` / ${t.max_players}` : ''} ${count === 1 && !t.max_players ? 'player' : 'players'}`;
  const when = t.status === 'registration' ? startText(t.starts_at_ms)
    : t.status === 'running' ? (t.round ? `round ${t.round}` : 'playing')
      : t.winner ? `won by ${t.winner.user}` : 'finished';
  return h('li', { 'data-tournament-id': t.id, 'data-status': t.status },
    h('div', { class: 'game-line' },
      h('a', { href: `/tournament/${encodeURIComponent(t.id)}`, 'data-link': true, class: 'game-name' }, t.name),
      h('span', { class: 'tournament-when' }, when)),
    h('small', { class: 'hint' }, [tournamentKind(t, games), entries, t.created_by ? `by ${t.created_by}` : null].filter(Boolean).join(' · ')));
}

/** /tournaments/new */
export async function newTournamentPage(root) {
  document.title = 'New tournament · Tabula';
  const [meta, account] = await Promise.all([api.meta(), whoAmI()]);
  if (!account) {
    mount(root, h('div', { class: 'card auth-page', id: 'tournament-login' },
      h('h1', {}, 'Create a tournament'),
      h('p', {}, 'Tournaments are run by players with an account. ',
        h('a', { href: '/login', 'data-link': true, id: 'tournament-login-link' }, 'Log in'), ' or ',
        h('a', { href: '/signup', 'data-link': true }, 'sign up'), ' to create one.'),
      h('p', {}, h('a', { href: '/tournaments', 'data-link': true }, 'See the tournaments'))));
    return;
  }
  const games = meta.games;
  const form = h('form', { id: 'tournament-form', class: 'card new-game tournament-form', autocomplete: 'off', 'aria-labelledby': 'tournament-form-title', novalidate: true });
  const message = h('p', { class: 'error', role: 'alert', id: 'tournament-form-error' });

  const nameInput = h('input', { type: 'text', id: 't-name', name: 'name', maxlength: 60, required: true, placeholder: 'e.g. Sunday Dots', class: 'wide-input' });
  const gameSelect = h('select', { name: 'game', id: 't-game' }, games.map((g) => h('option', { value: g.id }, g.name)));
  const description = h('p', { class: 'hint game-description' });
  const optionsBox = h('div', { class: 'options' });
  const optionsSet = h('fieldset', { class: 'options-set' }, h('legend', {}, 'Options'), optionsBox);

  const tcKinds = meta.time_controls || ['none', 'fischer'];
  const tcSelect = h('select', { name: 'tc', id: 't-time-control', 'aria-label': 'Time control' }, tcKinds.map((k) => h('option', { value: k, selected: k === 'fischer' }, tcLabel(k))));
  const tcFields = h('span', { class: 'tc-fields' });
  const clockNote = h('p', { class: 'hint clock-note' });
  const timeControl = h('fieldset', { class: 'time-control' }, h('legend', {}, 'Clock'), h('div', { class: 'row' }, tcSelect, tcFields));
  const num = (name, value, label, attrs = {}, after = '') => h('label', { class: 'inline', for: `t-${name}` }, `${label} `,
    h('input', { type: 'number', name, id: `t-${name}`, value, class: 'small-number', ...attrs }), after ? ` ${after}` : null);
  const renderTcFields = () => {
    const kind = tcSelect.value;
    mount(tcFields,
      kind === 'fischer' && [num('base_min', 3, 'minutes', { min: 0.5, step: 0.5 }), num('inc_s', 2, '+ seconds per move', { min: 0, step: 1 })],
      kind === 'match_clock' && [num('total_min', 20, 'minutes', { min: 1 }), num('overtime_min', 5, 'overtime minutes', { min: 0 })],
      kind === 'shot_clock' && num('per_move_s', 45, 'seconds per move', { min: 1 }));
  };
  tcSelect.addEventListener('change', renderTcFields);

  const systemRadios = h('div', { class: 'segmented' }, SYSTEMS.map(([value, label], i) => {
    const id = `system-${value}`;
    return h('span', { class: 'radio' }, h('input', { type: 'radio', name: 'system', value, id, checked: i === 0 }), h('label', { for: id }, label));
  }));
  const bestOf = (name) => h('label', { class: 'inline', for: `t-${name}` }, 'Matches: best of ',
    h('select', { name, id: `t-${name}` }, [1, 2, 3, 5, 7].map((n) => h('option', { value: n }, String(n)))));
  const systemFields = {
    round_robin: h('div', { class: 'row', 'data-system': 'round_robin' },
      num('cycles', 1, 'Cycles', { min: 1, max: 4 }), h('small', { class: 'hint' }, 'Everyone plays everyone once a cycle; two cycles are a double round-robin, colours swapped.')),
    swiss: h('div', { class: 'row', 'data-system': 'swiss' },
      num('rounds', 5, 'Rounds', { min: 1, max: 30 }), h('small', { class: 'hint' }, 'Paired by score each round (FIDE Dutch system), never the same pair twice.')),
    knockout: h('div', { class: 'row', 'data-system': 'knockout' },
      bestOf('ko_games'), h('label', { class: 'check', for: 't-third-place' }, h('input', { type: 'checkbox', id: 't-third-place', name: 'third_place' }), ' A match for third place'),
      h('small', { class: 'hint' }, 'A seeded bracket. A level match goes to further games, then one decider.')),
    arena: h('div', { class: 'row', 'data-system': 'arena' },
      num('duration_min', 60, 'Duration, minutes', { min: 1, max: 1440 }), h('small', { class: 'hint' }, 'Players are paired again as soon as they finish, until the time is up.')),
    championship: h('div', { class: 'row', 'data-system': 'championship' },
      num('groups', 2, 'Groups', { min: 1, max: 16 }), num('advance', 2, 'Go through from each group', { min: 1, max: 8 }),
      num('group_cycles', 1, 'Group cycles', { min: 1, max: 4 }), bestOf('cs_games'),
      h('small', { class: 'hint' }, 'Round-robin groups, then the best of each group in a knockout.')),
  };
  const systemSet = h('fieldset', { class: 'system-set' }, h('legend', {}, 'System'), systemRadios, Object.values(systemFields));
  const currentSystem = () => form.querySelector('input[name=system]:checked').value;

  const ratedBox = h('input', { type: 'checkbox', id: 't-rated', name: 'rated' });
  const startKind = h('select', { id: 't-start-kind', name: 'start_kind', 'aria-label': 'When it starts' },
    h('option', { value: 'in' }, 'In'), h('option', { value: 'at' }, 'At'));
  const startIn = h('label', { class: 'inline', for: 't-starts-in' }, h('input', { type: 'number', id: 't-starts-in', name: 'starts_in_min', value: 5, min: 0, max: 10080, class: 'small-number' }), ' minutes');
  const startAt = h('input', { type: 'datetime-local', id: 't-starts-at', name: 'starts_at', 'aria-label': 'Start date and time' });
  const refreshStart = () => { startIn.hidden = startKind.value !== 'in'; startAt.hidden = startKind.value !== 'at'; };
  startKind.addEventListener('change', refreshStart);
  const startSet = h('fieldset', { class: 'start-set' }, h('legend', {}, 'Start'),
    h('div', { class: 'row' }, startKind, startIn, startAt),
    h('small', { class: 'hint' }, 'You can also start it earlier from its page, once two players have joined.'));
  const entrySet = h('fieldset', { class: 'entry-set' }, h('legend', {}, 'Entry'),
    h('div', { class: 'row' },
      num('min_rating', '', 'Rating from', { min: 0, max: 4000, step: 50, placeholder: 'any' }),
      num('max_rating', '', 'to', { min: 0, max: 4000, step: 50, placeholder: 'any' }),
      num('max_players', 16, 'At most', { min: 2, max: 1000 }, 'players')),
    h('div', { class: 'row' },
      h('label', { class: 'check', for: 't-bots' }, h('input', { type: 'checkbox', id: 't-bots', name: 'bots_allowed', checked: true }), ' Bots may enter'),
      h('label', { class: 'check', for: 't-rated' }, ratedBox, ' Rated')));

  const currentGame = () => games.find((g) => g.id === gameSelect.value);
  const optionValues = () => {
    const values = {};
    for (const opt of currentGame().options) {
      const field = form.querySelector(`[name="opt_${opt.key}"]`);
      values[opt.key] = field ? String(field.value) : opt.default;
    }
    return values;
  };
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
    const system = currentSystem();
    for (const [kind, el] of Object.entries(systemFields)) {
      el.hidden = kind !== system;
      for (const input of el.querySelectorAll('input, select')) input.disabled = kind !== system;
    }
  };
  const renderGame = () => {
    const game = currentGame();
    description.textContent = game.description;
    mount(optionsBox, game.options.map((opt) => optionField(opt)));
    optionsSet.hidden = game.options.length === 0;
    refreshDependent();
  };
  gameSelect.addEventListener('change', renderGame);
  form.addEventListener('change', (event) => { if (event.target !== gameSelect) refreshDependent(); });

  const submit = h('button', { type: 'submit', class: 'primary', id: 'create-tournament' }, 'Create the tournament');
  mount(form,
    h('h1', { id: 'tournament-form-title' }, 'New tournament'),
    h('div', { class: 'row' }, h('label', { for: 't-name' }, 'Name '), nameInput),
    h('div', { class: 'row' }, h('label', { for: 't-game' }, 'Game '), gameSelect),
    description, optionsSet, timeControl, clockNote, systemSet, startSet, entrySet,
    submit, message);
  renderGame();
  renderTcFields();
  refreshStart();
  mount(root, h('div', { class: 'tournament-new' }, form,
    h('p', { class: 'hint' }, h('a', { href: '/tournaments', 'data-link': true }, 'Back to the tournaments'))));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.textContent = '';
    const data = new FormData(form);
    const problem = (text, field) => { message.textContent = text; if (field) field.focus(); };
    const name = String(data.get('name') || '').trim();
    if (!name) { problem('Give the tournament a name.', nameInput); return; }
    const game = currentGame();
    const options = {};
    for (const opt of game.options) options[opt.key] = String(data.get(`opt_${opt.key}`) ?? opt.default);
    const body = { name, game: game.id, options, system: systemFrom(data, currentSystem()), rated: ratedBox.checked };
    if (!clockFixedBy(game, options)) body.time_control = clockFrom(data);
    if (startKind.value === 'at') {
      const at = data.get('starts_at') ? new Date(String(data.get('starts_at'))).getTime() : NaN;
      if (!Number.isFinite(at)) { problem('Pick the date and time it starts.', startAt); return; }
      body.starts_at_ms = at;
    } else {
      body.starts_in_s = Math.round(Number(data.get('starts_in_min') || 0) * 60);
    }
    const numberOrNull = (key) => { const v = String(data.get(key) ?? '').trim(); return v === '' ? null : Number(v); };
    body.min_rating = numberOrNull('min_rating');
    body.max_rating = numberOrNull('max_rating');
    body.max_players = numberOrNull('max_players');
    body.bots_allowed = data.get('bots_allowed') === 'on';
    submit.disabled = true;
    try {
      const res = await api.createTournament(body);
      navigate(`/tournament/${encodeURIComponent(res.tournament.id)}`);
    } catch (err) {
      message.textContent = err.message;
    } finally {
      submit.disabled = false;
    }
  });
}

/** The `system` object of the create request, from the form. */
function systemFrom(data, kind) {
  const n = (key, fallback) => { const v = Number(data.get(key)); return Number.isFinite(v) && v > 0 ? Math.round(v) : fallback; };
  switch (kind) {
    case 'swiss': return { kind, rounds: n('rounds', 5) };
    case 'knockout': return { kind, rules: { games: n('ko_games', 1), third_place: data.get('third_place') === 'on' } };
    case 'arena': return { kind, duration_ms: n('duration_min', 60) * 60000 };
    case 'championship': return { kind, groups: n('groups', 2), advance: n('advance', 2), cycles: n('group_cycles', 1), knockout: { games: n('cs_games', 1) } };
    default: return { kind: 'round_robin', cycles: n('cycles', 1) };
  }
}

/** The clock in the API's text form: "fischer:180+2", "match:20+5", "shot:45", "none". */
function clockFrom(data) {
  const n = (key) => Number(data.get(key)) || 0;
  const trim = (v) => String(Math.round(v * 10) / 10);
  switch (data.get('tc')) {
    case 'fischer': return `fischer:${trim(n('base_min') * 60)}+${trim(n('inc_s'))}`;
    case 'match_clock': return `match:${trim(n('total_min'))}+${trim(n('overtime_min'))}`;
    case 'shot_clock': return `shot:${trim(n('per_move_s'))}`;
    default: return 'none';
  }
}
