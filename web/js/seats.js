// How a seat is named on every page.

/** A seat's display name; a human seat named after a colour (the server's default) is just "Player". */
export function seatName(seat, players = []) {
  if (!seat) return '?';
  if (seat.kind === 'ai') return seat.name || `AI (${seat.level})`;
  if (!seat.joined) return 'Open seat';
  return seat.name && seat.name !== seat.player && !players.includes(seat.name) ? seat.name : 'Player';
}
