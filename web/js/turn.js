// The browser tab tells you when it is your turn: a marked title and a
// favicon with a dot, so a game in a background tab is noticed.

const PLAIN = '/favicon.svg';
const YOUR_TURN = 'data:image/svg+xml,' + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2a44"/>'
  + '<rect x="4" y="4" width="12" height="12" fill="#e8d9b5"/><rect x="16" y="16" width="12" height="12" fill="#e8d9b5"/>'
  + '<circle cx="23" cy="9" r="8" fill="#2fbf5b" stroke="#fff" stroke-width="2"/></svg>');

function iconLink() {
  let link = document.querySelector('link[rel=icon]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  return link;
}

/** Sets the tab's title, marked (and the favicon dotted) when `yourTurn`. */
export function showTurn(title, yourTurn) {
  const text = yourTurn ? `● Your move · ${title}` : title;
  if (document.title !== text) document.title = text;
  const link = iconLink();
  const href = yourTurn ? YOUR_TURN : PLAIN;
  if (link.getAttribute('href') !== href) {
    link.setAttribute('href', href);
    link.setAttribute('type', 'image/svg+xml');
    document.documentElement.dataset.yourTurn = yourTurn ? 'yes' : 'no';
  }
}

/** Back to the plain title and icon (leaving a game page). */
export function clearTurn(title = 'Tabula') {
  showTurn(title, false);
}
