//! Tabula's game server (`tabula serve`): persistent games over HTTP and
//! WebSocket, server-side clocks, AI seats, and the embedded web front end.
//! The API is described in docs/api.md and `openapi.json`.
//!
//! The layers, bottom up:
//! - [`store`]: storage behind one interface (SQLite or PostgreSQL), with versioned
//!   migrations and per-game failure isolation.
//! - [`room`]: one game and every action on it, as typed commands.
//! - `app`: the rooms in memory: locking, persisting, publishing, timers,
//!   eviction and expiry; `ai`: the AI seats' thinking pool.
//! - `http`, `ws`, `web`: translate requests into commands.
//! - `net`: connections, with caps and timeouts; `limits`: rate limits.
//! - [`time`]: the one source of time, so tests never sleep.
#![warn(missing_docs)]

mod account_http;
pub mod accounts;
mod ai;
mod analysis;
mod app;
mod bot_api;
mod challenges;
pub mod cluster;
pub mod config;
mod error;
mod http;
mod limits;
mod net;
mod pool;
pub mod ratings;
pub mod room;
pub mod store;
pub mod time;
mod tournaments;
mod web;
mod ws;

pub use app::{App, Health, LatencySummary};
pub use config::Config;
pub use error::ApiError;
pub use http::{router, OPENAPI};
pub use net::{default_max_connections, raise_fd_limit};
pub use web::asset_version;

use config::Database;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use store::{Store, StoreError};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Why the server could not start or stopped badly.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database could not be opened, locked or migrated.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The unfinished games could not be resumed.
    #[error("cannot resume the unfinished games: {0}")]
    Resume(#[from] room::RoomError),
    /// The address could not be used.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The cluster could not be joined.
    #[error(transparent)]
    Cluster(#[from] cluster::ClusterError),
    /// The server's task failed.
    #[error("the server stopped unexpectedly: {0}")]
    Crashed(#[from] tokio::task::JoinError),
}

/// A server running on the current tokio runtime.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its state.
    pub app: Arc<App>,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

impl Running {
    /// Stop accepting, close every WebSocket, stop the engines, record the
    /// time of the stop, release the database, and wait.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        let _ = self.shutdown.send(true);
        self.task.await?
    }

    /// Wait until the server stops by itself (it does not, unless it fails).
    pub async fn wait(&mut self) -> Result<(), ServeError> {
        (&mut self.task).await?
    }
}

/// Open the database `db` (a SQLite path or a [`Database`]), resume
/// unfinished games and serve on `listener`, with the default limits.
pub async fn start(listener: TcpListener, db: impl Into<Database>) -> Result<Running, ServeError> {
    start_with(listener, Config::new(db)).await
}

/// [`start`] with a configuration.
pub async fn start_with(listener: TcpListener, config: Config) -> Result<Running, ServeError> {
    // NATS first: a bad URL fails before the database is touched.
    let cluster = match &config.cluster {
        Some(c) => Some(cluster::Cluster::connect(c).await?),
        None => None,
    };
    let store: Arc<dyn Store> = store::open_for(&config.db, cluster.is_some()).await?;
    if let Some(c) = &cluster {
        // Alive before the first game is leased here: the leases of a node
        // that never said so count as a dead node's.
        if let Err(e) = store.node_alive(c.node.clone(), config.time.now_ms(), c.lease_ms).await {
            let _ = store.close().await;
            return Err(e.into());
        }
    }
    let max_connections = match config.net.max_connections {
        0 => default_max_connections(),
        n => n,
    };
    let conns = net::ConnectionSlots::new(max_connections, config.net.max_connections_per_client);
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let db = config.db.describe();
    let app = App::new(store.clone(), config, conns, shutdown_rx.clone(), cluster.clone());
    if let Err(e) = challenges::ensure_builtin_bots(&app).await {
        let _ = store.close().await;
        return Err(e.into());
    }
    // A cluster node takes its share of the unfinished games each second
    // instead (`adopt_orphans`).
    let resume = async {
        match &cluster {
            Some(_) => Ok(0),
            None => app.resume_unfinished().await,
        }
    };
    let resumed = match resume.await {
        Ok(n) => n,
        Err(e) => {
            let _ = store.close().await;
            return Err(e.into());
        }
    };
    // A cluster's tournaments are resumed by its leader (`lead`).
    let tournaments = async {
        match &cluster {
            Some(_) => Ok(0),
            None => app.resume_tournaments().await,
        }
    };
    let tournaments = match tournaments.await {
        Ok(n) => n,
        Err(e) => {
            let _ = store.close().await;
            return Err(e.into());
        }
    };
    let addr = listener.local_addr()?;
    tracing::info!(%addr, db = %db, resumed, tournaments, max_connections, "tabula server started");
    match &cluster {
        Some(c) => {
            tracing::info!(node = %c.node, "cluster node started");
            tokio::spawn(app::keep_leases(app.clone()));
            tokio::spawn(app::adopt_orphans(app.clone()));
            tokio::spawn(app::serve_forwarded(app.clone()));
            tokio::spawn(app::republish_on_reconnect(app.clone()));
        }
        None => {
            tokio::spawn(app::heartbeat(app.clone()));
        }
    }
    tokio::spawn(app::housekeeping(app.clone()));
    tokio::spawn(pool::matcher(app.clone()));
    tokio::spawn(tournaments::driver(app.clone()));
    let router = http::router(app.clone());
    if cluster.is_some() {
        tokio::spawn(app::receive_events(app.clone()));
        tokio::spawn(app::receive_finished(app.clone()));
        tokio::spawn(app::exchange_presence(app.clone()));
        tokio::spawn(app::lead(app.clone(), router.clone()));
    }
    let app2 = app.clone();
    let task = tokio::spawn(async move {
        net::serve(app2.clone(), router, listener, shutdown_rx).await;
        app2.stop();
        // Mark the stop so the next start does not charge the downtime; a
        // cluster node hands its games to the other nodes at once.
        let stopped = match &app2.cluster {
            Some(c) => app2.store.node_leaving(c.node.clone(), app2.time.now_ms()).await,
            None => app2.store.heartbeat(app2.time.now_ms()).await,
        };
        app2.store.close().await?;
        stopped?;
        tracing::info!("tabula server stopped");
        Ok(())
    });
    Ok(Running { addr, app, shutdown: shutdown_tx, task })
}

/// Listen on `addr` (`host:port`, the first address it resolves to) with a
/// long accept queue, so a burst of connections is queued rather than
/// dropped (the kernel caps it at `net.core.somaxconn`).
pub async fn listen(addr: &str) -> Result<TcpListener, ServeError> {
    let fail = |source| ServeError::Listen { addr: addr.to_string(), source };
    let resolved =
        tokio::net::lookup_host(addr).await.map_err(fail)?.next().ok_or_else(|| {
            fail(std::io::Error::new(std::io::ErrorKind::NotFound, "the address resolves to nothing"))
        })?;
    let socket = if resolved.is_ipv4() { tokio::net::TcpSocket::new_v4() } else { tokio::net::TcpSocket::new_v6() }
        .map_err(fail)?;
    socket.set_reuseaddr(true).map_err(fail)?;
    socket.bind(resolved).map_err(fail)?;
    socket.listen(4096).map_err(fail)
}

/// The default database: `./tabula.sqlite3`.
pub fn default_db_path() -> PathBuf {
    PathBuf::from("tabula.sqlite3")
}

/// Resolves on SIGINT or SIGTERM. The SIGTERM handler is installed when
/// this is called, not when first polled, so a SIGTERM that arrives right
/// after the server says it is listening still shuts it down gracefully.
fn signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        if let Some(mut term) = term {
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
            return;
        }
        let _ = ctrl_c.await;
    }
}

/// `tabula serve`: run until SIGINT/SIGTERM, then shut down gracefully.
/// Prints `listening on http://ADDR` on stdout once ready.
pub fn serve_blocking(addr: &str, config: Config) -> Result<(), ServeError> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TABULA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tower_http=warn,hyper=warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).try_init();
    // Many connections need many descriptors: take what the system allows.
    if let Some(limit) = raise_fd_limit(1 << 20) {
        tracing::debug!(limit, "file descriptor limit");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = listen(addr).await?;
        let mut running = start_with(listener, config).await?;
        let stop = signal();
        println!("listening on http://{}", running.addr);
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        tokio::select! {
            r = running.wait() => return r,
            _ = stop => tracing::info!("shutting down"),
        }
        running.shutdown().await
    })
}
