//! Accounts, sessions, API tokens and ratings in storage. Secrets (session
//! ids, API tokens) are stored only as SHA-256 hashes, passwords only as
//! Argon2id PHC strings; the hashing is the caller's.

use rusqlite::{params, Connection, OptionalExtension};

/// An account.
#[derive(Debug, Clone, PartialEq)]
pub struct UserRow {
    /// Its id (0 before it is stored).
    pub id: i64,
    /// The name as chosen (or `closed-<id>` once closed).
    pub name: String,
    /// The name in lower case: unique.
    pub name_key: String,
    /// The Argon2id PHC string; `None` for built-in bots, which never log in.
    pub password_hash: Option<String>,
    /// `human` or `bot`.
    pub kind: String,
    /// The AI level of a built-in bot account.
    pub builtin_level: Option<String>,
    /// When it was made.
    pub created_at_ms: u64,
    /// When it was closed.
    pub closed_at_ms: Option<u64>,
}

/// An API token (never its secret, only the secret's hash).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenRow {
    /// Its id (0 before it is stored).
    pub id: i64,
    /// The owner.
    pub user_id: i64,
    /// SHA-256 of the secret, hex.
    pub secret_hash: String,
    /// What the owner called it.
    pub description: String,
    /// Space-separated scopes.
    pub scopes: String,
    /// When it was made.
    pub created_at_ms: u64,
    /// When it was revoked.
    pub revoked_at_ms: Option<u64>,
}

/// A player's rating in one game and category.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    /// The account.
    pub user_id: i64,
    /// The game type.
    pub game: String,
    /// The speed category.
    pub category: String,
    /// Glicko-2 rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// When it last changed (deviation grows from here).
    pub updated_at_ms: u64,
}

/// Which games of a player to list.
#[derive(Debug, Clone, Default)]
pub struct UserGamesFilter {
    /// Only this game type.
    pub game: Option<String>,
    /// `win`, `loss`, `draw` or `aborted` from the player's side.
    pub result: Option<String>,
    /// Only games updated before this instant (paging).
    pub before_ms: Option<u64>,
    /// At most this many.
    pub limit: u32,
}

/// A change to accounts, sessions, tokens or ratings.
#[derive(Debug, Clone)]
pub enum AccountWrite {
    /// A new account (fails on a taken name).
    NewUser(UserRow),
    /// Close an account: rename it, drop its sessions and tokens, and show
    /// its games under the new name.
    CloseUser {
        /// The account.
        user_id: i64,
        /// Its anonymised name.
        name: String,
        /// When.
        at_ms: u64,
    },
    /// Make an account a bot account.
    MakeBot {
        /// The account.
        user_id: i64,
    },
    /// A new session.
    NewSession {
        /// SHA-256 of the session id, hex.
        id_hash: String,
        /// Whose.
        user_id: i64,
        /// When.
        created_at_ms: u64,
        /// Until when.
        expires_at_ms: u64,
    },
    /// End a session.
    DeleteSession {
        /// SHA-256 of the session id, hex.
        id_hash: String,
    },
    /// Delete the sessions that expired before this instant.
    PurgeSessions {
        /// Expired before this.
        before_ms: u64,
    },
    /// A new API token.
    NewToken(TokenRow),
    /// Revoke a token of `user_id` (nothing if it is someone else's).
    RevokeToken {
        /// The token.
        id: i64,
        /// Its owner.
        user_id: i64,
        /// When.
        at_ms: u64,
    },
    /// Set a rating.
    Rating(RatingRow),
    /// A point of a rating history, after a rated game.
    RatingPoint {
        /// The rating after the game.
        rating: RatingRow,
        /// The game.
        game_id: String,
    },
}

/// A question about accounts.
#[derive(Debug, Clone)]
pub enum AccountQuery {
    /// The account of this name (any case).
    UserByName(String),
    /// The account of this id.
    UserById(i64),
    /// The account of a live session (by the id's hash) at `now`.
    Session {
        /// SHA-256 of the session id.
        id_hash: String,
        /// Now.
        now_ms: u64,
    },
    /// The account and token of a token secret's hash (revoked ones too).
    Token(String),
    /// An account's tokens.
    TokensOf(i64),
    /// An account's ratings.
    RatingsOf(i64),
    /// Rating history of an account, oldest first.
    History {
        /// The account.
        user_id: i64,
        /// Only this game.
        game: Option<String>,
        /// Only this category.
        category: Option<String>,
    },
    /// The best established ratings of a game and category.
    Leaderboard {
        /// The game.
        game: String,
        /// The category.
        category: String,
        /// Deviation at most this (provisional ratings are left out).
        max_deviation: f64,
        /// At most this many.
        limit: u32,
    },
    /// An account's games, newest first.
    GamesOf {
        /// The account.
        user_id: i64,
        /// Which.
        filter: UserGamesFilter,
    },
    /// An account's results: games, wins, losses, draws, aborted.
    Counts(i64),
    /// Every bot account.
    Bots,
}

/// The answer to an [`AccountQuery`].
#[derive(Debug, Clone)]
pub enum AccountAnswer {
    /// One account or none.
    User(Option<UserRow>),
    /// Several accounts.
    Users(Vec<UserRow>),
    /// An account and one of its tokens.
    Token(Option<(UserRow, TokenRow)>),
    /// Tokens.
    Tokens(Vec<TokenRow>),
    /// Ratings (with the owners' names, for leaderboards).
    Ratings(Vec<(RatingRow, String)>),
    /// History points: (at_ms, rating, deviation, game id, game, category).
    History(Vec<(u64, f64, f64, String, String, String)>),
    /// Game rows, with the player's index in each.
    Games(Vec<(super::GameRow, usize)>),
    /// games, wins, losses, draws, aborted.
    Counts([u32; 5]),
}

pub(super) const SCHEMA_V3: &str = "
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    kind TEXT NOT NULL DEFAULT 'human',
    builtin_level TEXT,
    created_at_ms INTEGER NOT NULL,
    closed_at_ms INTEGER
);
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
);
CREATE INDEX sessions_of_user ON sessions(user_id);
CREATE TABLE api_tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    secret_hash TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER
);
CREATE INDEX tokens_of_user ON api_tokens(user_id);
CREATE TABLE ratings (
    user_id INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL,
    category TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (user_id, game, category)
);
CREATE INDEX ratings_board ON ratings(game, category, rating);
CREATE TABLE rating_history (
    user_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    category TEXT NOT NULL,
    game_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL
);
CREATE INDEX history_of_user ON rating_history(user_id, at_ms);
ALTER TABLE games ADD COLUMN first_user_id INTEGER;
ALTER TABLE games ADD COLUMN second_user_id INTEGER;
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN category TEXT;
ALTER TABLE games ADD COLUMN rating_changes TEXT;
ALTER TABLE games ADD COLUMN rating_range TEXT;
CREATE INDEX games_of_first ON games(first_user_id, updated_at_ms) WHERE first_user_id IS NOT NULL;
CREATE INDEX games_of_second ON games(second_user_id, updated_at_ms) WHERE second_user_id IS NOT NULL;
";

fn ms(v: Option<i64>) -> Option<u64> {
    v.map(|v| v as u64)
}

fn row_to_user(r: &rusqlite::Row) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: r.get("id")?,
        name: r.get("name")?,
        name_key: r.get("name_key")?,
        password_hash: r.get("password_hash")?,
        kind: r.get("kind")?,
        builtin_level: r.get("builtin_level")?,
        created_at_ms: r.get::<_, i64>("created_at_ms")? as u64,
        closed_at_ms: ms(r.get("closed_at_ms")?),
    })
}

fn row_to_token(r: &rusqlite::Row) -> rusqlite::Result<TokenRow> {
    Ok(TokenRow {
        id: r.get("id")?,
        user_id: r.get("user_id")?,
        secret_hash: r.get("secret_hash")?,
        description: r.get("description")?,
        scopes: r.get("scopes")?,
        created_at_ms: r.get::<_, i64>("created_at_ms")? as u64,
        revoked_at_ms: ms(r.get("revoked_at_ms")?),
    })
}

fn row_to_rating(r: &rusqlite::Row) -> rusqlite::Result<RatingRow> {
    Ok(RatingRow {
        user_id: r.get("user_id")?,
        game: r.get("game")?,
        category: r.get("category")?,
        rating: r.get("rating")?,
        deviation: r.get("deviation")?,
        volatility: r.get("volatility")?,
        games: r.get("games")?,
        updated_at_ms: r.get::<_, i64>("updated_at_ms")? as u64,
    })
}

fn upsert_rating(tx: &Connection, r: &RatingRow) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO ratings (user_id, game, category, rating, deviation, volatility, games, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(user_id, game, category) DO UPDATE SET rating = ?4, deviation = ?5, volatility = ?6,
            games = ?7, updated_at_ms = ?8",
    )?
    .execute(params![
        r.user_id,
        r.game,
        r.category,
        r.rating,
        r.deviation,
        r.volatility,
        r.games,
        r.updated_at_ms as i64
    ])?;
    Ok(())
}

/// Apply one account write inside the caller's transaction.
pub(super) fn apply(tx: &Connection, w: &AccountWrite) -> rusqlite::Result<()> {
    match w {
        AccountWrite::NewUser(u) => {
            tx.prepare_cached(
                "INSERT INTO users (name, name_key, password_hash, kind, builtin_level, created_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                u.name,
                u.name_key,
                u.password_hash,
                u.kind,
                u.builtin_level,
                u.created_at_ms as i64
            ])?;
        }
        AccountWrite::CloseUser { user_id, name, at_ms } => {
            tx.execute(
                "UPDATE users SET name = ?2, password_hash = NULL, closed_at_ms = ?3 WHERE id = ?1",
                params![user_id, name, *at_ms as i64],
            )?;
            tx.execute("DELETE FROM sessions WHERE user_id = ?1", [user_id])?;
            tx.execute(
                "UPDATE api_tokens SET revoked_at_ms = ?2 WHERE user_id = ?1 AND revoked_at_ms IS NULL",
                params![user_id, *at_ms as i64],
            )?;
            // The games stay, shown under the anonymised name.
            tx.execute(
                "UPDATE games SET seats = json_set(seats, '$[0].name', ?2, '$[0].user', ?2) WHERE first_user_id = ?1",
                params![user_id, name],
            )?;
            tx.execute(
                "UPDATE games SET seats = json_set(seats, '$[1].name', ?2, '$[1].user', ?2) WHERE second_user_id = ?1",
                params![user_id, name],
            )?;
        }
        AccountWrite::MakeBot { user_id } => {
            tx.execute("UPDATE users SET kind = 'bot' WHERE id = ?1", [user_id])?;
        }
        AccountWrite::NewSession { id_hash, user_id, created_at_ms, expires_at_ms } => {
            tx.prepare_cached(
                "INSERT INTO sessions (id_hash, user_id, created_at_ms, expires_at_ms) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id_hash, user_id, *created_at_ms as i64, *expires_at_ms as i64])?;
        }
        AccountWrite::DeleteSession { id_hash } => {
            tx.prepare_cached("DELETE FROM sessions WHERE id_hash = ?1")?.execute([id_hash])?;
        }
        AccountWrite::PurgeSessions { before_ms } => {
            tx.execute("DELETE FROM sessions WHERE expires_at_ms < ?1", [*before_ms as i64])?;
        }
        AccountWrite::NewToken(t) => {
            tx.prepare_cached(
                "INSERT INTO api_tokens (user_id, secret_hash, description, scopes, created_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                t.user_id,
                t.secret_hash,
                t.description,
                t.scopes,
                t.created_at_ms as i64
            ])?;
        }
        AccountWrite::RevokeToken { id, user_id, at_ms } => {
            tx.execute(
                "UPDATE api_tokens SET revoked_at_ms = ?3 WHERE id = ?1 AND user_id = ?2 AND revoked_at_ms IS NULL",
                params![id, user_id, *at_ms as i64],
            )?;
        }
        AccountWrite::Rating(r) => upsert_rating(tx, r)?,
        AccountWrite::RatingPoint { rating: r, game_id } => {
            if super::crash_before_ratings_armed() {
                // The test's crash point: the result is written, the ratings not yet.
                std::process::abort();
            }
            upsert_rating(tx, r)?;
            tx.prepare_cached(
                "INSERT INTO rating_history (user_id, game, category, game_id, at_ms, rating, deviation)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                r.user_id,
                r.game,
                r.category,
                game_id,
                r.updated_at_ms as i64,
                r.rating,
                r.deviation
            ])?;
        }
    }
    Ok(())
}

fn one_user(conn: &Connection, sql: &str, p: impl rusqlite::Params) -> rusqlite::Result<Option<UserRow>> {
    conn.prepare_cached(sql)?.query_row(p, row_to_user).optional()
}

/// Answer one account question.
pub(super) fn query(conn: &Connection, q: AccountQuery) -> rusqlite::Result<AccountAnswer> {
    Ok(match q {
        AccountQuery::UserByName(name) => {
            AccountAnswer::User(one_user(conn, "SELECT * FROM users WHERE name_key = ?1", [name.to_lowercase()])?)
        }
        AccountQuery::UserById(id) => AccountAnswer::User(one_user(conn, "SELECT * FROM users WHERE id = ?1", [id])?),
        AccountQuery::Session { id_hash, now_ms } => AccountAnswer::User(one_user(
            conn,
            "SELECT u.* FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.id_hash = ?1 AND s.expires_at_ms > ?2 AND u.closed_at_ms IS NULL",
            params![id_hash, now_ms as i64],
        )?),
        AccountQuery::Token(hash) => {
            let t = conn
                .prepare_cached("SELECT * FROM api_tokens WHERE secret_hash = ?1")?
                .query_row([hash], row_to_token)
                .optional()?;
            match t {
                None => AccountAnswer::Token(None),
                Some(t) => {
                    let u = one_user(conn, "SELECT * FROM users WHERE id = ?1", [t.user_id])?;
                    AccountAnswer::Token(u.map(|u| (u, t)))
                }
            }
        }
        AccountQuery::TokensOf(user_id) => {
            let mut st = conn.prepare_cached("SELECT * FROM api_tokens WHERE user_id = ?1 ORDER BY id")?;
            {
                let rows = st.query_map([user_id], row_to_token)?.collect::<rusqlite::Result<_>>()?;
                AccountAnswer::Tokens(rows)
            }
        }
        AccountQuery::RatingsOf(user_id) => {
            let mut st = conn.prepare_cached(
                "SELECT r.*, u.name AS owner FROM ratings r JOIN users u ON u.id = r.user_id
                 WHERE r.user_id = ?1 ORDER BY r.game, r.category",
            )?;
            {
                let rows = st
                    .query_map([user_id], |r| Ok((row_to_rating(r)?, r.get("owner")?)))?
                    .collect::<rusqlite::Result<_>>()?;
                AccountAnswer::Ratings(rows)
            }
        }
        AccountQuery::History { user_id, game, category } => {
            let mut st = conn.prepare_cached(
                "SELECT at_ms, rating, deviation, game_id, game, category FROM rating_history
                 WHERE user_id = ?1 AND (?2 IS NULL OR game = ?2) AND (?3 IS NULL OR category = ?3)
                 ORDER BY at_ms, rowid LIMIT 5000",
            )?;
            {
                let rows = st
                    .query_map(params![user_id, game, category], |r| {
                        Ok((r.get::<_, i64>(0)? as u64, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                AccountAnswer::History(rows)
            }
        }
        AccountQuery::Leaderboard { game, category, max_deviation, limit } => {
            let mut st = conn.prepare_cached(
                "SELECT r.*, u.name AS owner FROM ratings r JOIN users u ON u.id = r.user_id
                 WHERE r.game = ?1 AND r.category = ?2 AND r.deviation <= ?3 AND u.closed_at_ms IS NULL
                 ORDER BY r.rating DESC LIMIT ?4",
            )?;
            {
                let rows = st
                    .query_map(params![game, category, max_deviation, limit], |r| {
                        Ok((row_to_rating(r)?, r.get("owner")?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                AccountAnswer::Ratings(rows)
            }
        }
        AccountQuery::GamesOf { user_id, filter } => {
            let mut st = conn.prepare_cached(
                "SELECT *, CASE WHEN first_user_id = ?1 THEN 0 ELSE 1 END AS me FROM games
                 WHERE (first_user_id = ?1 OR second_user_id = ?1)
                   AND (?2 IS NULL OR game = ?2) AND (?3 IS NULL OR updated_at_ms < ?3)
                 ORDER BY updated_at_ms DESC",
            )?;
            let mut rows = st.query(params![user_id, filter.game, filter.before_ms.map(|v| v as i64)])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let row = super::sqlite::row_to_game(r)?;
                let me = r.get::<_, i64>("me")? as usize;
                if !filter.keeps(&row, me) {
                    continue;
                }
                out.push((row, me));
                if out.len() >= filter.limit as usize {
                    break;
                }
            }
            AccountAnswer::Games(out)
        }
        AccountQuery::Counts(user_id) => {
            let mut st = conn.prepare_cached(
                "SELECT *, CASE WHEN first_user_id = ?1 THEN 0 ELSE 1 END AS me
                 FROM games WHERE (first_user_id = ?1 OR second_user_id = ?1) AND status IN ('finished', 'aborted')",
            )?;
            let mut rows = st.query([user_id])?;
            let mut counts = [0u32; 5];
            while let Some(r) = rows.next()? {
                let row = super::sqlite::row_to_game(r)?;
                count_result(&mut counts, &row, r.get::<_, i64>("me")? as usize);
            }
            AccountAnswer::Counts(counts)
        }
        AccountQuery::Bots => {
            let mut st = conn
                .prepare_cached("SELECT * FROM users WHERE kind = 'bot' AND closed_at_ms IS NULL ORDER BY name_key")?;
            {
                let rows = st.query_map([], row_to_user)?.collect::<rusqlite::Result<_>>()?;
                AccountAnswer::Users(rows)
            }
        }
    })
}

/// Add a finished or aborted game of seat `me` to an account's results:
/// games, wins, losses, draws, aborted ([`AccountAnswer::Counts`]).
pub(super) fn count_result(counts: &mut [u32; 5], row: &super::GameRow, me: usize) {
    match outcome_for(row, me) {
        "win" => counts[1] += 1,
        "loss" => counts[2] += 1,
        "draw" => counts[3] += 1,
        _ => {}
    }
    if row.status == crate::room::RoomStatus::Aborted {
        counts[4] += 1;
    } else {
        counts[0] += 1;
    }
}

impl UserGamesFilter {
    /// Whether the game of seat `me` has the result asked for (any, when
    /// none is asked).
    pub(super) fn keeps(&self, row: &super::GameRow, me: usize) -> bool {
        self.result.as_deref().is_none_or(|want| outcome_for(row, me) == want)
    }
}

/// A game's outcome from the side of seat `me`: `win`, `loss`, `draw`,
/// `aborted` or `ongoing`.
pub fn outcome_for(row: &super::GameRow, me: usize) -> &'static str {
    use crate::room::RoomStatus;
    match row.status {
        RoomStatus::Aborted => return "aborted",
        RoomStatus::Waiting | RoomStatus::Live => return "ongoing",
        RoomStatus::Finished => {}
    }
    let winner = row
        .result
        .as_deref()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v["winner"].as_str().map(str::to_string));
    let Some(winner) = winner else { return "draw" };
    let players = tabula_games::REGISTRY.get(&row.game).map(|g| g.players()).ok();
    match players.and_then(|p| p.iter().position(|p| *p == winner)) {
        Some(i) if i == me => "win",
        Some(_) => "loss",
        None => "draw",
    }
}
