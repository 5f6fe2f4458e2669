//! Everything `tabula serve` can be told: where the data lives, the limits
//! that keep one client from starving the others, and the times after
//! which games are aborted, expired or evicted from memory. The defaults
//! are documented in docs/api.md and docs/deploy.md.

use crate::time::Time;
use std::path::{Path, PathBuf};

/// Where the server keeps its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// An embedded SQLite file (the default), locked for one server.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its `postgres://` URL.
    Postgres(String),
}

impl Database {
    /// `postgres://…` and `postgresql://…` name a PostgreSQL database;
    /// anything else is the path of a SQLite file.
    ///
    /// ```
    /// use tabula_server::config::Database;
    /// assert!(matches!(Database::parse("postgres://tabula@db/tabula"), Database::Postgres(_)));
    /// assert!(matches!(Database::parse("games.sqlite3"), Database::Sqlite(_)));
    /// ```
    pub fn parse(text: &str) -> Database {
        let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Database::Postgres(text.to_string())
        } else {
            Database::Sqlite(PathBuf::from(text))
        }
    }

    /// The database for logs and messages: a PostgreSQL URL without its
    /// password.
    ///
    /// ```
    /// use tabula_server::config::Database;
    /// let db = Database::parse("postgres://tabula:secret@db:5432/tabula");
    /// assert_eq!(db.describe(), "postgres://tabula:***@db:5432/tabula");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(url) => redact_password(url),
        }
    }
}

/// `scheme://user:password@host…` with the password replaced by `***`.
fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    // The user information ends at the last '@' before the path.
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return url.to_string() };
    match rest[..at].split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
        None => url.to_string(),
    }
}

impl From<PathBuf> for Database {
    fn from(path: PathBuf) -> Database {
        Database::Sqlite(path)
    }
}

impl From<&Path> for Database {
    fn from(path: &Path) -> Database {
        Database::Sqlite(path.to_path_buf())
    }
}

impl From<&PathBuf> for Database {
    fn from(path: &PathBuf) -> Database {
        Database::Sqlite(path.clone())
    }
}

impl From<&str> for Database {
    fn from(text: &str) -> Database {
        Database::parse(text)
    }
}

/// How the server runs.
#[derive(Clone)]
pub struct Config {
    /// Where the data lives: a SQLite file (created on first run) or a
    /// PostgreSQL database.
    pub db: Database,
    /// Where time comes from ([`Time::system`] except in tests).
    pub time: Time,
    /// The games served.
    pub registry: &'static tabula_core::Registry,
    /// Connection limits and timeouts.
    pub net: NetLimits,
    /// Requests per client address.
    pub rate: RateLimits,
    /// AI seats.
    pub ai: AiLimits,
    /// First-move timer, expiry and eviction.
    pub rooms: RoomTimes,
    /// The analysis board's engine (`POST /api/analysis`).
    pub analysis: AnalysisLimits,
    /// One node of a cluster (PostgreSQL and NATS shared with other
    /// nodes), or `None` for a server alone on its database.
    pub cluster: Option<crate::cluster::ClusterConfig>,
}

impl Config {
    /// The defaults, on the database `db` (a SQLite path, or a
    /// [`Database`]).
    pub fn new(db: impl Into<Database>) -> Config {
        Config {
            db: db.into(),
            time: Time::system(),
            registry: &tabula_games::REGISTRY,
            net: NetLimits::default(),
            rate: RateLimits::default(),
            ai: AiLimits::default(),
            rooms: RoomTimes::default(),
            analysis: AnalysisLimits::default(),
            cluster: None,
        }
    }
}

/// Limits on connections, requests and WebSocket messages.
#[derive(Debug, Clone)]
pub struct NetLimits {
    /// Open connections at once (WebSockets included); 0 sizes it from the
    /// process's file-descriptor limit.
    pub max_connections: usize,
    /// Open connections at once from one client address (an IPv6 client is
    /// its /64 network).
    pub max_connections_per_client: usize,
    /// A request's head (request line and headers) must arrive within this
    /// time of its first byte.
    pub header_timeout_ms: u64,
    /// A request's body must arrive within this time of its head.
    pub body_timeout_ms: u64,
    /// A keep-alive connection with no request in flight is closed after this.
    pub idle_timeout_ms: u64,
    /// The server pings every WebSocket this often...
    pub ws_ping_interval_ms: u64,
    /// ...and closes it when this many pings in a row got no pong.
    pub ws_missed_pongs: u32,
    /// A WebSocket whose client takes no message for this long (it stopped
    /// reading, so its buffers are full) is closed.
    pub ws_send_timeout_ms: u64,
    /// Largest request body.
    pub max_body_bytes: usize,
    /// Largest WebSocket message from a client.
    pub max_ws_message_bytes: usize,
    /// Longest request target (path and query).
    pub max_uri_bytes: usize,
    /// Largest request head (all headers together).
    pub max_header_bytes: usize,
    /// Take the client's address from the last `X-Forwarded-For` entry
    /// (only behind a reverse proxy that sets it).
    pub trust_forwarded_for: bool,
    /// Mark the session cookie `Secure` (the server is reached over TLS,
    /// e.g. behind a TLS-terminating proxy). With `trust_forwarded_for`,
    /// `X-Forwarded-Proto: https` from the proxy does the same per request.
    pub secure_cookies: bool,
}

impl Default for NetLimits {
    fn default() -> Self {
        NetLimits {
            max_connections: 0,
            max_connections_per_client: 256,
            header_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            idle_timeout_ms: 60_000,
            ws_ping_interval_ms: 20_000,
            ws_missed_pongs: 2,
            ws_send_timeout_ms: 30_000,
            max_body_bytes: 64 * 1024,
            max_ws_message_bytes: 16 * 1024,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 32 * 1024,
            trust_forwarded_for: false,
            secure_cookies: false,
        }
    }
}

/// A rate: `burst` at once, refilled at `per_minute`. A zero `per_minute`
/// means no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Sustained requests per minute.
    pub per_minute: u32,
    /// Requests allowed at once.
    pub burst: u32,
}

impl Rate {
    /// No limit at all.
    pub const UNLIMITED: Rate = Rate { per_minute: 0, burst: 0 };
}

/// Request rates per client address.
#[derive(Debug, Clone)]
pub struct RateLimits {
    /// Moves, over HTTP and WebSocket together.
    pub moves: Rate,
    /// Games created.
    pub creates: Rate,
    /// WebSocket connections opened.
    pub sockets: Rate,
    /// TCP connections opened (refused at once past it, before any request
    /// is read, so a client reconnecting in a loop costs little).
    pub connections: Rate,
    /// Login attempts from one address.
    pub logins: Rate,
    /// Login attempts on one account name (from anywhere).
    pub logins_per_account: Rate,
    /// Accounts made from one address.
    pub signups: Rate,
    /// Positions analysed (`POST /api/analysis`); a game review asks for
    /// one per move, so the burst is large.
    pub analyses: Rate,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            moves: Rate { per_minute: 1_200, burst: 40 },
            creates: Rate { per_minute: 30, burst: 20 },
            sockets: Rate { per_minute: 120, burst: 30 },
            connections: Rate { per_minute: 1_800, burst: 200 },
            logins: Rate { per_minute: 10, burst: 20 },
            logins_per_account: Rate { per_minute: 1, burst: 5 },
            signups: Rate { per_minute: 1, burst: 5 },
            analyses: Rate { per_minute: 600, burst: 60 },
        }
    }
}

impl RateLimits {
    /// No limits (benchmarks).
    pub fn unlimited() -> Self {
        RateLimits {
            moves: Rate::UNLIMITED,
            creates: Rate::UNLIMITED,
            sockets: Rate::UNLIMITED,
            connections: Rate::UNLIMITED,
            logins: Rate::UNLIMITED,
            logins_per_account: Rate::UNLIMITED,
            signups: Rate::UNLIMITED,
            analyses: Rate::UNLIMITED,
        }
    }
}

/// The analysis board's engine. It runs beside the AI seats, never in a
/// game's room, and has slots of its own so that analyses never delay an
/// AI's move (and the other way round).
#[derive(Debug, Clone)]
pub struct AnalysisLimits {
    /// The longest an analysis may think, whatever the request asks.
    pub max_ms: u64,
    /// The thinking time when a request names none.
    pub default_ms: u64,
    /// Analyses running at once; 0 means half the CPU cores (at least one).
    pub max_running: usize,
    /// Analyses waiting for a slot; past it, requests get `503 busy`.
    pub max_waiting: usize,
}

impl Default for AnalysisLimits {
    fn default() -> Self {
        AnalysisLimits { max_ms: 3_000, default_ms: 1_000, max_running: 0, max_waiting: 8 }
    }
}

impl AnalysisLimits {
    /// `max_running`, with 0 resolved to half the cores.
    pub fn slots(&self) -> usize {
        if self.max_running > 0 {
            self.max_running
        } else {
            (std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2) / 2).max(1)
        }
    }
}

/// AI seats.
#[derive(Debug, Clone, Default)]
pub struct AiLimits {
    /// AIs thinking at once; more wait in a first-come queue. 0 means the
    /// number of CPU cores.
    pub max_thinking: usize,
}

impl AiLimits {
    /// `max_thinking`, with 0 resolved to the number of cores.
    pub fn thinkers(&self) -> usize {
        if self.max_thinking > 0 {
            self.max_thinking
        } else {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
        }
    }
}

/// Times in the life of a game on the server.
#[derive(Debug, Clone)]
pub struct RoomTimes {
    /// In a timed game no clock runs before a side's first move; each side
    /// has this long for it (or the shot clock's time per move, if longer),
    /// else the game is aborted.
    pub first_move_ms: u64,
    /// A game with an open seat nobody joined is aborted after this.
    pub expire_waiting_ms: u64,
    /// An untimed game with no move for this long is aborted.
    pub expire_idle_ms: u64,
    /// A finished game nobody asked for in this long leaves memory.
    pub evict_finished_ms: u64,
    /// An unfinished game with no timer to run, no AI thinking and nobody
    /// watching leaves memory after this long untouched.
    pub evict_idle_ms: u64,
    /// How often eviction and expiry run.
    pub housekeeping_ms: u64,
    /// In a live game, the player on move may claim the win or a draw once
    /// the opponent has had no connection for this long.
    pub claim_after_ms: u64,
    /// A public waiting game (a lobby seek) is removed once its creator has
    /// had no connection to it for this long.
    pub seek_leave_ms: u64,
}

impl Default for RoomTimes {
    fn default() -> Self {
        RoomTimes {
            first_move_ms: 30_000,
            expire_waiting_ms: 24 * 3_600_000,
            expire_idle_ms: 14 * 24 * 3_600_000,
            evict_finished_ms: 60_000,
            evict_idle_ms: 10 * 60_000,
            housekeeping_ms: 10_000,
            claim_after_ms: 30_000,
            seek_leave_ms: 60_000,
        }
    }
}
