// How players, ratings and categories read on every page.

import { title } from './dom.js';

const CATEGORY_LABELS = { bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid', classical: 'Classical', untimed: 'Untimed', correspondence: 'Correspondence' };

/** A speed category's name: "blitz" → "Blitz". */
export function categoryLabel(category) {
  return CATEGORY_LABELS[category] || title(category || '');
}

/** A rating as players read it: 1500, or 1500? while provisional. */
export function ratingText(r) {
  if (!r || r.rating === undefined || r.rating === null) return '';
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

/** A game's display name from the meta ("coldwar" → "Cold War"). */
export function gameName(games, id) {
  const g = (games || []).find((x) => x.id === id);
  return g ? g.name : title(id || '');
}

/** "win", "loss", "draw", "aborted" or "ongoing", for the player `player` of game `g`. */
export function resultFor(g, player) {
  if (g.status === 'aborted' || (g.result && g.result.reason === 'aborted')) return 'aborted';
  if (!g.result) return 'ongoing';
  if (!g.result.winner) return 'draw';
  return g.result.winner === player ? 'win' : 'loss';
}

/** A signed rating change: +12, −8 (a real minus sign), ±0. */
export function ratingDiffText(diff) {
  if (diff === 0) return '±0';
  return diff > 0 ? `+${diff}` : `−${Math.abs(diff)}`;
}
