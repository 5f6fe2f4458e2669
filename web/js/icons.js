// Small line icons drawn for Tabula (24×24, stroked with the text colour),
// so no glyph depends on the fonts a machine happens to have.

import { s } from './dom.js';

const PATHS = {
  sound: 'M4 9h4l5-4v14l-5-4H4zM16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12',
  muted: 'M4 9h4l5-4v14l-5-4H4zM17 9l5 6M22 9l-5 6',
  settings: 'M12 8.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7zM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1',
  first: 'M6 5v14M18 5l-9 7 9 7z',
  prev: 'M16 5l-9 7 9 7z',
  next: 'M8 5l9 7-9 7z',
  last: 'M18 5v14M6 5l9 7-9 7z',
};

/** An icon as an inline SVG (hidden from screen readers: label its button instead). */
export function icon(name) {
  const svg = s('svg', { viewBox: '0 0 24 24', class: `icon icon-${name}`, 'aria-hidden': 'true', focusable: 'false' });
  svg.append(s('path', { d: PATHS[name] }));
  return svg;
}
