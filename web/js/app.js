// The single-page app: a tiny router over the History API. The server answers
// every non-API path with index.html, so deep links work.

import { h, mount } from './dom.js';
import { accountControls, rememberPage } from './account.js';
import { applySettings, settingsControls } from './settings.js';
import './sound.js';

// Errors the page met, kept for the browser tests (which check there are none)
// and anyone looking in the console.
window.tabulaErrors = [];
window.addEventListener('error', (event) => window.tabulaErrors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => window.tabulaErrors.push(String(event.reason)));

/** Resolves once the stylesheet at `href` is linked and loaded (linking it
 * if index.html has not): a page is drawn only with its styles, never
 * unstyled first. A sheet that fails to load draws the page anyway. */
function stylesheet(href) {
  let link = document.querySelector(`link[rel=stylesheet][href="${href}"]`);
  if (link && link.sheet) return Promise.resolve();
  if (!link) {
    link = h('link', { rel: 'stylesheet', href });
    document.head.append(link);
  }
  return new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  });
}

// Each page's module is imported when the page is first opened: a first
// visit then downloads only what it shows (index.html preloads the opened
// page's modules, and prefetchOtherPages the rest once it is drawn). The
// few pages with a stylesheet of their own load it the same way, so the
// other pages do not wait for it before their first paint.
const page = (load, name, styles = []) => async (root, args) => {
  const [module] = await Promise.all([load(), ...styles.map(stylesheet)]);
  return module[name](root, args);
};
const routes = [
  [/^\/$/, page(() => import('./pages/lobby.js'), 'lobbyPage')],
  [/^\/game\/([^/]+)$/, page(() => import('./pages/game.js'), 'gamePage')],
  [/^\/replay\/([^/]+)$/, page(() => import('./pages/replay.js'), 'replayPage')],
  [/^\/howto(?:\/([a-z]+))?$/, page(() => import('./pages/howto.js'), 'howtoPage')],
  [/^\/login$/, page(() => import('./pages/auth.js'), 'loginPage')],
  [/^\/signup$/, page(() => import('./pages/auth.js'), 'signupPage')],
  [/^\/@\/([^/]+)$/, page(() => import('./pages/profile.js'), 'profilePage')],
  [/^\/leaderboard$/, page(() => import('./pages/leaderboard.js'), 'leaderboardPage')],
  [/^\/bots$/, page(() => import('./pages/leaderboard.js'), 'botsPage')],
  [/^\/tournaments$/, page(() => import('./pages/tournaments.js'), 'tournamentsPage', ['/css/tournament.css'])],
  [/^\/tournaments\/new$/, page(() => import('./pages/tournaments.js'), 'newTournamentPage', ['/css/tournament.css'])],
  [/^\/tournament\/([^/]+)$/, page(() => import('./pages/tournament.js'), 'tournamentPage', ['/css/tournament.css'])],
  [/^\/analysis(?:\/([a-z]+))?$/, page(() => import('./pages/analysis.js'), 'analysisPage', ['/css/analysis.css'])],
];

/** A few seconds after the first page is drawn, fetch every other page's
 * modules and stylesheets (the lists in index.html) into the cache, so later
 * navigation waits for no download. `prefetch`, not `modulepreload`: the
 * browser only downloads them, at idle priority, instead of also compiling
 * ten modules on the main thread while the player starts on this page. */
function prefetchOtherPages() {
  const have = new Set([...document.querySelectorAll('link[rel=modulepreload], link[rel=stylesheet], link[rel=prefetch]')]
    .map((l) => l.getAttribute('href')));
  let lists = [];
  try { lists = JSON.parse(document.getElementById('page-modules').textContent); } catch { return; }
  for (const { modules, styles = [] } of lists) {
    for (const href of [...modules, ...styles]) {
      if (have.has(href)) continue;
      have.add(href);
      document.head.append(h('link', { rel: 'prefetch', href }));
    }
  }
}

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
// Not at once: downloading every other page's files would compete with this
// page's own requests and the first things a player does on it.
route().then(() => setTimeout(() => (window.requestIdleCallback || setTimeout)(prefetchOtherPages), 3000));
