// The server's JSON API (docs/api.md) and the per-game WebSocket.

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function request(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const err = data && data.error;
    throw new ApiError(err ? err.code : 'http_' + res.status, err ? err.message : `${res.status} ${res.statusText}`, res.status);
  }
  return data;
}

let metaPromise = null;

export const api = {
  /** The games' meta, asked once per visit (it changes only when the server does). */
  meta: () => {
    metaPromise ||= request('GET', '/api/games/meta').catch((err) => { metaPromise = null; throw err; });
    return metaPromise;
  },
  list: (status, limit = 20) => request('GET', `/api/games?status=${status}&limit=${limit}`),
  game: (id) => request('GET', `/api/games/${encodeURIComponent(id)}`),
  create: (body) => request('POST', '/api/games', body),
  join: (id, invite, name) => request('POST', `/api/games/${encodeURIComponent(id)}/join`, { invite, name }),
  move: (id, token, move, ply) => request('POST', `/api/games/${encodeURIComponent(id)}/move`, { token, move, ply }),
  resign: (id, token) => request('POST', `/api/games/${encodeURIComponent(id)}/resign`, { token }),
  abort: (id, token) => request('POST', `/api/games/${encodeURIComponent(id)}/abort`, { token }),
  draw: (id, token, action) => request('POST', `/api/games/${encodeURIComponent(id)}/draw`, { token, action }),
  rematch: (id, token) => request('POST', `/api/games/${encodeURIComponent(id)}/rematch`, { token }),
  exportUrl: (id) => `/api/games/${encodeURIComponent(id)}/export`,
};

/** Seat tokens live in localStorage, one entry per game: {player: token}. */
export const tokens = {
  get(gameId) {
    try { return JSON.parse(localStorage.getItem(`tabula.tokens.${gameId}`)) || {}; } catch { return {}; }
  },
  add(gameId, byPlayer) {
    const merged = { ...tokens.get(gameId), ...byPlayer };
    localStorage.setItem(`tabula.tokens.${gameId}`, JSON.stringify(merged));
    return merged;
  },
};

/**
 * A live connection to one game: calls `onState(game)` for every `state`
 * message, `onError(error)` for refusals, `onMessage(msg)` for any other
 * message, and `onStatus('connected' | 'offline')` when the connection comes
 * and goes. It reconnects after a drop, and a ping every few seconds notices
 * a connection that died without closing.
 */
export class GameSocket {
  constructor(gameId, { onState, onError, onStatus, onMessage, hello }) {
    this.gameId = gameId;
    this.hello = hello || (() => null);
    this.onState = onState;
    this.onError = onError || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onMessage = onMessage || (() => {});
    this.nextId = 1;
    this.closed = false;
    this.hidden = false;
    this.retry = 300;
    this.open = false;
    this.lastHeard = 0;
    this.heartbeat = setInterval(() => this.checkAlive(), HEARTBEAT_MS);
    this.onOnline = () => { if (!this.open) this.reconnectNow(); };
    this.onOffline = () => { if (this.ws) this.ws.close(); };
    // A page kept in the back/forward cache would keep its socket open, and
    // the server would go on counting the player as present: close it when
    // the page is hidden away, and connect again if the page comes back.
    this.onPageHide = () => {
      this.hidden = true;
      clearTimeout(this.retryTimer);
      const ws = this.ws;
      this.ws = null;
      this.open = false;
      if (ws) ws.close();
    };
    this.onPageShow = (event) => {
      if (!event.persisted || this.closed) return;
      this.hidden = false;
      this.retry = 300;
      this.connect();
    };
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    this.connect();
  }

  connect() {
    if (this.closed || this.hidden) return;
    clearTimeout(this.retryTimer);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${location.host}/api/games/${encodeURIComponent(this.gameId)}/ws`);
    } catch {
      this.dropped();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.retry = 300;
      this.open = true;
      this.reportedOffline = false;
      this.lastHeard = performance.now();
      // A guest's seat token says who is here (an account's cookie does so by itself): presence.
      const token = this.hello();
      if (token) { this.helloId = this.nextId; this.send({ type: 'hello', token }); }
      this.onStatus('connected');
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = performance.now();
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg.type === 'state') this.onState(msg.game);
      else if (msg.type === 'error') { if (msg.id === undefined || msg.id !== this.helloId) this.onError(msg.error); }
      else this.onMessage(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      this.dropped();
    };
  }

  dropped() {
    const was = this.open;
    this.open = false;
    this.ws = null;
    if (this.closed) return;
    if (was || !this.reportedOffline) { this.reportedOffline = true; this.onStatus('offline'); }
    this.retryTimer = setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 5000);
  }

  reconnectNow() {
    this.retry = 300;
    if (!this.ws) this.connect();
  }

  checkAlive() {
    if (!this.open || !this.ws) return;
    if (performance.now() - this.lastHeard > HEARTBEAT_MS * 2) {
      // Nothing heard, not even the answer to the last ping: the line is dead.
      const ws = this.ws;
      this.dropped();
      ws.close();
      return;
    }
    this.send({ type: 'ping' });
  }

  /** Sends a message; false when the connection is down (nothing is sent then). */
  send(message) {
    const id = this.nextId++;
    const payload = JSON.stringify({ v: 1, id, ...message });
    if (this.open && this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(payload);
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    if (this.ws) this.ws.close();
  }
}

const HEARTBEAT_MS = 5000;

/** The position after `ply` plies of a game, computed by the server: {ply, state, view}. */
api.position = (id, ply) => request('GET', `/api/games/${encodeURIComponent(id)}/positions/${ply}`);

// ----- accounts, ratings and finding an opponent (docs/api.md, "Players") -----
// Every call here sends the session cookie (same origin); the server checks
// the Origin of cookie-authenticated POSTs, which a same-origin fetch sends.

const q = (params) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
};
const enc = encodeURIComponent;

Object.assign(api, {
  /** The logged-in account ({id, username, kind, created_at_ms}), or null for a guest. */
  me: async () => {
    try { return (await request('GET', '/api/account')).user || null; } catch (err) { if (err.status === 401) return null; throw err; }
  },
  signup: async (username, password) => (await request('POST', '/api/account/signup', { username, password })).user,
  login: async (username, password) => (await request('POST', '/api/account/login', { username, password })).user,
  logout: () => request('POST', '/api/account/logout', {}),
  closeAccount: (password) => request('POST', '/api/account/close', { password }),
  becomeBot: () => request('POST', '/api/account/bot', {}),
  tokens: () => request('GET', '/api/account/tokens'),
  createToken: (description, scopes) => request('POST', '/api/account/tokens', { description, scopes }),
  revokeToken: (id) => request('DELETE', `/api/account/tokens/${enc(id)}`),

  user: (name) => request('GET', `/api/users/${enc(name)}`),
  userGames: (name, filters = {}) => request('GET', `/api/users/${enc(name)}/games${q(filters)}`),
  ratingHistory: (name, game, category) => request('GET', `/api/users/${enc(name)}/history${q({ game, category })}`),
  leaderboard: (game, category, limit = 50) => request('GET', `/api/leaderboard${q({ game, category, limit })}`),
  bots: () => request('GET', '/api/bots'),

  seeks: (game) => request('GET', `/api/seeks${q({ game })}`),
  joinOpen: (id) => request('POST', `/api/games/${enc(id)}/join`, {}),
  challenges: () => request('GET', '/api/challenges'),
  challenge: (body) => request('POST', '/api/challenges', body),
  challengeStatus: (id) => request('GET', `/api/challenges/${enc(id)}`),
  answerChallenge: (id, answer) => request('POST', `/api/challenges/${enc(id)}/${answer}`, {}),
  poolJoin: (body) => request('POST', '/api/pool/join', body),
  poolStatus: () => request('GET', '/api/pool'),
  poolLeave: () => request('POST', '/api/pool/leave', {}),
  claim: (id, token, result) => request('POST', `/api/games/${enc(id)}/claim`, { token, result }),
});

const supported = new Map();
/**
 * Whether the server has an API path at all (it answers something other
 * than 404 `not_found`, e.g. 401 for a guest). Parts of the players API may
 * arrive after the pages that use them: the lobby shows quick pairing and
 * direct challenges only on a server that has them.
 */
api.has = (path) => {
  if (!supported.has(path)) {
    supported.set(path, request('GET', path).then(() => true, (err) => !(err.status === 404 && err.code === 'not_found')));
  }
  return supported.get(path);
};

// ----- tournaments (docs/api.md, "Tournaments") -----

Object.assign(api, {
  tournaments: (status = 'all') => request('GET', `/api/tournaments${q({ status })}`),
  tournament: (id) => request('GET', `/api/tournaments/${enc(id)}`),
  createTournament: (body) => request('POST', '/api/tournaments', body),
  joinTournament: (id) => request('POST', `/api/tournaments/${enc(id)}/join`, {}),
  withdrawTournament: (id) => request('POST', `/api/tournaments/${enc(id)}/withdraw`, {}),
  startTournament: (id) => request('POST', `/api/tournaments/${enc(id)}/start`, {}),
});

/**
 * A live, read-only connection to one tournament: `onTournament(full)` for
 * the state sent on connecting and after every change, `onStatus('connected'
 * | 'offline')` as the connection comes and goes. It reconnects after a drop
 * (the first message after a reconnect is the whole state again, so nothing
 * is missed), and it closes while the page sits in the back/forward cache,
 * as GameSocket does.
 */
export class TournamentSocket {
  constructor(id, { onTournament, onStatus }) {
    this.id = id;
    this.onTournament = onTournament;
    this.onStatus = onStatus || (() => {});
    this.closed = false;
    this.hidden = false;
    this.retry = 300;
    this.ws = null;
    this.onOnline = () => { if (!this.ws) { this.retry = 300; this.connect(); } };
    this.onOffline = () => { if (this.ws) this.ws.close(); };
    this.onPageHide = () => {
      this.hidden = true;
      clearTimeout(this.retryTimer);
      const ws = this.ws;
      this.ws = null;
      if (ws) ws.close();
    };
    this.onPageShow = (event) => {
      if (!event.persisted || this.closed) return;
      this.hidden = false;
      this.retry = 300;
      this.connect();
    };
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    this.connect();
  }

  connect() {
    if (this.closed || this.hidden) return;
    clearTimeout(this.retryTimer);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${location.host}/api/tournaments/${enc(this.id)}/ws`);
    } catch {
      this.dropped(null);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.retry = 300;
      this.wasOpen = true;
      this.onStatus('connected');
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg.type === 'tournament' && msg.tournament) this.onTournament(msg.tournament);
    };
    ws.onclose = () => { if (ws === this.ws) this.dropped(ws); };
  }

  dropped() {
    this.ws = null;
    if (this.closed || this.hidden) return;
    if (this.wasOpen) { this.wasOpen = false; this.onStatus('offline'); }
    this.retryTimer = setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 5000);
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }
}
