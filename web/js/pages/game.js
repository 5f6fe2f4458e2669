// The game page: the board, clocks, move list, result, and the buttons for
// resigning, draws, rematches and flipping. Every change comes from the
// server over the game's WebSocket; moves go back the same way.

import { h, mount, title, formatClock } from '../dom.js';
import { api, tokens, GameSocket } from '../api.js';
import { createBoard, swatch } from '../boards/index.js';
import { navigate } from '../app.js';
import { sanMoves } from '../pgn.js';

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

  let game = await api.game(gameId);
  inheritRematchTokens(game);
  const mine = () => tokens.get(gameId);
  const myPlayers = () => game.players.filter((p) => mine()[p]);
  const bottomDefault = () => (myPlayers().length === 1 ? myPlayers()[0] : game.players[0]);
  let bottom = bottomDefault();
  const sanByPly = new Map();

  const board = createBoard(game.game, {
    flipped: bottom === game.players[1],
    onMove: (move) => sendMove(move),
  });

  const bars = {};
  for (const p of game.players) {
    bars[p] = {
      root: h('div', { class: `player-bar player-${p}`, 'data-player': p }),
      clock: h('span', { class: 'clock', 'data-clock': p }),
      score: h('span', { class: 'score', 'data-score': p }),
    };
  }
  const topHost = h('div', { class: 'bar-host' });
  const bottomHost = h('div', { class: 'bar-host' });
  const statusLine = h('p', { class: 'status-line', id: 'status-line' });
  const banner = h('div', { class: 'result-banner', id: 'result-banner', hidden: true });
  const drawBox = h('div', { class: 'draw-box', id: 'draw-box' });
  const inviteBox = h('div', { class: 'invite-box', id: 'invite-box' });
  const moveList = h('ol', { class: 'move-list', id: 'move-list' });
  const controls = h('div', { class: 'controls' });
  const links = h('p', { class: 'links' });
  const heading = h('h1', { class: 'game-title' });

  mount(root, h('div', { class: 'game-page', 'data-game': game.game, 'data-game-id': gameId },
    h('div', { class: 'board-column' },
      h('div', { class: 'game-head' }, heading, statusLine), banner, notice,
      topHost, h('div', { class: 'board-host' }, board.el), bottomHost),
    h('aside', { class: 'side-column card' },
      drawBox, inviteBox, controls,
      h('h3', {}, 'Moves'), moveList, links)));

  // Clocks tick locally between server messages from the last known values.
  let clockBase = null;
  const tick = () => {
    const clock = game.clock;
    for (const p of game.players) {
      if (!clock) { bars[p].clock.textContent = ''; continue; }
      let ms = clock.remaining_ms[p];
      const running = !game.result && (clock.shared ? !!clock.running : clock.running === p);
      if (running && clockBase) ms -= performance.now() - clockBase;
      bars[p].clock.textContent = formatClock(ms) + (clock.overtime ? ' OT' : '');
      bars[p].clock.classList.toggle('running', running);
      bars[p].clock.classList.toggle('low', running && ms < 10000);
    }
  };
  const timer = setInterval(tick, 100);

  const render = () => {
    window.tabulaGame = game; // for the browser tests and the curious
    const state = game.state;
    const me = myPlayers();
    const canMove = game.status === 'live' && !game.result && state.status === 'ongoing' && !!mine()[state.to_move];
    board.flipped = bottom === game.players[1]; // setState below redraws
    board.setState({ ...state, view: game.view }, { interactive: canMove });

    heading.textContent = `${game.name}`;
    document.title = `${game.name} · Tabula`;
    const top = game.players.find((p) => p !== bottom);
    for (const p of game.players) {
      const seat = game.seats.find((st) => st.player === p) || {};
      const you = mine()[p] && me.length === 1 ? ' (you)' : '';
      const name = seatName(seat);
      bars[p].score.textContent = state.score ? `${state.score[p]}` : '';
      mount(bars[p].root,
        h('span', { class: swatch(p) }), h('span', { class: 'player-name' }, `${title(p)} · ${name}${you}`),
        state.to_move === p && !game.result ? h('span', { class: 'turn-dot', title: 'to move' }) : null,
        state.score ? h('span', { class: 'score-label' }, 'score ', bars[p].score) : null,
        bars[p].clock);
    }
    mount(topHost, bars[top].root);
    mount(bottomHost, bars[bottom].root);

    statusLine.textContent = statusText(game, me, canMove);

    if (game.result) {
      banner.hidden = false;
      banner.dataset.winner = game.result.winner || 'draw';
      const who = game.result.winner ? `${title(game.result.winner)} wins` : 'Draw';
      mount(banner, h('strong', {}, who), h('span', { class: 'reason' }, game.result.reason || ''));
    } else {
      banner.hidden = true;
    }

    renderDraw(me);
    renderInvite();
    renderControls(me);
    renderMoves();
    mount(links,
      h('a', { href: api.exportUrl(gameId), download: '' }, `Export (${game.record_format.toUpperCase()})`),
      ' · ',
      h('a', { href: `/replay/${gameId}`, 'data-link': true }, 'Replay'),
      ' · ',
      h('a', { href: `/howto/${game.game}`, 'data-link': true }, 'Rules'));
    tick();
  };

  const renderDraw = (me) => {
    mount(drawBox);
    const offer = game.draw_offer;
    if (!offer || game.result) return;
    if (me.length && !mine()[offer]) {
      mount(drawBox, h('span', {}, `${title(offer)} offers a draw. `),
        h('button', { type: 'button', id: 'accept-draw', onclick: () => action(() => api.draw(gameId, tokenFor(me), 'accept')) }, 'Accept'),
        h('button', { type: 'button', id: 'decline-draw', onclick: () => action(() => api.draw(gameId, tokenFor(me), 'decline')) }, 'Decline'));
    } else {
      mount(drawBox, h('span', { class: 'hint' }, `${title(offer)} offered a draw.`));
    }
  };

  const renderInvite = () => {
    mount(inviteBox);
    const open = game.seats.filter((st) => st.kind !== 'ai' && !st.joined);
    if (!open.length) return;
    let invites = [];
    try { invites = JSON.parse(localStorage.getItem(`tabula.invites.${gameId}`)) || []; } catch { /* none */ }
    if (!invites.length) {
      mount(inviteBox, h('p', { class: 'hint' }, 'Waiting for the second player to join.'));
      return;
    }
    for (const inv of invites) {
      const link = location.origin + inv.url;
      const input = h('input', { type: 'text', readonly: true, value: link, id: 'invite-link', 'data-player': inv.player });
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

  const renderControls = (me) => {
    const playing = me.length > 0 && game.status !== 'waiting';
    const over = !!game.result;
    mount(controls,
      h('button', { type: 'button', id: 'flip', onclick: () => { bottom = game.players.find((p) => p !== bottom); render(); } }, 'Flip board'),
      game.game === 'dots' && h('button', {
        type: 'button', id: 'zoom', class: 'zoom-button',
        onclick: () => root.querySelector('.board-host').classList.toggle('zoomed'),
      }, 'Zoom'),
      playing && !over && h('button', {
        type: 'button', id: 'offer-draw', disabled: game.draw_offer && mine()[game.draw_offer],
        onclick: () => action(() => api.draw(gameId, tokenFor(me), 'offer')),
      }, 'Offer draw'),
      playing && !over && h('button', {
        type: 'button', id: 'resign', class: 'danger',
        onclick: () => { if (confirm('Resign this game?')) action(() => api.resign(gameId, tokenFor(me))); },
      }, 'Resign'),
      playing && over && !game.rematch_id && h('button', {
        type: 'button', id: 'rematch', class: 'primary',
        onclick: () => action(async () => {
          const res = await api.rematch(gameId, tokenFor(me));
          tokens.add(res.game.id, res.tokens || {});
          navigate(`/game/${res.game.id}`);
        }),
      }, 'Rematch'),
      game.rematch_id && h('a', { href: `/game/${game.rematch_id}`, 'data-link': true, class: 'button', id: 'rematch-link' }, 'Go to the rematch'),
    );
  };

  const renderMoves = () => {
    const hasScore = game.moves.some((m) => m.score);
    mount(moveList, game.moves.map((m) => h('li', { 'data-ply': m.ply },
      h('span', { class: swatch(m.player) }),
      h('span', { class: 'move' }, sanByPly.get(m.ply) || m.move),
      hasScore && m.score ? h('span', { class: 'move-score' }, game.players.map((p) => m.score[p]).join(':')) : null)));
    moveList.scrollTop = moveList.scrollHeight;
  };

  // Whose token to use for a button: the side on move in a hot-seat game, else ours.
  const tokenFor = (me) => mine()[me.length > 1 ? game.state.to_move : me[0]];

  const action = async (fn) => {
    notice.textContent = '';
    try {
      const res = await fn();
      if (res && res.game && res.game.id === gameId) apply(res.game);
    } catch (err) {
      notice.textContent = err.message;
    }
  };

  const apply = (next) => {
    if (next.updated_at_ms < game.updated_at_ms && next.moves.length < game.moves.length) return;
    // Keep people's notation (SAN) for Cumisitha: the view before a move knows it.
    if (game.view && game.view.san && next.moves.length === game.moves.length + 1) {
      const m = next.moves[next.moves.length - 1];
      if (game.view.san[m.move]) sanByPly.set(m.ply, game.view.san[m.move]);
    }
    game = next;
    clockBase = performance.now();
    render();
  };

  const sendMove = (move) => {
    notice.textContent = '';
    const token = mine()[game.state.to_move];
    if (!socket.send({ type: 'move', token, move, ply: game.state.plies })) {
      action(() => api.move(gameId, token, move, game.state.plies));
    }
  };

  const socket = new GameSocket(gameId, {
    onState: apply,
    onError: (err) => { notice.textContent = err.message; render(); },
    onStatus: (status) => { root.querySelector('.game-page')?.setAttribute('data-connection', status); },
  });

  clockBase = performance.now();
  render();
  // Moves played before this page opened: take their SAN from the PGN export.
  if (game.record_format === 'pgn' && game.moves.length) {
    fetch(api.exportUrl(gameId)).then((r) => (r.ok ? r.text() : '')).then((pgn) => {
      const san = sanMoves(pgn);
      if (san.length < game.moves.length) return;
      game.moves.forEach((m, i) => { if (!sanByPly.has(m.ply)) sanByPly.set(m.ply, san[i]); });
      renderMoves();
    }).catch(() => { /* the list keeps the UCI moves */ });
  }
  return () => { clearInterval(timer); socket.close(); };
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

/** A seat's display name; a human seat the server named after its colour is just "Player". */
function seatName(seat) {
  if (seat.kind === 'ai') return seat.name || `AI (${seat.level})`;
  if (!seat.joined) return 'Open seat';
  return seat.name && seat.name !== seat.player ? seat.name : 'Player';
}

function statusText(game, me, canMove) {
  const state = game.state;
  if (game.result) return 'Game over.';
  if (game.status === 'waiting') return 'Waiting for the second player to join.';
  const mover = title(state.to_move);
  if (canMove) return me.length > 1 ? `${mover} to move.` : 'Your move.';
  const seat = game.seats.find((st) => st.player === state.to_move);
  if (seat && seat.kind === 'ai') return `${mover} (computer) is thinking…`;
  return me.length ? `Waiting for ${mover}.` : `${mover} to move. You are watching.`;
}
