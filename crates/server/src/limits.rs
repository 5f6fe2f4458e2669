//! Rate limits per client address (governor's GCRA), on moves, game
//! creation and WebSocket connections. They count on the server's
//! [`Time`], so tests drive them without sleeping.

use crate::config::{Rate, RateLimits};
use crate::error::ApiError;
use crate::time::Time;
use governor::clock::Clock as _;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

type Keyed<K> = RateLimiter<K, DefaultKeyedStateStore<K>, Time, NoOpMiddleware<Duration>>;

/// One limit, or none, keyed by client address (or by any other key).
struct Limit<K: std::hash::Hash + Eq + Clone = IpAddr> {
    limiter: Option<Keyed<K>>,
    time: Time,
    what: &'static str,
}

impl<K: std::hash::Hash + Eq + Clone> Limit<K> {
    fn new(rate: Rate, time: &Time, what: &'static str) -> Limit<K> {
        let limiter = NonZeroU32::new(rate.per_minute).map(|per_minute| {
            let period = Duration::from_micros(60_000_000 / u64::from(per_minute.get()));
            let burst = NonZeroU32::new(rate.burst).unwrap_or(NonZeroU32::MIN);
            let quota = Quota::with_period(period).unwrap_or_else(|| Quota::per_minute(per_minute)).allow_burst(burst);
            RateLimiter::dashmap_with_clock(quota, time.clone())
        });
        Limit { limiter, time: time.clone(), what }
    }

    fn check(&self, client: K) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else { return Ok(()) };
        limiter.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.time.now());
            ApiError::rate_limited(self.what, wait.as_millis().div_ceil(1000) as u64)
        })
    }

    fn forget_quiet(&self) {
        if let Some(l) = &self.limiter {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

/// The server's rate limits.
pub(crate) struct Limits {
    moves: Limit,
    creates: Limit,
    sockets: Limit,
    connections: Limit,
    logins: Limit,
    logins_per_account: Limit<String>,
    signups: Limit,
    analyses: Limit,
}

impl Limits {
    pub fn new(rates: &RateLimits, time: &Time) -> Limits {
        Limits {
            moves: Limit::new(rates.moves, time, "moves"),
            creates: Limit::new(rates.creates, time, "new games"),
            sockets: Limit::new(rates.sockets, time, "WebSocket connections"),
            connections: Limit::new(rates.connections, time, "connections"),
            logins: Limit::new(rates.logins, time, "login attempts"),
            logins_per_account: Limit::<String>::new(rates.logins_per_account, time, "login attempts on this account"),
            signups: Limit::new(rates.signups, time, "new accounts"),
            analyses: Limit::new(rates.analyses, time, "analyses"),
        }
    }

    /// A move (over HTTP or a WebSocket).
    pub fn check_move(&self, client: IpAddr) -> Result<(), ApiError> {
        self.moves.check(client)
    }

    /// A new game.
    pub fn check_create(&self, client: IpAddr) -> Result<(), ApiError> {
        self.creates.check(client)
    }

    /// A new WebSocket.
    pub fn check_socket(&self, client: IpAddr) -> Result<(), ApiError> {
        self.sockets.check(client)
    }

    /// A new connection.
    pub fn check_connection(&self, client: IpAddr) -> Result<(), ApiError> {
        self.connections.check(client)
    }

    /// A login attempt from `client` on the account `name` (any case).
    pub fn check_login(&self, client: IpAddr, name: &str) -> Result<(), ApiError> {
        self.logins.check(client)?;
        self.logins_per_account.check(name.to_lowercase())
    }

    /// A new account.
    pub fn check_signup(&self, client: IpAddr) -> Result<(), ApiError> {
        self.signups.check(client)
    }

    /// A position to analyse.
    pub fn check_analysis(&self, client: IpAddr) -> Result<(), ApiError> {
        self.analyses.check(client)
    }

    /// Drop the state of clients whose buckets are full again.
    pub fn forget_quiet_clients(&self) {
        self.moves.forget_quiet();
        self.creates.forget_quiet();
        self.sockets.forget_quiet();
        self.connections.forget_quiet();
        self.logins.forget_quiet();
        self.logins_per_account.forget_quiet();
        self.signups.forget_quiet();
        self.analyses.forget_quiet();
    }
}
