// Reading the moves out of a PGN record (the server exports Cumisitha games
// as PGN with SAN moves), so the move list can show people's notation.
// This only splits the text; it never judges a move.

/** The SAN moves of the first game in `text`, in order. */
export function sanMoves(text) {
  const movetext = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('['))
    .join(' ')
    .replace(/\{[^}]*\}/g, ' ') // comments
    .replace(/;[^\n]*/g, ' ')
    .replace(/\$\d+/g, ' '); // numeric annotations
  // Drop variations, innermost first.
  let flat = movetext;
  for (let guard = 0; guard < 50 && /\([^()]*\)/.test(flat); guard++) flat = flat.replace(/\([^()]*\)/g, ' ');
  return flat
    .split(/\s+/)
    .map((token) => token.replace(/^\d+\.+/, '').replace(/[!?]+$/, ''))
    .filter((token) => token && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(token));
}
