// A knockout bracket drawn as plain SVG: one column per round, first round on
// the left, each match a box of two slots (seed, player, score) joined to the
// match its winner goes on to. A match links to its latest game. No library.

import { s } from './dom.js';

const BOX_W = 200;
const SLOT_H = 24;
const BOX_H = SLOT_H * 2;
const GAP_X = 44;
const PITCH = BOX_H + 18; // vertical room per first-round match
const HEAD = 26; // room for the round names
const PAD = 6;

/** A round's name counted from the end: Final, Semifinals, Quarterfinals, else "Round N". */
export function roundName(index, count) {
  const fromEnd = count - 1 - index;
  if (fromEnd === 0) return 'Final';
  if (fromEnd === 1) return 'Semifinals';
  if (fromEnd === 2) return 'Quarterfinals';
  return `Round ${index + 1}`;
}

/** Where round `r`'s column starts, in the SVG's pixels. */
export function bracketColumnX(r) {
  return PAD + r * (BOX_W + GAP_X);
}

/** The game a match box links to: the live one, else the last one played. */
export function matchGame(match) {
  const games = (match.games || []).filter((g) => g.game_id);
  return games.find((g) => g.status !== 'finished') || games[games.length - 1] || null;
}

/**
 * The SVG of `bracket` ({rounds: [[match]]}, as in the tournament API),
 * drawn at its natural size (the page scrolls it sideways on a phone rather
 * than shrinking the names out of reading). `me`: the viewer's player id,
 * whose slots are marked.
 */
export function bracketSvg(bracket, { me = null, id = 'bracket' } = {}) {
  // A third-place match sent beside the rounds joins the last round, below the final.
  const rounds = ((bracket && bracket.rounds) || []).map((round, r, all) =>
    (r === all.length - 1 && bracket.third_place ? [...round, bracket.third_place] : round));
  const first = Math.max(1, (rounds[0] || []).length);
  // The main tree: round r has first / 2^r matches; a round with more (the
  // third-place match beside the final) puts the extra ones below the tree.
  const treeSize = (r) => Math.max(1, Math.ceil(first / 2 ** r));
  const extraRows = rounds.reduce((most, round, r) => Math.max(most, round.length - treeSize(r)), 0);
  const width = PAD * 2 + rounds.length * BOX_W + Math.max(0, rounds.length - 1) * GAP_X;
  const height = HEAD + first * PITCH + extraRows * (PITCH + 20) + PAD;
  const centre = new Map();
  const parts = [];
  const x = bracketColumnX;

  rounds.forEach((round, r) => {
    parts.push(s('text', { class: 'bracket-round-name', x: x(r) + BOX_W / 2, y: 16, 'text-anchor': 'middle' }, roundName(r, rounds.length)));
    round.forEach((match, m) => {
      let cy;
      if (m < treeSize(r)) {
        const fedBy = r > 0 ? [centre.get(`${r - 1}:${2 * m}`), centre.get(`${r - 1}:${2 * m + 1}`)].filter((v) => v !== undefined) : [];
        cy = fedBy.length ? fedBy.reduce((a, b) => a + b, 0) / fedBy.length : HEAD + (m + 0.5) * PITCH * 2 ** r;
        centre.set(`${r}:${m}`, cy);
        for (const [i, from] of fedBy.entries()) {
          const x0 = x(r - 1) + BOX_W;
          const xm = x0 + GAP_X / 2;
          parts.push(s('path', { class: 'bracket-line', d: `M${x0} ${from} H${xm} V${cy} H${x(r)}`, 'data-from': `${r - 1}:${2 * m + i}` }));
        }
      } else {
        // A match outside the tree (third place): below it, with its own name.
        const row = m - treeSize(r);
        cy = HEAD + first * PITCH + 20 + row * (PITCH + 20) + BOX_H / 2;
        parts.push(s('text', { class: 'bracket-round-name', x: x(r) + BOX_W / 2, y: cy - BOX_H / 2 - 6, 'text-anchor': 'middle' }, 'Third place'));
      }
      parts.push(matchBox(match, x(r), cy - BOX_H / 2, me, `${roundName(r, rounds.length)}, match ${m + 1}`));
    });
  });

  return s('svg', {
    class: 'bracket', id, width, height, viewBox: `0 0 ${width} ${height}`,
    role: 'group', 'aria-label': 'Knockout bracket',
  }, parts);
}

function matchBox(match, left, top, me, where) {
  const game = matchGame(match);
  const slot = (seat, i) => {
    const y = top + i * SLOT_H;
    const won = seat && match.winner !== null && match.winner !== undefined && match.winner === seat.pid;
    const lost = seat && match.winner !== null && match.winner !== undefined && match.winner !== seat.pid;
    const mine = seat && me !== null && seat.pid === me;
    const score = scoreOf(match, i);
    return s('g', { class: `bracket-slot${won ? ' winner' : ''}${lost ? ' loser' : ''}${mine ? ' mine' : ''}`, 'data-pid': seat ? seat.pid : null },
      s('rect', { class: 'bracket-slot-bg', x: left, y, width: BOX_W, height: SLOT_H }),
      seat && seat.seed ? s('text', { class: 'bracket-seed', x: left + 18, y: y + 16, 'text-anchor': 'end' }, String(seat.seed)) : null,
      s('text', { class: `bracket-name${seat ? '' : ' to-come'}`, x: left + 24, y: y + 16 }, seat ? clip(seat.user || `#${seat.pid}`, 17) : '—'),
      score !== null ? s('text', { class: 'bracket-score', x: left + BOX_W - 8, y: y + 16, 'text-anchor': 'end' }, score) : null);
  };
  const names = [match.slot_a, match.slot_b].map((st) => (st ? st.user : 'to be decided')).join(' against ');
  const title = `${where}: ${names}${match.score ? `, ${match.score}` : ''}${game && game.status === 'live' ? ' (playing now)' : ''}`;
  const box = s('g', {
    class: `bracket-match${game && game.status === 'live' ? ' live' : ''}${match.winner !== null && match.winner !== undefined ? ' decided' : ''}`,
    'data-match': match.match,
  },
  s('title', {}, title),
  s('rect', { class: 'bracket-box', x: left, y: top, width: BOX_W, height: BOX_H, rx: 5 }),
  slot(match.slot_a, 0), slot(match.slot_b, 1),
  s('line', { class: 'bracket-divider', x1: left, x2: left + BOX_W, y1: top + SLOT_H, y2: top + SLOT_H }));
  if (!game) return box;
  return s('a', { href: `/game/${encodeURIComponent(game.game_id)}`, 'data-link': true, class: 'bracket-link', 'aria-label': title }, box);
}

/** Each side's score from the match's "1½-½" text, or null before a game. */
function scoreOf(match, side) {
  // The server sends 0-0 for matches not begun: no score until a game exists.
  if (!match.score || !(match.games || []).length) return null;
  const parts = String(match.score).split(/[-–]/);
  return parts.length === 2 ? parts[side].trim() : null;
}

function clip(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
