//! A test game: Cold War under another id, whose `stubborn` AI level thinks
//! until it is told to stop, or until the test releases one move. It shows
//! whether the server stops its AIs and queues them fairly, without relying
//! on how fast a real engine is.

use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula_core::dynamic::DynReplayed;
use tabula_core::record::GameLog;
use tabula_core::{
    DynAgent, DynGame, DynState, LevelSpec, OptionSpec, RandomPlayout, Registry, TabulaError, ThinkContext,
};

/// Counters the test reads and moves.
#[derive(Default)]
pub struct Control {
    /// Moves the stubborn agents may play now.
    pub releases: AtomicUsize,
    /// Thoughts that ended because the server said stop.
    pub stopped: AtomicUsize,
    /// Thoughts under way.
    pub thinking: AtomicUsize,
}

pub struct Stubborn {
    inner: &'static dyn DynGame,
    pub control: Arc<Control>,
}

struct StubbornAgent {
    control: Arc<Control>,
}

impl DynAgent for StubbornAgent {
    fn choose(&mut self, state: &dyn DynState, ctx: &ThinkContext) -> Result<String, TabulaError> {
        self.control.thinking.fetch_add(1, Ordering::SeqCst);
        let began = Instant::now();
        let outcome = loop {
            if ctx.stopped() {
                self.control.stopped.fetch_add(1, Ordering::SeqCst);
                break "stopped";
            }
            let released =
                self.control.releases.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok();
            if released || began.elapsed() > Duration::from_secs(60) {
                break "released";
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        self.control.thinking.fetch_sub(1, Ordering::SeqCst);
        let _ = outcome;
        Ok(state.legal_moves()[0].clone())
    }
    fn describe(&self) -> String {
        "stubborn".into()
    }
}

impl DynGame for Stubborn {
    fn id(&self) -> &'static str {
        "stubborn"
    }
    fn name(&self) -> &'static str {
        "Stubborn Cold War"
    }
    fn description(&self) -> &'static str {
        "Cold War with an AI that thinks until stopped"
    }
    fn players(&self) -> [&'static str; 2] {
        self.inner.players()
    }
    fn option_specs(&self) -> &'static [OptionSpec] {
        self.inner.option_specs()
    }
    fn normalize_options(&self, options: &[(String, String)]) -> Result<Vec<(String, String)>, TabulaError> {
        self.inner.normalize_options(options)
    }
    fn new_state(&self, options: &[(String, String)]) -> Result<Box<dyn DynState>, TabulaError> {
        self.inner.new_state(options)
    }
    fn from_position(&self, options: &[(String, String)], position: &str) -> Result<Box<dyn DynState>, TabulaError> {
        self.inner.from_position(options, position)
    }
    fn levels(&self) -> Vec<LevelSpec> {
        let mut levels = self.inner.levels();
        levels.push(LevelSpec::new("stubborn", "thinks until stopped or released"));
        levels
    }
    fn default_level(&self) -> &'static str {
        "stubborn"
    }
    fn level_forms(&self) -> &'static [&'static str] {
        &[]
    }
    fn new_agent(&self, level: &str, seed: u64) -> Result<Box<dyn DynAgent>, TabulaError> {
        if level == "stubborn" {
            return Ok(Box::new(StubbornAgent { control: self.control.clone() }));
        }
        self.inner.new_agent(level, seed)
    }
    fn record_format(&self) -> &'static str {
        self.inner.record_format()
    }
    fn export(&self, log: &GameLog) -> Result<String, TabulaError> {
        self.inner.export(log)
    }
    fn import(&self, text: &str) -> Result<Vec<DynReplayed>, TabulaError> {
        self.inner.import(text)
    }
    fn replay(
        &self,
        options: &[(String, String)],
        start: Option<&str>,
        moves: &[&str],
    ) -> Result<Box<dyn DynState>, TabulaError> {
        self.inner.replay(options, start, moves)
    }
    fn random_playout(&self, options: &[(String, String)], seed: u64) -> Result<RandomPlayout, TabulaError> {
        self.inner.random_playout(options, seed)
    }
    fn describe(&self) -> Value {
        let mut v = self.inner.describe();
        v["id"] = "stubborn".into();
        v["levels"] = serde_json::to_value(self.levels()).unwrap();
        v
    }
}

/// A registry with the stubborn game and every real one, made for one test.
pub fn registry() -> (&'static Registry, Arc<Control>) {
    let control = Arc::new(Control::default());
    let coldwar = tabula_games::REGISTRY.get("coldwar").unwrap();
    let stubborn: &'static Stubborn = Box::leak(Box::new(Stubborn { inner: coldwar, control: control.clone() }));
    let mut games: Vec<&'static dyn DynGame> = tabula_games::REGISTRY.games().to_vec();
    games.push(stubborn);
    let games: &'static [&'static dyn DynGame] = Box::leak(games.into_boxed_slice());
    (Box::leak(Box::new(Registry::new(games))), control)
}
