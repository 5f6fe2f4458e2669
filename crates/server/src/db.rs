//! Storage: one SQLite file. Every change goes through a single writer
//! thread that commits a batch of pending changes in one transaction
//! (group commit: many games share one fsync) and only then answers the
//! callers, so nothing is acknowledged before it is on disk.

use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One row of `games`, every column in text/integer form.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: String,
    pub game: String,
    pub options: String,
    pub time_control: String,
    pub seats: String,
    pub status: String,
    pub plies: u32,
    pub to_move: Option<String>,
    pub result: Option<String>,
    pub clock: String,
    pub draw_offer: Option<String>,
    pub rematch_id: Option<String>,
    pub rematch_of: Option<String>,
    pub seed: u64,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

/// One row of the append-only `moves` log.
#[derive(Debug, Clone)]
pub struct MoveRow {
    pub game_id: String,
    pub ply: u32,
    pub text: String,
    pub at_ms: u64,
    pub clocks: Option<String>,
    pub score: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Write {
    Game(Box<GameRow>),
    Move(MoveRow),
    /// The server was alive at this instant (so downtime can be told apart).
    Heartbeat(u64),
}

type Job = (Vec<Write>, oneshot::Sender<Result<(), String>>);

/// The database: a writer thread and a connection for reads.
#[derive(Clone)]
pub struct Store {
    writer: mpsc::Sender<Job>,
    reader: Arc<Mutex<Connection>>,
}

const SCHEMA_V1: &str = "
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    time_control TEXT NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    plies INTEGER NOT NULL,
    to_move TEXT,
    result TEXT,
    clock TEXT NOT NULL,
    draw_offer TEXT,
    rematch_id TEXT,
    rematch_of TEXT,
    seed INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX games_by_status ON games(status, updated_at_ms);
CREATE TABLE moves (
    game_id TEXT NOT NULL,
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    clocks TEXT,
    score TEXT,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
";

/// Migrations by `user_version`; index i brings the schema to version i+1.
const MIGRATIONS: &[&str] = &[SCHEMA_V1];

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed move survives a power cut, not only a crash.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let version: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
        tracing::info!(version = i + 1, "database schema migrated");
    }
    Ok(())
}

fn apply(tx: &rusqlite::Transaction, w: &Write) -> rusqlite::Result<()> {
    match w {
        Write::Game(g) => {
            tx.prepare_cached(
                "INSERT INTO games (id, game, options, time_control, seats, status, plies, to_move, result, clock,
                    draw_offer, rematch_id, rematch_of, seed, created_at_ms, updated_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
                 ON CONFLICT(id) DO UPDATE SET seats = ?5, status = ?6, plies = ?7, to_move = ?8, result = ?9,
                    clock = ?10, draw_offer = ?11, rematch_id = ?12, updated_at_ms = ?16",
            )?
            .execute(params![
                g.id,
                g.game,
                g.options,
                g.time_control,
                g.seats,
                g.status,
                g.plies,
                g.to_move,
                g.result,
                g.clock,
                g.draw_offer,
                g.rematch_id,
                g.rematch_of,
                g.seed as i64,
                g.created_at_ms as i64,
                g.updated_at_ms as i64
            ])?;
        }
        Write::Move(m) => {
            tx.prepare_cached(
                "INSERT INTO moves (game_id, ply, text, at_ms, clocks, score) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![m.game_id, m.ply, m.text, m.at_ms as i64, m.clocks, m.score])?;
        }
        Write::Heartbeat(ms) => {
            tx.prepare_cached(
                "INSERT INTO meta (key, value) VALUES ('alive_ms', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1",
            )?
            .execute(params![*ms as i64])?;
        }
    }
    Ok(())
}

fn writer_loop(mut conn: Connection, jobs: mpsc::Receiver<Job>) {
    const MAX_BATCH: usize = 512;
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let outcome = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            for (writes, _) in &batch {
                for w in writes {
                    apply(&tx, w)?;
                }
            }
            tx.commit()
        })();
        let outcome = outcome.map_err(|e| e.to_string());
        if let Err(e) = &outcome {
            tracing::error!(error = %e, jobs = batch.len(), "database write failed");
        }
        for (_, reply) in batch {
            let _ = reply.send(outcome.clone());
        }
    }
}

impl Store {
    /// Open (creating if need be) and migrate the database at `path`.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut conn = open(path).map_err(|e| anyhow::anyhow!("cannot open database {}: {e}", path.display()))?;
        migrate(&mut conn).map_err(|e| anyhow::anyhow!("cannot migrate database {}: {e}", path.display()))?;
        let reader = open(path)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new().name("tabula-db-writer".into()).spawn(move || writer_loop(conn, rx))?;
        Ok(Store { writer: tx, reader: Arc::new(Mutex::new(reader)) })
    }

    /// Commit `writes` in one transaction; returns once they are on disk.
    pub async fn commit(&self, writes: Vec<Write>) -> Result<(), String> {
        let (tx, rx) = oneshot::channel();
        self.writer.send((writes, tx)).map_err(|_| "the database writer has stopped".to_string())?;
        rx.await.map_err(|_| "the database writer has stopped".to_string())?
    }

    /// Run a read on the read connection, off the async threads.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || {
            let conn = reader.lock().unwrap_or_else(|p| p.into_inner());
            f(&conn).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| e.to_string())?
    }
}

pub fn row_to_game(r: &rusqlite::Row) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get("id")?,
        game: r.get("game")?,
        options: r.get("options")?,
        time_control: r.get("time_control")?,
        seats: r.get("seats")?,
        status: r.get("status")?,
        plies: r.get("plies")?,
        to_move: r.get("to_move")?,
        result: r.get("result")?,
        clock: r.get("clock")?,
        draw_offer: r.get("draw_offer")?,
        rematch_id: r.get("rematch_id")?,
        rematch_of: r.get("rematch_of")?,
        seed: r.get::<_, i64>("seed")? as u64,
        created_at_ms: r.get::<_, i64>("created_at_ms")? as u64,
        updated_at_ms: r.get::<_, i64>("updated_at_ms")? as u64,
    })
}

pub fn load_game(conn: &Connection, id: &str) -> rusqlite::Result<Option<(GameRow, Vec<MoveRow>)>> {
    let row = conn.query_row("SELECT * FROM games WHERE id = ?1", [id], row_to_game).optional()?;
    let Some(row) = row else { return Ok(None) };
    let moves = load_moves(conn, id)?;
    Ok(Some((row, moves)))
}

pub fn load_moves(conn: &Connection, id: &str) -> rusqlite::Result<Vec<MoveRow>> {
    let mut st =
        conn.prepare_cached("SELECT ply, text, at_ms, clocks, score FROM moves WHERE game_id = ?1 ORDER BY ply")?;
    let rows = st.query_map([id], |r| {
        Ok(MoveRow {
            game_id: id.to_string(),
            ply: r.get(0)?,
            text: r.get(1)?,
            at_ms: r.get::<_, i64>(2)? as u64,
            clocks: r.get(3)?,
            score: r.get(4)?,
        })
    })?;
    rows.collect()
}

pub fn unfinished_ids(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare("SELECT id FROM games WHERE status <> 'finished' ORDER BY created_at_ms")?;
    let rows = st.query_map([], |r| r.get(0))?;
    rows.collect()
}

pub fn last_alive(conn: &Connection) -> rusqlite::Result<Option<u64>> {
    conn.query_row("SELECT value FROM meta WHERE key = 'alive_ms'", [], |r| r.get::<_, i64>(0))
        .optional()
        .map(|v| v.map(|v| v as u64))
}

/// Summaries, newest activity first.
pub fn list_games(
    conn: &Connection,
    status: Option<&str>,
    game: Option<&str>,
    limit: u32,
) -> rusqlite::Result<Vec<GameRow>> {
    let mut st = conn.prepare_cached(
        "SELECT * FROM games WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR game = ?2)
         ORDER BY updated_at_ms DESC LIMIT ?3",
    )?;
    let rows = st.query_map(params![status, game, limit], row_to_game)?;
    rows.collect()
}
