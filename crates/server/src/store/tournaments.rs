//! Tournaments in the database (issue 15): one row per tournament with its
//! settings and the whole serialised engine state, and one row per
//! tournament game that has a server game. The state is written in the
//! same transaction as the change that caused it, before anyone is told.

use rusqlite::{params, Connection, OptionalExtension};

/// Version 4: tournaments and their games.
pub(super) const SCHEMA_V4: &str = "
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    meta TEXT NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments(status, created_at_ms);
CREATE TABLE tournament_games (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    tid_game INTEGER NOT NULL,
    game_id TEXT NOT NULL UNIQUE,
    PRIMARY KEY (tournament_id, tid_game)
) WITHOUT ROWID;
";

/// One tournament as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct TournamentRow {
    /// Its id.
    pub id: String,
    /// `registration`, `running` or `finished`.
    pub status: String,
    /// When it was created.
    pub created_at_ms: u64,
    /// When it last changed.
    pub updated_at_ms: u64,
    /// Its settings and entrants' accounts, as JSON.
    pub meta: String,
    /// The engine's state (`tabula_tournament::Tournament`), as JSON.
    pub state: String,
}

/// A tournament game played as a server game.
#[derive(Debug, Clone, PartialEq)]
pub struct TournamentGameRow {
    /// The tournament.
    pub tournament_id: String,
    /// The game's number in the tournament.
    pub tid_game: u32,
    /// The server game's id.
    pub game_id: String,
}

/// A change to tournaments.
#[derive(Debug, Clone)]
pub enum TournamentWrite {
    /// Insert or replace a tournament.
    Tournament(Box<TournamentRow>),
    /// Link a tournament game to its server game.
    Game(TournamentGameRow),
}

/// A question about tournaments.
#[derive(Debug, Clone)]
pub enum TournamentQuery {
    /// Tournaments newest first, in one status or all.
    List {
        /// Only this status.
        status: Option<String>,
        /// At most this many.
        limit: u32,
    },
    /// One tournament.
    Get(String),
    /// Every tournament not finished, oldest first.
    Unfinished,
    /// A tournament's game links.
    Games(String),
    /// The link of one server game, if it is a tournament's.
    OfGame(String),
}

/// The answer to a [`TournamentQuery`].
#[derive(Debug, Clone)]
pub enum TournamentAnswer {
    /// Tournaments.
    Rows(Vec<TournamentRow>),
    /// One tournament or none.
    Row(Option<TournamentRow>),
    /// Game links.
    Games(Vec<TournamentGameRow>),
}

pub(super) fn apply(tx: &Connection, w: &TournamentWrite) -> rusqlite::Result<()> {
    match w {
        TournamentWrite::Tournament(t) => {
            tx.prepare_cached(
                "INSERT INTO tournaments (id, status, created_at_ms, updated_at_ms, meta, state)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(id) DO UPDATE SET status = ?2, updated_at_ms = ?4, meta = ?5, state = ?6",
            )?
            .execute(params![
                t.id,
                t.status,
                t.created_at_ms as i64,
                t.updated_at_ms as i64,
                t.meta,
                t.state
            ])?;
        }
        TournamentWrite::Game(g) => {
            tx.prepare_cached("INSERT INTO tournament_games (tournament_id, tid_game, game_id) VALUES (?1, ?2, ?3)")?
                .execute(params![g.tournament_id, g.tid_game, g.game_id])?;
        }
    }
    Ok(())
}

fn row(r: &rusqlite::Row) -> rusqlite::Result<TournamentRow> {
    Ok(TournamentRow {
        id: r.get("id")?,
        status: r.get("status")?,
        created_at_ms: r.get::<_, i64>("created_at_ms")? as u64,
        updated_at_ms: r.get::<_, i64>("updated_at_ms")? as u64,
        meta: r.get("meta")?,
        state: r.get("state")?,
    })
}

/// The game links `sql` selects for `id`.
fn game_links(conn: &Connection, sql: &str, id: &str) -> rusqlite::Result<TournamentAnswer> {
    let mut st = conn.prepare_cached(sql)?;
    let rows = st.query_map([id], |r| {
        Ok(TournamentGameRow { tournament_id: r.get(0)?, tid_game: r.get(1)?, game_id: r.get(2)? })
    })?;
    Ok(TournamentAnswer::Games(rows.collect::<Result<_, _>>()?))
}

pub(super) fn query(conn: &Connection, q: TournamentQuery) -> rusqlite::Result<TournamentAnswer> {
    Ok(match q {
        TournamentQuery::List { status, limit } => {
            let mut st = conn.prepare_cached(
                "SELECT * FROM tournaments WHERE (?1 IS NULL OR status = ?1)
                 ORDER BY created_at_ms DESC, id LIMIT ?2",
            )?;
            let rows = st.query_map(params![status, limit], row)?;
            TournamentAnswer::Rows(rows.collect::<Result<_, _>>()?)
        }
        TournamentQuery::Get(id) => TournamentAnswer::Row(
            conn.prepare_cached("SELECT * FROM tournaments WHERE id = ?1")?.query_row([id], row).optional()?,
        ),
        TournamentQuery::Unfinished => {
            let mut st =
                conn.prepare_cached("SELECT * FROM tournaments WHERE status <> 'finished' ORDER BY created_at_ms, id")?;
            let rows = st.query_map([], row)?;
            TournamentAnswer::Rows(rows.collect::<Result<_, _>>()?)
        }
        TournamentQuery::Games(id) => game_links(
            conn,
            "SELECT tournament_id, tid_game, game_id FROM tournament_games WHERE tournament_id = ?1 ORDER BY tid_game",
            &id,
        )?,
        TournamentQuery::OfGame(id) => {
            game_links(conn, "SELECT tournament_id, tid_game, game_id FROM tournament_games WHERE game_id = ?1", &id)?
        }
    })
}
