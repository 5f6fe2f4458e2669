//! AI seats: at most `max_thinking` engines think at once, on the blocking
//! thread pool (never on the async threads, so a slow engine or the first
//! build of a solution table never stalls the server). The others wait in a
//! first-come queue; while one waits its side's clock runs as usual, and it
//! is given the time left when its turn to think comes. Each thought has
//! its own stop flag, set the moment its game ends or moves on and at
//! shutdown, so an engine never thinks for a game that no longer needs it.

use crate::app::{App, RoomHandle};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tabula_core::{Player, ThinkContext, TimeControl};

/// A request for a move.
pub(crate) struct Job {
    pub handle: Arc<RoomHandle>,
    pub player: Player,
    pub ply: usize,
    pub stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct Pool {
    running: Vec<Arc<AtomicBool>>,
    queue: VecDeque<Job>,
    closed: bool,
}

/// The thinking slots and the queue.
pub(crate) struct AiPool {
    max: usize,
    pool: Mutex<Pool>,
}

impl AiPool {
    pub fn new(max: usize) -> AiPool {
        AiPool { max: max.max(1), pool: Mutex::new(Pool::default()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// (thinking, queued).
    pub fn counts(&self) -> (usize, usize) {
        let pool = self.lock();
        (pool.running.len(), pool.queue.iter().filter(|j| !j.stop.load(Ordering::Relaxed)).count())
    }

    /// Think now if a slot is free, else queue.
    pub fn submit(&self, app: Arc<App>, job: Job) {
        let mut pool = self.lock();
        if pool.closed {
            job.stop.store(true, Ordering::Relaxed);
            return;
        }
        if pool.running.len() < self.max {
            pool.running.push(job.stop.clone());
            drop(pool);
            tokio::spawn(think(app, job));
        } else {
            pool.queue.push_back(job);
        }
    }

    /// A thought ended: give its slot to the next live job in the queue.
    fn finished(&self, app: &Arc<App>, stop: &Arc<AtomicBool>) {
        let mut pool = self.lock();
        pool.running.retain(|s| !Arc::ptr_eq(s, stop));
        while pool.running.len() < self.max {
            let Some(next) = pool.queue.pop_front() else { break };
            if next.stop.load(Ordering::Relaxed) || pool.closed {
                continue; // its game ended or moved on while it waited
            }
            pool.running.push(next.stop.clone());
            tokio::spawn(think(app.clone(), next));
        }
    }

    /// Shutdown: stop every thought and start no more.
    pub fn close(&self) {
        let mut pool = self.lock();
        pool.closed = true;
        for s in &pool.running {
            s.store(true, Ordering::Relaxed);
        }
        for j in pool.queue.drain(..) {
            j.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// Think for one job and play the move if its game still wants it.
async fn think(app: Arc<App>, job: Job) {
    let stop = job.stop.clone();
    think_inner(&app, job).await;
    app.ai.finished(&app, &stop);
}

async fn think_inner(app: &Arc<App>, job: Job) {
    let h = job.handle.clone();
    let is_ours = |slot: &crate::app::Slot| slot.thinking.as_ref().is_some_and(|t| Arc::ptr_eq(&t.stop, &job.stop));
    // Read what the engine needs now, so the time it waited is accounted for.
    let (state, ctx, agent, game, level, seed) = {
        let mut slot = h.slot_lock().await;
        if !is_ours(&slot) || job.stop.load(Ordering::Relaxed) {
            return;
        }
        let room = &slot.room;
        let now = app.time.now_ms();
        let ctx = ThinkContext {
            remaining: room.m.clock.remaining(job.player, now).map(Duration::from_millis),
            increment: match room.time_control {
                TimeControl::Fischer { increment_ms, .. } => Some(Duration::from_millis(increment_ms)),
                _ => None,
            },
            deadline: room.m.clock.deadline().map(|d| Instant::now() + Duration::from_millis(d.saturating_sub(now))),
            stop: Some(job.stop.clone()),
            // One thread per AI seat: the AI slots already spread the seats
            // of many games over the cores.
            threads: 1,
        };
        let idx = job.player.index();
        if let Some(level) = room.seats[idx].unlisted_level(room.game) {
            // Rooms refuse such levels; never start an unbounded engine anyway.
            tracing::error!(game = %h.id, level, "an AI seat of an unlisted level does not think");
            return;
        }
        let level = room.seats[idx].level.clone().unwrap_or_else(|| room.game.default_level().to_string());
        let seed = room.seed.wrapping_add((idx as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let state = room.m.state.clone_box();
        let game = room.game;
        (state, ctx, slot.agents[idx].take(), game, level, seed)
    };
    // Making the agent may be slow too (a solution table built on first use).
    let thought = tokio::task::spawn_blocking(move || {
        let mut agent = match agent {
            Some(a) => a,
            None => match game.new_agent(&level, seed) {
                Ok(a) => a,
                Err(e) => return (None, Err(e)),
            },
        };
        let choice = agent.choose(state.as_ref(), &ctx);
        (Some(agent), choice)
    })
    .await;
    let mut slot = h.slot_lock().await;
    let (agent, choice) = match thought {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(game = %h.id, error = %e, "the AI task failed");
            if is_ours(&slot) {
                slot.thinking = None;
            }
            return;
        }
    };
    if let Some(a) = agent {
        slot.agents[job.player.index()] = Some(a);
    }
    if !is_ours(&slot) {
        return; // the game ended or moved on; the thought is void
    }
    slot.thinking = None;
    if job.stop.load(Ordering::Relaxed) {
        return;
    }
    match choice {
        Ok(text) => app.ai_moved(&h, &mut slot, job.player, job.ply, text).await,
        Err(e) => tracing::error!(game = %h.id, error = %e, "the AI found no move"),
    }
}
