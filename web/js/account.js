// Who is logged in: asked of the server once per page load and after every
// sign-up, login and logout. The header shows the name (a link to the
// profile) or the "Log in" and "Sign up" links; pages listen to the
// `tabula-account` event to redraw when it changes. Guests keep playing by
// link without an account.

import { h, mount } from './dom.js';
import { api } from './api.js';

let current = null;
let loaded = null;

/** The logged-in account ({id, username, kind, created_at_ms}) or null, once the server has said. */
export function whoAmI() {
  loaded ||= api.me().then((me) => { current = me; return me; }).catch(() => { current = null; return null; });
  return loaded;
}

/** The account as last known (null for a guest or before the first answer). */
export function me() {
  return current;
}

/** Sets the account after a sign-up, login or logout, and tells the pages. */
export function setAccount(account) {
  current = account || null;
  loaded = Promise.resolve(current);
  renderHeader();
  window.dispatchEvent(new CustomEvent('tabula-account', { detail: current }));
}

/** Asks the server again (e.g. after the account was closed elsewhere). */
export async function refreshAccount() {
  loaded = null;
  setAccount(await whoAmI());
}

let host = null;
let returnTo = '/';

/** Remembers the page to come back to after logging in (the router calls it for every other page). */
export function rememberPage(path) {
  if (!/^\/(login|signup)\b/.test(path)) returnTo = path;
}

/** Where a login or sign-up form goes once it succeeds. */
export function pageBeforeLogin() {
  return returnTo;
}

/** The header's account corner: a placeholder filled once the server answers. */
export function accountControls() {
  host = h('div', { class: 'account', id: 'account-box' });
  whoAmI().then(renderHeader);
  return host;
}

function renderHeader() {
  if (!host) return;
  if (current) {
    mount(host,
      h('a', { href: `/@/${encodeURIComponent(current.username)}`, 'data-link': true, id: 'account-name', class: 'account-name' }, current.username),
      h('button', {
        type: 'button', id: 'logout', class: 'link-button',
        onclick: async () => {
          try { await api.logout(); } catch { /* the session is gone either way */ }
          setAccount(null);
        },
      }, 'Log out'));
  } else {
    mount(host,
      h('a', { href: '/login', 'data-link': true, id: 'login-link' }, 'Log in'),
      h('a', { href: '/signup', 'data-link': true, id: 'signup-link' }, 'Sign up'));
  }
}
