// One tournament, /tournament/{id}: joining, withdrawing and (for its
// creator) starting it; the live standings with their tie-breaks, the
// crosstable, each round's pairings with links to the games, the group
// tables of a championship and the knockout bracket. Everything follows the
// tournament's WebSocket, and a player whose game starts is told at once
// (and taken to it while they are on this page).

import { h, mount, capitalise } from '../dom.js';
import { api, TournamentSocket } from '../api.js';
import { navigate } from '../app.js';
import { whoAmI, me } from '../account.js';
import { ratingText } from '../players.js';
import { bracketSvg, bracketColumnX, roundName, matchGame } from '../bracket.js';
import { tournamentKind } from './tournaments.js';

const STATUS_LABELS = { registration: 'Open for entries', running: 'Running', finished: 'Finished' };

/** Short column heads for the tie-breaks the server names (the full name is the heading's title). */
const TIEBREAK_SHORT = {
  'sonneborn-berger': 'SB',
  buchholz: 'Bh',
  'buchholz cut 1': 'Bh-1',
  'buchholz cut-1': 'Bh-1',
  'direct encounter': 'DE',
  wins: 'Wins',
  'score difference': 'Diff',
  'total score difference': 'Diff',
};

/** Points as players write them: 2½, 3, ½ (a decimal beyond halves as it is). */
export function pointsText(p) {
  if (p === null || p === undefined) return '';
  const n = Number(p);
  if (Number.isInteger(n)) return String(n);
  if (Number.isInteger(n * 2)) return `${n < 0 ? '−' : ''}${Math.floor(Math.abs(n)) || ''}½`;
  return String(Math.round(n * 100) / 100);
}

function tiebreakShort(name) {
  const key = String(name).toLowerCase().replace(/–/g, '-');
  return TIEBREAK_SHORT[key] || String(name).split(/[\s-]+/).map((w) => w[0]).join('').toUpperCase();
}

/** Time left as "4:05" or "1 h 20 min". */
function countdown(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Every game of the tournament: the rounds' and the bracket's. */
export function allGames(t) {
  const games = [];
  for (const round of t.rounds || []) games.push(...(round.games || []));
  for (const round of (t.bracket && t.bracket.rounds) || []) for (const match of round) games.push(...(match.games || []));
  return games;
}

/** The viewer's games that can be played now (created, not finished). */
function myOpenGames(t) {
  const mine = t.me && t.me.joined ? t.me.pid : null;
  if (mine === null || mine === undefined) return [];
  const seen = new Set();
  return allGames(t).filter((g) => g.game_id && g.status !== 'finished' && (g.first === mine || g.second === mine)
    && !seen.has(g.game_id) && seen.add(g.game_id));
}

export async function tournamentPage(root, [id]) {
  await whoAmI();
  let t;
  let meta;
  try {
    [t, meta] = await Promise.all([api.tournament(id).then((res) => res.tournament), api.meta()]);
  } catch (err) {
    if (err.status !== 404) throw err;
    document.title = 'No such tournament · Tabula';
    mount(root, h('div', { class: 'card error-page', id: 'unknown-tournament' }, h('h1', {}, 'No such tournament'),
      h('p', {}, 'There is no tournament here. ', h('a', { href: '/tournaments', 'data-link': true }, 'See the tournaments'), '.')));
    return null;
  }
  const games = meta.games;

  const heading = h('h1', { id: 'tournament-name' });
  const statusBadge = h('span', { class: 'badge t-status', id: 'tournament-status' });
  const kindLine = h('p', { class: 't-kind', id: 'tournament-kind' });
  const when = h('p', { class: 't-when', id: 'tournament-when' });
  const limits = h('p', { class: 'hint', id: 'tournament-limits' });
  const actions = h('div', { class: 't-actions', id: 'tournament-actions' });
  const actionError = h('p', { class: 'error', role: 'alert', id: 'tournament-error' });
  const winner = h('p', { class: 't-winner', id: 'tournament-winner', hidden: true });
  const connection = h('p', { class: 'hint t-connection', id: 'tournament-connection', 'aria-live': 'polite' });
  const yourGame = h('div', { class: 'your-game', id: 'your-game', role: 'status', hidden: true });

  const standingsHost = h('div', { id: 'standings-host' });
  const playersHost = h('div', { id: 'players-host' });
  const groupsCard = h('section', { class: 'card t-groups', 'aria-labelledby': 'groups-title', hidden: true },
    h('h2', { id: 'groups-title' }, 'Groups'), h('div', { id: 'group-standings' }));
  const bracketHost = h('div', { class: 'bracket-scroll', id: 'bracket-host' });
  const bracketList = h('div', { id: 'bracket-list' });
  const bracketCard = h('section', { class: 'card t-bracket', 'aria-labelledby': 'bracket-title', hidden: true },
    h('h2', { id: 'bracket-title' }, 'Knockout'), bracketHost, bracketList);
  const crossHost = h('div', { class: 'table-scroll', id: 'crosstable-host' });
  const crossCard = h('section', { class: 'card t-cross', 'aria-labelledby': 'cross-title', hidden: true },
    h('h2', { id: 'cross-title' }, 'Crosstable'), crossHost);
  const roundsHost = h('div', { id: 'rounds' });
  const roundsCard = h('section', { class: 'card t-rounds', 'aria-labelledby': 'rounds-title' },
    h('h2', { id: 'rounds-title' }, 'Pairings'), roundsHost);
  const standingsCard = h('section', { class: 'card t-standings', 'aria-labelledby': 'standings-title' },
    h('h2', { id: 'standings-title' }, 'Standings'), standingsHost, playersHost);

  const page = h('div', { class: 'tournament-page', 'data-tournament-id': id },
    h('header', { class: 'card t-head' },
      h('div', { class: 't-title' }, heading, statusBadge),
      kindLine, when, limits, winner, actions, actionError, connection),
    yourGame,
    bracketCard,
    h('div', { class: 't-grid' },
      h('div', { class: 't-main' }, standingsCard, groupsCard, crossCard),
      h('div', { class: 't-side' }, roundsCard)));
  mount(root, page);

  const act = (fn, button) => async () => {
    actionError.textContent = '';
    if (button) button.disabled = true;
    try {
      const res = await fn();
      if (res && res.tournament) show(res.tournament);
    } catch (err) {
      actionError.textContent = err.message;
    } finally {
      if (button) button.disabled = false;
    }
  };

  const drawn = new Map();
  /** Redraws a part only when what it shows changed (keeps the focus and the scroll). */
  const part = (name, data, draw) => {
    const key = JSON.stringify(data);
    if (drawn.get(name) === key) return;
    drawn.set(name, key);
    draw();
  };
  const roundOpen = new Map(); // round number → open, for rounds the viewer opened or closed
  const seenGames = new Set(allGames(t).map((g) => g.game_id).filter(Boolean));
  let left = false;

  const drawWhen = () => {
    const now = Date.now();
    if (t.status === 'registration') {
      const at = t.starts_at_ms;
      when.textContent = at
        ? (at > now ? `Starts in ${countdown(at - now)} (${new Date(at).toLocaleString()})` : 'Starting…')
        : 'Starts when its creator starts it';
    } else if (t.status === 'running') {
      const arena = t.system && t.system.kind === 'arena';
      const next = t.next_round_at_ms && t.next_round_at_ms > now ? countdown(t.next_round_at_ms - now) : null;
      when.textContent = arena
        ? `Pairing${next ? ` until ${new Date(t.next_round_at_ms).toLocaleTimeString()} (${next} left)` : ''}`
        : [t.round ? `Round ${t.round}` : 'Playing', next ? `next round in ${next}` : null].filter(Boolean).join(' · ');
    } else {
      when.textContent = t.end_reason ? capitalise(t.end_reason) : ''; // the badge already says it is over
    }
  };

  const show = (next) => {
    if (left) return;
    t = next;
    window.tabulaTournament = t;
    document.title = `${t.name} · Tabula`;
    page.dataset.status = t.status;
    heading.textContent = t.name;
    statusBadge.textContent = STATUS_LABELS[t.status] || t.status;
    statusBadge.dataset.status = t.status;
    kindLine.textContent = tournamentKind(t, games);
    const playerCount = t.player_count ?? (t.players || []).filter((p) => !p.withdrawn).length;
    limits.textContent = [
      `${playerCount}${t.max_players ? ` of at most ${t.max_players}` : ''} players`,
      t.min_rating || t.max_rating ? `rating ${t.min_rating ?? 'any'}–${t.max_rating ?? 'any'}` : null,
      t.bots_allowed ? 'bots welcome' : 'no bots',
      t.created_by ? `created by ${t.created_by}` : null,
    ].filter(Boolean).join(' · ');
    drawWhen();
    winner.hidden = !t.winner;
    if (t.winner) mount(winner, 'Won by ', profileLink(t.winner.user));

    part('actions', [t.status, t.me, !!me()], () => drawActions());
    part('your-game', myOpenGames(t).map((g) => [g.game_id, g.status]), () => drawYourGame());
    const byPid = new Map((t.players || []).map((p) => [p.pid, p]));
    part('standings', [t.standings, t.players, t.status, t.me && t.me.pid], () => {
      // Before the start everyone has nothing: the entrants are listed instead.
      const rows = t.status === 'registration' ? [] : t.standings || [];
      standingsCard.querySelector('h2').textContent = rows.length ? 'Standings' : 'Players';
      mount(standingsHost, rows.length ? standingsTable(rows, byPid, t.me, 'standings') : null);
      const entrants = (t.players || []).filter((p) => !p.withdrawn);
      mount(playersHost, rows.length ? null : entrants.length
        ? h('ul', { class: 't-players', id: 'tournament-players' }, entrants.map((p) => h('li', { 'data-pid': p.pid, 'data-user': p.user },
          profileLink(p.user), p.bot ? h('span', { class: 'badge bot-badge' }, 'BOT') : null,
          p.rating ? h('span', { class: 'player-rating' }, ` ${ratingText(p)}`) : null)))
        : h('p', { class: 'hint', id: 'tournament-players' }, 'Nobody has joined yet.'));
    });
    part('groups', [t.group_standings, t.players], () => {
      const groups = t.group_standings || [];
      groupsCard.hidden = groups.length === 0;
      mount(groupsCard.querySelector('#group-standings'), groups.map((rows, i) => h('div', { class: 't-group', 'data-group': i },
        h('h3', {}, `Group ${String.fromCharCode(65 + i)}`),
        standingsTable(rows, byPid, t.me, `group-${i}`))));
    });
    part('crosstable', [t.crosstable, t.standings], () => {
      const ct = t.crosstable;
      // Shown once a result is in (and never for an arena, where pairs meet any number of times).
      crossCard.hidden = !ct || !(ct.cells || []).some((row) => (row || []).some((c) => c !== null && c !== undefined))
        || (t.system && t.system.kind === 'arena');
      if (!crossCard.hidden) mount(crossHost, crosstable(ct, t, byPid));
    });
    part('bracket', [t.bracket, t.me && t.me.pid], () => {
      const bracket = t.bracket;
      bracketCard.hidden = !bracket || !(bracket.rounds || []).length;
      if (bracketCard.hidden) return;
      const firstDraw = !bracketHost.firstChild;
      mount(bracketHost, bracketSvg(bracket, { me: t.me && t.me.joined ? t.me.pid : null }));
      // On a narrow screen, open on the round being played (later redraws leave the scroll to the reader).
      const playing = (bracket.rounds || []).findIndex((round) => round.some((m) => m.slot_a && m.slot_b && (m.winner === null || m.winner === undefined)));
      if (firstDraw && playing > 0) bracketHost.scrollLeft = bracketColumnX(playing) - 8;
      mount(bracketList, bracketMatches(bracket));
    });
    part('rounds', [t.rounds, t.bracket ? 1 : 0], () => {
      const rounds = t.rounds || [];
      roundsCard.hidden = rounds.length === 0 && !!t.bracket;
      mount(roundsHost, rounds.length ? roundList(rounds, t, byPid, roundOpen) : h('p', { class: 'hint' },
        t.status === 'registration' ? 'The pairings appear when it starts.' : 'No games yet.'));
    });

    // A game of mine that was not there before: off to it, unless I left the page.
    const fresh = myOpenGames(t).filter((g) => !seenGames.has(g.game_id));
    for (const g of allGames(t)) if (g.game_id) seenGames.add(g.game_id);
    if (fresh.length && location.pathname === `/tournament/${id}`) navigate(`/game/${encodeURIComponent(fresh[0].game_id)}`);
  };

  function drawActions() {
    const mine = t.me || {};
    const buttons = [];
    if (!me()) {
      if (t.status !== 'finished') buttons.push(h('p', { class: 'hint', id: 'tournament-login' }, h('a', { href: '/login', 'data-link': true }, 'Log in'), ' to take part.'));
    } else {
      if (mine.can_join) {
        const b = h('button', { type: 'button', class: 'primary', id: 'join-tournament' }, 'Join');
        b.addEventListener('click', act(() => api.joinTournament(id), b));
        buttons.push(b);
      }
      if (mine.can_withdraw) {
        const b = h('button', { type: 'button', id: 'withdraw-tournament' }, 'Withdraw');
        b.addEventListener('click', act(() => {
          if (!confirm(t.status === 'registration' ? 'Leave this tournament?' : 'Withdraw from this tournament? You will not be paired again.')) return null;
          return api.withdrawTournament(id);
        }, b));
        buttons.push(b);
      }
      if (mine.is_creator && t.status === 'registration') {
        const b = h('button', { type: 'button', id: 'start-tournament' }, 'Start now');
        b.addEventListener('click', act(() => api.startTournament(id), b));
        buttons.push(b);
      }
      if (mine.joined) buttons.push(h('span', { class: 'hint t-joined', id: 'tournament-joined' }, t.status === 'finished' ? 'You played in it.' : 'You are in.'));
    }
    mount(actions, buttons);
  }

  function drawYourGame() {
    const open = myOpenGames(t);
    yourGame.hidden = open.length === 0;
    if (!open.length) { mount(yourGame); return; }
    const g = open[0];
    const opponent = g.first === t.me.pid ? g.second_user : g.first_user;
    mount(yourGame,
      h('span', {}, h('strong', {}, 'Your game has started'), opponent ? ` against ${opponent}.` : '.'),
      h('a', { href: `/game/${encodeURIComponent(g.game_id)}`, 'data-link': true, class: 'button primary', id: 'play-your-game' }, 'Play'));
  }

  show(t);
  const socket = new TournamentSocket(id, {
    onTournament: show,
    onStatus: (status) => { connection.textContent = status === 'offline' ? 'Reconnecting… the standings may be behind.' : ''; },
  });
  const ticker = setInterval(drawWhen, 1000);
  return () => {
    left = true;
    clearInterval(ticker);
    socket.close();
  };
}

function profileLink(user) {
  return h('a', { href: `/@/${encodeURIComponent(user)}`, 'data-link': true }, user);
}

function standingsTable(rows, byPid, mine, id) {
  const tiebreaks = rows[0] && rows[0].tiebreaks ? rows[0].tiebreaks : [];
  const names = tiebreaks.map((tb) => tb.name);
  const winsListed = names.some((n) => /^wins$/i.test(n));
  const myPid = mine && mine.joined ? mine.pid : null;
  const table = h('table', { class: 'ranking t-table', id },
    h('caption', { class: 'sr-only' }, 'Standings, best first'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, '#'),
      h('th', { scope: 'col' }, 'Player'),
      h('th', { scope: 'col', class: 'num' }, h('abbr', { title: 'Points' }, 'Pts')),
      h('th', { scope: 'col', class: 'num' }, 'Games'),
      winsListed ? null : h('th', { scope: 'col', class: 'num' }, 'Wins'),
      tiebreaks.map((tb) => h('th', { scope: 'col', class: 'num' }, h('abbr', { title: capitalise(tb.name) }, tb.label || tiebreakShort(tb.name)))))),
    h('tbody', {}, rows.map((r) => {
      const p = byPid.get(r.pid) || {};
      return h('tr', { 'data-pid': r.pid, 'data-user': r.user, class: `${r.pid === myPid ? 'mine' : ''}${p.withdrawn ? ' withdrawn' : ''}`.trim() || null },
        h('td', { class: 'num' }, String(r.rank)),
        h('td', {}, profileLink(r.user), p.bot ? h('span', { class: 'badge bot-badge' }, 'BOT') : null,
          p.rating ? h('span', { class: 'player-rating' }, ` ${ratingText(p)}`) : null,
          p.withdrawn ? h('span', { class: 'hint' }, ' (withdrew)') : null),
        h('td', { class: 'num t-points' }, pointsText(r.points)),
        h('td', { class: 'num' }, String(r.games ?? '')),
        winsListed ? null : h('td', { class: 'num' }, String(r.wins ?? '')),
        (r.tiebreaks || []).map((tb) => h('td', { class: 'num' }, tb.value === null || tb.value === undefined ? '–' : pointsText(tb.value))));
    })));
  return [h('div', { class: 'table-scroll' }, table),
    names.length ? h('p', { class: 'hint t-tiebreak-note' }, `Ties are broken by ${names.join(', then ')}.`) : null];
}

function crosstable(ct, t, byPid) {
  const pids = ct.pids || [];
  const points = new Map((t.standings || []).map((r) => [r.pid, r.points]));
  const name = (pid) => (byPid.get(pid) || {}).user || `#${pid}`;
  return h('table', { class: 'crosstable', id: 'crosstable' },
    h('caption', { class: 'sr-only' }, 'Crosstable: the row player’s results against each column player'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, 'Player'),
      pids.map((pid, j) => h('th', { scope: 'col', class: 'num', title: name(pid) }, String(j + 1))),
      h('th', { scope: 'col', class: 'num' }, h('abbr', { title: 'Points' }, 'Pts')))),
    h('tbody', {}, pids.map((pid, i) => h('tr', { 'data-pid': pid, 'data-user': name(pid), class: t.me && t.me.joined && t.me.pid === pid ? 'mine' : null },
      h('td', { class: 'num' }, String(i + 1)),
      h('th', { scope: 'row' }, name(pid)),
      pids.map((other, j) => {
        const cell = (ct.cells[i] || [])[j];
        return h('td', { class: `num cross-cell${i === j ? ' self' : ''}`, 'data-col': other, title: i === j ? null : `${name(pid)} against ${name(other)}` }, cell ?? '');
      }),
      h('td', { class: 'num t-points' }, pointsText(points.get(pid)))))));
}

function gameLine(g, mine) {
  const mineToo = mine !== null && (g.first === mine || g.second === mine);
  const result = g.result ? g.result : g.status === 'live' ? 'playing' : 'waiting';
  const label = `${g.first_user ?? '?'} – ${g.second_user ?? '?'}`;
  return h('li', { class: `t-game status-${g.status}${mineToo ? ' mine' : ''}`, 'data-tid-game': g.tid_game, 'data-game-id': g.game_id || null },
    h('span', { class: 't-pair' }, h('span', { class: 't-first' }, g.first_user ?? '?'), h('span', { class: 'versus' }, ' – '), h('span', { class: 't-second' }, g.second_user ?? '?')),
    h('span', { class: 't-result' },
      g.game_id
        ? h('a', { href: `/game/${encodeURIComponent(g.game_id)}`, 'data-link': true, 'aria-label': `${label}: ${result}${mineToo && g.status !== 'finished' ? ', your game' : ''}` },
          mineToo && g.status !== 'finished' ? 'Play' : result)
        : result,
      g.forfeit ? h('span', { class: 'hint' }, ' (forfeit)') : null));
}

function roundList(rounds, t, byPid, roundOpen) {
  const mine = t.me && t.me.joined ? t.me.pid : null;
  const latest = Math.max(...rounds.map((r) => r.round));
  const arena = t.system && t.system.kind === 'arena';
  return [...rounds].reverse().map((round) => {
    const played = (round.games || []).filter((g) => g.status === 'finished').length;
    const stage = (round.games || []).find((g) => g.stage) ? round.games.find((g) => g.stage).stage : null;
    const details = h('details', { class: 't-round', 'data-round': round.round, open: roundOpen.has(round.round) ? roundOpen.get(round.round) : round.round === latest },
      h('summary', {}, arena ? 'Games' : `Round ${round.round}`, stage === 'group' ? ' (groups)' : '',
        h('span', { class: 'hint' }, ` · ${played} of ${(round.games || []).length} played`)),
      h('ul', { class: 't-games' }, (round.games || []).map((g) => gameLine(g, mine)),
        (round.byes || []).map((b) => h('li', { class: 't-bye', 'data-pid': b.pid },
          h('span', { class: 't-pair' }, (byPid.get(b.pid) || {}).user || `#${b.pid}`),
          h('span', { class: 't-result hint' }, `${b.kind === 'rest' ? 'sits out' : 'bye'}${b.points ? ` (${pointsText(b.points)})` : ''}`)))));
    details.addEventListener('toggle', () => roundOpen.set(round.round, details.open));
    return details;
  });
}

/** The bracket's matches as text, round by round: what the picture shows, for reading and screen readers. */
function bracketMatches(bracket) {
  const rounds = bracket.rounds || [];
  const sections = rounds.map((round, r) => [roundName(r, rounds.length), round]);
  if (bracket.third_place) sections.push(['Third place', [bracket.third_place]]);
  return h('details', { class: 't-bracket-list' },
    h('summary', {}, 'The matches as a list'),
    sections.map(([name, round]) => h('div', {},
      h('h3', {}, name),
      h('ul', {}, round.map((m) => {
        const game = matchGame(m);
        const a = m.slot_a ? m.slot_a.user : 'to be decided';
        const b = m.slot_b ? m.slot_b.user : 'to be decided';
        return h('li', { 'data-match': m.match },
          `${a} – ${b}`, m.score ? ` ${m.score}` : '',
          game ? [' · ', h('a', { href: `/game/${encodeURIComponent(game.game_id)}`, 'data-link': true }, game.status === 'finished' ? 'last game' : 'watch')] : null);
      })))));
}
