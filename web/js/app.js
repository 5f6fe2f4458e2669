// The single-page app: a tiny router over the History API. The server answers
// every non-API path with index.html, so deep links work.

import { h, mount } from './dom.js';
import { lobbyPage } from './pages/lobby.js';
import { gamePage } from './pages/game.js';
import { howtoPage } from './pages/howto.js';
import { replayPage } from './pages/replay.js';
import { loginPage, signupPage } from './pages/auth.js';
import { profilePage } from './pages/profile.js';
import { leaderboardPage, botsPage } from './pages/leaderboard.js';
import { tournamentsPage, newTournamentPage } from './pages/tournaments.js';
import { tournamentPage } from './pages/tournament.js';
import { accountControls, rememberPage } from './account.js';
import { applySettings, settingsControls } from './settings.js';
import './sound.js';

// Errors the page met, kept for the browser tests (which check there are none)
// and anyone looking in the console.
window.tabulaErrors = [];
window.addEventListener('error', (event) => window.tabulaErrors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => window.tabulaErrors.push(String(event.reason)));

const routes = [
  [/^\/$/, lobbyPage],
  [/^\/game\/([^/]+)$/, gamePage],
  [/^\/replay\/([^/]+)$/, replayPage],
  [/^\/howto(?:\/([a-z]+))?$/, howtoPage],
  [/^\/login$/, loginPage],
  [/^\/signup$/, signupPage],
  [/^\/@\/([^/]+)$/, profilePage],
  [/^\/leaderboard$/, leaderboardPage],
  [/^\/bots$/, botsPage],
  [/^\/tournaments$/, tournamentsPage],
  [/^\/tournaments\/new$/, newTournamentPage],
  [/^\/tournament\/([^/]+)$/, tournamentPage],
  // Evaluated only when first opened (index.html still preloads it).
  [/^\/analysis(?:\/([a-z]+))?$/, async (root, args) => (await import('./pages/analysis.js')).analysisPage(root, args)],
];

applySettings();
document.getElementById('topbar-tools').append(...settingsControls());
document.querySelector('.topbar').append(accountControls());

const app = document.getElementById('app');
let cleanup = null;

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

async function route() {
  if (cleanup) { cleanup(); cleanup = null; }
  window.scrollTo(0, 0);
  const path = location.pathname;
  rememberPage(path + location.search);
  for (const [pattern, page] of routes) {
    const m = pattern.exec(path);
    if (m) {
      try {
        cleanup = (await page(app, m.slice(1).map((p) => p && decodeURIComponent(p)))) || null;
      } catch (err) {
        console.error(err);
        window.tabulaErrors.push(String(err));
        mount(app, h('div', { class: 'error-page' }, h('h1', {}, 'Something went wrong'), h('p', { class: 'error' }, err.message)));
      }
      return;
    }
  }
  mount(app, h('div', { class: 'error-page' }, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/', 'data-link': true }, 'Back to the lobby'))));
}

// Same-origin links marked data-link navigate without a reload.
document.addEventListener('click', (event) => {
  const link = event.target.closest('a[data-link]');
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute('href'));
});
window.addEventListener('popstate', route);
// Logging out (or in, elsewhere than its own form) redraws the page for the new viewer.
window.addEventListener('tabula-account', () => { if (!/^\/(login|signup)$/.test(location.pathname)) route(); });
route();
