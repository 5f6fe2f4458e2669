// The rating-history graph of the profile page, drawn as plain SVG: one line
// per series (a game and speed category), time along x, rating up y, with
// round-number gridlines and a tooltip on every point. No chart library.

import { s, h } from './dom.js';

const MAX_WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 46, right: 12, top: 12, bottom: 28 };
const COLOURS = ['#2563c9', '#d1432b', '#2a9d4b', '#8e44ad', '#d68910', '#17a2b8', '#6c757d', '#c2185b'];

/**
 * A graph of `series` ([{label, points: [{t, rating}]}], t in ms since the
 * epoch), or a short note when there is nothing to draw. The SVG scales to
 * its container's width.
 */
export function ratingGraph(series, { id = 'rating-graph', width = MAX_WIDTH } = {}) {
  // Drawn at about the size it is shown, so its labels stay readable on a phone.
  const w = Math.max(300, Math.min(MAX_WIDTH, Math.round(width)));
  const drawn = series.filter((sr) => sr.points.length > 0);
  if (!drawn.length) return h('p', { class: 'hint', id }, 'No rated games yet: the graph starts with the first one.');
  const all = drawn.flatMap((sr) => sr.points);
  let [t0, t1] = extent(all.map((p) => p.t));
  let [r0, r1] = extent(all.map((p) => p.rating));
  if (t1 === t0) { t0 -= 12 * 3600e3; t1 += 12 * 3600e3; }
  // Round the rating range outwards to a step of 50 (at least 100 tall).
  const step = niceStep(r1 - r0);
  r0 = Math.floor((r0 - 1) / step) * step;
  r1 = Math.ceil((r1 + 1) / step) * step;
  if (r1 - r0 < 2 * step) { r0 -= step; r1 += step; }
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (w - PAD.left - PAD.right);
  const y = (r) => HEIGHT - PAD.bottom - ((r - r0) / (r1 - r0)) * (HEIGHT - PAD.top - PAD.bottom);

  const grid = [];
  for (let r = r0; r <= r1; r += step) {
    grid.push(s('line', { class: 'graph-grid', x1: PAD.left, x2: w - PAD.right, y1: y(r), y2: y(r) }),
      s('text', { class: 'graph-label', x: PAD.left - 6, y: y(r) + 4, 'text-anchor': 'end' }, String(r)));
  }
  const short = t1 - t0 < 2 * 86400e3;
  let previous = null;
  const ticks = timeTicks(t0, t1, w < 480 ? 2 : 4).map((t, i, all) => {
    const text = short ? timeLabel(t) : dateLabel(t);
    if (text === previous) return null;
    previous = text;
    // The first and last labels keep inside the graph.
    const anchor = i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle';
    return s('text', { class: 'graph-label', x: x(t), y: HEIGHT - 8, 'text-anchor': anchor }, text);
  });
  const lines = drawn.map((sr, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = sr.points.map((p) => `${x(p.t).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ');
    return s('g', { class: 'graph-series', 'data-series': sr.key || sr.label },
      sr.points.length > 1 ? s('polyline', { points: pts, fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-linejoin': 'round' }) : null,
      sr.points.map((p) => s('circle', { class: 'graph-point', cx: x(p.t), cy: y(p.rating), r: 3.5, fill: colour },
        s('title', {}, `${sr.label}: ${Math.round(p.rating)} on ${new Date(p.t).toLocaleDateString()}`))));
  });
  const summary = drawn.map((sr) => `${sr.label}: ${Math.round(sr.points[0].rating)} to ${Math.round(sr.points[sr.points.length - 1].rating)} over ${sr.points.length} ${sr.points.length === 1 ? 'game' : 'games'}`).join('; ');
  const svg = s('svg', {
    class: 'rating-graph', id, viewBox: `0 0 ${w} ${HEIGHT}`, role: 'img', 'aria-label': `Rating history. ${summary}.`,
    preserveAspectRatio: 'xMidYMid meet',
  }, grid, ticks, lines);
  const legend = drawn.length > 1 || drawn[0].label
    ? h('ul', { class: 'graph-legend', 'aria-hidden': 'true' }, drawn.map((sr, i) => h('li', {},
      h('span', { class: 'graph-key', style: `background:${COLOURS[i % COLOURS.length]}` }), sr.label)))
    : null;
  return h('figure', { class: 'graph' }, svg, legend);
}

function extent(values) {
  return [Math.min(...values), Math.max(...values)];
}

function niceStep(span) {
  for (const step of [25, 50, 100, 200, 250, 500]) if (span / step <= 5) return step;
  return 1000;
}

/** `n + 1` evenly spaced times to label along x. */
function timeTicks(t0, t1, n) {
  return Array.from({ length: n + 1 }, (_, i) => t0 + ((t1 - t0) * i) / n);
}

function timeLabel(t) {
  return new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

function dateLabel(t) {
  return new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}
