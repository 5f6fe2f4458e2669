//! The solution on disk: built once, then read back in a fraction of a
//! second. A file that is damaged, truncated or from another format
//! version is detected and rebuilt, never trusted.
//!
//! File layout (little-endian): the magic `TABULACW`, the format version
//! (u32), the payload length (u64), an FNV-1a 64 checksum of the payload
//! (u64), then the payload (one byte per board, see [`Table`]).

use crate::solve::Table;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"TABULACW";
/// Bump whenever the payload's meaning changes (rules, encoding): older
/// files are then rebuilt.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// The environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "TABULA_CACHE_DIR";

/// Why a cache file was not used, or not written.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// There is no file yet.
    #[error("no cache file yet")]
    Missing,
    /// The file could not be read.
    #[error("cannot read the cache file: {0}")]
    Io(std::io::Error),
    /// The file is not a valid table.
    #[error("the cache file is damaged: {0}")]
    Damaged(String),
    /// The file was written by a build with another format.
    #[error("the cache file has format version {0}, this build uses {FORMAT_VERSION}")]
    OtherVersion(u32),
    /// No cache directory is known.
    #[error("no cache directory (set TABULA_CACHE_DIR)")]
    NoDirectory,
    /// The file could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// FNV-1a, 64 bits: no dependency, and plenty to catch damage (this is
/// not a defence against deliberate tampering).
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The file contents for a payload.
pub fn encode_file(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of file contents, checked against the header and the
/// expected length.
pub fn decode_file(mut bytes: Vec<u8>, expected_len: usize) -> Result<Vec<u8>, CacheError> {
    if bytes.len() < HEADER_LEN {
        return Err(CacheError::Damaged(format!("{} bytes, shorter than the header", bytes.len())));
    }
    if &bytes[..8] != MAGIC {
        return Err(CacheError::Damaged("not a Tabula Cold War table (wrong magic)".into()));
    }
    let word = |at: usize, len: usize| bytes[at..at + len].iter().rev().fold(0u64, |acc, &b| acc << 8 | b as u64);
    let version = word(8, 4) as u32;
    if version != FORMAT_VERSION {
        return Err(CacheError::OtherVersion(version));
    }
    let len = word(12, 8);
    if len != expected_len as u64 {
        return Err(CacheError::Damaged(format!("header says {len} entries, expected {expected_len}")));
    }
    if bytes.len() - HEADER_LEN != expected_len {
        return Err(CacheError::Damaged(format!(
            "{} payload bytes, expected {expected_len} (truncated or padded)",
            bytes.len() - HEADER_LEN
        )));
    }
    let sum = word(20, 8);
    bytes.drain(..HEADER_LEN);
    if checksum(&bytes) != sum {
        return Err(CacheError::Damaged("checksum mismatch".into()));
    }
    Ok(bytes)
}

/// Read a payload file.
pub fn read_payload(path: &Path, expected_len: usize) -> Result<Vec<u8>, CacheError> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheError::Missing),
        Err(e) => return Err(CacheError::Io(e)),
    };
    let mut bytes = Vec::with_capacity(HEADER_LEN + expected_len);
    file.read_to_end(&mut bytes).map_err(CacheError::Io)?;
    decode_file(bytes, expected_len)
}

/// Write a payload file atomically: a temporary file in the same
/// directory, then a rename, so a crash never leaves half a file behind
/// under the real name.
pub fn write_payload(path: &Path, payload: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&encode_file(payload))?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Where the table lives: `$TABULA_CACHE_DIR/coldwar-v1.bin`, or
/// `tabula/coldwar-v1.bin` in the user's cache directory. `None` when
/// there is no cache directory (the table is then built in memory only).
pub fn cache_path() -> Option<PathBuf> {
    let dir = match std::env::var_os(CACHE_DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => dirs::cache_dir()?.join("tabula"),
    };
    Some(dir.join(format!("coldwar-v{FORMAT_VERSION}.bin")))
}

/// Where a table came from.
#[derive(Debug)]
pub enum Origin {
    /// Read from the cache file.
    Loaded(PathBuf),
    /// Solved now; `reason` says why the cache was not used, `saved` whether
    /// writing it back worked.
    Built {
        /// Why the cache was not used.
        reason: String,
        /// How long the solve took.
        seconds: f64,
        /// Where it was saved, or why not.
        saved: Result<PathBuf, CacheError>,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Loaded(p) => write!(f, "read the solution from {}", p.display()),
            Origin::Built { reason, seconds, saved } => {
                write!(f, "solved Cold War in {seconds:.1} s ({reason}); ")?;
                match saved {
                    Ok(p) => write!(f, "saved to {}", p.display()),
                    Err(e) => write!(f, "not cached: {e}"),
                }
            }
        }
    }
}

/// Load the payload from `path`, or build it with `build` (when the file is
/// missing, damaged or from another version, or `rebuild` is set) and
/// write it back. Generic over the builder so the cache logic can be
/// tested with small payloads.
pub fn load_or_build_payload(
    path: Option<&Path>,
    expected_len: usize,
    rebuild: bool,
    validate: impl Fn(Vec<u8>) -> Result<Vec<u8>, CacheError>,
    build: impl FnOnce() -> Vec<u8>,
) -> (Vec<u8>, Origin) {
    let reason = match path {
        None => "no cache directory".to_string(),
        Some(_) if rebuild => "rebuild asked for".to_string(),
        Some(p) => match read_payload(p, expected_len).and_then(&validate) {
            Ok(payload) => return (payload, Origin::Loaded(p.to_path_buf())),
            Err(e) => e.to_string(),
        },
    };
    let start = Instant::now();
    let payload = build();
    let seconds = start.elapsed().as_secs_f64();
    let saved = match path {
        None => Err(CacheError::NoDirectory),
        Some(p) => write_payload(p, &payload)
            .map(|()| p.to_path_buf())
            .map_err(|source| CacheError::Write { path: p.to_path_buf(), source }),
    };
    (payload, Origin::Built { reason, seconds, saved })
}

/// Solve with a progress bar on standard error (hidden when it is not a
/// terminal).
pub fn build_with_progress() -> Table {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("solving Cold War {bar:40} {percent:>3}% {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let table = Table::build(&mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    table
}

/// The table from `path` (or the default cache), built and saved when
/// needed.
pub fn load_or_build(path: Option<&Path>, rebuild: bool) -> (Table, Origin) {
    let (payload, origin) = load_or_build_payload(
        path,
        crate::rules::BOARDS as usize,
        rebuild,
        |bytes| Table::from_bytes(bytes).map(Table::into_bytes).map_err(|e| CacheError::Damaged(e.to_string())),
        || build_with_progress().into_bytes(),
    );
    let table = Table::from_bytes(payload).expect("a checked or freshly built table is valid");
    (table, origin)
}

static SHARED: OnceLock<Table> = OnceLock::new();

/// The process-wide table: read from the cache or solved on first use,
/// then shared (the server and every perfect agent use the same one).
pub fn shared_table() -> &'static Table {
    SHARED.get_or_init(|| {
        let (table, origin) = load_or_build(cache_path().as_deref(), false);
        if !matches!(origin, Origin::Loaded(_)) {
            eprintln!("tabula: {origin}");
        }
        table
    })
}

/// The process-wide table if it is ready by `deadline`: the first call
/// starts reading (or solving) it on a thread of its own, so a caller with
/// a time limit never waits past it; `None` when it is not ready in time or
/// `stopped` says to give up.
pub fn shared_table_by(deadline: Instant, stopped: &dyn Fn() -> bool) -> Option<&'static Table> {
    static LOADER: std::sync::Once = std::sync::Once::new();
    if let Some(table) = SHARED.get() {
        return Some(table);
    }
    LOADER.call_once(|| {
        // Should the thread not start, callers keep answering "not ready".
        let _ = std::thread::Builder::new().name("coldwar-table".into()).spawn(|| {
            shared_table();
        });
    });
    loop {
        if let Some(table) = SHARED.get() {
            return Some(table);
        }
        let now = Instant::now();
        if now >= deadline || stopped() {
            return None;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(5)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tabula-coldwar-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn payload() -> Vec<u8> {
        (0..1000u32).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// A builder of the test payload that counts its builds.
    fn counting(builds: &Cell<u32>) -> impl Fn() -> Vec<u8> + Copy + '_ {
        move || {
            builds.set(builds.get() + 1);
            payload()
        }
    }

    fn accept(bytes: Vec<u8>) -> Result<Vec<u8>, CacheError> {
        Ok(bytes)
    }

    #[test]
    fn a_file_round_trips() {
        let file = encode_file(&payload());
        assert_eq!(decode_file(file, 1000).unwrap(), payload());
    }

    #[test]
    fn damage_of_any_kind_is_detected() {
        let good = encode_file(&payload());
        let damaged = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = good.clone();
            f(&mut bytes);
            decode_file(bytes, 1000).unwrap_err().to_string()
        };
        assert!(damaged(&|b| b[HEADER_LEN + 500] ^= 1).contains("checksum mismatch"));
        assert!(damaged(&|b| b[0] = b'X').contains("wrong magic"));
        assert!(damaged(&|b| b.truncate(HEADER_LEN + 999)).contains("999 payload bytes"));
        assert!(damaged(&|b| b.push(0)).contains("1001 payload bytes"));
        assert!(damaged(&|b| b.truncate(5)).contains("shorter than the header"));
        assert!(damaged(&|b| b[12] = 0xE9).contains("header says 1001 entries"));
        assert!(damaged(&|b| b[8] = 0).contains("format version 0"));
        assert!(decode_file(good, 999).unwrap_err().to_string().contains("expected 999"));
    }

    #[test]
    fn the_cache_is_built_once_then_read() {
        let path = temp_dir("once").join("t.bin");
        let builds = Cell::new(0);
        let build = counting(&builds);
        let (p, origin) = load_or_build_payload(Some(&path), 1000, false, accept, build);
        assert_eq!((p, builds.get()), (payload(), 1));
        assert!(matches!(origin, Origin::Built { ref reason, saved: Ok(_), .. } if reason == "no cache file yet"));
        let (p, origin) = load_or_build_payload(Some(&path), 1000, false, accept, build);
        assert_eq!((p, builds.get()), (payload(), 1));
        assert!(matches!(origin, Origin::Loaded(_)));
        // Asking for a rebuild rebuilds.
        load_or_build_payload(Some(&path), 1000, true, accept, build);
        assert_eq!(builds.get(), 2);
    }

    #[test]
    fn a_corrupted_or_old_cache_is_rebuilt_not_trusted() {
        let dir = temp_dir("corrupt");
        let path = dir.join("t.bin");
        write_payload(&path, &payload()).unwrap();
        // Flip one payload byte on disk.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_LEN + 10] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let builds = Cell::new(0);
        let build = counting(&builds);
        let (p, origin) = load_or_build_payload(Some(&path), 1000, false, accept, build);
        assert_eq!((p, builds.get()), (payload(), 1));
        match origin {
            Origin::Built { reason, saved, .. } => {
                assert!(reason.contains("checksum mismatch"), "{reason}");
                assert!(saved.is_ok());
            }
            other => panic!("trusted a damaged file: {other}"),
        }
        // The rewritten file is good again.
        assert_eq!(read_payload(&path, 1000).unwrap(), payload());
        // A file from an older format version is rebuilt too.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&0u32.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let (_, origin) = load_or_build_payload(Some(&path), 1000, false, accept, build);
        assert!(origin.to_string().contains("format version 0"), "{origin}");
        assert_eq!(builds.get(), 2);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["t.bin"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_cache_still_gives_the_table() {
        let dir = temp_dir("unwritable");
        let blocker = dir.join("file");
        std::fs::write(&blocker, b"not a directory").unwrap();
        let path = blocker.join("t.bin");
        let (p, origin) = load_or_build_payload(Some(&path), 1000, false, accept, payload);
        assert_eq!(p, payload());
        assert!(matches!(origin, Origin::Built { saved: Err(_), .. }), "{origin}");
        let (p, origin) = load_or_build_payload(None, 1000, false, accept, payload);
        assert_eq!(p, payload());
        assert!(origin.to_string().contains("no cache directory"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_files_are_reported_as_missing() {
        let path = temp_dir("missing").join("none.bin");
        assert!(matches!(read_payload(&path, 10), Err(CacheError::Missing)));
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn the_real_table_survives_the_disk_and_corruption_forces_a_rebuild() {
        let table = crate::solve::tests::full_table();
        let dir = temp_dir("real");
        let path = dir.join(format!("coldwar-v{FORMAT_VERSION}.bin"));
        write_payload(&path, table.as_bytes()).unwrap();
        let (loaded, origin) = load_or_build(Some(&path), false);
        assert!(matches!(origin, Origin::Loaded(_)), "{origin}");
        assert!(loaded.as_bytes() == table.as_bytes());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_LEN + 20_000_000] ^= 0x01;
        std::fs::write(&path, &bytes).unwrap();
        let (rebuilt, origin) = load_or_build(Some(&path), false);
        assert!(origin.to_string().contains("checksum mismatch"), "{origin}");
        // The solve is deterministic although it runs on several threads.
        assert!(rebuilt.as_bytes() == table.as_bytes());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
