use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Open http://ADDR/ in a browser to play. The API is described at /api/openapi.json.\n\n\
    EXAMPLE:\n  tabula serve --addr 127.0.0.1:8080 --db ~/tabula.sqlite3\n\n\
    Logs go to stderr; set TABULA_LOG (e.g. TABULA_LOG=debug) to change how much.")]
pub struct Args {
    /// Address to listen on (port 0 picks a free port)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// The SQLite database; created on first run
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let db = args.db.unwrap_or_else(tabula_server::default_db_path);
    tabula_server::serve_blocking(&args.addr, &db)?;
    Ok(ExitCode::SUCCESS)
}
