//! Accounts: usernames, password hashing (Argon2id), session ids and API
//! tokens, and who a request comes from ([`Viewer`]), with the CSRF rule
//! for cookie-authenticated requests. The HTTP handlers are in
//! `account_http.rs`; docs/api.md describes the contract.

use crate::error::ApiError;
use crate::http::AppState;
use crate::room::random_string;
use crate::store::{AccountAnswer, AccountQuery, TokenRow, UserRow};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method, StatusCode};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "tabula_session";
/// How long a session lasts: 30 days.
pub const SESSION_MS: u64 = 30 * 24 * 3_600_000;
/// API token secrets start with this, so they are easy to recognise (and
/// to find if leaked).
pub const TOKEN_PREFIX: &str = "tba_";
/// The scopes a token may carry.
pub const SCOPES: &[&str] = &["bot:play", "challenge:write"];
/// Username length, in characters.
pub const USERNAME_LEN: std::ops::RangeInclusive<usize> = 2..=20;
/// Password length, in characters.
pub const PASSWORD_LEN: std::ops::RangeInclusive<usize> = 8..=200;

/// Names nobody may take, in any case (and every `tabula-*` name, kept for
/// the built-in bots).
pub const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "root",
    "system",
    "tabula",
    "anonymous",
    "guest",
    "player",
    "moderator",
    "mod",
    "support",
    "api",
    "bot",
    "me",
    "null",
    "undefined",
    "deleted",
    "closed",
];

/// Check a username: 2–20 characters of `A-Z a-z 0-9 _ -`, starting with a
/// letter or digit, not reserved. `closed-*` and `tabula-*` names are the
/// server's own.
pub fn check_username(name: &str) -> Result<(), ApiError> {
    let bad = |m: String| ApiError::bad_request("bad_username", m);
    let len = name.chars().count();
    if !USERNAME_LEN.contains(&len) {
        return Err(bad(format!(
            "a username has {} to {} characters, not {len}",
            USERNAME_LEN.start(),
            USERNAME_LEN.end()
        )));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
        return Err(bad(format!("a username has only letters A-Z, digits, '_' and '-', not '{c}'")));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(bad("a username starts with a letter or a digit".into()));
    }
    let key = name.to_ascii_lowercase();
    if RESERVED.contains(&key.as_str()) || key.starts_with("tabula-") || key.starts_with("closed-") {
        return Err(bad(format!("the username '{name}' is reserved")));
    }
    Ok(())
}

/// Check a password's length.
pub fn check_password(password: &str) -> Result<(), ApiError> {
    let len = password.chars().count();
    if !PASSWORD_LEN.contains(&len) {
        return Err(ApiError::bad_request(
            "bad_password",
            format!("a password has {} to {} characters", PASSWORD_LEN.start(), PASSWORD_LEN.end()),
        ));
    }
    Ok(())
}

/// Hash a password with Argon2id (the crate's defaults: 19 MiB, 2 passes),
/// off the async threads.
pub async fn hash_password(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || {
        let salt_bytes: [u8; 16] = rand::random();
        let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| ApiError::internal(format!("salt: {e}")))?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::internal(format!("hashing: {e}")))
    })
    .await
    .map_err(|e| ApiError::internal(format!("hashing: {e}")))?
}

/// A hash of a password nobody has, checked when the account does not
/// exist, so a login takes as long whether the name exists or not.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::encode_b64(b"tabula-no-user!!").expect("a fixed valid salt");
        Argon2::default().hash_password(random_string(24).as_bytes(), &salt).expect("hashing works").to_string()
    })
}

/// Check `password` against `hash` (or the dummy hash when `None`), off the
/// async threads. False for `None`, whatever the password.
pub async fn verify_password(password: String, hash: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let real = hash.is_some();
        let hash = hash.unwrap_or_else(|| dummy_hash().to_string());
        let ok = PasswordHash::new(&hash)
            .map(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
            .unwrap_or(false);
        ok && real
    })
    .await
    .unwrap_or(false)
}

/// SHA-256 of a secret, in hex: how session ids and tokens are stored.
pub fn secret_hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A new session id (43 characters, about 250 bits).
pub fn new_session_id() -> String {
    random_string(43)
}

/// A new API token secret.
pub fn new_token_secret() -> String {
    format!("{TOKEN_PREFIX}{}", random_string(40))
}

/// The `Set-Cookie` value that stores `id`, or clears the cookie (`None`).
pub fn session_cookie(id: Option<&str>, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match id {
        Some(id) => {
            format!("{SESSION_COOKIE}={id}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}", SESSION_MS / 1000)
        }
        None => format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"),
    }
}

/// The session id in the request's cookies.
pub fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The bearer token in the request, if any.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_string()).filter(|t| !t.is_empty())
}

/// The request is same-origin (the CSRF rule for cookie-authenticated
/// changes): `Sec-Fetch-Site` says `same-origin` or `none` when present;
/// without it, `Origin` must name this very host.
pub fn same_origin(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return matches!(site, "same-origin" | "none");
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    match (host, origin) {
        (Some(host), Some(origin)) => {
            let origin_host = origin.split_once("://").map_or("", |(_, rest)| rest).trim_end_matches('/');
            !origin_host.is_empty() && origin_host.eq_ignore_ascii_case(host)
        }
        _ => false,
    }
}

/// The request came over TLS: the server is told its cookies are secure,
/// or a trusted proxy says `X-Forwarded-Proto: https`.
pub fn secure_request(app: &AppState, headers: &HeaderMap) -> bool {
    app.cfg.net.secure_cookies
        || (app.cfg.net.trust_forwarded_for
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.eq_ignore_ascii_case("https")))
}

/// How a request proved who it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Via {
    /// The session cookie.
    Session,
    /// An API token with these scopes.
    Token(Vec<String>),
}

/// Who a request comes from: an account, or nobody (a guest, who may still
/// hold seat tokens).
#[derive(Debug, Clone)]
pub struct Viewer {
    /// The account and how it was proved.
    pub user: Option<(UserRow, Via)>,
}

impl Viewer {
    /// The account, or `401 not_logged_in`.
    pub fn require(&self) -> Result<&UserRow, ApiError> {
        self.user.as_ref().map(|(u, _)| u).ok_or_else(not_logged_in)
    }

    /// The account, proved by the session cookie (account settings are not
    /// for API tokens), or `401 not_logged_in`.
    pub fn require_session(&self) -> Result<&UserRow, ApiError> {
        match &self.user {
            Some((u, Via::Session)) => Ok(u),
            Some((_, Via::Token(_))) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "missing_scope",
                "this needs the account's session (log in on the web), not an API token",
            )),
            None => Err(not_logged_in()),
        }
    }

    /// The account, proved by the session or by a token with `scope`.
    pub fn require_scope(&self, scope: &str) -> Result<&UserRow, ApiError> {
        match &self.user {
            Some((u, Via::Session)) => Ok(u),
            Some((u, Via::Token(scopes))) if scopes.iter().any(|s| s == scope) => Ok(u),
            Some(_) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "missing_scope",
                format!("this API token lacks the scope '{scope}'"),
            )),
            None => Err(not_logged_in()),
        }
    }

    /// The account's id, if any.
    pub fn user_id(&self) -> Option<i64> {
        self.user.as_ref().map(|(u, _)| u.id)
    }
}

/// `401 not_logged_in`.
pub fn not_logged_in() -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "not_logged_in", "log in first")
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, Self::Rejection> {
        if let Some(secret) = bearer(&parts.headers) {
            let answer = app.store.accounts(AccountQuery::Token(secret_hash(&secret))).await?;
            let bad =
                || ApiError::new(StatusCode::UNAUTHORIZED, "bad_api_token", "this API token is unknown or revoked");
            let AccountAnswer::Token(Some((user, token))) = answer else { return Err(bad()) };
            if token.revoked_at_ms.is_some() || user.closed_at_ms.is_some() {
                return Err(bad());
            }
            let scopes = token.scopes.split_whitespace().map(str::to_string).collect();
            return Ok(Viewer { user: Some((user, Via::Token(scopes))) });
        }
        let Some(id) = session_id(&parts.headers) else { return Ok(Viewer { user: None }) };
        let answer =
            app.store.accounts(AccountQuery::Session { id_hash: secret_hash(&id), now_ms: app.time.now_ms() }).await?;
        let AccountAnswer::User(Some(user)) = answer else { return Ok(Viewer { user: None }) };
        let changes = !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
        if changes && !same_origin(&parts.headers) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "csrf",
                "a request with the session cookie must come from this site (Origin / Sec-Fetch-Site)",
            ));
        }
        Ok(Viewer { user: Some((user, Via::Session)) })
    }
}

/// The public form of a token (never its secret).
pub fn token_json(t: &TokenRow) -> serde_json::Value {
    serde_json::json!({
        "id": t.id,
        "description": t.description,
        "scopes": t.scopes.split_whitespace().collect::<Vec<_>>(),
        "created_at_ms": t.created_at_ms,
        "revoked": t.revoked_at_ms.is_some(),
    })
}

/// The account as its owner sees it.
pub fn me_json(u: &UserRow) -> serde_json::Value {
    serde_json::json!({ "id": u.id, "username": u.name, "kind": u.kind, "created_at_ms": u.created_at_ms })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert!(check_username("Ann").is_ok());
        assert!(check_username("a_b-9").is_ok());
        assert_eq!(check_username("a").unwrap_err().code, "bad_username");
        assert_eq!(check_username("x".repeat(21).as_str()).unwrap_err().code, "bad_username");
        assert!(check_username("ann marie").is_err());
        assert!(check_username("_ann").is_err());
        assert!(check_username("Admin").is_err());
        assert!(check_username("tabula-expert").is_err());
        assert!(check_username("Closed-3").is_err());
        assert!(check_username("änne").is_err());
    }

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "example.org:8080".parse().unwrap());
        assert!(!same_origin(&h), "no Origin, no Sec-Fetch-Site");
        h.insert(header::ORIGIN, "http://example.org:8080".parse().unwrap());
        assert!(same_origin(&h));
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(!same_origin(&h));
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(!same_origin(&h));
        h.insert("sec-fetch-site", "same-origin".parse().unwrap());
        assert!(same_origin(&h));
    }

    #[test]
    fn cookies_and_hashes() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, "a=1; tabula_session=XYZ; b=2".parse().unwrap());
        assert_eq!(session_id(&h).as_deref(), Some("XYZ"));
        assert_eq!(secret_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let c = session_cookie(Some("ID"), true);
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.ends_with("; Secure"), "{c}");
    }
}
