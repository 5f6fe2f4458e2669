//! Storage behind one interface, [`Store`]: the rooms write and read games
//! only through it. Two backends implement it: [`SqliteStore`], an
//! embedded file and the default, and [`PostgresStore`]. Every backend runs its versioned
//! migrations when it opens, and a change is durable before its future
//! resolves: nothing is acknowledged or pushed before that.

mod accounts;
mod postgres;
mod sqlite;
mod tournaments;

pub use accounts::{
    outcome_for, AccountAnswer, AccountQuery, AccountWrite, RatingRow, TokenRow, UserGamesFilter, UserRow,
};

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;
pub use tournaments::{TournamentAnswer, TournamentGameRow, TournamentQuery, TournamentRow, TournamentWrite};

use crate::config::Database;
use crate::room::RoomStatus;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Open (creating and migrating if need be) the database `db` with the
/// backend its kind names.
pub async fn open(db: &Database) -> Result<Arc<dyn Store>, StoreError> {
    open_for(db, false).await
}

/// [`open`] for a server alone on its database (`cluster` false) or for one
/// node of a cluster sharing a PostgreSQL database with other nodes.
pub async fn open_for(db: &Database, cluster: bool) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match db {
        Database::Sqlite(_) if cluster => return Err(StoreError::ClusterNeedsPostgres),
        Database::Sqlite(path) => {
            let path = path.clone();
            // Opening migrates, which may take a while on a large file.
            let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path))
                .await
                .map_err(|_| StoreError::Closed)??;
            Arc::new(store)
        }
        Database::Postgres(url) => Arc::new(PostgresStore::open(url, cluster).await?),
    })
}

static CRASH_BEFORE_RATINGS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Fault injection for the test that kills the server between a rated
/// result and its ratings: once armed, the database writer aborts the
/// process the moment it is about to write a rating, inside the
/// transaction that already holds the game's result. Never armed outside
/// that test.
#[doc(hidden)]
pub fn arm_crash_before_ratings() {
    CRASH_BEFORE_RATINGS.store(true, std::sync::atomic::Ordering::SeqCst);
}

pub(crate) fn crash_before_ratings_armed() -> bool {
    CRASH_BEFORE_RATINGS.load(std::sync::atomic::Ordering::SeqCst)
}

/// One row of `games`: a game's settings and its current state.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    /// The game's id.
    pub id: String,
    /// The game type (`coldwar`, ...).
    pub game: String,
    /// The normalised options, as a JSON list of pairs.
    pub options: String,
    /// The time control, as JSON.
    pub time_control: String,
    /// The two seats with their secrets, as JSON.
    pub seats: String,
    /// Where the game stands.
    pub status: RoomStatus,
    /// Plies played.
    pub plies: u32,
    /// The player on move while the game goes on.
    pub to_move: Option<String>,
    /// The result, as JSON, once the game has ended.
    pub result: Option<String>,
    /// The clock, as JSON.
    pub clock: String,
    /// The player offering a draw.
    pub draw_offer: Option<String>,
    /// The last declined draw offer, as JSON.
    pub draw_declined: Option<String>,
    /// The instant by which the side on move must make its first move.
    pub first_move_deadline_ms: Option<u64>,
    /// The game has a clock.
    pub timed: bool,
    /// The server must load this game at start-up (a clock, a first-move
    /// timer or an AI seat needs it).
    pub resume: bool,
    /// The rematch started from this game.
    pub rematch_id: Option<String>,
    /// The game this one is the rematch of.
    pub rematch_of: Option<String>,
    /// Seed of the AI seats.
    pub seed: u64,
    /// When the game was created.
    pub created_at_ms: u64,
    /// When it last changed.
    pub updated_at_ms: u64,
    /// The accounts in the seats, first player's first (`None`: a guest,
    /// an AI, an open seat).
    pub users: [Option<i64>; 2],
    /// A rated game.
    pub rated: bool,
    /// Listed in the lobby: anyone eligible may take its open seat.
    pub public: bool,
    /// The speed category (`blitz`, ...), for rated games and filters.
    pub category: Option<String>,
    /// Both rating changes of a finished rated game, as JSON.
    pub rating_changes: Option<String>,
    /// The rating range a joiner must be in, as JSON `[min, max]`.
    pub rating_range: Option<String>,
}

/// One row of the append-only `moves` log.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveRow {
    /// The game.
    pub game_id: String,
    /// 1 for the first move.
    pub ply: u32,
    /// The move in the game's notation.
    pub text: String,
    /// The move as shown to people (SAN for chess-like games), if it differs.
    pub display: Option<String>,
    /// When it was played.
    pub at_ms: u64,
    /// Clocks after it, as JSON.
    pub clocks: Option<String>,
    /// Score after it, as JSON.
    pub score: Option<String>,
}

/// A game as stored: its row and its moves in order.
#[derive(Debug, Clone)]
pub struct StoredGame {
    /// The game row.
    pub row: GameRow,
    /// Every move, ply 1 first.
    pub moves: Vec<MoveRow>,
}

/// One change to write.
#[derive(Debug, Clone)]
pub enum Write {
    /// Insert or update a game row.
    Game(Box<GameRow>),
    /// Append a move.
    Move(MoveRow),
    /// Something about accounts, sessions, tokens or ratings.
    Account(AccountWrite),
    /// A tournament's state or a link to one of its games.
    Tournament(TournamentWrite),
    /// Cluster mode: the rest of this commit is written only if `node`
    /// still holds the lease of `game` at `epoch` (else the commit fails
    /// with [`StoreError::LeaseLost`]). Placed first in a commit.
    Fence {
        /// The game.
        game: String,
        /// The node that believes it owns the game.
        node: String,
        /// The epoch it owns it at.
        epoch: i64,
    },
    /// Cluster mode: a new game's first lease (epoch 1), for `node`.
    NewLease {
        /// The game.
        game: String,
        /// Its first owner.
        node: String,
    },
}

/// What asking for a game's lease gave (cluster mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseAnswer {
    /// The asking node owns the game now, at this epoch.
    Granted {
        /// The new epoch; commits carry it.
        epoch: i64,
        /// When the lease was taken from a node that died (its lease
        /// expired), the last instant that node said it was alive: the gap
        /// since is not charged to any clock.
        down_since_ms: Option<u64>,
    },
    /// No game has this id.
    NoGame,
    /// A live node owns it.
    Held {
        /// That node's id.
        node: String,
    },
}

/// A game whose owner died, taken over by the asking node (cluster mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The game.
    pub game: String,
    /// The new epoch.
    pub epoch: i64,
    /// When its previous owner was last alive (see [`LeaseAnswer::Granted`]).
    pub down_since_ms: Option<u64>,
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Only games in this status.
    pub status: Option<RoomStatus>,
    /// Only games of this type.
    pub game: Option<String>,
    /// Only public games (listed in the lobby).
    pub public_only: bool,
    /// At most this many, newest activity first.
    pub limit: u32,
}

/// Why storage failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another server holds the database.
    #[error(
        "the database {database} is in use by another tabula server{}; stop that server first, or give this one another --db",
        holder.as_deref().map(|p| format!(" ({p})")).unwrap_or_default()
    )]
    Locked {
        /// The database (a path, or a URL without its password).
        database: String,
        /// Who holds it, if known (`process 1234`, `host:port`).
        holder: Option<String>,
    },
    /// The database was written by a newer Tabula.
    #[error(
        "the database {database} has schema version {found}, but this tabula knows only up to {known}; upgrade tabula"
    )]
    TooNew {
        /// The database (a path, or a URL without its password).
        database: String,
        /// Its schema version.
        found: u32,
        /// The newest this build knows.
        known: u32,
    },
    /// A migration failed; the database is left at the version before it.
    #[error("cannot migrate the database to schema version {version}: {reason}")]
    Migration {
        /// The version that failed.
        version: u32,
        /// Why.
        reason: String,
    },
    /// The SQLite database refused or failed an operation.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The PostgreSQL database refused or failed an operation, or cannot
    /// be reached.
    #[error("database error: {0}")]
    Postgres(#[from] sqlx::Error),
    /// A file could not be opened or locked.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A stored value cannot be read back.
    #[error("stored data of game {game} is damaged: {reason}")]
    Damaged {
        /// The game.
        game: String,
        /// What is wrong.
        reason: String,
    },
    /// The database could not be reached at start.
    #[error("cannot connect to the database {database}: {reason}")]
    Connect {
        /// The database (a URL without its password).
        database: String,
        /// Why.
        reason: String,
    },
    /// The store was closed (the server is stopping).
    #[error("the database is closed")]
    Closed,
    /// Cluster mode: this node no longer holds the game's lease (another
    /// node took it over), so its change was not written.
    #[error("game {game} is now owned by another node; nothing was written")]
    LeaseLost {
        /// The game.
        game: String,
    },
    /// Cluster mode needs PostgreSQL: SQLite is one file on one machine.
    #[error("a cluster (--nats) needs a PostgreSQL database (--db postgres://…), not a SQLite file")]
    ClusterNeedsPostgres,
}

impl StoreError {
    /// A uniqueness (or other) constraint refused the write: e.g. a
    /// username that is taken.
    pub fn is_constraint(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::ConstraintViolation
            }
            StoreError::Postgres(sqlx::Error::Database(e)) => matches!(
                e.kind(),
                sqlx::error::ErrorKind::UniqueViolation
                    | sqlx::error::ErrorKind::ForeignKeyViolation
                    | sqlx::error::ErrorKind::NotNullViolation
                    | sqlx::error::ErrorKind::CheckViolation
            ),
            _ => false,
        }
    }

    /// Cluster mode: the commit was fenced off, because another node took
    /// the game over.
    pub fn is_lease_lost(&self) -> bool {
        matches!(self, StoreError::LeaseLost { .. })
    }

    /// The database cannot be reached right now (a lost connection, a
    /// server restarting, no connection free in time): the request may
    /// succeed later, so it is answered 503, not 500.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Postgres(e) => postgres::is_unavailable(e),
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            }
            // Another server took the database while it was unreachable.
            StoreError::Closed | StoreError::Locked { .. } => true,
            _ => false,
        }
    }
}

/// The future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The storage interface. Implementations must make [`Store::commit`]
/// atomic and durable, and must fail only the commit that caused a
/// failure, never other games' commits that happen to share a transaction.
pub trait Store: Send + Sync + 'static {
    /// Write `writes` in one transaction; resolves once they are durable.
    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()>;
    /// A game and its moves.
    fn load(&self, id: String) -> StoreFuture<'_, Option<StoredGame>>;
    /// Every unfinished game marked `resume`, with its moves.
    fn resumable(&self) -> StoreFuture<'_, Vec<StoredGame>>;
    /// Game rows for a list, newest activity first.
    fn list(&self, filter: ListFilter) -> StoreFuture<'_, Vec<GameRow>>;
    /// Ids of games due to expire: waiting since before `waiting_before_ms`,
    /// or live, untimed and idle since before `idle_before_ms`.
    fn expired(&self, waiting_before_ms: u64, idle_before_ms: u64, limit: u32) -> StoreFuture<'_, Vec<String>>;
    /// Record that the server is alive at `at_ms`.
    fn heartbeat(&self, at_ms: u64) -> StoreFuture<'_, ()>;
    /// The last instant a server recorded it was alive.
    fn last_alive(&self) -> StoreFuture<'_, Option<u64>>;
    /// Finish pending writes and release the database (and its lock).
    fn close(&self) -> StoreFuture<'_, ()>;
    /// Answer a question about accounts, sessions, tokens or ratings.
    fn accounts(&self, query: AccountQuery) -> StoreFuture<'_, AccountAnswer>;
    /// Answer a question about tournaments.
    fn tournaments(&self, query: TournamentQuery) -> StoreFuture<'_, TournamentAnswer>;

    /// Cluster mode: ask for game `game`'s lease for `node`. Granted when
    /// nobody holds it, when its holder let it go or died (stopped saying
    /// it is alive, see [`Store::node_alive`]), when `node` holds it
    /// already, or when `force` (taking it from a live node that cannot be
    /// reached: its next commit is fenced off).
    fn lease(&self, game: String, node: String, force: bool) -> StoreFuture<'_, LeaseAnswer> {
        let _ = (game, node, force);
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: the live node that holds game `game`'s lease, if any
    /// (a read: nothing is granted).
    fn holder(&self, game: String) -> StoreFuture<'_, Option<String>> {
        let _ = game;
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: `node` lets game `game` go (it left memory); nobody
    /// needs to take it over.
    fn release(&self, game: String, node: String, epoch: i64) -> StoreFuture<'_, ()> {
        let _ = (game, node, epoch);
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: `node` is alive at `at_ms` (game time), and every
    /// lease it holds lasts `ttl_ms` more (one row per node, not per game).
    /// Returns the games it still holds, with their epochs.
    fn node_alive(&self, node: String, at_ms: u64, ttl_ms: u64) -> StoreFuture<'_, Vec<(String, i64)>> {
        let _ = (node, at_ms, ttl_ms);
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: `node` stops: its leases expire now, so other nodes
    /// take its games over at once.
    fn node_leaving(&self, node: String, at_ms: u64) -> StoreFuture<'_, ()> {
        let _ = (node, at_ms);
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: be (or stay) the cluster's leader, the one node that
    /// holds challenges, pools and tournaments. True while this store holds
    /// the leader's lock; asked again each second.
    fn lead(&self) -> StoreFuture<'_, bool> {
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
    /// Cluster mode: take over, for `node`, up to `limit` games that need a
    /// server (clocks, timers, AI seats) and whose owner died or left, or
    /// that no node ever owned.
    fn orphans(&self, node: String, limit: u32) -> StoreFuture<'_, Vec<Orphan>> {
        let _ = (node, limit);
        Box::pin(async { Err(StoreError::ClusterNeedsPostgres) })
    }
}
