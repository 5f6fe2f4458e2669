//! The SQLite backend: one file, locked for one server at a time.
//!
//! Every change goes through a single writer thread. It takes all the
//! commits waiting at that moment into one transaction (group commit: many
//! games share one fsync), but each commit runs inside its own savepoint,
//! so a commit that fails is rolled back alone and the others go through.
//! If the transaction itself cannot commit, each commit is retried in a
//! transaction of its own, so one game's failure never fails another's.
//!
//! The write-ahead log is copied back into the database by a thread of its
//! own (a passive checkpoint each second), not by the writer: SQLite's
//! automatic checkpoint runs inside the commit that crosses its threshold,
//! and that commit (and every move waiting behind it) would pay for copying
//! and syncing the whole database file.

use super::{
    AccountAnswer, AccountQuery, GameRow, ListFilter, MoveRow, Store, StoreError, StoreFuture, StoredGame, Write,
};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use tokio::sync::oneshot;

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

/// Version 2: first-move timers, declined draws, display notation, and the
/// flags that let start-up and expiry find their games by index.
const SCHEMA_V2: &str = "
ALTER TABLE games ADD COLUMN draw_declined TEXT;
ALTER TABLE games ADD COLUMN first_move_deadline_ms INTEGER;
ALTER TABLE games ADD COLUMN timed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN resume INTEGER NOT NULL DEFAULT 0;
ALTER TABLE moves ADD COLUMN display TEXT;
UPDATE games SET timed = (json_extract(time_control, '$.kind') <> 'none');
UPDATE games SET resume = 1 WHERE status <> 'finished';
CREATE INDEX games_to_resume ON games(resume) WHERE resume = 1;
CREATE INDEX games_to_expire ON games(status, timed, updated_at_ms);
CREATE INDEX games_by_update ON games(updated_at_ms);
";

// Version 3 (issue 14): accounts, sessions, API tokens, ratings and their
// history; games know their accounts, rated/public flags and category
// (in `accounts.rs`).
// Version 4 (issue 15): tournaments and their games (in `tournaments.rs`).

/// Migrations by `PRAGMA user_version`: index i brings the schema to version i+1.
const MIGRATIONS: &[&str] = &[SCHEMA_V1, SCHEMA_V2, super::accounts::SCHEMA_V3, super::tournaments::SCHEMA_V4];

enum Job {
    Commit(Vec<Write>, oneshot::Sender<Result<(), StoreError>>),
    Heartbeat(u64, oneshot::Sender<Result<(), StoreError>>),
    Close(oneshot::Sender<()>),
}

/// The SQLite store (see the module docs).
pub struct SqliteStore {
    path: PathBuf,
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    reader: Arc<Mutex<Connection>>,
    /// Dropping the sender stops the checkpointer, joined on close.
    checkpointer: Mutex<Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>>,
    lock: Mutex<Option<File>>,
}

/// How often the checkpointer copies the log back into the database.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

fn checkpoint_loop(conn: Connection, stop: mpsc::Receiver<()>) {
    // Ends when the store drops the sender.
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        // PASSIVE: copy what no reader still needs, never wait for anyone.
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(error = %e, "database checkpoint failed");
        }
    }
}

fn open_connection(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed move survives a power cut, not only a crash.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = MIGRATIONS.len() as u32;
    if version > known {
        return Err(StoreError::TooNew { database: path.display().to_string(), found: version, known });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let target = i as u32 + 1;
        let step = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", target)?;
            tx.commit()
        };
        step(conn).map_err(|e| StoreError::Migration { version: target, reason: e.to_string() })?;
        tracing::info!(version = target, "database schema migrated");
    }
    Ok(())
}

/// The lock file beside the database: `tabula.sqlite3.lock`, beside the
/// file itself, symbolic links resolved, so two servers given different
/// paths to one database (a link, `..`) still take the same lock.
fn lock_path(path: &Path) -> PathBuf {
    let real = std::fs::canonicalize(path).ok().or_else(|| {
        // Not created yet: resolve the directory it will be created in.
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
    });
    let path = real.as_deref().unwrap_or(path);
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Take an exclusive lock so that a second server on the same file fails
/// at start instead of interleaving its writes with ours.
fn lock(path: &Path) -> Result<File, StoreError> {
    let lock_file = lock_path(path);
    let io = |what: &str, source| StoreError::Io { what: format!("{what} {}", lock_file.display()), source };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_file)
        .map_err(|e| io("cannot open the lock file", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor we own; no memory is involved.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = Some(holder.trim().to_string()).filter(|h| !h.is_empty());
                let holder = holder.map(|p| format!("process {p}"));
                return Err(StoreError::Locked { database: path.display().to_string(), holder });
            }
            return Err(io("cannot lock", err));
        }
    }
    file.set_len(0).map_err(|e| io("cannot write", e))?;
    file.rewind().map_err(|e| io("cannot write", e))?;
    let _ = write!(file, "{}", std::process::id());
    let _ = file.flush();
    Ok(file)
}

fn apply(tx: &Connection, w: &Write) -> rusqlite::Result<()> {
    match w {
        Write::Game(g) => {
            tx.prepare_cached(
                "INSERT INTO games (id, game, options, time_control, seats, status, plies, to_move, result, clock,
                    draw_offer, rematch_id, rematch_of, seed, created_at_ms, updated_at_ms,
                    draw_declined, first_move_deadline_ms, timed, resume,
                    first_user_id, second_user_id, rated, public, category, rating_changes, rating_range)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                    ?21, ?22, ?23, ?24, ?25, ?26, ?27)
                 ON CONFLICT(id) DO UPDATE SET seats = ?5, status = ?6, plies = ?7, to_move = ?8, result = ?9,
                    clock = ?10, draw_offer = ?11, rematch_id = ?12, updated_at_ms = ?16,
                    draw_declined = ?17, first_move_deadline_ms = ?18, resume = ?20,
                    first_user_id = ?21, second_user_id = ?22, rating_changes = ?26",
            )?
            .execute(params![
                g.id,
                g.game,
                g.options,
                g.time_control,
                g.seats,
                g.status.as_str(),
                g.plies,
                g.to_move,
                g.result,
                g.clock,
                g.draw_offer,
                g.rematch_id,
                g.rematch_of,
                g.seed as i64,
                g.created_at_ms as i64,
                g.updated_at_ms as i64,
                g.draw_declined,
                g.first_move_deadline_ms.map(|v| v as i64),
                g.timed,
                g.resume,
                g.users[0],
                g.users[1],
                g.rated,
                g.public,
                g.category,
                g.rating_changes,
                g.rating_range,
            ])?;
        }
        Write::Move(m) => {
            tx.prepare_cached(
                "INSERT INTO moves (game_id, ply, text, display, at_ms, clocks, score)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![m.game_id, m.ply, m.text, m.display, m.at_ms as i64, m.clocks, m.score])?;
        }
        Write::Account(a) => super::accounts::apply(tx, a)?,
        Write::Tournament(t) => super::tournaments::apply(tx, t)?,
        // Leases exist only in a cluster, which refuses SQLite at start.
        Write::Fence { .. } | Write::NewLease { .. } => {}
    }
    Ok(())
}

fn heartbeat(tx: &Connection, at_ms: u64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO meta (key, value) VALUES ('alive_ms', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1",
    )?
    .execute(params![at_ms as i64])?;
    Ok(())
}

/// One piece of a batch: its writes, run inside a savepoint.
fn run_job(tx: &mut Transaction, job: &Job) -> rusqlite::Result<()> {
    let sp = tx.savepoint()?;
    match job {
        Job::Commit(writes, _) => {
            for w in writes {
                apply(&sp, w)?;
            }
        }
        Job::Heartbeat(at, _) => heartbeat(&sp, *at)?,
        Job::Close(_) => {}
    }
    sp.commit()
}

fn reply(job: Job, outcome: Result<(), StoreError>) {
    match job {
        Job::Commit(_, tx) | Job::Heartbeat(_, tx) => {
            let _ = tx.send(outcome);
        }
        Job::Close(tx) => {
            let _ = tx.send(());
        }
    }
}

/// Commit `batch` in one transaction with a savepoint per job; a job that
/// fails is rolled back alone. Returns each job's outcome.
fn commit_batch(conn: &mut Connection, batch: &[Job]) -> rusqlite::Result<Vec<Result<(), rusqlite::Error>>> {
    let mut tx = conn.transaction()?;
    let mut outcomes = Vec::with_capacity(batch.len());
    for job in batch {
        outcomes.push(run_job(&mut tx, job));
    }
    tx.commit()?;
    Ok(outcomes)
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
        let closing = batch.iter().position(|j| matches!(j, Job::Close(_)));
        let outcomes: Vec<Result<(), StoreError>> = match commit_batch(&mut conn, &batch) {
            Ok(outcomes) => outcomes.into_iter().map(|o| o.map_err(StoreError::from)).collect(),
            Err(e) => {
                // The shared commit failed: nothing of the batch is on disk.
                // Retry each job alone so only the one at fault fails.
                tracing::warn!(error = %e, jobs = batch.len(), "group commit failed; committing one by one");
                batch
                    .iter()
                    .map(|job| commit_batch(&mut conn, std::slice::from_ref(job)).and_then(|mut o| o.remove(0)))
                    .map(|o| o.map_err(StoreError::from))
                    .collect()
            }
        };
        for (job, outcome) in batch.into_iter().zip(outcomes) {
            if let Err(e) = &outcome {
                tracing::error!(error = %e, "database write failed");
            }
            reply(job, outcome);
        }
        if closing.is_some() {
            // Answer anything sent after the close, then stop.
            while let Ok(job) = jobs.try_recv() {
                reply(job, Err(StoreError::Closed));
            }
            return;
        }
    }
}

pub(super) fn row_to_game(r: &rusqlite::Row) -> rusqlite::Result<GameRow> {
    let status: String = r.get("status")?;
    Ok(GameRow {
        id: r.get("id")?,
        game: r.get("game")?,
        options: r.get("options")?,
        time_control: r.get("time_control")?,
        seats: r.get("seats")?,
        status: status.parse().map_err(|e: crate::room::UnknownStatus| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })?,
        plies: r.get("plies")?,
        to_move: r.get("to_move")?,
        result: r.get("result")?,
        clock: r.get("clock")?,
        draw_offer: r.get("draw_offer")?,
        draw_declined: r.get("draw_declined")?,
        first_move_deadline_ms: r.get::<_, Option<i64>>("first_move_deadline_ms")?.map(|v| v as u64),
        timed: r.get("timed")?,
        resume: r.get("resume")?,
        rematch_id: r.get("rematch_id")?,
        rematch_of: r.get("rematch_of")?,
        seed: r.get::<_, i64>("seed")? as u64,
        created_at_ms: r.get::<_, i64>("created_at_ms")? as u64,
        updated_at_ms: r.get::<_, i64>("updated_at_ms")? as u64,
        users: [r.get("first_user_id")?, r.get("second_user_id")?],
        rated: r.get("rated")?,
        public: r.get("public")?,
        category: r.get("category")?,
        rating_changes: r.get("rating_changes")?,
        rating_range: r.get("rating_range")?,
    })
}

fn row_to_move(r: &rusqlite::Row) -> rusqlite::Result<MoveRow> {
    Ok(MoveRow {
        game_id: r.get("game_id")?,
        ply: r.get("ply")?,
        text: r.get("text")?,
        display: r.get("display")?,
        at_ms: r.get::<_, i64>("at_ms")? as u64,
        clocks: r.get("clocks")?,
        score: r.get("score")?,
    })
}

fn load(conn: &Connection, id: &str) -> rusqlite::Result<Option<StoredGame>> {
    let row = conn.prepare_cached("SELECT * FROM games WHERE id = ?1")?.query_row([id], row_to_game).optional()?;
    let Some(row) = row else { return Ok(None) };
    let mut st = conn.prepare_cached("SELECT * FROM moves WHERE game_id = ?1 ORDER BY ply")?;
    let moves = st.query_map([id], row_to_move)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(StoredGame { row, moves }))
}

fn resumable(conn: &Connection) -> rusqlite::Result<Vec<StoredGame>> {
    let mut st = conn.prepare("SELECT * FROM games WHERE resume = 1 AND status IN ('waiting', 'live')")?;
    let rows = st.query_map([], row_to_game)?.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut games: Vec<StoredGame> = rows.into_iter().map(|row| StoredGame { row, moves: Vec::new() }).collect();
    let index: HashMap<String, usize> = games.iter().enumerate().map(|(i, g)| (g.row.id.clone(), i)).collect();
    let mut st = conn.prepare(
        "SELECT m.game_id, m.ply, m.text, m.display, m.at_ms, m.clocks, m.score FROM games g JOIN moves m
         ON m.game_id = g.id WHERE g.resume = 1 AND g.status IN ('waiting', 'live')",
    )?;
    let mut rows = st.query([])?;
    let mut current: Option<(usize, String)> = None;
    while let Some(r) = rows.next()? {
        let id = r.get_ref(0)?.as_str()?;
        let i = match &current {
            Some((i, cid)) if cid == id => *i,
            _ => match index.get(id) {
                Some(&i) => {
                    current = Some((i, id.to_string()));
                    i
                }
                None => continue,
            },
        };
        let game_id = games[i].row.id.clone();
        games[i].moves.push(MoveRow {
            game_id,
            ply: r.get(1)?,
            text: r.get(2)?,
            display: r.get(3)?,
            at_ms: r.get::<_, i64>(4)? as u64,
            clocks: r.get(5)?,
            score: r.get(6)?,
        });
    }
    // The rows come grouped by game in practice; make the order certain.
    for g in &mut games {
        if !g.moves.is_sorted_by_key(|m| m.ply) {
            g.moves.sort_by_key(|m| m.ply);
        }
    }
    Ok(games)
}

fn list(conn: &Connection, f: &ListFilter) -> rusqlite::Result<Vec<GameRow>> {
    let mut st = conn.prepare_cached(
        "SELECT * FROM games WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR game = ?2)
           AND (?4 = 0 OR public = 1)
         ORDER BY updated_at_ms DESC LIMIT ?3",
    )?;
    let rows = st.query_map(params![f.status.map(|s| s.as_str()), f.game, f.limit, f.public_only], row_to_game)?;
    rows.collect()
}

fn expired(conn: &Connection, waiting_before: u64, idle_before: u64, limit: u32) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached(
        "SELECT id FROM games WHERE status = 'waiting' AND updated_at_ms < ?1
         UNION ALL
         SELECT id FROM games WHERE status = 'live' AND timed = 0 AND updated_at_ms < ?2
         LIMIT ?3",
    )?;
    let rows = st.query_map(params![waiting_before as i64, idle_before as i64, limit], |r| r.get(0))?;
    rows.collect()
}

impl SqliteStore {
    /// Lock, open (creating if need be) and migrate the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| StoreError::Io { what: format!("cannot create {}", dir.display()), source })?;
        }
        let lock = lock(path)?;
        let mut conn = open_connection(path)?;
        migrate(&mut conn, path)?;
        // The checkpointer does this work, off the commit path (module docs).
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        let reader = open_connection(path)?;
        let checkpoints = open_connection(path)?;
        let (stop, stopped) = mpsc::channel();
        let checkpointer = std::thread::Builder::new()
            .name("tabula-db-checkpoint".into())
            .spawn(move || checkpoint_loop(checkpoints, stopped))
            .map_err(|source| StoreError::Io { what: "cannot start the database checkpointer".into(), source })?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("tabula-db-writer".into())
            .spawn(move || writer_loop(conn, rx))
            .map_err(|source| StoreError::Io { what: "cannot start the database writer".into(), source })?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            writer: Mutex::new(Some(tx)),
            reader: Arc::new(Mutex::new(reader)),
            checkpointer: Mutex::new(Some((stop, checkpointer))),
            lock: Mutex::new(Some(lock)),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn send(&self, job: Job) -> Result<(), StoreError> {
        let writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        writer.as_ref().ok_or(StoreError::Closed)?.send(job).map_err(|_| StoreError::Closed)
    }

    fn write(&self, make: impl FnOnce(oneshot::Sender<Result<(), StoreError>>) -> Job) -> StoreFuture<'_, ()> {
        let (tx, rx) = oneshot::channel();
        let sent = self.send(make(tx));
        Box::pin(async move {
            sent?;
            rx.await.map_err(|_| StoreError::Closed)?
        })
    }

    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreFuture<'_, T> {
        let reader = self.reader.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let conn = reader.lock().unwrap_or_else(|p| p.into_inner());
                f(&conn).map_err(StoreError::from)
            })
            .await
            .map_err(|_| StoreError::Closed)?
        })
    }
}

impl Store for SqliteStore {
    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()> {
        self.write(|tx| Job::Commit(writes, tx))
    }

    fn load(&self, id: String) -> StoreFuture<'_, Option<StoredGame>> {
        self.read(move |c| load(c, &id))
    }

    fn resumable(&self) -> StoreFuture<'_, Vec<StoredGame>> {
        self.read(resumable)
    }

    fn list(&self, filter: ListFilter) -> StoreFuture<'_, Vec<GameRow>> {
        self.read(move |c| list(c, &filter))
    }

    fn expired(&self, waiting_before_ms: u64, idle_before_ms: u64, limit: u32) -> StoreFuture<'_, Vec<String>> {
        self.read(move |c| expired(c, waiting_before_ms, idle_before_ms, limit))
    }

    fn heartbeat(&self, at_ms: u64) -> StoreFuture<'_, ()> {
        self.write(|tx| Job::Heartbeat(at_ms, tx))
    }

    fn last_alive(&self) -> StoreFuture<'_, Option<u64>> {
        self.read(|c| {
            c.query_row("SELECT value FROM meta WHERE key = 'alive_ms'", [], |r| r.get::<_, i64>(0))
                .optional()
                .map(|v| v.map(|v| v as u64))
        })
    }

    fn accounts(&self, query: AccountQuery) -> StoreFuture<'_, AccountAnswer> {
        self.read(move |c| super::accounts::query(c, query))
    }

    fn tournaments(&self, query: super::TournamentQuery) -> StoreFuture<'_, super::TournamentAnswer> {
        self.read(move |c| super::tournaments::query(c, query))
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        let (tx, rx) = oneshot::channel();
        let sent = self.send(Job::Close(tx));
        self.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
        Box::pin(async move {
            if sent.is_ok() {
                let _ = rx.await;
            }
            let checkpointer = self.checkpointer.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some((stop, thread)) = checkpointer {
                drop(stop);
                let _ = tokio::task::spawn_blocking(move || thread.join()).await;
            }
            // The writer is done: release the lock for the next server.
            self.lock.lock().unwrap_or_else(|p| p.into_inner()).take();
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tabula-store-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("t.sqlite3")
    }

    #[test]
    fn a_second_open_of_the_same_file_is_refused_until_the_first_closes() {
        let path = temp("lock");
        let first = SqliteStore::open(&path).unwrap();
        let second = SqliteStore::open(&path).err().expect("a second store must be refused");
        assert!(matches!(second, StoreError::Locked { .. }), "{second}");
        let message = second.to_string();
        assert!(message.contains("in use by another tabula server"), "{message}");
        assert!(message.contains(&std::process::id().to_string()), "{message}");
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(first.close()).unwrap();
        SqliteStore::open(&path).expect("free again after close");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_locked_database_is_refused_too() {
        let path = temp("link");
        let first = SqliteStore::open(&path).unwrap();
        let other_dir = path.parent().unwrap().join("elsewhere");
        std::fs::create_dir_all(&other_dir).unwrap();
        let link = other_dir.join("link.sqlite3");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let second = SqliteStore::open(&link).err().expect("the same database through a link");
        assert!(matches!(second, StoreError::Locked { .. }), "{second}");
        let dotted = other_dir.join("..").join("t.sqlite3");
        let third = SqliteStore::open(&dotted).err().expect("the same database through ..");
        assert!(matches!(third, StoreError::Locked { .. }), "{third}");
        drop(first);
    }

    #[test]
    fn a_version_1_database_is_migrated_and_keeps_its_games() {
        let path = temp("migrate");
        {
            let mut conn = Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            tx.execute_batch(SCHEMA_V1).unwrap();
            tx.pragma_update(None, "user_version", 1).unwrap();
            tx.execute(
                "INSERT INTO games VALUES ('g1', 'coldwar', '[]', '{\"kind\":\"fischer\",\"base_ms\":60000,\"increment_ms\":0}',
                 '[]', 'live', 1, 'o', NULL, '{}', NULL, NULL, NULL, 7, 1, 2)",
                [],
            )
            .unwrap();
            tx.execute("INSERT INTO moves VALUES ('g1', 1, 'b2', 5, NULL, NULL)", []).unwrap();
            tx.commit().unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let games = rt.block_on(store.resumable()).unwrap();
        assert_eq!(games.len(), 1);
        assert!(games[0].row.timed && games[0].row.resume);
        assert_eq!(games[0].moves[0].text, "b2");
        assert_eq!(games[0].moves[0].display, None);
    }
}
