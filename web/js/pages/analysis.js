// The analysis board (/analysis): any position of any of the four games,
// with the server's engine (POST /api/analysis) asked about every position
// shown, and a review of a whole line that marks its inaccuracies, mistakes
// and blunders (docs/analysis.md).
//
// Where the line comes from, read from the address at each load:
//   /analysis?game=ID&ply=N               a stored game (GET /api/games/ID)
//   /analysis/GAME?position=…&moves=…&ply=N&o.KEY=VALUE
//                                         a game's start position, or one
//                                         pasted in the game's notation
// Moves played on the board make a variation; the address follows along
// (history.replaceState), so a reload or a shared link shows the same.
//
// The board is the game page's own (web/js/boards), drawn from the `view`
// the server sends with each analysis; what the engine says is painted on
// it by a subclass hook (`decorate` for the square boards, `drawPosition`
// for Dots). Requests are debounced and aborted when the position changes,
// so stepping fast never shows an old answer.

import { h, s, mount, title, capitalise } from '../dom.js';
import { api } from '../api.js';
import { BOARDS } from '../boards/index.js';
import { MoveList } from '../movelist.js';
import { icon } from '../icons.js';
import { navigate } from '../app.js';

/** A first, short look at a position whose board we do not have yet (ms). */
const QUICK_MS = 150;
/** The budget of each position in a game review (ms). */
const REVIEW_MS = 200;
/** How long the page waits after a step before asking (ms): fast stepping asks once. */
const DEBOUNCE_MS = 120;
/** The moves of the best line shown. */
const PV_SHOWN = 12;
const BUDGETS = [[500, '0.5 s'], [1000, '1 s'], [2000, '2 s'], [3000, '3 s']];
const BUDGET_KEY = 'tabula.analysis.budget';
/** A few opening moves of each game, for the setup form's placeholder. */
const EXAMPLES = { coldwar: 'b2 a2 b2-b3', cumisitha: 'e4 e5 Nf3', dots: '20-16 20-17 21-17', cordots: 'b2-b3 b7-b6' };
/**
 * The mover's expected-score drop (0..1) from which a move is marked, worst
 * first; docs/analysis.md explains the choice.
 */
export const JUDGEMENTS = [
  { kind: 'blunder', plural: 'blunders', drop: 0.3, glyph: '??', label: 'Blunder' },
  { kind: 'mistake', plural: 'mistakes', drop: 0.2, glyph: '?', label: 'Mistake' },
  { kind: 'inaccuracy', plural: 'inaccuracies', drop: 0.1, glyph: '?!', label: 'Inaccuracy' },
];

// ----- the server -----

class AnalysisError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
    this.ply = null;
    this.retryAfter = null;
  }
}

/** POST /api/analysis; resolves to {state, view, analysis} or throws an AnalysisError (or an AbortError). */
async function askEngine(body, signal) {
  let res;
  try {
    res = await fetch('/api/analysis', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new AnalysisError(0, 'offline', 'Could not reach the server. Check the connection and try again.');
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const e = (data && data.error) || {};
    const err = new AnalysisError(res.status, e.code || `http_${res.status}`, e.message || `${res.status} ${res.statusText}`);
    const ply = e.ply ?? (data && data.ply);
    err.ply = Number.isInteger(ply) ? ply : null;
    const after = Number(res.headers.get('retry-after'));
    err.retryAfter = after > 0 ? after * 1000 : null;
    throw err;
  }
  if (!data || !data.state || !data.view || !data.analysis) {
    throw new AnalysisError(res.status, 'bad_answer', 'The server answered without an analysis.');
  }
  return data;
}

/** What an error means for a person reading the page. */
function errorText(err, line) {
  if (err.status === 404 && err.code === 'not_found') return 'This server has no analysis engine (POST /api/analysis).';
  if (err.status === 429) return 'Too many analysis requests from this browser: trying again in a moment.';
  if (err.status === 503) return 'The engine is busy with other analyses: trying again in a moment.';
  if (err.status === 422 && err.ply) {
    const m = line[err.ply - 1];
    // The server's message may name the move's number too ("move 3: ..."): said once is enough.
    return `Move ${err.ply}${m ? ` (${m.display || m.move})` : ''} is not legal: ${err.message.replace(/^move \d+:\s*/i, '')}`;
  }
  return err.message;
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  if (signal) {
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(new DOMException('aborted', 'AbortError')); }, { once: true });
  }
});

// ----- reading what was pasted -----

/** Moves typed or pasted, separated by spaces; move numbers ("1.", "12...") and a PGN result are dropped. */
export function splitMoves(text, game) {
  return String(text || '').split(/\s+/)
    .map((t) => t.replace(/^\d+\.+/, ''))
    .filter((t) => t && !(game === 'cumisitha' && /^(1-0|0-1|1\/2-1\/2|\*)$/.test(t)));
}

// ----- words and numbers -----

const signed = (x, digits = 2) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(digits)}`;
const pliesText = (n) => `${n} ${n === 1 ? 'ply' : 'plies'}`;

/** The evaluation as a short number: +0.35, #3, 62%, W 5. */
function evalNumber(ev, players) {
  if (ev.solved && ev.unit !== 'win_probability') {
    const { result, plies } = ev.solved;
    if (result === 'draw') return '½';
    if (ev.unit === 'centipawns') return `#${result === 'win' ? '' : '−'}${Math.ceil(plies / 2)}`;
    return `${title(result === 'win' ? players[0] : players[1])} ${plies ? `in ${plies}` : 'won'}`;
  }
  switch (ev.unit) {
    case 'centipawns': return signed(ev.value / 100);
    case 'centipieces': return signed(ev.value / 100);
    case 'win_probability': {
      const first = ev.value >= 0.5;
      return `${title(first ? players[0] : players[1])} ${Math.round((first ? ev.value : 1 - ev.value) * 100)}%`;
    }
    default: return signed(ev.value);
  }
}

/** The evaluation in words, for the first player's opponent as well. */
function evalWords(a, players) {
  const [p1, p2] = players.map(title);
  if (a.over) {
    return a.over.winner ? `${title(a.over.winner)} won: ${capitalise(a.over.reason)}.` : `Draw: ${capitalise(a.over.reason)}.`;
  }
  const ev = a.evaluation;
  if (ev.solved) {
    const { result, plies } = ev.solved;
    if (result === 'draw') return 'A draw with best play from both sides.';
    const winner = result === 'win' ? p1 : p2;
    return `${winner} wins with best play, in ${pliesText(plies)}.`;
  }
  const e = ev.expected;
  const lead = e >= 0.5 ? p1 : p2;
  const m = Math.max(e, 1 - e);
  const how = m >= 0.9 ? 'is winning' : m >= 0.75 ? 'is clearly better' : m >= 0.6 ? 'is better' : m >= 0.54 ? 'is slightly better' : null;
  const share = ev.unit === 'win_probability' ? ` (${lead} wins ${Math.round(m * 100)}% of the engine's playouts)` : '';
  return how ? `${lead} ${how}${share}.` : `About level${share}.`;
}

/** What the engine searched, in a few words. */
function searchWords(a) {
  const sr = a.search || {};
  const parts = [a.engine];
  if (sr.depth) parts.push(`depth ${sr.depth}`);
  if (sr.nodes) parts.push(`${compact(sr.nodes)} nodes`);
  if (sr.iterations) parts.push(`${compact(sr.iterations)} playouts`);
  if (sr.time_ms) parts.push(`${(sr.time_ms / 1000).toFixed(1)} s`);
  return parts.filter(Boolean).join(' · ');
}

const compact = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n));

/** One move's exact value for the side to move: "Win in 3", "Draw", "Loss in 8". */
function solvedText(sv) {
  if (sv.result === 'draw') return 'Draw';
  return `${sv.result === 'win' ? 'Win' : 'Loss'} in ${pliesText(sv.plies)}`;
}
const solvedShort = (sv) => (sv.result === 'draw' ? 'D' : `${sv.result === 'win' ? 'W' : 'L'}${sv.plies}`);

/** Best first: quickest wins, draws, slowest losses; then the rest by expected score. */
function moveOrder(a, b) {
  const rank = (m) => {
    if (!m.solved) return [3, -(m.expected ?? 0), -(m.visits ?? 0)];
    if (m.solved.result === 'win') return [0, m.solved.plies, 0];
    if (m.solved.result === 'draw') return [1, 0, 0];
    return [2, -m.solved.plies, 0];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

// ----- the board, with the engine's marks painted on it -----

/** A board of `gameId` that paints `board.analysis` (when set) over the position. */
function analysisBoard(gameId, opts) {
  const Base = BOARDS[gameId];
  if (!Base) throw new Error(`There is no board for the game '${gameId}'.`);
  if (typeof Base.prototype.decorate === 'function') {
    return new (class extends Base {
      decorate(svg) {
        super.decorate(svg);
        if (this.analysis) svg.append(gridMarks(this, this.analysis));
      }
    })(opts);
  }
  return new (class extends Base {
    drawPosition() {
      super.drawPosition();
      paintDots(this);
    }
  })(opts);
}

/** Square boards: Cold War's value of every move; elsewhere an arrow for the best move. */
function gridMarks(board, a) {
  const layer = s('g', { class: 'analysis-marks' });
  if (board.gameId === 'coldwar' && a.moves.some((m) => m.solved)) {
    coldWarMarks(board, a, layer);
  } else if (a.best_move) {
    const p = board.parseMove(a.best_move);
    if (p) layer.append(bestArrow(board, p));
  }
  return layer;
}

function centre(board, square) {
  const [x, y] = board.squareXY(square);
  return [x + board.cell / 2, y + board.cell / 2];
}

function bestArrow(board, p) {
  const cell = board.cell;
  const [x2, y2] = centre(board, p.to);
  if (!p.from) {
    return s('circle', { cx: x2, cy: y2, r: cell * 0.42, class: 'best-ring', 'data-best': p.move });
  }
  const [x1, y1] = centre(board, p.from);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const [nx, ny] = [-uy, ux];
  const shaft = cell * 0.07;
  const head = cell * 0.2;
  const tip = len - cell * 0.12;
  const neck = tip - cell * 0.3;
  const pt = (along, across) => `${(x1 + ux * along + nx * across).toFixed(1)},${(y1 + uy * along + ny * across).toFixed(1)}`;
  const points = [pt(cell * 0.12, shaft), pt(neck, shaft), pt(neck, head), pt(tip, 0), pt(neck, -head), pt(neck, -shaft), pt(cell * 0.12, -shaft)];
  return s('polygon', { points: points.join(' '), class: 'best-arrow', 'data-best': p.move });
}

/**
 * Cold War: every legal move's exact value on the board. A create or bolster
 * is marked in its square's corner; a transfer, attack or conquer on the edge
 * it crosses (two moves can cross one edge: an attack and a conquer).
 */
function coldWarMarks(board, a, layer) {
  const onEdge = new Map();
  for (const mv of a.moves) {
    const p = board.parseMove(mv.move);
    if (!p || !mv.solved) continue;
    if (!p.from) {
      const [x, y] = board.squareXY(p.to);
      layer.append(badge(mv, x + 3, y + 4, null, a.best_move));
      continue;
    }
    const key = [p.from, p.to].sort().join('|');
    if (!onEdge.has(key)) onEdge.set(key, []);
    onEdge.get(key).push([mv, p]);
  }
  for (const moves of onEdge.values()) {
    moves.forEach(([mv, p], i) => {
      const [x1, y1] = centre(board, p.from);
      const [x2, y2] = centre(board, p.to);
      const [mx, my] = [(x1 + x2) / 2, (y1 + y2) / 2];
      const across = moves.length === 1 ? 0 : (i ? 1 : -1);
      const horizontal = Math.abs(x2 - x1) > Math.abs(y2 - y1);
      const w = badgeWidth(mv, true);
      // Across a top or bottom edge a lone mark starts just left of the middle and sits a little up,
      // clear of the corner mark of a create or bolster and of the piece count below the edge; two
      // marks sit side by side.
      const [bx, by] = horizontal ? [mx - w / 2, my - BADGE_H / 2 + across * 13]
        : across < 0 ? [mx - 2 - w, my - BADGE_H / 2] : across > 0 ? [mx + 2, my - BADGE_H / 2] : [mx - 2, my - BADGE_H / 2 - 4];
      layer.append(badge(mv, bx, by, [x2 - x1, y2 - y1, p.kind], a.best_move));
    });
  }
}

const BADGE_H = 20;
const KINDS = { '-': 'transfer', x: 'attack', '>': 'conquer' };
/** A badge's width in board units: its text (about 7.6 units a character at 13 px), and the arrow of a move between squares. */
const badgeWidth = (mv, arrow) => Math.round((arrow ? 22 : 8) + 7.6 * solvedShort(mv.solved).length + 4);

function badge(mv, x, y, arrow, best) {
  const sv = mv.solved;
  const width = badgeWidth(mv, !!arrow);
  const g = s('g', {
    class: `move-value mv-${sv.result}${mv.move === best ? ' best' : ''}`,
    'data-move': mv.move, 'data-result': sv.result, 'data-plies': sv.plies,
  });
  g.append(s('rect', { x, y, width, height: BADGE_H, rx: 5, class: 'mv-badge' }));
  let textX = x + width / 2;
  const kind = arrow ? KINDS[arrow[2]] : 'place';
  g.append(s('title', {}, `${mv.move} (${kind}): ${solvedText(sv)}`));
  if (arrow) {
    // Which way the move goes, and how: an open chevron transfers, a solid
    // triangle attacks, two triangles conquer.
    const [dx, dy] = arrow;
    const len = Math.hypot(dx, dy) || 1;
    const [ux, uy] = [dx / len, dy / len];
    const pts = (list) => list.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
    const corners = (cx, cy) => [[cx - ux * 4 - uy * 5, cy - uy * 4 + ux * 5], [cx + ux * 5, cy + uy * 5], [cx - ux * 4 + uy * 5, cy - uy * 4 - ux * 5]];
    const tri = (cx, cy) => pts(corners(cx, cy));
    const [cx, cy] = [x + 10, y + BADGE_H / 2];
    if (kind === 'transfer') g.append(s('polyline', { points: tri(cx, cy), class: 'mv-kind mvk-transfer', fill: 'none' }));
    if (kind === 'attack') g.append(s('polygon', { points: tri(cx, cy), class: 'mv-kind mvk-attack' }));
    if (kind === 'conquer') {
      g.append(s('polygon', { points: tri(cx - ux * 3, cy - uy * 3), class: 'mv-kind mvk-conquer' }));
      g.append(s('polygon', { points: tri(cx + ux * 3, cy + uy * 3), class: 'mv-kind mvk-conquer' }));
    }
    textX = x + 20 + (width - 20) / 2;
  }
  g.append(s('text', { x: textX, y: y + 14.5, 'text-anchor': 'middle', class: 'mv-text' }, solvedShort(sv)));
  return g;
}

/** Dots: who is likely to hold each point, shaded under the dots, and a ring on the best point. */
function paintDots(board) {
  if (!board.svg || !board.positionLayer) return;
  if (!board.analysisLayer || board.analysisLayer.parentNode !== board.svg) {
    board.analysisLayer = s('g', { class: 'analysis-marks' });
    board.svg.insertBefore(board.analysisLayer, board.positionLayer);
  }
  const a = board.analysis;
  const parts = [];
  const t = a && a.territory;
  const view = board.state.view;
  if (t && t.width === view.width && t.height === view.height) {
    const [first, second] = board.players || ['blue', 'red'];
    const step = board.xy(2, 1)[0] - board.xy(1, 1)[0];
    const size = Math.abs(step) || 18;
    for (let y = 1; y <= t.height; y++) {
      for (let x = 1; x <= t.width; x++) {
        const v = t.owner[(y - 1) * t.width + (x - 1)];
        if (!(Math.abs(v) >= 0.2)) continue;
        const [px, py] = board.xy(x, y);
        parts.push(s('rect', {
          x: px - size / 2, y: py - size / 2, width: size, height: size,
          class: `territory-estimate estimate-${v > 0 ? first : second}`,
          'fill-opacity': (0.1 + 0.4 * Math.min(1, Math.abs(v))).toFixed(2), 'data-point': `${x}-${y}`,
        }));
      }
    }
  }
  if (a && a.best_move && /^\d+-\d+$/.test(a.best_move)) {
    const [x, y] = a.best_move.split('-').map(Number);
    const [px, py] = board.xy(x, y);
    parts.push(s('circle', { cx: px, cy: py, r: 7.5, class: 'best-ring', 'data-best': a.best_move }));
  }
  board.analysisLayer.replaceChildren(...parts);
}

/** Width over height of the board before it has a position: the square boards know it; Dots from its size options. */
function boardAspect(board, setup, gm) {
  // The Dots board's own formula, asked of a stand-in with the size (no constant of it copied here).
  if (setup.game !== 'dots') return board.aspect;
  const size = (key, fallback) => {
    const opt = gm.options.find((o) => o.key === key);
    return Number(setup.options[key] ?? (opt && opt.default)) || fallback;
  };
  const getter = Object.getOwnPropertyDescriptor(BOARDS.dots.prototype, 'aspect');
  return getter ? getter.get.call({ state: { view: { width: size('width', 39), height: size('height', 32) } } }) : 39 / 32;
}

// ----- the evaluation graph of a review -----

const GRAPH_W = 320;
const GRAPH_H = 90;

/** `values[k]`: the first player's expected score at ply k (or null); `marks`: ply → judgement. */
function evalGraph(values, marks, current, players, onPick) {
  const n = values.length - 1;
  const x = (k) => (n > 0 ? (k / n) * GRAPH_W : GRAPH_W / 2);
  const y = (e) => (1 - e) * GRAPH_H;
  const known = values.map((e, k) => [k, e]).filter(([, e]) => e !== null && e !== undefined);
  const line = known.map(([k, e]) => `${x(k).toFixed(1)},${y(e).toFixed(1)}`).join(' ');
  const area = known.length ? `${x(known[0][0]).toFixed(1)},${GRAPH_H} ${line} ${x(known[known.length - 1][0]).toFixed(1)},${GRAPH_H}` : '';
  const counts = JUDGEMENTS.map((j) => [...marks.values()].filter((m) => m.kind === j.kind).length);
  const label = `Evaluation graph over ${n} ${n === 1 ? 'move' : 'moves'}, ${title(players[0])}'s share at the top: `
    + JUDGEMENTS.map((j, i) => `${counts[i]} ${counts[i] === 1 ? j.kind : j.plural}`).join(', ') + '.';
  const svg = s('svg', {
    viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`, class: 'eval-graph', id: 'eval-graph', role: 'img', 'aria-label': label,
    preserveAspectRatio: 'none', 'data-points': known.length,
  },
  s('rect', { x: 0, y: 0, width: GRAPH_W, height: GRAPH_H, class: 'graph-back' }),
  area ? s('polygon', { points: area, class: 'graph-area' }) : null,
  s('line', { x1: 0, x2: GRAPH_W, y1: GRAPH_H / 2, y2: GRAPH_H / 2, class: 'graph-mid' }),
  line ? s('polyline', { points: line, class: 'graph-line', fill: 'none' }) : null,
  [...marks.entries()].map(([ply, m]) => (values[ply] === null || values[ply] === undefined ? null
    : s('circle', { cx: x(ply), cy: y(values[ply]), r: 3.2, class: `graph-mark judged-${m.kind}`, 'data-ply': ply }))),
  current !== null ? s('line', { x1: x(current), x2: x(current), y1: 0, y2: GRAPH_H, class: 'graph-now' }) : null);
  svg.addEventListener('click', (event) => {
    const box = svg.getBoundingClientRect();
    if (!box.width || n <= 0) return;
    onPick(Math.round(((event.clientX - box.left) / box.width) * n));
  });
  return svg;
}

// ----- where the line comes from -----

/** The line of a stored game: its options, moves and result. */
async function fromStoredGame(id, plyParam) {
  const game = await api.game(id);
  const line = game.moves.map((m) => ({ move: m.move, canon: m.move, display: m.display || m.move, player: m.player }));
  const ply = plyParam === null ? line.length : Number(plyParam);
  return {
    game: game.game, options: game.options || {}, position: null, line, main: line.slice(), gameId: id,
    ply: Number.isInteger(ply) ? ply : line.length, stored: game,
    seed: { ply: line.length, state: game.state, view: game.view },
  };
}

/** A game's start position, or a pasted position and moves, from the address. */
function fromAddress(gameId, params) {
  const options = {};
  for (const [k, v] of params) if (k.startsWith('o.')) options[k.slice(2)] = v;
  const line = splitMoves(params.get('moves'), gameId).map((m) => ({ move: m, canon: null, display: m, player: null }));
  const plyParam = params.get('ply');
  const ply = plyParam === null ? line.length : Number(plyParam);
  return {
    game: gameId, options, position: (params.get('position') || '').trim() || null, line, main: line.slice(), gameId: null,
    ply: Number.isInteger(ply) ? ply : line.length, stored: null, seed: null,
  };
}

/** The address that shows `setup` with `line` at `ply`. */
function addressOf(setup, line, ply) {
  const onMain = setup.main && line.length === setup.main.length && line.every((m, i) => m.move === setup.main[i].move);
  if (setup.gameId && onMain) return `/analysis?game=${encodeURIComponent(setup.gameId)}&ply=${ply}`;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(setup.options || {})) q.set(`o.${k}`, v);
  if (setup.position) q.set('position', setup.position);
  if (line.length) q.set('moves', line.map((m) => m.move).join(' '));
  if (ply !== line.length) q.set('ply', String(ply));
  const text = q.toString();
  return `/analysis/${setup.game}${text ? `?${text}` : ''}`;
}

// ----- the page -----

export async function analysisPage(root, [gameParam]) {
  const params = new URLSearchParams(location.search);
  const meta = await api.meta();
  const setup = params.get('game')
    ? await fromStoredGame(params.get('game'), params.get('ply'))
    : fromAddress(gameParam || 'coldwar', params);
  const gm = meta.games.find((g) => g.id === setup.game);
  if (!gm) throw new Error(`There is no game '${setup.game}' here: pick one of ${meta.games.map((g) => g.id).join(', ')}.`);
  const players = gm.players;
  document.title = `Analysis · ${gm.name} · Tabula`;

  let line = setup.line;
  let ply = Math.max(0, Math.min(line.length, setup.ply));
  let flipped = false;
  let budget = Number(localStorage.getItem(BUDGET_KEY)) || 1000;
  if (!BUDGETS.some(([ms]) => ms === budget)) budget = 1000;
  /** What is known of each position, by the moves that lead to it. */
  const nodes = new Map();
  const movesOf = (moves, k) => moves.slice(0, k).map((m) => m.move);
  const keyAt = (k) => movesOf(line, k).join(' ');
  const nodeByKey = (key) => {
    if (!nodes.has(key)) nodes.set(key, { key, state: null, view: null, analysis: null, budget: 0, review: null });
    return nodes.get(key);
  };
  const nodeAt = (k) => nodeByKey(keyAt(k));
  if (setup.seed) Object.assign(nodeAt(setup.seed.ply), { state: setup.seed.state, view: setup.seed.view });
  /** The request for the position after `moves` (as sent), thinking `ms`. */
  const request = (moves, ms) => {
    const body = { game: setup.game, budget_ms: ms };
    if (Object.keys(setup.options).length) body.options = setup.options;
    if (setup.position) body.position = setup.position;
    if (moves.length) body.moves = moves;
    return body;
  };
  const requestFor = (k, ms) => request(movesOf(line, k), ms);

  // ----- the parts of the page -----
  // `bars`: what a board would draw around itself (Cordots' reserves) goes in the line under it, as each board's barExtras.
  const board = analysisBoard(setup.game, { onMove: (mv) => playMoves([mv]), keyboard: true, bars: true, label: `${gm.name} analysis board` });
  board.players = players;
  board.gameId = setup.game;
  const evalFill = h('div', { class: 'eval-fill' });
  const evalBar = h('div', {
    class: 'eval-bar', id: 'eval-bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 50,
    'aria-label': `${title(players[0])}'s expected score`, 'data-first': players[0], 'data-second': players[1],
  }, evalFill);
  const boardHost = h('div', { class: 'board-host' }, board.el);
  const positionText = h('span', { id: 'position-text' });
  // The engine's word in one line under the board: on a phone the engine's card is below the fold.
  const summary = h('span', { class: 'analysis-summary', id: 'analysis-summary' });
  const positionInfo = h('p', { class: 'game-info analysis-info', id: 'analysis-info' }, positionText, summary);
  const extras = h('p', { class: 'analysis-extras', id: 'analysis-extras' });
  const navButton = (label, name, id, target) => h('button', {
    type: 'button', id, 'aria-label': label, title: label, onclick: () => show(target()),
  }, icon(name));
  const nav = h('div', { class: 'replay-controls analysis-nav' },
    navButton('First position', 'first', 'analysis-first', () => 0),
    navButton('Previous move', 'prev', 'analysis-prev', () => ply - 1),
    h('span', { class: 'replay-ply', id: 'analysis-ply' }),
    navButton('Next move', 'next', 'analysis-next', () => ply + 1),
    navButton('Last move', 'last', 'analysis-last', () => line.length),
    h('button', { type: 'button', id: 'analysis-flip', onclick: () => { flipped = !flipped; board.setFlipped(flipped); paintBar(); } }, 'Flip board'));

  const evalNum = h('span', { class: 'eval-number', id: 'eval-number' });
  const evalText = h('p', { class: 'eval-words', id: 'eval-text' });
  const bestLine = h('div', { class: 'best-line', id: 'best-line' });
  const searchLine = h('p', { class: 'hint search-line', id: 'search-line' });
  const noteLine = h('p', { class: 'hint', id: 'analysis-note' });
  const statusLine = h('p', { class: 'analysis-status', id: 'analysis-status', role: 'status', 'aria-live': 'polite' });
  const errorLine = h('p', { class: 'error', id: 'analysis-error', role: 'alert' });
  const budgetSelect = h('select', {
    id: 'analysis-budget',
    onchange: () => { budget = Number(budgetSelect.value); localStorage.setItem(BUDGET_KEY, String(budget)); schedule(0); },
  }, BUDGETS.map(([ms, label]) => h('option', { value: ms, selected: ms === budget }, label)));
  const valuesTitle = h('h2', { id: 'move-values-title' }, 'Moves');
  const valuesList = h('ol', { class: 'move-values', id: 'move-values', 'aria-labelledby': 'move-values-title' });
  // Cold War values every move and Dots lists its candidates: their card is there from the start (nothing
  // moves when the first answer comes); the alpha-beta games list none.
  const listsMoves = setup.game === 'coldwar' || setup.game === 'dots';
  const valuesCard = h('section', { class: 'card values-card', id: 'values-card', 'aria-labelledby': 'move-values-title', hidden: !listsMoves },
    valuesTitle, valuesList);

  const list = new MoveList({ onSelect: (p) => show(p), id: 'analysis-moves' });
  const variationNote = h('p', { class: 'variation-note', id: 'variation-note', hidden: true });
  const lineError = h('p', { class: 'error', id: 'line-error', role: 'alert' });
  const setupError = h('p', { class: 'error', id: 'setup-error', role: 'alert' });

  const reviewButton = h('button', { type: 'button', id: 'review-start', class: 'primary', onclick: () => startReview() }, 'Review');
  const reviewCancel = h('button', { type: 'button', id: 'review-cancel', hidden: true, onclick: () => stopReview('Review cancelled.') }, 'Cancel');
  const reviewProgress = h('progress', { id: 'review-progress', max: 1, value: 0, hidden: true, 'aria-label': 'Review progress' });
  const reviewStatus = h('p', { class: 'hint', id: 'review-status', 'aria-live': 'polite' });
  const reviewSummary = h('div', { class: 'review-summary', id: 'review-summary' });
  const graphHost = h('div', { class: 'graph-host', id: 'eval-graph-host' });

  const page = h('div', { class: 'game-page analysis-page', 'data-game': setup.game, 'data-state': 'thinking' },
    h('div', { class: 'board-column' },
      h('h1', { class: 'game-title' }, `Analysis · ${gm.name}`),
      h('div', { class: 'analysis-board-row' }, evalBar, boardHost),
      nav, positionInfo, extras),
    h('aside', { class: 'side-column' },
      h('section', { class: 'card engine-card', 'aria-labelledby': 'engine-title' },
        h('div', { class: 'engine-head' }, h('h2', { id: 'engine-title' }, 'Engine'), evalNum),
        evalText, bestLine, searchLine, noteLine, statusLine, errorLine,
        h('p', { class: 'budget-row' }, h('label', { for: 'analysis-budget' }, 'Thinking time '), budgetSelect)),
      valuesCard,
      h('section', { class: 'card moves-card', 'aria-labelledby': 'line-title' },
        h('h2', { id: 'line-title' }, 'Line'), storedGameLine(), lineError, variationNote, list.el),
      h('section', { class: 'card review-card', 'aria-labelledby': 'review-title' },
        h('h2', { id: 'review-title' }, 'Game review'),
        h('p', { class: 'review-actions' }, reviewButton, reviewCancel, reviewProgress),
        reviewStatus, reviewSummary, graphHost),
      setupCard()));

  function storedGameLine() {
    const g = setup.stored;
    if (!g) return null;
    const result = g.result ? (g.result.winner ? `${title(g.result.winner)} won (${capitalise(g.result.reason)})` : `Draw (${capitalise(g.result.reason)})`) : 'not finished';
    return h('p', { class: 'hint stored-game' }, 'From ', h('a', { href: `/game/${encodeURIComponent(setup.gameId)}`, 'data-link': true }, 'a game'),
      `: ${result}. `, h('a', { href: `/replay/${encodeURIComponent(setup.gameId)}`, 'data-link': true }, 'Replay'));
  }

  // ----- setting up another position -----
  function setupCard() {
    const gameSelect = h('select', { id: 'setup-game', name: 'game' },
      meta.games.map((g) => h('option', { value: g.id, selected: g.id === setup.game }, g.name)));
    const optionsHost = h('div', { class: 'setup-options', id: 'setup-options' });
    const positionInput = h('textarea', { id: 'setup-position', name: 'position', rows: 2, spellcheck: 'false', autocomplete: 'off' });
    const movesInput = h('textarea', { id: 'setup-moves', name: 'moves', rows: 2, spellcheck: 'false', autocomplete: 'off' });
    const drawOptions = () => {
      const g = meta.games.find((x) => x.id === gameSelect.value);
      const same = g.id === setup.game;
      mount(optionsHost, g.options.map((opt) => {
        const id = `setup-opt-${opt.key}`;
        const value = same && setup.options[opt.key] !== undefined ? setup.options[opt.key] : opt.default;
        const choices = /\|/.test(opt.values || '') ? opt.values.split('|') : null;
        const field = choices
          ? h('select', { id, name: `o.${opt.key}` }, choices.map((c) => h('option', { value: c, selected: c === String(value) }, c)))
          : h('input', { id, name: `o.${opt.key}`, type: 'text', value: value ?? '', size: 8, 'aria-describedby': `${id}-help` });
        return h('div', { class: 'setup-option' }, h('label', { for: id }, capitalise(opt.key.replace(/_/g, ' '))), field,
          h('small', { class: 'hint', id: `${id}-help` }, `${opt.values}${opt.help ? `: ${opt.help}` : ''}`));
      }));
      positionInput.placeholder = 'Empty: the start position';
      movesInput.placeholder = EXAMPLES[g.id] ? `e.g. ${EXAMPLES[g.id]}` : 'Moves separated by spaces';
    };
    gameSelect.addEventListener('change', drawOptions);
    drawOptions();
    const form = h('form', { class: 'setup-form', id: 'setup-form' },
      h('div', { class: 'setup-option' }, h('label', { for: 'setup-game' }, 'Game'), gameSelect),
      optionsHost,
      h('label', { for: 'setup-position' }, 'Position in the game\'s notation (optional)'), positionInput,
      h('label', { for: 'setup-moves' }, 'Moves, separated by spaces (optional)'), movesInput,
      setupError,
      h('p', {}, h('button', { type: 'submit', class: 'primary', id: 'setup-go' }, 'Analyse'),
        h('a', { href: `/howto/${setup.game}`, 'data-link': true, class: 'setup-rules' }, 'Notation and rules')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const game = gameSelect.value;
      const g = meta.games.find((x) => x.id === game);
      const q = new URLSearchParams();
      for (const opt of g.options) {
        const v = String(form.elements[`o.${opt.key}`].value).trim();
        if (v && v !== String(opt.default)) q.set(`o.${opt.key}`, v);
      }
      const position = positionInput.value.trim();
      const moves = splitMoves(movesInput.value, game);
      if (position) q.set('position', position);
      if (moves.length) q.set('moves', moves.join(' '));
      const text = q.toString();
      navigate(`/analysis/${game}${text ? `?${text}` : ''}`);
    });
    const open = !setup.gameId && !line.length && !setup.position;
    return h('details', { class: 'card setup-card', id: 'setup-card', open },
      h('summary', {}, h('h2', { class: 'setup-title' }, 'Set up a position')),
      h('p', { class: 'hint' }, 'Pick a game for its start position, or paste a position and moves in the game\'s notation.'),
      form);
  }

  // ----- showing a position -----
  let controller = null;
  let timer = null;
  const currentKey = () => keyAt(ply);

  function show(target) {
    ply = Math.max(0, Math.min(line.length, target));
    const node = nodeAt(ply);
    list.mark(ply);
    renderNav();
    if (node.view) drawBoard(node);
    else {
      // The board of an unseen position comes with the engine's first answer: until then no move on the old one.
      boardHost.classList.add('stale');
      if (board.state) board.setState(board.state, { interactive: false });
    }
    renderAnalysis(node);
    // `ready` (for the tests and the curious) only once this position's answer is in.
    page.dataset.state = settled(node) ? 'ready' : 'thinking';
    if (!node.view && setup.gameId && onMainAt(ply)) fetchStoredPosition(ply, node);
    history.replaceState(null, '', addressOf(setup, line, ply));
    if (reviewed.values.length) renderGraph();
    schedule(DEBOUNCE_MS);
  }

  const onMainAt = (k) => !!setup.main && k <= setup.main.length && line.slice(0, k).every((m, i) => m.move === setup.main[i].move);

  /** A stored game's positions come quickly from the server (no thinking): the board first, the engine after. */
  async function fetchStoredPosition(k, node) {
    try {
      const pos = await api.position(setup.gameId, k);
      if (!node.view) { node.state = pos.state; node.view = pos.view; }
      if (node.key === currentKey()) { drawBoard(node); renderAnalysis(node); }
    } catch { /* the analysis brings the board too */ }
  }

  function drawBoard(node) {
    boardHost.classList.remove('stale');
    boardHost.style.aspectRatio = '';
    board.analysis = node.analysis;
    board.setState({ ...node.state, view: node.view }, { interactive: node.state.status === 'ongoing' });
    page.style.setProperty('--aspect', board.aspect);
    const to = node.state.status === 'ongoing' ? `${title(node.state.to_move)} to move` : 'Game over';
    const extra = board.gameInfo();
    const score = node.state.score ? `score ${players.map((p) => node.state.score[p]).join(':')}` : '';
    positionText.textContent = [to, score, extra].filter(Boolean).join(' · ');
    // Material, reserves, dots not grounded: what the game page shows in the players' bars.
    const parts = players.map((p) => [p, board.barExtras(p)]).filter(([, el]) => el);
    mount(extras, parts.map(([p, el]) => h('span', { class: 'extra', 'data-player': p },
      h('span', { class: `swatch swatch-${p}`, 'aria-hidden': 'true' }), ` ${title(p)} `, el)));
  }

  function renderNav() {
    const [first, prev, counter, next, last] = nav.children;
    counter.textContent = `${ply} / ${line.length}`;
    first.disabled = ply === 0;
    prev.disabled = ply === 0;
    next.disabled = ply >= line.length;
    last.disabled = ply >= line.length;
    page.dataset.ply = ply;
  }

  function paintBar(a = nodeAt(ply).analysis) {
    const e = a ? a.evaluation.expected : 0.5;
    const pct = Math.round(e * 1000) / 10;
    evalBar.style.setProperty('--share', String(e));
    evalBar.classList.toggle('flipped', flipped);
    evalBar.classList.toggle('unknown', !a);
    evalBar.setAttribute('aria-valuenow', String(pct));
    evalBar.setAttribute('aria-valuetext', a ? `${title(players[0])} ${Math.round(e * 100)}%: ${evalWords(a, players)}` : 'No evaluation yet');
  }

  function renderAnalysis(node) {
    const a = node.analysis;
    paintBar(a);
    page.dataset.key = node.key;
    const best = a && a.best_move ? (a.pv[0] === a.best_move && a.pv_display[0]) || board.display(a.best_move, { view: node.view }) : null;
    mount(summary, a ? [' · ', h('span', {}, evalNumber(a.evaluation, players)), best ? [' · ', h('span', {}, `best ${best}`)] : null] : null);
    if (!a) {
      evalNum.textContent = '…';
      evalText.textContent = 'Thinking…';
      mount(bestLine);
      searchLine.textContent = '';
      noteLine.textContent = '';
      mount(valuesList);
      return;
    }
    evalNum.textContent = evalNumber(a.evaluation, players);
    evalText.textContent = evalWords(a, players);
    searchLine.textContent = searchWords(a);
    noteLine.textContent = a.note ? capitalise(a.note) + (/[.!?]$/.test(a.note) ? '' : '.') : '';
    // The best move and the line: each move plays the line up to it.
    if (a.best_move && a.pv.length) {
      const names = a.pv.map((m, i) => a.pv_display[i] || m).slice(0, PV_SHOWN);
      const numbers = chessNumbers(node.state, names.length);
      mount(bestLine,
        h('p', { class: 'best-move' }, 'Best move: ',
          h('button', { type: 'button', class: 'pv-move', id: 'best-move', 'data-move': a.best_move, onclick: () => playMoves([a.best_move], [names[0]]) }, names[0])),
        h('p', { class: 'pv-label', id: 'pv-label' }, 'Best line'),
        h('ol', { class: 'pv', id: 'pv', 'aria-labelledby': 'pv-label' }, names.map((name, i) => h('li', {},
          numbers[i] ? h('span', { class: 'pv-number', 'aria-hidden': 'true' }, numbers[i]) : null,
          h('button', {
            type: 'button', class: 'pv-move', 'data-index': i, 'data-move': a.pv[i],
            'aria-label': `Play the line up to ${name}`, onclick: () => playMoves(a.pv.slice(0, i + 1), names.slice(0, i + 1)),
          }, name)))));
    } else if (a.best_move) {
      mount(bestLine, h('p', { class: 'best-move' }, 'Best move: ',
        h('button', { type: 'button', class: 'pv-move', id: 'best-move', 'data-move': a.best_move, onclick: () => playMoves([a.best_move]) }, a.best_move)));
    } else {
      mount(bestLine);
    }
    renderValues(a);
  }

  /**
   * Chess move numbers before the moves of a line from `state` ("3.", "3…"
   * for Black's first), read from the FEN's side and move number; none for
   * the other games.
   */
  function chessNumbers(state, n) {
    const fen = setup.game === 'cumisitha' && state && state.position ? state.position.split(' ') : null;
    if (!fen || fen.length < 6) return [];
    let number = Number(fen[5]) || 1;
    let white = fen[1] === 'w';
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push(white ? `${number}.` : i === 0 ? `${number}…` : null);
      if (!white) number += 1;
      white = !white;
    }
    return out;
  }

  /** Every move's value (Cold War, exact) or the engine's candidates (the searches). */
  function renderValues(a) {
    const moves = a.moves.slice().sort(moveOrder);
    valuesCard.hidden = !moves.length && !listsMoves;
    if (!moves.length) { mount(valuesList); return; }
    const exact = moves.every((m) => m.solved);
    valuesTitle.textContent = exact ? `Every move, solved (${moves.length})` : `Candidate moves (${title(a.to_move)}'s expected score)`;
    mount(valuesList, moves.map((m) => {
      const name = m.display || m.move;
      const value = m.solved ? solvedText(m.solved)
        : [m.expected !== null && m.expected !== undefined ? `${Math.round(m.expected * 100)}%` : null, m.visits ? `${compact(m.visits)} visits` : null].filter(Boolean).join(' · ');
      const attrs = {
        type: 'button', class: `value-item${m.move === a.best_move ? ' best' : ''}`, 'data-move': m.move,
        onclick: () => playMoves([m.move], [name]),
      };
      if (m.solved) Object.assign(attrs, { 'data-result': m.solved.result, 'data-plies': m.solved.plies });
      return h('li', {}, h('button', attrs,
        h('span', { class: 'value-move' }, name),
        h('span', { class: `value-result${m.solved ? ` mv-${m.solved.result}` : ''}` }, value)));
    }));
  }

  // ----- asking the engine -----
  function schedule(delay) {
    clearTimeout(timer);
    if (controller) controller.abort();
    controller = null;
    timer = setTimeout(think, delay);
  }

  /** Enough is known of a position: solved exactly, finished, or searched for the budget chosen. */
  const settled = (node) => {
    const a = node.analysis;
    if (!a || a.retry) return false;
    return !!a.over || a.evaluation.unit === 'solved' || node.budget >= budget;
  };

  async function think() {
    const k = ply;
    const node = nodeAt(k);
    const c = new AbortController();
    controller = c;
    try {
      let waited = 0;
      // Whether this node is on screen as it now stands, so the end does not draw it twice.
      let drawn = false;
      while (!settled(node)) {
        const ms = node.view ? budget : Math.min(QUICK_MS, budget);
        setStatus('thinking', node.view ? 'Thinking…' : 'Looking at the position…');
        const res = await askEngine(requestFor(k, ms), c.signal);
        if (c.signal.aborted) return;
        learn(k, node, res, ms);
        drawn = node.key === currentKey();
        if (drawn) { drawBoard(node); renderAnalysis(node); }
        if (res.analysis.retry) {
          setStatus('thinking', 'The engine is getting ready…');
          waited += 1;
          if (waited > 200) throw new AnalysisError(503, 'busy', 'The engine did not get ready: try again later.');
          await sleep(300, c.signal);
        }
      }
      if (node.key === currentKey()) {
        if (!drawn) {
          drawBoard(node);
          renderAnalysis(node);
        }
        errorLine.textContent = '';
        setStatus('ready', '');
      }
    } catch (err) {
      if (err.name === 'AbortError' || c !== controller) return;
      failed(err, k);
    }
  }

  function learn(k, node, res, ms) {
    node.state = res.state;
    node.view = res.view;
    if (!node.analysis || res.analysis.retry || ms >= node.budget || node.analysis.retry) {
      node.analysis = res.analysis;
      node.budget = res.analysis.retry ? 0 : ms;
    }
    // What the position says of the move that leads out of it.
    const m = line[k];
    if (m && res.state.legal_moves) {
      const canon = res.state.legal_moves.includes(m.move) ? m.move
        : res.state.legal_moves.find((lm) => board.display(lm, { view: res.view }).replace(/[+#]+$/, '') === m.move.replace(/[+#!?]+$/, ''));
      if (canon && (m.canon !== canon || m.player !== res.state.to_move || m.display !== board.display(canon, { view: res.view }))) {
        m.canon = canon;
        m.player = res.state.to_move;
        m.display = board.display(canon, { view: res.view });
        renderList();
      }
    }
  }

  function failed(err, k) {
    const retryable = err.status === 429 || err.status === 503;
    errorLine.textContent = errorText(err, line);
    setStatus('error', '');
    if (!retryable && !lineTruncated(err)) {
      evalNum.textContent = '–';
      evalText.textContent = 'No analysis of this position.';
      if (!nodeAt(ply).view) positionText.textContent = 'No position to show (see the message about it).';
    }
    if (retryable) {
      clearTimeout(timer);
      timer = setTimeout(() => { if (k === ply) think(); }, err.retryAfter || (err.status === 429 ? 2000 : 1000));
      return;
    }
    if (lineTruncated(err)) {
      // The line stops before the move the rules refused; the moves before it stand.
      lineError.textContent = `${errorLine.textContent} The line stops before it.`;
      errorLine.textContent = '';
      if (onMainAt(err.ply)) setup.main = setup.main.slice(0, err.ply - 1);
      line = line.slice(0, err.ply - 1);
      renderList();
      show(Math.min(ply, line.length));
    } else if (err.status === 400) {
      // A position or an option the game refused: say so by the form that set it up.
      page.querySelector('#setup-card').open = true;
      setupError.textContent = `${errorLine.textContent} Change the position or the options.`;
    }
  }

  /** A move the rules refused, in the line: the line is cut before it. */
  function lineTruncated(err) {
    return err.status === 422 && !!err.ply && err.ply <= line.length;
  }

  function setStatus(state, text) {
    page.dataset.state = state;
    statusLine.textContent = text;
  }

  // ----- the line: stepping, playing, variations -----
  function playMoves(moves, names = []) {
    lineError.textContent = '';
    let k = ply;
    moves.forEach((mv, i) => {
      const next = line[k];
      if (next && (next.move === mv || next.canon === mv)) { k += 1; return; }
      const before = nodeAt(k);
      const player = before.state ? before.state.to_move : null;
      const display = names[i] || (before.view ? board.display(mv, { view: before.view }) : mv);
      line = [...line.slice(0, k), { move: mv, canon: mv, display, player }];
      k += 1;
    });
    renderList();
    show(k);
  }

  function renderList() {
    reviewButton.disabled = !!reviewing || !line.length;
    // Players alternate unless the server said otherwise.
    let guess = (nodeAt(0).state && nodeAt(0).state.to_move) || players[0];
    const moves = line.map((m, i) => {
      const player = m.player || guess;
      guess = player === players[0] ? players[1] : players[0];
      return { ply: i + 1, player, move: m.move, display: m.display || m.move };
    });
    list.render(moves, { players });
    for (const [p, j] of judged) {
      const button = list.el.querySelector(`button[data-ply="${p}"]`);
      if (!button || !sameLine(reviewed.line, p)) continue;
      button.classList.add(`judged-${j.kind}`);
      button.dataset.judgement = j.kind;
      button.title = `Move ${p}: ${j.label} (${title(moves[p - 1].player)} lost ${Math.round(j.drop * 100)}% of expected score)`;
      button.append(h('span', { class: `judgement judged-${j.kind}`, 'aria-hidden': 'true' }, j.glyph), h('span', { class: 'sr-only' }, ` (${j.label.toLowerCase()})`));
    }
    list.mark(ply);
    // A variation off a stored game can go back to the game's own moves.
    const diverge = setup.main ? line.findIndex((m, i) => !setup.main[i] || setup.main[i].move !== m.move) : -1;
    variationNote.hidden = diverge < 0;
    if (diverge >= 0) {
      mount(variationNote, `A variation from move ${diverge + 1}. `,
        h('button', {
          type: 'button', id: 'back-to-game',
          onclick: () => { line = setup.main.slice(); renderList(); show(Math.min(diverge, line.length)); },
        }, setup.gameId ? 'Back to the game' : 'Back to the main line'));
    }
  }

  // ----- game review -----
  let reviewing = null;
  /** ply → {kind, glyph, label, drop} for the reviewed line. */
  let judged = new Map();
  let reviewed = { line: [], entries: [], values: [], movers: [] };
  const sameLine = (moves, upTo) => upTo <= moves.length && upTo <= line.length && moves.slice(0, upTo).every((m, i) => m === line[i].move);

  async function startReview() {
    if (reviewing) return;
    const c = new AbortController();
    reviewing = c;
    const snapshot = line.slice();
    const n = snapshot.length;
    reviewed = {
      line: snapshot.map((m) => m.move), entries: snapshot, values: new Array(n + 1).fill(null), movers: new Array(n + 1).fill(null),
    };
    judged = new Map();
    reviewButton.disabled = true;
    reviewCancel.hidden = false;
    reviewProgress.hidden = false;
    reviewProgress.max = n + 1;
    reviewProgress.value = 0;
    errorLine.textContent = '';
    mount(reviewSummary);
    page.dataset.review = 'running';
    try {
      for (let k = 0; k <= n; k++) {
        reviewStatus.textContent = `Reviewing position ${k} of ${n}…`;
        const moves = movesOf(snapshot, k);
        const node = nodeByKey(moves.join(' '));
        let a = node.analysis && !node.analysis.retry && (node.budget >= REVIEW_MS || node.analysis.over || node.analysis.evaluation.unit === 'solved') ? node.analysis : node.review;
        let tries = 0;
        while (!a) {
          try {
            const res = await askEngine(request(moves, REVIEW_MS), c.signal);
            if (!node.view) { node.state = res.state; node.view = res.view; }
            if (res.analysis.retry) { await sleep(300, c.signal); continue; }
            node.review = res.analysis;
            if (!node.analysis) { node.analysis = res.analysis; node.budget = REVIEW_MS; }
            a = res.analysis;
          } catch (err) {
            if (err.name === 'AbortError') throw err;
            if ((err.status === 429 || err.status === 503) && tries < 20) {
              tries += 1;
              reviewStatus.textContent = errorText(err, snapshot);
              await sleep(err.retryAfter || 1000, c.signal);
              continue;
            }
            throw err;
          }
        }
        reviewed.values[k] = a.evaluation.expected;
        reviewed.movers[k] = a.to_move;
        reviewProgress.value = k + 1;
        judge();
        renderReview();
      }
      reviewStatus.textContent = `Reviewed ${n} ${n === 1 ? 'move' : 'moves'} at ${REVIEW_MS} ms a position.`;
      page.dataset.review = 'done';
    } catch (err) {
      if (err.name === 'AbortError') return;
      reviewStatus.textContent = `The review stopped: ${errorText(err, snapshot)}`;
      page.dataset.review = 'failed';
    } finally {
      if (reviewing === c) finishReview();
    }
  }

  function stopReview(text) {
    if (!reviewing) return;
    reviewing.abort();
    finishReview();
    reviewStatus.textContent = text;
    page.dataset.review = 'cancelled';
  }

  function finishReview() {
    reviewing = null;
    reviewCancel.hidden = true;
    reviewProgress.hidden = true;
    renderList();
  }

  /** Marks each move by how much of the mover's expected score it gave away. */
  function judge() {
    judged = new Map();
    const { values, movers } = reviewed;
    for (let p = 1; p < values.length; p++) {
      if (values[p] === null || values[p - 1] === null) continue;
      const mover = movers[p - 1] || players[(p - 1) % 2];
      const mine = (e) => (mover === players[0] ? e : 1 - e);
      const drop = mine(values[p - 1]) - mine(values[p]);
      const j = JUDGEMENTS.find((x) => drop >= x.drop - 1e-9);
      if (j) judged.set(p, { ...j, drop, mover });
    }
  }

  function renderReview() {
    renderList();
    const rows = players.map((p) => {
      const mine = [...judged.values()].filter((j) => j.mover === p);
      return h('li', { 'data-player': p }, h('span', { class: `swatch swatch-${p}`, 'aria-hidden': 'true' }), ` ${title(p)}: `,
        JUDGEMENTS.map((j, i) => {
          const n = mine.filter((x) => x.kind === j.kind).length;
          return [i ? ', ' : '', h('span', { class: n ? `judged-${j.kind}` : 'none-judged', 'data-count': n, 'data-kind': j.kind }, `${n} ${n === 1 ? j.kind : j.plural}`)];
        }));
    });
    mount(reviewSummary, h('ul', { class: 'review-counts' }, rows));
    renderGraph();
  }

  function renderGraph() {
    if (!reviewed.line.length && !reviewed.values.some((v) => v !== null)) return;
    mount(graphHost, evalGraph(reviewed.values, judged, sameLine(reviewed.line, ply) ? ply : null, players, (p) => {
      // A click on the graph goes back to the reviewed line if a variation left it.
      if (!sameLine(reviewed.line, reviewed.line.length)) { line = reviewed.entries.slice(); renderList(); }
      show(p);
    }));
  }

  async function firstLook() {
    const node = nodeAt(ply);
    if (node.view) return;
    try {
      if (setup.gameId && onMainAt(ply)) {
        const pos = await api.position(setup.gameId, ply);
        Object.assign(node, { state: pos.state, view: pos.view });
      } else {
        learn(ply, node, await askEngine(requestFor(ply, Math.min(QUICK_MS, budget))), Math.min(QUICK_MS, budget));
      }
    } catch { /* think() asks again, and says what went wrong */ }
  }

  // ----- keys: ← → Home End step through the line -----
  const keys = (event) => {
    if (event.target.closest('input, textarea, select, .board-wrap, dialog') || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowLeft') show(ply - 1);
    else if (event.key === 'ArrowRight') show(ply + 1);
    else if (event.key === 'Home') show(0);
    else if (event.key === 'End') show(line.length);
    else return;
    event.preventDefault();
  };
  document.addEventListener('keydown', keys);

  // The first position's board (and a first look from the engine) before the page is drawn, and
  // its room kept until then, so that nothing moves when they come.
  const aspect = boardAspect(board, setup, gm);
  boardHost.style.aspectRatio = String(aspect);
  page.style.setProperty('--aspect', aspect);
  await firstLook();
  mount(root, page);
  renderList();
  show(ply);
  // For the browser tests and the curious: the line, the position shown and what the engine said of it.
  window.tabulaAnalysis = {
    get ply() { return ply; },
    get moves() { return line.map((m) => m.move); },
    get analysis() { return nodeAt(ply).analysis; },
    request: (k = ply) => requestFor(k, budget),
  };
  return () => {
    document.removeEventListener('keydown', keys);
    clearTimeout(timer);
    if (controller) controller.abort();
    if (reviewing) reviewing.abort();
    delete window.tabulaAnalysis;
  };
}
