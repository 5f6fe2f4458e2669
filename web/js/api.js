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

export const api = {
  meta: () => request('GET', '/api/games/meta'),
  list: (status, limit = 20) => request('GET', `/api/games?status=${status}&limit=${limit}`),
  game: (id) => request('GET', `/api/games/${encodeURIComponent(id)}`),
  create: (body) => request('POST', '/api/games', body),
  join: (id, invite, name) => request('POST', `/api/games/${encodeURIComponent(id)}/join`, { invite, name }),
  move: (id, token, move, ply) => request('POST', `/api/games/${encodeURIComponent(id)}/move`, { token, move, ply }),
  resign: (id, token) => request('POST', `/api/games/${encodeURIComponent(id)}/resign`, { token }),
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
 * message and `onError(error)` for refusals; reconnects after a drop.
 */
export class GameSocket {
  constructor(gameId, { onState, onError, onStatus }) {
    this.gameId = gameId;
    this.onState = onState;
    this.onError = onError || (() => {});
    this.onStatus = onStatus || (() => {});
    this.nextId = 1;
    this.closed = false;
    this.retry = 500;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/games/${encodeURIComponent(this.gameId)}/ws`);
    this.ws = ws;
    ws.onopen = () => { this.retry = 500; this.onStatus('connected'); };
    ws.onmessage = (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg.type === 'state') this.onState(msg.game);
      else if (msg.type === 'error') this.onError(msg.error);
    };
    ws.onclose = () => {
      if (this.closed) return;
      this.onStatus('reconnecting');
      setTimeout(() => { if (!this.closed) this.connect(); }, this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  send(message) {
    const id = this.nextId++;
    const payload = JSON.stringify({ v: 1, id, ...message });
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(payload);
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}

/** The position after `ply` plies of a game, computed by the server: {ply, state, view}. */
api.position = (id, ply) => request('GET', `/api/games/${encodeURIComponent(id)}/positions/${ply}`);
