//! Every error the API reports: a status, a stable code and a message a
//! person can read, always sent as a JSON object (docs/api.md lists the
//! codes).

use crate::room::RoomError;
use crate::store::StoreError;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tabula_core::{MoveErrorKind, TabulaError};

/// An error answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable, machine-readable code.
    pub code: &'static str,
    /// For people.
    pub message: String,
    /// Seconds to wait before trying again (429 and 503).
    pub retry_after_secs: Option<u64>,
    /// For a refused move of a list: its number in the list, from 1.
    pub ply: Option<usize>,
}

impl ApiError {
    /// Any error.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: tabula_core::error::shorten_quotes(message.into()),
            retry_after_secs: None,
            ply: None,
        }
    }
    /// 400 with this code.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    /// 500 `internal`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
    /// 429 `rate_limited`, to try again after `secs`.
    pub fn rate_limited(what: &str, secs: u64) -> Self {
        let secs = secs.max(1);
        ApiError {
            retry_after_secs: Some(secs),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("too many {what} from your address; try again in {secs} s"),
            )
        }
    }

    /// The `error` object inside every error message.
    pub fn body(&self) -> serde_json::Value {
        let mut body = json!({ "code": self.code, "message": self.message });
        if let Some(ply) = self.ply {
            body["ply"] = json!(ply);
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(json!({ "v": 1, "error": self.body() }))).into_response();
        if let Some(secs) = self.retry_after_secs {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

impl From<TabulaError> for ApiError {
    fn from(e: TabulaError) -> Self {
        let status = match &e {
            TabulaError::Move(m) if m.kind == MoveErrorKind::GameOver => StatusCode::CONFLICT,
            TabulaError::Move(_) => StatusCode::UNPROCESSABLE_ENTITY,
            TabulaError::Record(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.code(), e.to_string())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        if e.is_unavailable() {
            // Nothing was written: the client may try again once the
            // database is back.
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "database_unavailable",
                format!("the database cannot be reached, so nothing was saved; try again shortly ({e})"),
            );
        }
        ApiError::internal(e.to_string())
    }
}

impl From<RoomError> for ApiError {
    fn from(e: RoomError) -> Self {
        let message = e.to_string();
        let conflict = |code| ApiError::new(StatusCode::CONFLICT, code, message.clone());
        match e {
            RoomError::NotFound(_) => ApiError::not_found(message),
            RoomError::BadToken => ApiError::new(StatusCode::FORBIDDEN, "bad_token", message),
            RoomError::BadInvite => ApiError::new(StatusCode::FORBIDDEN, "bad_invite", message),
            RoomError::SeatTaken => conflict("seat_taken"),
            RoomError::NotYourTurn { .. } => conflict("not_your_turn"),
            RoomError::StalePly { .. } => conflict("stale_ply"),
            RoomError::WaitingForOpponent => conflict("waiting_for_opponent"),
            RoomError::GameOver { .. } => conflict("game_over"),
            RoomError::TimeUp { .. } => conflict("time_up"),
            RoomError::NoDrawOffer => conflict("no_draw_offer"),
            RoomError::NotFinished => conflict("not_finished"),
            RoomError::CannotAbort => conflict("cannot_abort"),
            RoomError::TournamentGame(_) => conflict("tournament_game"),
            RoomError::LoginRequired => ApiError::new(StatusCode::UNAUTHORIZED, "not_logged_in", message),
            RoomError::OwnGame => conflict("own_game"),
            RoomError::OutOfRange { .. } => ApiError::new(StatusCode::FORBIDDEN, "out_of_range", message),
            RoomError::CannotClaim(_) => conflict("cannot_claim"),
            RoomError::Move(m) => ApiError::from(TabulaError::Move(m)),
            RoomError::Game(g) => ApiError::from(g),
            RoomError::Store(e) if e.is_unavailable() => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "database_unavailable", message)
            }
            RoomError::Store(_) => ApiError::internal(message),
            RoomError::Damaged { .. } => ApiError::internal(message),
            RoomError::Remote(e) => e,
            // Never left to reach a client: commands are forwarded, reads
            // served from the database.
            RoomError::Elsewhere { .. } => ApiError {
                retry_after_secs: Some(1),
                ..ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "game_moving",
                    "the game is moving to another node; try again in a moment",
                )
            },
        }
    }
}
