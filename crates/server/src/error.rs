//! Every error the API reports: a status, a stable code and a message a
//! person can read, always sent as a JSON object.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tabula_core::matches::MatchError;
use tabula_core::TabulaError;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into() }
    }
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    pub fn bad_token() -> Self {
        Self::new(StatusCode::FORBIDDEN, "bad_token", "this seat token does not hold a seat in this game")
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The `error` object inside every error message.
    pub fn body(&self) -> serde_json::Value {
        json!({ "code": self.code, "message": self.message })
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "v": 1, "error": self.body() }))).into_response()
    }
}

impl From<TabulaError> for ApiError {
    fn from(e: TabulaError) -> Self {
        let status = match &e {
            TabulaError::Move(m) if m.kind == tabula_core::MoveErrorKind::GameOver => StatusCode::CONFLICT,
            TabulaError::Move(_) => StatusCode::UNPROCESSABLE_ENTITY,
            TabulaError::Record(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.code(), e.to_string())
    }
}

impl From<MatchError> for ApiError {
    fn from(e: MatchError) -> Self {
        match &e {
            MatchError::Move(m) => ApiError::from(TabulaError::Move(m.clone())),
            MatchError::Finished(_) => ApiError::conflict("game_over", e.to_string()),
            MatchError::TimeUp(_) => ApiError::conflict("time_up", e.to_string()),
        }
    }
}
