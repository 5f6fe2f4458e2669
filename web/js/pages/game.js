// The game page: the board between the two players' bars, and beside it the
// status, clocks, result, draw offers, the move list (click a move to see
// that position, then come back to the live one), typed moves and the
// buttons. Every change comes from the server over the game's WebSocket;
// moves go back the same way. A lost connection shows a banner, and moves
// made meanwhile wait as premoves (square boards) or are refused.
//
// The side column is a stack of cards so that later parts (an analysis
// board, the opponent's presence) slot in as cards or bar items.

import { h, mount, title, capitalise, formatClock } from '../dom.js';
import { api, tokens, GameSocket } from '../api.js';
import { createBoard, swatch } from '../boards/index.js';
import { MoveList } from '../movelist.js';
import { navigate } from '../app.js';
import { playSound } from '../sound.js';
import { showTurn, clearTurn } from '../turn.js';
import { seatName } from '../seats.js';
import { icon } from '../icons.js';
import { whoAmI, me as account } from '../account.js';
import { ratingText, ratingDiffText, categoryLabel } from '../players.js';

const LOW_TIME_MS = 10000;

export async function gamePage(root, [gameId]) {
  const params = new URLSearchParams(location.search);
  const notice = h('p', { class: 'notice', id: 'notice', role: 'status' });
  const invite = params.get('invite');
  if (invite) {
    try {
      const joined = await api.join(gameId, invite, localStorage.getItem('tabula.name') || undefined);
      tokens.add(gameId, { [joined.player]: joined.token });
    } catch (err) {
      if (!Object.keys(tokens.get(gameId)).length) notice.textContent = `Could not join: ${err.message}. You are watching.`;
    }
    history.replaceState(null, '', `/game/${gameId}`);
  }

  await whoAmI();
  let game = await api.game(gameId);
  inheritRematchTokens(game);
  /** The seat tokens this browser holds for the game (a guest's way of playing). */
  const mine = () => tokens.get(gameId);
  /** Whether the logged-in account sits in seat `p` (it acts by its cookie, no token needed). */
  const ownsSeat = (p) => {
    const a = account();
    const seat = game.seats.find((st) => st.player === p);
    return !!a && !!seat && !!seat.user && seat.user.toLowerCase() === a.username.toLowerCase();
  };
  const isMine = (p) => !!mine()[p] || ownsSeat(p);
  const myPlayers = () => game.players.filter(isMine);
  const board = createBoard(game.game, {
    onMove: (move) => sendMove(move),
    keyboard: true,
    bars: true,
    label: `${game.name} board`,
  });
  // Your own bar sits under the board. A board with sides turns round for
  // the second player; Dots has none, so nobody sees it turned by default.
  const sided = board.constructor.sided;
  let bottom = myPlayers().length === 1 ? myPlayers()[0] : game.players[0];
  let flipped = sided && bottom === game.players[1];
  board.flipped = flipped;

  // ----- the parts of the page -----
  const bars = {};
  for (const p of game.players) {
    bars[p] = {
      root: h('div', { class: `player-bar player-${p}`, 'data-player': p }),
      clock: h('span', { class: 'clock', 'data-clock': p, role: 'timer', 'aria-label': `${title(p)}'s clock` }),
      score: h('span', { class: 'score', 'data-score': p }),
    };
  }
  const topHost = h('div', { class: 'bar-host bar-top' });
  const bottomHost = h('div', { class: 'bar-host bar-bottom' });
  const boardHost = h('div', { class: 'board-host' }, board.el);
  const gameInfo = h('p', { class: 'game-info', id: 'game-info' });
  const heading = h('h1', { class: 'game-title' });
  const statusLine = h('p', { class: 'status-line', id: 'status-line', 'aria-live': 'polite' });
  const matchClock = h('div', { class: 'match-clock', id: 'match-clock', hidden: true });
  const firstMove = h('p', { class: 'first-move hint', id: 'first-move', hidden: true });
  const banner = h('div', { class: 'result-banner', id: 'result-banner', hidden: true, role: 'status' });
  const gameKind = h('p', { class: 'hint game-kind', id: 'game-kind' });
  const claimBox = h('div', { class: 'claim-box', id: 'claim-box', 'aria-live': 'polite', hidden: true });
  const drawBox = h('div', { class: 'draw-box', id: 'draw-box', 'aria-live': 'polite' });
  const inviteBox = h('div', { class: 'invite-box', id: 'invite-box' });
  const historyBar = h('div', { class: 'history-bar', id: 'history-bar' });
  const moveList = new MoveList({ onSelect: (ply) => browse(ply) });
  const typedInput = h('input', {
    type: 'text', id: 'move-input', name: 'move', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
    'aria-label': 'Type a move', 'aria-describedby': 'move-input-error',
  });
  const typedError = h('p', { class: 'error typed-error', id: 'move-input-error', 'aria-live': 'polite' });
  const typedForm = h('form', { class: 'typed-move', id: 'typed-move' },
    h('label', { for: 'move-input', class: 'sr-only' }, 'Type a move'), typedInput,
    h('button', { type: 'submit', id: 'move-input-play' }, 'Play'), typedError);
  const controls = h('div', { class: 'controls' });
  const links = h('p', { class: 'links' });
  const offline = h('div', { class: 'offline-banner', id: 'offline-banner', role: 'alert', hidden: true });

  mount(root, h('div', { class: 'game-page', 'data-game': game.game, 'data-game-id': gameId },
    offline,
    h('div', { class: 'board-column' }, topHost, boardHost, bottomHost, gameInfo),
    h('aside', { class: 'side-column' },
      h('section', { class: 'card status-card', 'aria-label': 'Game status' },
        heading, gameKind, statusLine, matchClock, firstMove, banner, notice, claimBox, drawBox, inviteBox),
      h('section', { class: 'card moves-card', 'aria-label': 'Moves' },
        h('h2', {}, 'Moves'), historyBar, moveList.el, typedForm),
      h('section', { class: 'card controls-card', 'aria-label': 'Game actions' }, controls, links))));

  // ----- state kept by the page -----
  let clockBase = performance.now();
  let connected = true;
  let viewPly = null; // null: the live position; else the ply shown from the history
  const positions = new Map();
  let lowTimeWarned = false;

  // ----- clocks: they tick locally between server messages -----
  const clockRunning = () => {
    const clock = game.clock;
    if (!clock || game.result || game.status !== 'live') return null;
    return clock.shared ? (clock.running ? 'shared' : null) : clock.running;
  };
  const remaining = (p) => {
    const clock = game.clock;
    let ms = clock.remaining_ms[p];
    const running = clockRunning();
    if (running && (running === 'shared' || running === p)) ms -= performance.now() - clockBase;
    return ms;
  };
  const tick = () => {
    const clock = game.clock;
    const running = clockRunning();
    if (clock && clock.shared) {
      const ms = remaining(game.players[0]);
      matchClock.hidden = false;
      matchClock.classList.toggle('running', running === 'shared');
      matchClock.classList.toggle('low', running === 'shared' && ms < LOW_TIME_MS);
      matchClock.classList.toggle('overtime', !!clock.overtime);
      mount(matchClock,
        h('span', { class: 'match-clock-label' }, clock.overtime ? 'Overtime' : 'Match clock'),
        h('span', { class: 'clock', 'data-clock': 'match', role: 'timer' }, formatClock(ms)),
        h('span', { class: 'match-clock-state' }, running ? 'running' : game.result ? 'stopped' : 'paused'));
      warnLowTime(running === 'shared' && myPlayers().length === 1 ? ms : Infinity);
    } else {
      matchClock.hidden = true;
    }
    if (!claimBox.hidden || game.claim_available_at_ms) renderClaim(myPlayers());
    const deadline = game.first_move_deadline_ms;
    if (deadline && !game.result && game.status === 'live') {
      const left = deadline - (game.server_time_ms + (performance.now() - clockBase));
      firstMove.hidden = false;
      const mover = isMine(game.state.to_move) && myPlayers().length === 1 ? 'You have' : `${title(game.state.to_move)} has`;
      firstMove.textContent = `${mover} ${formatClock(Math.max(0, left))} to make a first move, or the game is aborted.`;
    } else {
      firstMove.hidden = true;
    }
    for (const p of game.players) {
      const el = bars[p].clock;
      if (!clock || clock.shared) { el.textContent = ''; continue; }
      const ms = remaining(p);
      el.textContent = formatClock(ms);
      el.classList.toggle('running', running === p);
      el.classList.toggle('low', running === p && ms < LOW_TIME_MS);
      if (running === p && isMine(p) && myPlayers().length === 1) warnLowTime(ms);
    }
  };
  const warnLowTime = (ms) => {
    if (ms < LOW_TIME_MS && ms > 0 && !lowTimeWarned) { lowTimeWarned = true; playSound('low_time'); }
  };
  const timer = setInterval(tick, 100);

  // ----- drawing the page from `game` -----
  const canMove = () => connected && game.status === 'live' && !game.result
    && game.state.status === 'ongoing' && isMine(game.state.to_move);
  const premoveSide = () => {
    const me = myPlayers();
    if (me.length !== 1 || game.result || game.status !== 'live') return null;
    return game.state.to_move !== me[0] || !connected ? me[0] : null;
  };

  const render = () => {
    window.tabulaGame = game; // for the browser tests and the curious
    const me = myPlayers();
    board.flipped = flipped;
    if (viewPly === null) {
      board.setState({ ...game.state, view: game.view }, { interactive: canMove(), premoveSide: premoveSide() });
    }
    heading.textContent = game.name;
    root.querySelector('.game-page').style.setProperty('--aspect', board.aspect);
    showTurn(`${game.name} · Tabula`, canMove() && me.length === 1);

    const top = game.players.find((p) => p !== bottom);
    for (const p of game.players) renderBar(p, me);
    mount(topHost, bars[top].root);
    mount(bottomHost, bars[bottom].root);
    gameInfo.textContent = board.gameInfo();
    statusLine.textContent = statusText(game, me, canMove(), connected);

    if (game.result) {
      banner.hidden = false;
      banner.dataset.winner = game.result.winner || 'draw';
      const winnerSeat = game.result.winner && game.seats.find((st) => st.player === game.result.winner);
      const who = game.status === 'aborted' ? 'Game aborted'
        : game.result.winner ? `${winnerSeat && winnerSeat.user ? `${winnerSeat.user} (${title(game.result.winner)})` : title(game.result.winner)} wins` : 'Draw';
      mount(banner, h('strong', {}, who), h('span', { class: 'reason' }, capitalise(game.result.reason || '')),
        ratingChangesLine());
    } else {
      banner.hidden = true;
    }
    renderDraw(me);
    renderClaim(me);
    renderInvite();
    gameKind.textContent = 'rated' in game ? [game.rated ? 'Rated' : 'Casual', game.category ? categoryLabel(game.category) : null].filter(Boolean).join(' · ') : '';
    renderControls(me);
    renderMoves();
    typedInput.placeholder = typedPlaceholder();
    typedForm.hidden = !!game.result || !me.length;
    typedInput.disabled = !canMove();
    typedForm.querySelector('button').disabled = !canMove();
    mount(links,
      h('a', { href: api.exportUrl(gameId), download: '' }, `Export (${game.record_format.toUpperCase()})`),
      ' · ',
      h('a', { href: `/replay/${gameId}`, 'data-link': true }, 'Replay'),
      ' · ',
      // Analysing is for games that are over: the engine's view is no help to give a player mid-game.
      game.result ? [h('a', { href: `/analysis?game=${encodeURIComponent(gameId)}&ply=${game.moves.length}`, 'data-link': true, id: 'analyse-link' }, 'Analyse'), ' · '] : null,
      h('a', { href: `/howto/${game.game}`, 'data-link': true }, 'Rules'));
    tick();
  };

  /** Whether the player of seat `p` has the game open (null when the server does not say). */
  const onlineOf = (p) => {
    if (game.presence && typeof game.presence[p] === 'boolean') return game.presence[p];
    const seat = game.seats.find((st) => st.player === p) || {};
    if (typeof seat.online === 'boolean') return seat.online;
    return typeof seat.connected === 'boolean' ? seat.connected : null;
  };

  /** After a rated game: each player's new rating and its change. */
  const ratingChangesLine = () => {
    const changes = game.rating_changes;
    if (!changes) return null;
    return h('span', { class: 'rating-changes', id: 'rating-changes' }, game.players.filter((p) => changes[p]).map((p, i) => {
      const c = changes[p];
      const seat = game.seats.find((st) => st.player === p) || {};
      return [i ? ' · ' : '', `${seat.user || title(p)} ${Math.round(c.after)}${c.provisional ? '?' : ''} (${ratingDiffText(c.diff)})`];
    }));
  };

  /** The player on move may claim the win (or a draw) once the opponent has been gone long enough. */
  const renderClaim = (me) => {
    const at = game.claim_available_at_ms;
    const mover = game.state.to_move;
    const opponent = game.players.find((p) => p !== mover);
    const show = at && me.length === 1 && me[0] === mover && game.status === 'live' && !game.result && onlineOf(opponent) === false;
    claimBox.hidden = !show;
    if (!show) { claimBox.dataset.at = ''; return; }
    const left = at - serverNow();
    const seat = game.seats.find((st) => st.player === opponent) || {};
    const who = seat.user || seatName(seat, game.players);
    const state = left > 0 ? 'wait' : 'ready';
    if (claimBox.dataset.state === state && claimBox.dataset.at === String(at)) {
      if (left > 0) claimBox.querySelector('.claim-count').textContent = `${Math.ceil(left / 1000)} s`;
      return;
    }
    claimBox.dataset.state = state;
    claimBox.dataset.at = String(at);
    if (left > 0) {
      mount(claimBox, h('span', {}, `${who} has left the game. If they do not come back, you can claim the win in `), h('span', { class: 'claim-count' }, `${Math.ceil(left / 1000)} s`), '.');
    } else {
      mount(claimBox, h('p', {}, `${who} has left the game.`),
        h('button', { type: 'button', id: 'claim-win', class: 'primary', onclick: () => action(() => api.claim(gameId, tokenFor(me), 'win')) }, 'Claim the win'),
        h('button', { type: 'button', id: 'claim-draw', onclick: () => action(() => api.claim(gameId, tokenFor(me), 'draw')) }, 'Call it a draw'),
        h('span', { class: 'hint' }, ' or wait for them.'));
    }
  };
  const serverNow = () => (game.server_time_ms || Date.now()) + (performance.now() - clockBase);

  const renderBar = (p, me) => {
    const seat = game.seats.find((st) => st.player === p) || {};
    const you = isMine(p) && me.length === 1 ? ' (you)' : '';
    const state = game.state;
    bars[p].score.textContent = state.score ? `${state.score[p]}` : '';
    const toMove = game.status === 'live' && !game.result && state.to_move === p;
    const online = onlineOf(p);
    const presence = typeof online === 'boolean' && seat.kind !== 'ai' && seat.joined !== false
      ? h('span', { class: `presence ${online ? 'online' : 'away'}`, 'data-online': online, title: online ? 'connected' : 'not connected', role: 'img', 'aria-label': online ? 'connected' : 'not connected' })
      : null;
    const change = game.rating_changes && game.rating_changes[p];
    const name = seat.user
      ? h('a', { href: `/@/${encodeURIComponent(seat.user)}`, 'data-link': true, class: 'player-link' }, seat.user)
      : seatName(seat, game.players);
    mount(bars[p].root,
      h('span', { class: swatch(p), 'aria-hidden': 'true' }),
      h('span', { class: 'player-name' }, `${title(p)} · `, name, you,
        seat.rating ? h('span', { class: 'player-rating', title: seat.provisional ? 'provisional rating' : 'rating' }, ` ${ratingText(seat)}`) : null,
        change ? h('span', { class: `rating-diff ${change.diff > 0 ? 'up' : change.diff < 0 ? 'down' : ''}`, 'data-diff': change.diff }, ` ${ratingDiffText(change.diff)}`) : null),
      presence,
      h('span', { class: 'bar-extras' }, board.barExtras(p)),
      toMove ? h('span', { class: 'turn-dot', title: 'to move', role: 'img', 'aria-label': 'to move' }) : null,
      state.score ? h('span', { class: 'score-label' }, 'score ', bars[p].score) : null,
      bars[p].clock);
    bars[p].root.classList.toggle('to-move', toMove);
  };

  const renderDraw = (me) => {
    mount(drawBox);
    const offer = game.draw_offer;
    if (declinedForMe(me) && !game.result) {
      drawBox.append(h('p', { class: 'hint', id: 'draw-declined' }, 'Your draw offer was declined.'));
    }
    if (!offer || game.result) return;
    if (me.length && !isMine(offer)) {
      drawBox.append(h('span', {}, `${title(offer)} offers a draw. `),
        h('button', { type: 'button', id: 'accept-draw', onclick: () => action(() => api.draw(gameId, tokenFor(me), 'accept')) }, 'Accept'),
        h('button', { type: 'button', id: 'decline-draw', onclick: () => action(() => api.draw(gameId, tokenFor(me), 'decline')) }, 'Decline'));
    } else {
      drawBox.append(h('span', { class: 'hint' }, `${title(offer)} offered a draw.`));
    }
  };

  /** The server says when a draw offer was declined (until the next move); the offerer is told. */
  const declinedForMe = (me) => {
    const d = game.draw_declined;
    return !!d && me.length > 0 && !isMine(d.by) && d.ply === game.state.plies;
  };

  const renderInvite = () => {
    mount(inviteBox);
    const open = game.seats.filter((st) => st.kind !== 'ai' && !st.joined);
    if (!open.length) return;
    let invites = [];
    try { invites = JSON.parse(localStorage.getItem(`tabula.invites.${gameId}`)) || []; } catch { /* none */ }
    if (!invites.length) return; // the status line says the game waits; the link is with its creator
    for (const inv of invites) {
      const link = location.origin + inv.url;
      const input = h('input', { type: 'text', readonly: true, value: link, id: 'invite-link', 'data-player': inv.player, 'aria-label': 'Invite link' });
      const copy = h('button', {
        type: 'button', id: 'copy-invite',
        onclick: async () => {
          input.select();
          try { await navigator.clipboard.writeText(link); } catch { document.execCommand('copy'); }
          copy.textContent = 'Copied';
        },
      }, 'Copy');
      inviteBox.append(h('p', {}, `Send this link to your friend (they play ${title(inv.player)}):`), h('div', { class: 'copy-row' }, input, copy));
    }
  };

  /** A game can be aborted while it waits for the opponent, or before your own first move (the server decides; this only offers the button). */
  const canAbort = (me) => {
    if (!me.length || game.result || !('first_move_deadline_ms' in game)) return false;
    if (game.status === 'waiting') return true;
    return game.status === 'live' && me.some((p) => !game.moves.some((m) => m.player === p));
  };

  const renderControls = (me) => {
    const playing = me.length > 0 && game.status !== 'waiting';
    const over = !!game.result;
    mount(controls,
      h('button', {
        type: 'button', id: 'flip',
        onclick: () => {
          flipped = !flipped;
          if (sided) bottom = game.players.find((p) => p !== bottom);
          render();
        },
      }, 'Flip board'),
      playing && !over && h('button', {
        type: 'button', id: 'offer-draw', disabled: !!(game.draw_offer && isMine(game.draw_offer)),
        onclick: () => action(() => api.draw(gameId, tokenFor(me), 'offer')),
      }, 'Offer draw'),
      canAbort(me) && h('button', {
        type: 'button', id: 'abort',
        onclick: () => action(() => api.abort(gameId, tokenFor(me))),
      }, game.status === 'waiting' ? 'Cancel the game' : 'Abort'),
      playing && !over && h('button', {
        type: 'button', id: 'resign', class: 'danger',
        onclick: () => { if (confirm('Resign this game?')) action(() => api.resign(gameId, tokenFor(me))); },
      }, 'Resign'),
      playing && over && !game.rematch_id && h('button', {
        type: 'button', id: 'rematch', class: 'primary',
        onclick: () => action(async () => {
          const res = await api.rematch(gameId, tokenFor(me));
          tokens.add(res.game.id, res.tokens || {});
          if (res.invites && res.invites.length) localStorage.setItem(`tabula.invites.${res.game.id}`, JSON.stringify(res.invites));
          navigate(`/game/${res.game.id}`);
        }),
      }, 'Rematch'),
      game.rematch_id && h('a', { href: `/game/${game.rematch_id}`, 'data-link': true, class: 'button', id: 'rematch-link' }, 'Go to the rematch'),
    );
  };

  const moveName = (m) => m.display || m.move;
  const renderMoves = () => {
    if (moveList.count !== game.moves.length || moveList.stale) {
      moveList.render(game.moves, { name: moveName, players: game.players });
      moveList.stale = false;
    }
    moveList.mark(viewPly === null ? game.moves.length : viewPly, { live: viewPly === null });
    renderHistoryBar();
  };

  const typedPlaceholder = () => {
    const first = (game.state.legal_moves || [])[0];
    return first ? `Type a move, e.g. ${board.display(first, { ...game.state, view: game.view })}` : 'Type a move';
  };

  // ----- the history: any earlier position, then back to the live one -----
  const renderHistoryBar = () => {
    const total = game.moves.length;
    const at = viewPly === null ? total : viewPly;
    const nav = (label, text, target, id) => h('button', {
      type: 'button', id, 'aria-label': label, title: label, disabled: target === at || target < 0 || target > total,
      onclick: () => browse(target),
    }, icon(text));
    mount(historyBar,
      nav('First position', 'first', 0, 'history-first'),
      nav('Previous move', 'prev', at - 1, 'history-prev'),
      nav('Next move', 'next', at + 1, 'history-next'),
      nav('Live position', 'last', total, 'history-last'),
      viewPly === null ? null : h('span', { class: 'history-note', id: 'history-note' },
        `Viewing move ${viewPly} of ${total}. `,
        h('button', { type: 'button', id: 'back-to-live', class: 'primary', onclick: () => browse(total) }, 'Back to the game')));
    historyBar.classList.toggle('browsing', viewPly !== null);
  };

  const browse = async (ply) => {
    const total = game.moves.length;
    const target = Math.max(0, Math.min(total, ply));
    if (target === total) {
      viewPly = null;
      root.querySelector('.game-page').classList.remove('browsing');
      render();
      return;
    }
    viewPly = target;
    root.querySelector('.game-page').classList.add('browsing');
    renderMoves();
    try {
      if (!positions.has(target)) positions.set(target, await api.position(gameId, target));
      if (viewPly !== target) return; // moved on meanwhile
      const pos = positions.get(target);
      board.setState({ ...pos.state, view: pos.view }, { interactive: false });
      gameInfo.textContent = board.gameInfo();
    } catch (err) {
      notice.textContent = `Could not load move ${target}: ${err.message}`;
    }
  };

  const keys = (event) => {
    if (event.target.closest('input, textarea, select, .board-wrap, dialog')) return;
    const at = viewPly === null ? game.moves.length : viewPly;
    if (event.key === 'ArrowLeft') browse(at - 1);
    else if (event.key === 'ArrowRight') browse(at + 1);
    else if (event.key === 'Home') browse(0);
    else if (event.key === 'End') browse(game.moves.length);
    else return;
    event.preventDefault();
  };
  document.addEventListener('keydown', keys);

  // ----- actions -----
  // Whose token to use for a button: the side on move in a hot-seat game, else ours.
  const tokenFor = (me) => mine()[me.length > 1 ? game.state.to_move : me[0]];

  const action = async (fn) => {
    notice.textContent = '';
    try {
      const res = await fn();
      if (res && res.game && res.game.id === gameId) apply(res.game);
    } catch (err) {
      notice.textContent = connected ? err.message : 'You are offline: try again when the connection is back.';
    }
  };

  const apply = (next) => {
    performance.mark('tabula:state'); // User Timing marks: see examples/dots_latency.rs
    if (next.updated_at_ms < game.updated_at_ms && next.moves.length < game.moves.length) return;
    const previous = game;
    if (sameGame(previous, next)) {
      // The socket's greeting repeats what the page already shows: only the clocks' reference moves.
      game = next;
      window.tabulaGame = game;
      clockBase = performance.now();
      tick();
      return;
    }
    game = next;
    clockBase = performance.now();
    if (next.moves.length > previous.moves.length) {
      notice.textContent = '';
      playSound(board.soundFor({ ...previous.state, view: previous.view }, { ...next.state, view: next.view }));
    }
    if (next.status === 'live' && previous.status === 'waiting') playSound('start');
    if (next.result && !previous.result) playSound('end');
    render();
    performance.mark('tabula:rendered');
  };

  const sendMove = (move) => {
    performance.mark('tabula:move-sent');
    notice.textContent = '';
    const token = mine()[game.state.to_move];
    if (!socket.send({ type: 'move', token, move, ply: game.state.plies })) {
      // Offline: the socket refused to send. Nothing was played.
      notice.textContent = `Not sent: you are offline. ${board.canPremove ? 'Make it again as a premove; it is played when the connection is back.' : 'Play it again when the connection is back.'}`;
      render();
    }
  };

  typedForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (viewPly !== null) browse(game.moves.length);
    const read = board.readTyped(typedInput.value);
    if (read.error) {
      typedError.textContent = read.error;
      return;
    }
    typedError.textContent = '';
    typedInput.value = '';
    if (canMove()) sendMove(read.move);
  });

  const setConnected = (status) => {
    const page = root.querySelector('.game-page');
    if (page) page.dataset.connection = status;
    const now = status === 'connected';
    if (now === connected) return;
    connected = now;
    if (connected) {
      offline.hidden = true;
      notice.textContent = '';
    } else {
      offline.hidden = false;
      mount(offline, h('strong', {}, 'Connection lost.'), ' Reconnecting… ',
        h('span', { class: 'offline-hint' }, board.canPremove
          ? 'Moves you make now wait as premoves and are sent when the connection is back.'
          : 'You can move again when the connection is back.'));
    }
    render();
  };

  const socket = new GameSocket(gameId, {
    hello: () => { const held = Object.values(mine()); return held.length === 1 ? held[0] : null; },
    onState: apply,
    onError: (err) => { notice.textContent = err.message; render(); },
    onStatus: setConnected,
  });

  if (game.status === 'live' && game.state.plies === 0 && !game.result && myPlayers().length) playSound('start');
  render();
  return () => {
    clearInterval(timer);
    socket.close();
    document.removeEventListener('keydown', keys);
    clearTurn();
  };
}

/**
 * A rematch keeps each human's token with the colours swapped, so a player
 * arriving from the old game finds its seat under the other colour.
 */
function inheritRematchTokens(game) {
  if (!game.rematch_of) return;
  const old = tokens.get(game.rematch_of);
  const known = tokens.get(game.id);
  const [first, second] = game.players;
  const swapped = {};
  if (old[first] && !known[second]) swapped[second] = old[first];
  if (old[second] && !known[first]) swapped[first] = old[second];
  if (Object.keys(swapped).length) tokens.add(game.id, swapped);
}

/** Whether two snapshots of a game would draw the same page (clocks aside). */
function sameGame(a, b) {
  return a.updated_at_ms === b.updated_at_ms && a.moves.length === b.moves.length && a.status === b.status
    && a.draw_offer === b.draw_offer && a.rematch_id === b.rematch_id && !a.result === !b.result
    && JSON.stringify(a.seats) === JSON.stringify(b.seats) && JSON.stringify(a.draw_declined) === JSON.stringify(b.draw_declined)
    && JSON.stringify(a.presence) === JSON.stringify(b.presence) && a.claim_available_at_ms === b.claim_available_at_ms
    && JSON.stringify(a.rating_changes) === JSON.stringify(b.rating_changes);
}

function statusText(game, me, canMove, connected) {
  const state = game.state;
  if (game.result) return 'Game over.';
  if (game.status === 'waiting') return 'Waiting for the second player to join.';
  if (!connected) return 'Offline: reconnecting…';
  const mover = title(state.to_move);
  if (canMove) return me.length > 1 ? `${mover} to move.` : 'Your move.';
  const seat = game.seats.find((st) => st.player === state.to_move);
  if (seat && seat.kind === 'ai') return `${mover} (computer) is thinking…`;
  return me.length ? `Waiting for ${mover}.` : `${mover} to move. You are watching.`;
}
