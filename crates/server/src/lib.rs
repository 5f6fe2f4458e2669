//! Tabula's game server (`tabula serve`): persistent games over HTTP and
//! WebSocket, server-side clocks, AI seats, and the embedded web front end.
//! The API is described in docs/api.md and `openapi.json`.

mod app;
mod db;
mod error;
mod game;
mod http;
mod web;
mod ws;

pub use app::App;
pub use error::ApiError;
pub use http::{router, OPENAPI};

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// A server running on the current tokio runtime.
pub struct Running {
    pub addr: SocketAddr,
    pub app: Arc<App>,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Running {
    /// Stop accepting, close every WebSocket, stop the engines, and wait.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        let _ = self.shutdown.send(true);
        self.task.await?
    }

    /// Wait until the server stops by itself (it does not, unless it fails).
    pub async fn wait(&mut self) -> anyhow::Result<()> {
        (&mut self.task).await?
    }
}

/// Open the database, resume unfinished games and serve on `listener`.
pub async fn start(listener: TcpListener, db_path: &Path) -> anyhow::Result<Running> {
    let store = db::Store::open(db_path)?;
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let app = App::new(store, shutdown_rx.clone());
    let resumed = app.resume_unfinished().await?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, db = %db_path.display(), resumed, "tabula server started");
    tokio::spawn(app::heartbeat(app.clone()));
    let router = http::router(app.clone());
    let app2 = app.clone();
    let mut stop = shutdown_rx;
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stop.wait_for(|s| *s).await;
            })
            .await?;
        app2.stop_engines.store(true, Ordering::Relaxed);
        // Mark the stop so the next start does not charge the downtime.
        app2.store.commit(vec![db::Write::Heartbeat(app::now_ms())]).await.map_err(|e| anyhow::anyhow!(e))?;
        tracing::info!("tabula server stopped");
        Ok(())
    });
    Ok(Running { addr, app, shutdown: shutdown_tx, task })
}

/// The default database: `./tabula.sqlite3`.
pub fn default_db_path() -> PathBuf {
    PathBuf::from("tabula.sqlite3")
}

async fn signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = ctrl_c.await;
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// `tabula serve`: run until SIGINT/SIGTERM, then shut down gracefully.
/// Prints `listening on http://ADDR` on stdout once ready.
pub fn serve_blocking(addr: &str, db_path: &Path) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TABULA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tower_http=warn,hyper=warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        let mut running = start(listener, db_path).await?;
        println!("listening on http://{}", running.addr);
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        tokio::select! {
            r = running.wait() => return r,
            _ = signal() => tracing::info!("shutting down"),
        }
        running.shutdown().await
    })
}
