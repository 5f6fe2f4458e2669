// Chess pieces for Cumisitha, drawn for Tabula on a 45×45 grid.
// Each piece is a few plain paths so it stays crisp at any size.

import { s } from '../dom.js';

const SHAPES = {
  p: [
    ['path', { d: 'M22.5 9a5 5 0 0 1 3.4 8.7c2.5 1.5 4.1 4.1 4.1 7 0 2.1-.8 4-2.2 5.4 4.2 1.8 7.2 5.3 7.2 8.9H10c0-3.6 3-7.1 7.2-8.9A7.6 7.6 0 0 1 15 24.7c0-2.9 1.6-5.5 4.1-7A5 5 0 0 1 22.5 9z' }],
  ],
  r: [
    ['path', { d: 'M10 39h25v-3.5H10zM12.5 35.5l1.5-4h17l1.5 4M14 31.5V18h17v13.5M12 18h21l-1-3H13zM12 15V10h4v2.5h3.5V10h6v2.5H29V10h4v5' }],
    ['path', { d: 'M14 31.5h17M13 18h19', class: 'detail' }],
  ],
  n: [
    ['path', { d: 'M14 39h21.5c.6-9.6-1.8-17.8-7.2-23.3-1.3-1.3-1.5-3.2-1-5l.6-2.2-2.8 1.7-1.4-3.2-1.5 4.1c-4.6.8-8.3 4.2-10.5 8.6L9.5 26c-1 1.8.2 3.9 2.2 4 1.5 0 2.6-.7 3.5-1.9l2.5-1.3c1.7-.1 3-.8 4.3-2.2-.5 3.3-2.8 5.8-5.4 8.2-1.9 1.8-2.7 3.8-2.6 6.2z' }],
    ['circle', { cx: 19.2, cy: 17.2, r: 1.3, class: 'detail-fill' }],
    ['path', { d: 'M12 27.8l1.3-.9', class: 'detail' }],
  ],
  b: [
    ['path', { d: 'M10.5 39h24v-3h-24zM14.5 36c.8-3.4 2.6-5.9 4.6-7.4-3-1.8-4.6-4.6-4.6-7.8 0-4.5 3.8-8.4 8-11.6 4.2 3.2 8 7.1 8 11.6 0 3.2-1.6 6-4.6 7.8 2 1.5 3.8 4 4.6 7.4z' }],
    ['circle', { cx: 22.5, cy: 7.2, r: 2.6 }],
    ['path', { d: 'M25.7 15.2l-4.6 5.6M19.1 28.6h6.8', class: 'detail' }],
  ],
  q: [
    ['path', { d: 'M11.5 36L8 16l6.5 10 1.5-13.5 4 12 2.5-13.5 2.5 13.5 4-12 1.5 13.5L37 16l-3.5 20z' }],
    ['path', { d: 'M11 35.5h23V39H11z' }],
    ['circle', { cx: 8, cy: 15, r: 2.3 }],
    ['circle', { cx: 16, cy: 11.5, r: 2.3 }],
    ['circle', { cx: 22.5, cy: 10, r: 2.3 }],
    ['circle', { cx: 29, cy: 11.5, r: 2.3 }],
    ['circle', { cx: 37, cy: 15, r: 2.3 }],
    ['path', { d: 'M12.5 31.5h20', class: 'detail' }],
  ],
  k: [
    ['path', { d: 'M22.5 6.5v7M19 9.5h7', class: 'outline-only' }],
    ['path', { d: 'M22.5 24c-1.6-4.2-2.3-7.2 0-9.7 2.3 2.5 1.6 5.5 0 9.7z' }],
    ['path', { d: 'M11.5 36c-2.5-5.5-4-12.5.2-15.4 3.8-2.6 8.3-.3 10.8 4.3 2.5-4.6 7-6.9 10.8-4.3 4.2 2.9 2.7 9.9.2 15.4z' }],
    ['path', { d: 'M11 35.5h23V39H11z' }],
    ['path', { d: 'M12.8 31.3h19.4M22.5 24.9v6.4', class: 'detail' }],
  ],
};

/** An SVG <g> for piece `letter` (FEN letter: uppercase white) at (x, y) in a box of `size`. */
export function pieceGlyph(letter, x, y, size) {
  const color = letter === letter.toUpperCase() ? 'white' : 'black';
  const kind = letter.toLowerCase();
  const k = size / 45;
  const g = s('g', {
    class: `piece piece-${color} piece-${kind}`,
    transform: `translate(${x} ${y}) scale(${k})`,
    'data-piece': letter,
  });
  for (const [tag, attrs] of SHAPES[kind]) g.append(s(tag, attrs));
  return g;
}

/** A standalone small SVG of a piece, e.g. for the promotion dialog. */
export function pieceIcon(letter, size = 48) {
  const svg = s('svg', { viewBox: '0 0 45 45', width: size, height: size, class: 'piece-icon', 'aria-hidden': 'true' });
  svg.append(pieceGlyph(letter, 0, 0, 45));
  return svg;
}

export const PIECE_NAMES = { p: 'Pawn', n: 'Knight', b: 'Bishop', r: 'Rook', q: 'Queen', k: 'King' };
