//! The browser front end, embedded from `web/` at build time so the binary
//! needs no files on disk. Unknown non-API paths get `index.html`, so the
//! front end's own routes (`/game/{id}`) work on reload.

use crate::error::ApiError;
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../../web/"]
struct Assets;

fn asset(path: &str) -> Option<Response> {
    let file = Assets::get(path)?;
    let mime = file.metadata.mimetype().to_string();
    Some(
        ([(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, "no-cache".to_string())], file.data.into_owned())
            .into_response(),
    )
}

pub async fn fallback(method: Method, uri: Uri) -> Response {
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
        if let Some(r) = asset(rel) {
            return r;
        }
        // A missing script or picture is a 404, not the page.
        let last = rel.rsplit('/').next().unwrap_or("");
        if last.contains('.') {
            return (StatusCode::NOT_FOUND, format!("no file {path}")).into_response();
        }
    }
    asset("index.html").unwrap_or_else(|| {
        Html("<!doctype html><title>Tabula</title><p>The Tabula server is running, but this build has no web front end (web/index.html). The API is at <a href=\"/api/openapi.json\">/api/openapi.json</a>.</p>").into_response()
    })
}
