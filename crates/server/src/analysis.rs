//! `POST /api/analysis`: the analysis board's engine. It replays a position
//! sent by the client (a start position in the game's notation and moves
//! from it) and asks the game's engine about it (see
//! `tabula_core::analysis`), with the thinking time capped by the server.
//!
//! Analyses never run in a game's room and never take an AI seat's thread:
//! they have slots of their own (half the cores by default) and a short
//! line; past it the answer is `503 busy` at once, so a flood of analyses
//! costs the games nothing. An analysis whose client hangs up stops at
//! once.

use crate::config::AnalysisLimits;
use crate::error::ApiError;
use crate::http::{option_texts, AppState, Client, JsonBody};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula_core::{DynState, TabulaError, ThinkContext};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The request: a game, its options, where to start and what was played.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnalysisBody {
    game: String,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    /// A start position in the game's notation; the standard start if absent.
    #[serde(default)]
    position: Option<String>,
    /// Moves from the start: a list, or one text separated by spaces.
    #[serde(default)]
    moves: Option<Value>,
    /// Thinking time in milliseconds.
    #[serde(default)]
    budget_ms: Option<u64>,
}

/// The analyses' own slots and line.
pub(crate) struct AnalysisSlots {
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
}

impl AnalysisSlots {
    pub(crate) fn new(limits: &AnalysisLimits) -> AnalysisSlots {
        AnalysisSlots {
            running: Arc::new(Semaphore::new(limits.slots())),
            waiting: AtomicUsize::new(0),
            max_waiting: limits.max_waiting,
        }
    }

    /// A slot to think in: at once if one is free, else after a wait in
    /// line; `503 busy` when the line is full.
    async fn admit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        if let Ok(permit) = self.running.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(ApiError {
                retry_after_secs: Some(1),
                ..ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "busy",
                    "the analysis engine is busy with other positions; try again in a moment",
                )
            });
        }
        // Leaves the line however the wait ends (a client that hangs up
        // drops this future half-way).
        struct InLine<'a>(&'a AtomicUsize);
        impl Drop for InLine<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let _in_line = InLine(&self.waiting);
        self.running.clone().acquire_owned().await.map_err(|_| ApiError::internal("the analysis slots are closed"))
    }
}

/// Sets the stop flag when the request is dropped (the client hung up), so
/// the engine stops thinking for nobody.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The moves of a request, as texts.
fn move_texts(moves: Option<Value>) -> Result<Vec<String>, ApiError> {
    let bad = || {
        ApiError::bad_request(
            "bad_request",
            "moves must be a list of moves (texts) or one text of moves separated by spaces",
        )
    };
    match moves {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(tabula_core::record::split_moves(&s).into_iter().map(String::from).collect()),
        Some(Value::Array(items)) => {
            items.into_iter().map(|v| if let Value::String(s) = v { Ok(s) } else { Err(bad()) }).collect()
        }
        Some(_) => Err(bad()),
    }
}

/// The position the request describes, every move checked. A refused move
/// is `422` with its number in the list (`ply`, from 1).
fn replay(
    game: &dyn tabula_core::DynGame,
    options: &[(String, String)],
    position: Option<&str>,
    moves: &[String],
) -> Result<Box<dyn DynState>, ApiError> {
    let mut state = match position.map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => game.from_position(options, p)?,
        None => game.new_state(options)?,
    };
    for (i, text) in moves.iter().enumerate() {
        state.play(text).map_err(|e| {
            let code = ApiError::from(TabulaError::Move(e.clone())).code;
            ApiError {
                ply: Some(i + 1),
                ..ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, format!("move {}: {e}", i + 1))
            }
        })?;
    }
    Ok(state)
}

/// `POST /api/analysis`.
pub(crate) async fn analyse(
    State(app): State<AppState>,
    Client(client): Client,
    JsonBody(req): JsonBody<AnalysisBody>,
) -> Result<Json<Value>, ApiError> {
    app.limits.check_analysis(client)?;
    let game = app.registry.get(&req.game)?;
    let options = option_texts(req.options)?;
    let moves = move_texts(req.moves)?;
    let limits = &app.cfg.analysis;
    let budget = Duration::from_millis(req.budget_ms.unwrap_or(limits.default_ms).clamp(1, limits.max_ms));
    let state = replay(game, &options, req.position.as_deref(), &moves)?;

    let permit = app.analyses.admit().await?;
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(stop.clone());
    let thought = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let ctx = ThinkContext { deadline: Some(Instant::now() + budget), stop: Some(stop), ..ThinkContext::default() };
        let analysis = state.analyse(&ctx);
        (state, analysis)
    });
    let (state, analysis) = thought.await.map_err(|e| ApiError::internal(format!("the analysis failed: {e}")))?;
    let analysis = analysis?;
    Ok(Json(json!({
        "v": 1,
        "game": game.id(),
        "players": game.players(),
        "state": state.state_json(),
        "view": state.view(),
        "analysis": analysis,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_line_is_refused_at_once_and_a_freed_slot_admits_the_next() {
        let slots =
            Arc::new(AnalysisSlots::new(&AnalysisLimits { max_running: 1, max_waiting: 1, ..Default::default() }));
        let first = slots.admit().await.expect("a free slot");
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move { slots.admit().await.map(|_| ()) })
        };
        while slots.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        let refused = slots.admit().await.expect_err("the line is full");
        assert_eq!((refused.status, refused.code), (StatusCode::SERVICE_UNAVAILABLE, "busy"));
        drop(first);
        waiter.await.unwrap().expect("the one in line gets the slot");
        assert_eq!(slots.waiting.load(Ordering::Acquire), 0, "nobody is left in line");
    }

    #[test]
    fn moves_as_a_list_or_a_text() {
        assert_eq!(move_texts(Some(json!("b2 a2, b2-b3"))).unwrap(), ["b2", "a2", "b2-b3"]);
        assert_eq!(move_texts(Some(json!(["e4", "e5"]))).unwrap(), ["e4", "e5"]);
        assert!(move_texts(None).unwrap().is_empty());
        assert_eq!(move_texts(Some(json!([1, 2]))).unwrap_err().code, "bad_request");
    }
}
