use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Open http://ADDR/ in a browser to play. The API is described at /api/openapi.json; \
    limits and deployment in docs/api.md and docs/deploy.md.\n\n\
    EXAMPLES:\n  tabula serve --addr 127.0.0.1:8080 --db ~/tabula.sqlite3\n  \
    tabula serve --db postgres://tabula:secret@127.0.0.1:5432/tabula\n  \
    tabula serve --db postgres://tabula:secret@db/tabula --nats nats://127.0.0.1:4222 --node-id eu-1\n\n\
    With --nats the server is one node of a cluster: every node on the same PostgreSQL database and \
    NATS server serves every game (docs/deploy.md, \"A cluster\").\n\n\
    Logs go to stderr; set TABULA_LOG (e.g. TABULA_LOG=debug) to change how much.")]
pub struct Args {
    /// Address to listen on (port 0 picks a free port)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// The database: a SQLite file (created on first run, the default ./tabula.sqlite3) or a
    /// PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE). Either is locked for this
    /// server while it runs, and migrated when it starts
    #[arg(long, value_name = "PATH|URL")]
    db: Option<String>,
    /// AIs thinking at once (others wait their turn); 0 = one per CPU core
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::util::whole::<usize>)]
    max_thinking: usize,
    /// Open connections at once; 0 = as many as the descriptor limit allows
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = crate::util::whole::<usize>)]
    max_connections: usize,
    /// Open connections at once from one client address
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = crate::util::whole::<usize>)]
    max_connections_per_client: usize,
    /// Abort a game whose open seat nobody joined after this many hours
    #[arg(long, value_name = "HOURS", default_value_t = 24.0, value_parser = crate::util::decimal)]
    expire_waiting_hours: f64,
    /// Abort an untimed game with no move for this many days
    #[arg(long, value_name = "DAYS", default_value_t = 14.0, value_parser = crate::util::decimal)]
    expire_idle_days: f64,
    /// Seconds each side of a timed game has for its first move (no clock runs before it)
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = crate::util::decimal)]
    first_move_seconds: f64,
    /// Behind a reverse proxy: count limits by the last X-Forwarded-For address (and mark the
    /// session cookie Secure when the proxy sends X-Forwarded-Proto: https)
    #[arg(long)]
    trust_forwarded_for: bool,
    /// Always mark the session cookie Secure (the server is reached over HTTPS)
    #[arg(long)]
    secure_cookies: bool,
    /// Run as one node of a cluster, joined through this NATS server (nats://HOST:PORT); needs a
    /// PostgreSQL --db shared by every node
    #[arg(long, value_name = "URL")]
    nats: Option<String>,
    /// The cluster's name, the first part of its NATS subjects (clusters may share one NATS)
    #[arg(long, value_name = "NAME", default_value = "tabula", requires = "nats")]
    cluster: String,
    /// This node's name in logs and in the database (a random suffix keeps it unique); default:
    /// the host's name
    #[arg(long, value_name = "NAME", requires = "nats")]
    node_id: Option<String>,
    /// Seconds a node's lease on its games lasts unrenewed: a dead node's games are taken over
    /// within about this long
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0, value_parser = crate::util::decimal, requires = "nats")]
    lease_seconds: f64,
}

fn positive_ms(what: &str, value: f64, unit_ms: f64) -> Result<u64> {
    if !(value.is_finite() && value > 0.0) {
        anyhow::bail!("{what} must be a number above zero, not {value}");
    }
    Ok((value * unit_ms).round() as u64)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let db = match args.db {
        Some(text) => tabula_server::config::Database::parse(&text),
        None => tabula_server::config::Database::Sqlite(tabula_server::default_db_path()),
    };
    let mut config = tabula_server::Config::new(db);
    config.ai.max_thinking = args.max_thinking;
    config.net.max_connections = args.max_connections;
    config.net.max_connections_per_client = args.max_connections_per_client.max(1);
    config.net.trust_forwarded_for = args.trust_forwarded_for;
    config.net.secure_cookies = args.secure_cookies;
    config.rooms.expire_waiting_ms = positive_ms("--expire-waiting-hours", args.expire_waiting_hours, 3_600_000.0)?;
    config.rooms.expire_idle_ms = positive_ms("--expire-idle-days", args.expire_idle_days, 86_400_000.0)?;
    config.rooms.first_move_ms = positive_ms("--first-move-seconds", args.first_move_seconds, 1_000.0)?;
    if let Some(nats) = &args.nats {
        let node = args.node_id.clone().unwrap_or_else(host_name);
        let mut cluster = tabula_server::cluster::ClusterConfig::new(nats, &args.cluster, &node);
        cluster.lease_ms = positive_ms("--lease-seconds", args.lease_seconds, 1_000.0)?.max(300);
        config.cluster = Some(cluster);
    }
    tabula_server::serve_blocking(&args.addr, config)?;
    Ok(ExitCode::SUCCESS)
}

/// The host's name, as a node id (letters, digits, '-' and '_' only).
fn host_name() -> String {
    let name = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let name: String =
        name.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if name.is_empty() {
        "node".to_string()
    } else {
        name
    }
}
