//! The browser front end, embedded from `web/` at build time so the binary
//! needs no files on disk. Unknown non-API paths get `index.html`, so the
//! front end's own routes (`/game/{id}`) work on reload.
//!
//! Every file has a strong `ETag` (from its SHA-256), and a request whose
//! `If-None-Match` matches gets `304 Not Modified`. Files are served with
//! `Cache-Control: no-cache` (kept, but checked on each use), except when
//! asked for with `?v=<etag>` matching the current file: then they are
//! `immutable` for a year, so the front end can fingerprint its URLs.

use crate::error::ApiError;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../../web/"]
struct Assets;

/// The ETag of an embedded file: the first 16 bytes of its SHA-256, in hex.
fn etag_of(file: &rust_embed::EmbeddedFile) -> String {
    file.metadata.sha256_hash()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The ETag of the embedded file at `path`, for fingerprinted URLs.
pub fn asset_version(path: &str) -> Option<String> {
    Assets::get(path).map(|f| etag_of(&f))
}

fn asset(path: &str, query: Option<&str>, headers: &HeaderMap) -> Option<Response> {
    let file = Assets::get(path)?;
    let tag = etag_of(&file);
    let quoted = format!("\"{tag}\"");
    let fingerprinted =
        query.into_iter().flat_map(|q| q.split('&')).any(|kv| kv.strip_prefix("v=").is_some_and(|v| v == tag));
    let cache = if fingerprinted { "public, max-age=31536000, immutable" } else { "no-cache" };
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim().trim_start_matches("W/") == quoted || t.trim() == "*"));
    let common = [
        (header::ETAG, HeaderValue::from_str(&quoted).ok()?),
        (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
    ];
    if matches {
        return Some((StatusCode::NOT_MODIFIED, common).into_response());
    }
    let mime = HeaderValue::from_str(file.metadata.mimetype()).ok()?;
    Some((common, [(header::CONTENT_TYPE, mime)], file.data.into_owned()).into_response())
}

/// Everything outside the API routes: the embedded files.
pub async fn fallback(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") {
        return ApiError::not_found(format!("no API path {path} (see /api/openapi.json)")).into_response();
    }
    if method != Method::GET && method != Method::HEAD {
        return ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "pages are read with GET")
            .into_response();
    }
    let rel = path.trim_start_matches('/');
    if !rel.is_empty() && !rel.split('/').any(|s| s == "..") {
        if let Some(r) = asset(rel, uri.query(), &headers) {
            return r;
        }
        // A missing script or picture is a 404, not the page.
        let last = rel.rsplit('/').next().unwrap_or("");
        if last.contains('.') {
            return ApiError::not_found(format!("no file {path}")).into_response();
        }
    }
    asset("index.html", None, &headers).unwrap_or_else(|| {
        Html("<!doctype html><title>Tabula</title><p>The Tabula server is running, but this build has no web front end (web/index.html). The API is at <a href=\"/api/openapi.json\">/api/openapi.json</a>.</p>").into_response()
    })
}
