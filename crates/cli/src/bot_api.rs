//! The HTTP side of `tabula bot`: the server's Bot API (docs/api.md, "Bot
//! API") spoken with a bearer token, its NDJSON streams read line by line
//! with a size limit, and its errors turned into messages that say what to
//! do.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;
use ureq::http::Uri;

/// The longest line a stream may send (a whole game's JSON fits easily).
const MAX_LINE: u64 = 8 * 1024 * 1024;
/// The longest answer to a request.
const MAX_ANSWER: u64 = 8 * 1024 * 1024;
/// The server sends an empty line every 7 s on a stream; silence this long
/// means the connection is lost.
pub const STREAM_SILENCE: Duration = Duration::from_secs(30);
/// How long a plain request (accept, move, ...) may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a call to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The token was refused (401) or lacks a scope (403).
    #[error(
        "the server refused the token ({status} {code}: {message}); make a token with the bot:play scope on the \
         bot account's profile page and pass it with --token"
    )]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The server's error code.
        code: String,
        /// The server's message.
        message: String,
    },
    /// The endpoint does not exist: not a Tabula server, or one without the
    /// Bot API.
    #[error("{url} answered 404 Not Found: is {server} a Tabula server with the Bot API (tabula serve)?")]
    NoBotApi {
        /// The address called.
        url: String,
        /// The server given with --server.
        server: String,
    },
    /// Any other refusal, e.g. a move the server did not take.
    #[error("{what}: the server answered {status} {code}: {message}")]
    Server {
        /// What was asked.
        what: String,
        /// The HTTP status.
        status: u16,
        /// The server's error code (`bad_request`, `not_your_turn`, ...).
        code: String,
        /// The server's message.
        message: String,
        /// The `Retry-After` header's seconds, if any.
        retry_after_s: Option<u64>,
    },
    /// The server could not be reached, or the connection broke.
    #[error("cannot reach {url}: {reason}")]
    Network {
        /// The address called.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The server sent something that is not what the API says.
    #[error("{url}: {problem}")]
    Protocol {
        /// The address called.
        url: String,
        /// What was wrong with it.
        problem: String,
    },
}

impl ApiError {
    /// Whether retrying cannot help: a refused token or no Bot API.
    pub fn is_fatal(&self) -> bool {
        matches!(self, ApiError::Refused { .. } | ApiError::NoBotApi { .. })
    }

    /// How long the server asked to wait when it answered `429
    /// rate_limited` (its `Retry-After`, at least 1 s), else `None`.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::Server { status: 429, retry_after_s, .. } => {
                Some(Duration::from_secs(retry_after_s.unwrap_or(1).clamp(1, 60)))
            }
            _ => None,
        }
    }

    /// The server's error code, if it answered with one.
    pub fn code(&self) -> Option<&str> {
        match self {
            ApiError::Refused { code, .. } | ApiError::Server { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Check a `--server` address: `http://` or `https://`, a host, an
/// optional port and path, no query. Returns it without a trailing `/`.
pub fn parse_server(text: &str) -> Result<String, String> {
    let t = text.trim();
    let bad = |why: &str| format!("--server '{}' is not a server address: {why}", tabula_core::error::excerpt(t));
    let uri: Uri = t.parse().map_err(|_| bad("write e.g. http://127.0.0.1:8080 or https://tabula.example.org"))?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        Some(other) => return Err(bad(&format!("the scheme must be http or https, not {other}"))),
        None => return Err(bad("it needs http:// or https:// in front")),
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("it names no host"));
    }
    if uri.query().is_some() || t.contains('#') {
        return Err(bad("it must not have a query or fragment"));
    }
    Ok(t.trim_end_matches('/').to_string())
}

/// Percent-encode one path segment (a game id or a move such as `e7e8q`
/// or `b2-b3`).
pub fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A connection to one server as one bot.
#[derive(Clone)]
pub struct Api {
    server: String,
    auth: String,
    requests: ureq::Agent,
    streams: ureq::Agent,
}

impl Api {
    /// `server` as checked by [`parse_server`].
    pub fn new(server: String, token: &str) -> Api {
        let agent = |per_read: Duration, global: Option<Duration>| -> ureq::Agent {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_connect(Some(CONNECT_TIMEOUT))
                .timeout_per_read(Some(per_read))
                .timeout_global(global)
                .user_agent(concat!("tabula-bot/", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        };
        Api {
            server,
            auth: format!("Bearer {}", token.trim()),
            requests: agent(REQUEST_TIMEOUT, Some(REQUEST_TIMEOUT)),
            streams: agent(STREAM_SILENCE, None),
        }
    }

    /// The server's address.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server)
    }

    fn network(&self, url: &str, e: ureq::Error) -> ApiError {
        let reason = match e {
            ureq::Error::Io(io) => io.to_string(),
            ureq::Error::Timeout(t) => format!("timed out ({t})"),
            ureq::Error::HostNotFound => "host not found".into(),
            ureq::Error::ConnectionFailed => "connection failed".into(),
            other => other.to_string(),
        };
        ApiError::Network { url: url.to_string(), reason }
    }

    /// Turn a non-2xx answer into an error (reading the body's
    /// `{"error":{"code","message"}}` when there is one).
    /// `endpoint` says the path is one of the Bot API's own (a stream or the
    /// account), so a 404 there means the server has no Bot API rather than
    /// that some game or challenge is gone.
    fn refusal(
        &self,
        what: &str,
        url: &str,
        (status, retry_after_s): (u16, Option<u64>),
        body: &str,
        endpoint: bool,
    ) -> ApiError {
        let json: Option<Value> = serde_json::from_str(body).ok();
        let field = |k: &str| json.as_ref().and_then(|j| j["error"][k].as_str()).map(str::to_string);
        let code = field("code").unwrap_or_else(|| format!("http_{status}"));
        let message = field("message").unwrap_or_else(|| tabula_core::error::excerpt(body.trim()).into_owned());
        match status {
            401 | 403 if code != "not_your_game" && code != "csrf" => ApiError::Refused { status, code, message },
            404 if endpoint => ApiError::NoBotApi { url: url.to_string(), server: self.server.clone() },
            _ => ApiError::Server { what: what.to_string(), status, code, message, retry_after_s },
        }
    }

    /// GET a JSON answer.
    pub fn get(&self, path: &str, what: &str) -> Result<Value, ApiError> {
        let url = self.url(path);
        let answer = self.requests.get(&url).header("Authorization", &self.auth).call();
        self.json_answer(what, &url, answer, true)
    }

    /// POST `body` as JSON and read the JSON answer.
    pub fn post(&self, path: &str, body: &Value, what: &str) -> Result<Value, ApiError> {
        let url = self.url(path);
        let answer = self.requests.post(&url).header("Authorization", &self.auth).send_json(body);
        self.json_answer(what, &url, answer, false)
    }

    fn json_answer(
        &self,
        what: &str,
        url: &str,
        answer: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        endpoint: bool,
    ) -> Result<Value, ApiError> {
        let mut response = answer.map_err(|e| self.network(url, e))?;
        let status = response.status().as_u16();
        let retry_after = retry_after(&response);
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| self.network(url, e))?;
        if !(200..300).contains(&status) {
            return Err(self.refusal(what, url, (status, retry_after), &body, endpoint));
        }
        serde_json::from_str(&body)
            .map_err(|e| ApiError::Protocol { url: url.to_string(), problem: format!("the answer is not JSON ({e})") })
    }

    /// Open an NDJSON stream (`what` names it in errors, e.g. "open the
    /// event stream").
    pub fn stream(&self, path: &str, what: &str) -> Result<Stream, ApiError> {
        let url = self.url(path);
        let response = self
            .streams
            .get(&url)
            .header("Authorization", &self.auth)
            .header("Accept", "application/x-ndjson")
            .call()
            .map_err(|e| self.network(&url, e))?;
        let status = response.status().as_u16();
        let retry_after = retry_after(&response);
        let mut body = response.into_body();
        if !(200..300).contains(&status) {
            let text = body.with_config().limit(64 * 1024).lossy_utf8(true).read_to_string().unwrap_or_default();
            return Err(self.refusal(what, &url, (status, retry_after), &text, true));
        }
        Ok(Stream { reader: BufReader::new(Box::new(body.into_reader())), url, buf: Vec::new() })
    }
}

/// The seconds of a `Retry-After` header.
fn retry_after(response: &ureq::http::Response<ureq::Body>) -> Option<u64> {
    response.headers().get("retry-after")?.to_str().ok()?.trim().parse().ok()
}

/// An NDJSON stream: one JSON object per line; empty lines keep it alive.
pub struct Stream {
    reader: BufReader<Box<dyn Read + Send>>,
    url: String,
    buf: Vec<u8>,
}

impl Stream {
    /// A stream over any reader (for tests).
    #[cfg(test)]
    pub fn from_reader(reader: impl Read + Send + 'static) -> Stream {
        Stream { reader: BufReader::new(Box::new(reader)), url: "test".into(), buf: Vec::new() }
    }

    /// The next object, `Ok(None)` when the server closed the stream.
    /// Keep-alive lines are skipped.
    pub fn next(&mut self) -> Result<Option<Value>, ApiError> {
        loop {
            self.buf.clear();
            let n = (&mut self.reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| ApiError::Network { url: self.url.clone(), reason: e.to_string() })?;
            if n == 0 {
                return Ok(None);
            }
            if self.buf.len() as u64 > MAX_LINE {
                let problem = format!("a line of the stream is longer than {} MiB", MAX_LINE >> 20);
                return Err(ApiError::Protocol { url: self.url.clone(), problem });
            }
            let line = String::from_utf8_lossy(&self.buf);
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            return serde_json::from_str(line).map(Some).map_err(|e| ApiError::Protocol {
                url: self.url.clone(),
                problem: format!("a line of the stream is not JSON ({e}): {}", tabula_core::error::excerpt(line)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_addresses() {
        assert_eq!(parse_server("http://127.0.0.1:8080/").unwrap(), "http://127.0.0.1:8080");
        assert_eq!(parse_server(" https://tabula.example.org/play ").unwrap(), "https://tabula.example.org/play");
        for bad in ["127.0.0.1:8080", "ftp://example.org", "http://", "http://h/?x=1", "not a url", ""] {
            let e = parse_server(bad).unwrap_err();
            assert!(e.contains("is not a server address"), "{bad}: {e}");
        }
        assert!(parse_server("localhost:8080").unwrap_err().contains("http"));
    }

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(segment("e7e8q"), "e7e8q");
        assert_eq!(segment("b2-b3"), "b2-b3");
        assert_eq!(segment("a/b c?"), "a%2Fb%20c%3F");
    }

    #[test]
    fn streams_skip_keep_alives_and_refuse_garbage() {
        let mut s = Stream::from_reader(&b"\n{\"type\":\"a\"}\n\n\n{\"type\":\"b\"}"[..]);
        assert_eq!(s.next().unwrap().unwrap()["type"], "a");
        assert_eq!(s.next().unwrap().unwrap()["type"], "b");
        assert!(s.next().unwrap().is_none());
        let mut s = Stream::from_reader(&b"{\"type\":\n"[..]);
        assert!(s.next().unwrap_err().to_string().contains("not JSON"));
    }

    #[test]
    fn an_endless_line_is_refused_without_reading_it_all() {
        let endless = std::io::repeat(b'x');
        let mut s = Stream::from_reader(endless);
        assert!(s.next().unwrap_err().to_string().contains("longer than"));
    }

    #[test]
    fn refusals_say_what_to_do() {
        let api = Api::new("http://127.0.0.1:1".into(), "tba_x");
        let body = r#"{"v":1,"error":{"code":"bad_token","message":"unknown or revoked token"}}"#;
        let e = api.refusal("open the event stream", "u", (401, None), body, true);
        assert!(e.is_fatal() && e.to_string().contains("refused the token"), "{e}");
        let e = api.refusal("open the event stream", "u", (404, None), "<html>nope</html>", true);
        assert!(e.is_fatal() && e.to_string().contains("Bot API"), "{e}");
        let e =
            api.refusal("play e2e4", "u", (409, None), r#"{"v":1,"error":{"code":"stale_ply","message":"m"}}"#, false);
        assert!(!e.is_fatal());
        assert_eq!(e.code(), Some("stale_ply"));
        assert_eq!(e.retry_after(), None);
        let e = api.refusal(
            "play e2e4",
            "u",
            (429, Some(3)),
            r#"{"v":1,"error":{"code":"rate_limited","message":"m"}}"#,
            false,
        );
        assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    }
}
