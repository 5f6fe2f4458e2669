//! Several `tabula serve` nodes sharing one PostgreSQL database and one
//! NATS server (`tabula serve --db postgres://… --nats nats://…`).
//!
//! - **Ownership.** Each game in memory is leased to one node in PostgreSQL
//!   (`game_leases`), with an epoch that grows at every change of owner.
//!   Every commit of the owner starts with a fence ([`Write::Fence`]) that
//!   fails unless the node still holds the lease at its epoch, so a node
//!   that lost a game can never write it again.
//! - **Forwarding.** A command reaching a node that does not own the game
//!   is forwarded to the owner by NATS request/reply, rather than moving
//!   the game: the owner keeps the clock, the flag timer and the AI seats,
//!   and a move costs one NATS round trip instead of a reload and a replay
//!   of the whole game on each node a load balancer picks. When the owner
//!   cannot be reached (it died, or NATS is down), the node takes the game
//!   over instead: once the lease expired, or at once when NATS is down
//!   (the fence makes taking it from a live owner safe).
//! - **Fan-out.** The owner publishes every message of a game on
//!   `PREFIX.game.ID`; a node with watchers of a game it does not own
//!   relays that subject to them, and reloads the game from the database
//!   when NATS comes back, so they catch up on what they missed.
//! - **Failover.** Each node says it is alive (one row of its own) every
//!   third of the lease time; a node that stops loses its games when that
//!   lapses, and every other node looks each second for such games that
//!   need a server (clocks, timers, AI seats) and takes them over, not
//!   charging the gap to any clock.

use crate::error::ApiError;
use crate::room::{Actor, Command, Outcome, RoomError};
use axum::extract::ws::Utf8Bytes;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tabula_core::Player;
use tokio::sync::mpsc;

/// How a node joins a cluster.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The NATS server, e.g. `nats://127.0.0.1:4222`.
    pub nats_url: String,
    /// The cluster's name: the first part of every NATS subject, so that
    /// clusters can share one NATS server.
    pub name: String,
    /// This node's id, unique in the cluster (a name given, made unique
    /// per process by a random suffix).
    pub node: String,
    /// How long a lease lasts without renewal: a dead node's games are
    /// taken over within about this long.
    pub lease_ms: u64,
}

impl ClusterConfig {
    /// A node of cluster `name` on the NATS server `nats_url`, named
    /// `node` (a random suffix is added), with 3-second leases.
    ///
    /// ```
    /// use tabula_server::cluster::ClusterConfig;
    /// let c = ClusterConfig::new("nats://127.0.0.1:4222", "tabula", "eu-1");
    /// assert!(c.node.starts_with("eu-1-"));
    /// assert_eq!(c.lease_ms, 3_000);
    /// ```
    pub fn new(nats_url: &str, name: &str, node: &str) -> ClusterConfig {
        ClusterConfig {
            nats_url: nats_url.to_string(),
            name: name.to_string(),
            node: format!("{node}-{}", crate::room::random_string(6)),
            lease_ms: 3_000,
        }
    }
}

/// Why a cluster node could not start.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The NATS URL is not one.
    #[error("cannot use the NATS server {url}: {reason}")]
    Nats {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// A name that cannot be part of a NATS subject.
    #[error("the {what} '{name}' may hold only letters, digits, '-' and '_'")]
    BadName {
        /// Which name.
        what: &'static str,
        /// The name.
        name: String,
    },
}

/// A node's link to the rest of the cluster.
pub(crate) struct Cluster {
    /// This node's id.
    pub node: String,
    /// Lease length.
    pub lease_ms: u64,
    prefix: String,
    client: async_nats::Client,
    /// Messages to publish; a full queue (NATS down for long) drops them:
    /// watchers catch up from the database when NATS is back.
    outbox: mpsc::Sender<(String, Utf8Bytes)>,
    /// Counts the connections made to NATS: watchers of games owned
    /// elsewhere catch up when it moves.
    connections: tokio::sync::watch::Receiver<u64>,
    connected: Arc<AtomicBool>,
}

fn check_name(what: &'static str, name: &str) -> Result<(), ClusterError> {
    let ok = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ClusterError::BadName { what, name: name.to_string() })
    }
}

impl Cluster {
    /// Connect to NATS. A NATS server that is down at start is not fatal:
    /// the node serves (moves are durable without NATS) and connects when
    /// it can.
    pub async fn connect(cfg: &ClusterConfig) -> Result<Arc<Cluster>, ClusterError> {
        check_name("cluster name", &cfg.name)?;
        check_name("node id", &cfg.node)?;
        let connected = Arc::new(AtomicBool::new(false));
        let (made, connections) = tokio::sync::watch::channel(0u64);
        let made = Arc::new(made);
        let (c, r) = (connected.clone(), made.clone());
        let client = async_nats::ConnectOptions::new()
            .name(format!("tabula {}", cfg.node))
            .retry_on_initial_connect()
            .connection_timeout(Duration::from_secs(2))
            .request_timeout(Some(Duration::from_secs(10)))
            .max_reconnects(None)
            .reconnect_delay_callback(|attempt| Duration::from_millis((100 * attempt as u64).min(1_000)))
            .event_callback(move |event| {
                let (c, r) = (c.clone(), r.clone());
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            tracing::info!("connected to NATS");
                            c.store(true, Ordering::SeqCst);
                            r.send_modify(|n| *n += 1);
                        }
                        async_nats::Event::Disconnected => {
                            tracing::warn!("lost NATS: live updates to other nodes pause; moves go on");
                            c.store(false, Ordering::SeqCst);
                        }
                        other => tracing::debug!(event = %other, "NATS"),
                    }
                }
            })
            .connect(cfg.nats_url.as_str())
            .await
            .map_err(|e| ClusterError::Nats { url: cfg.nats_url.clone(), reason: e.to_string() })?;
        // Wait a little for the first connection, so a node that starts
        // beside a running NATS forwards from its first request.
        let mut first = connections.clone();
        let _ = tokio::time::timeout(Duration::from_secs(3), first.wait_for(|n| *n > 0)).await;
        let (outbox, mut queue) = mpsc::channel::<(String, Utf8Bytes)>(16_384);
        let publisher = client.clone();
        let up = connected.clone();
        tokio::spawn(async move {
            while let Some((subject, msg)) = queue.recv().await {
                // While NATS is down, updates are dropped, not queued: sent
                // after the catch-up, they would take watchers back in time.
                if !up.load(Ordering::SeqCst) {
                    continue;
                }
                if let Err(e) = publisher.publish(subject, msg.as_str().as_bytes().to_vec().into()).await {
                    tracing::debug!(error = %e, "a live update was not published");
                }
            }
        });
        Ok(Arc::new(Cluster {
            node: cfg.node.clone(),
            lease_ms: cfg.lease_ms,
            prefix: cfg.name.clone(),
            client,
            outbox,
            connections,
            connected,
        }))
    }

    /// Moves each time the connection to NATS is (re)made.
    pub fn connections(&self) -> tokio::sync::watch::Receiver<u64> {
        self.connections.clone()
    }

    /// Connected to NATS now.
    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }

    fn game_subject(&self, game: &str) -> String {
        format!("{}.game.{game}", self.prefix)
    }

    fn exec_subject(&self, node: &str) -> String {
        format!("{}.node.{node}.exec", self.prefix)
    }

    /// Publish a game's message to the other nodes (never waits). `state`:
    /// the game's `state` message, which watchers joining later are sent
    /// first (an `s` or `e` byte before the message says which).
    pub fn publish(&self, game: &str, msg: &Utf8Bytes, state: bool) {
        let mut payload = String::with_capacity(msg.len() + 1);
        payload.push(if state { 's' } else { 'e' });
        payload.push_str(msg.as_str());
        if self.outbox.try_send((self.game_subject(game), Utf8Bytes::from(payload))).is_err() {
            tracing::debug!(game, "live update queue full; watchers elsewhere catch up later");
        }
    }

    /// A game message from NATS: whether it is a `state` message, and the
    /// message; `None` if it is not one.
    pub fn unwrap_game_message(payload: &[u8]) -> Option<(bool, Utf8Bytes)> {
        let (&kind, rest) = payload.split_first()?;
        let text = std::str::from_utf8(rest).ok()?;
        match kind {
            b's' | b'e' => Some((kind == b's', Utf8Bytes::from(text.to_string()))),
            _ => None,
        }
    }

    /// Subscribe to a game's messages.
    pub async fn subscribe_game(&self, game: &str) -> Option<async_nats::Subscriber> {
        match self.client.subscribe(self.game_subject(game)).await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(game, error = %e, "cannot subscribe to a game's live updates");
                None
            }
        }
    }

    /// The commands other nodes forward to this one.
    pub async fn subscribe_exec(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(self.exec_subject(&self.node)).await.map_err(|e| e.to_string())
    }

    /// Answer a forwarded command.
    pub async fn reply(&self, to: async_nats::Subject, reply: &ExecReply) {
        let payload = serde_json::to_vec(reply).unwrap_or_default();
        if let Err(e) = self.client.publish(to, payload.into()).await {
            tracing::warn!(error = %e, "cannot answer a forwarded command");
        }
    }

    /// Forward `command` on `game` to its owner `node`.
    pub async fn forward(&self, node: &str, game: &str, actor: &Actor, command: &Command) -> Forwarded {
        if !self.is_connected() {
            return Forwarded::Unreachable { owner_gone: false };
        }
        let request = ExecRequest { game: game.to_string(), actor: actor.clone(), command: command.clone() };
        let payload = match serde_json::to_vec(&request) {
            Ok(p) => p,
            Err(e) => return Forwarded::Done(Err(RoomError::Remote(ApiError::internal(e.to_string())))),
        };
        match self.client.request(self.exec_subject(node), payload.into()).await {
            Ok(msg) => match serde_json::from_slice::<ExecReply>(&msg.payload) {
                Ok(ExecReply::Done { outcome, game }) => Forwarded::Done(Ok((outcome.into_outcome(), game))),
                Ok(ExecReply::Refused { status, code, message, ply, retry_after_secs }) => {
                    let mut e = ApiError::new(
                        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                        intern(&code),
                        message,
                    );
                    e.ply = ply;
                    e.retry_after_secs = retry_after_secs;
                    Forwarded::Done(Err(RoomError::Remote(e)))
                }
                Ok(ExecReply::NotOwner) => Forwarded::Moved,
                Err(e) => Forwarded::Done(Err(RoomError::Remote(ApiError::internal(format!(
                    "node {node} answered a forwarded command with something unreadable: {e}"
                ))))),
            },
            Err(e) => match e.kind() {
                async_nats::client::RequestErrorKind::NoResponders => Forwarded::Unreachable { owner_gone: true },
                _ => {
                    tracing::warn!(node, game, error = %e, "the owner of a game did not answer");
                    Forwarded::Unreachable { owner_gone: false }
                }
            },
        }
    }
}

/// An HTTP request forwarded to the leader (see [`Cluster::to_leader`]).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct HttpRequest {
    pub method: String,
    pub uri: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The client's address, which the limits count by.
    pub client: std::net::IpAddr,
}

/// The leader's answer to a forwarded HTTP request.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// How many connections speak for each seat of a game on one node.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Presence {
    pub node: String,
    pub game: String,
    pub sockets: [usize; 2],
}

/// The accounts connected to one node.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Online {
    pub node: String,
    pub users: Vec<i64>,
}

/// An account event, for the event streams on every node.
#[derive(Debug, Serialize, Deserialize)]
struct AccountEvent {
    /// The node it comes from (which told its own streams already).
    from: String,
    user: i64,
    event: Value,
}

impl Cluster {
    fn leader_subject(&self) -> String {
        format!("{}.leader.http", self.prefix)
    }

    fn events_subject(&self) -> String {
        format!("{}.events", self.prefix)
    }

    /// Forward an HTTP request to the cluster's leader, the node that holds
    /// challenges, quick-pairing pools and tournaments. `None` when no
    /// leader answers (NATS down, or a leader being chosen).
    pub async fn to_leader(&self, request: &HttpRequest) -> Option<HttpResponse> {
        if !self.is_connected() {
            return None;
        }
        let payload = serde_json::to_vec(request).ok()?;
        match self.client.request(self.leader_subject(), payload.into()).await {
            Ok(msg) => serde_json::from_slice(&msg.payload).ok(),
            Err(e) => {
                tracing::debug!(error = %e, "the leader did not answer a forwarded request");
                None
            }
        }
    }

    /// The requests other nodes forward to the leader (this node, now).
    pub async fn subscribe_leader(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(self.leader_subject()).await.map_err(|e| e.to_string())
    }

    /// Answer a forwarded HTTP request.
    pub async fn reply_http(&self, to: async_nats::Subject, response: &HttpResponse) {
        let payload = serde_json::to_vec(response).unwrap_or_default();
        if let Err(e) = self.client.publish(to, payload.into()).await {
            tracing::warn!(error = %e, "cannot answer a forwarded request");
        }
    }

    /// Tell the other nodes' event streams of `user` about `event`.
    pub fn publish_event(&self, user: i64, event: &Value) {
        let msg = AccountEvent { from: self.node.clone(), user, event: event.clone() };
        let text = serde_json::to_string(&msg).unwrap_or_default();
        if self.outbox.try_send((self.events_subject(), Utf8Bytes::from(text))).is_err() {
            tracing::debug!("event queue full; an account event was dropped");
        }
    }

    /// Tell the leader that game `game` ended (it may be a tournament's,
    /// taken over by this node from the leader).
    pub fn publish_finished(&self, game: &str) {
        let subject = format!("{}.finished", self.prefix);
        if self.outbox.try_send((subject, Utf8Bytes::from(game.to_string()))).is_err() {
            tracing::debug!(game, "queue full; a game end was not told to the leader");
        }
    }

    /// Game ends told by the nodes (see [`Cluster::publish_finished`]).
    pub async fn subscribe_finished(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(format!("{}.finished", self.prefix)).await.map_err(|e| e.to_string())
    }

    /// Tell the other nodes that tournament `id` changed (their watchers
    /// read it again).
    pub fn publish_tournament(&self, id: &str) {
        let subject = format!("{}.tournament", self.prefix);
        let _ = self.outbox.try_send((subject, Utf8Bytes::from(id.to_string())));
    }

    /// Tournament changes (see [`Cluster::publish_tournament`]).
    pub async fn subscribe_tournaments(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(format!("{}.tournament", self.prefix)).await.map_err(|e| e.to_string())
    }

    /// Tell the owner of `game` how many connections speak for each of its
    /// seats on this node (sent on every change, and again every two
    /// seconds, so a new owner learns them).
    pub fn publish_presence(&self, game: &str, sockets: [usize; 2]) {
        let msg = Presence { node: self.node.clone(), game: game.to_string(), sockets };
        let subject = format!("{}.presence", self.prefix);
        let _ = self.outbox.try_send((subject, Utf8Bytes::from(serde_json::to_string(&msg).unwrap_or_default())));
    }

    /// Seat presence reports of the other nodes.
    pub async fn subscribe_presence(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(format!("{}.presence", self.prefix)).await.map_err(|e| e.to_string())
    }

    /// A presence report from another node.
    pub fn read_presence(&self, payload: &[u8]) -> Option<Presence> {
        serde_json::from_slice::<Presence>(payload).ok().filter(|p| p.node != self.node)
    }

    /// Tell the other nodes which accounts are connected here (every two
    /// seconds), for the "online" flag of profiles.
    pub fn publish_online(&self, users: Vec<i64>) {
        let msg = Online { node: self.node.clone(), users };
        let subject = format!("{}.online", self.prefix);
        let _ = self.outbox.try_send((subject, Utf8Bytes::from(serde_json::to_string(&msg).unwrap_or_default())));
    }

    /// The other nodes' connected accounts.
    pub async fn subscribe_online(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(format!("{}.online", self.prefix)).await.map_err(|e| e.to_string())
    }

    /// Another node's connected accounts.
    pub fn read_online(&self, payload: &[u8]) -> Option<Online> {
        serde_json::from_slice::<Online>(payload).ok().filter(|o| o.node != self.node)
    }

    /// Tell the other nodes that account `user` was closed and now shows as
    /// `name` (their games in memory show it so too).
    pub fn publish_renamed(&self, user: i64, name: &str) {
        let msg = AccountEvent { from: self.node.clone(), user, event: Value::String(name.to_string()) };
        let subject = format!("{}.renamed", self.prefix);
        let _ = self.outbox.try_send((subject, Utf8Bytes::from(serde_json::to_string(&msg).unwrap_or_default())));
    }

    /// Closed accounts' new names (see [`Cluster::publish_renamed`]).
    pub async fn subscribe_renamed(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(format!("{}.renamed", self.prefix)).await.map_err(|e| e.to_string())
    }

    /// Account events from the other nodes: `(user, event)`.
    pub async fn subscribe_events(&self) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(self.events_subject()).await.map_err(|e| e.to_string())
    }

    /// An account event from another node, or `None` (this node's own, or
    /// unreadable).
    pub fn read_event(&self, payload: &[u8]) -> Option<(i64, Value)> {
        let e: AccountEvent = serde_json::from_slice(payload).ok()?;
        (e.from != self.node).then_some((e.user, e.event))
    }
}

/// A code from another node, as the `&'static str` errors carry. Codes are
/// a small fixed set, so each is leaked once at most.
fn intern(code: &str) -> &'static str {
    static CODES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut codes = CODES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = codes.iter().find(|c| **c == code) {
        return c;
    }
    if codes.len() >= 256 || code.len() > 64 {
        return "internal";
    }
    let leaked: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.push(leaked);
    leaked
}

/// What forwarding a command gave.
pub(crate) enum Forwarded {
    /// The owner ran it: its answer.
    Done(Result<(Outcome, Value), RoomError>),
    /// The node asked no longer owns the game: look again.
    Moved,
    /// The owner cannot be reached: it died (`owner_gone`: nobody listens
    /// for it), or NATS is down or too slow.
    Unreachable {
        /// Nobody listens for the owner: it is gone.
        owner_gone: bool,
    },
}

/// A forwarded command.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ExecRequest {
    pub game: String,
    pub actor: Actor,
    pub command: Command,
}

/// The owner's answer to a forwarded command.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum ExecReply {
    Done { outcome: WireOutcome, game: Value },
    Refused { status: u16, code: String, message: String, ply: Option<usize>, retry_after_secs: Option<u64> },
    NotOwner,
}

impl ExecReply {
    /// The answer for a command's result.
    pub fn of(result: Result<(Outcome, Value), RoomError>) -> ExecReply {
        match result {
            Ok((outcome, game)) => ExecReply::Done { outcome: WireOutcome::of(&outcome), game },
            Err(RoomError::Elsewhere { .. }) => ExecReply::NotOwner,
            Err(e) => {
                let e = ApiError::from(e);
                ExecReply::Refused {
                    status: e.status.as_u16(),
                    code: e.code.to_string(),
                    message: e.message,
                    ply: e.ply,
                    retry_after_secs: e.retry_after_secs,
                }
            }
        }
    }
}

/// An [`Outcome`] between nodes (a rematch's new room stays on the owner).
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum WireOutcome {
    Joined { player: usize, token: String },
    Moved { plies: u32 },
    Resigned,
    Draw { action: crate::room::DrawAction },
    Aborted,
    Claimed,
    Rematch { id: String, player: usize },
}

impl WireOutcome {
    fn of(o: &Outcome) -> WireOutcome {
        match o {
            Outcome::Joined { player, token } => WireOutcome::Joined { player: player.index(), token: token.clone() },
            Outcome::Moved { plies } => WireOutcome::Moved { plies: *plies },
            Outcome::Resigned => WireOutcome::Resigned,
            Outcome::Draw(action) => WireOutcome::Draw { action: *action },
            Outcome::Aborted => WireOutcome::Aborted,
            Outcome::Claimed => WireOutcome::Claimed,
            Outcome::Rematch { id, player, .. } => WireOutcome::Rematch { id: id.clone(), player: player.index() },
        }
    }

    fn into_outcome(self) -> Outcome {
        let player = |i: usize| Player::from_index(i.min(1));
        match self {
            WireOutcome::Joined { player: p, token } => Outcome::Joined { player: player(p), token },
            WireOutcome::Moved { plies } => Outcome::Moved { plies },
            WireOutcome::Resigned => Outcome::Resigned,
            WireOutcome::Draw { action } => Outcome::Draw(action),
            WireOutcome::Aborted => Outcome::Aborted,
            WireOutcome::Claimed => Outcome::Claimed,
            WireOutcome::Rematch { id, player: p } => Outcome::Rematch { id, player: player(p), room: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::{DrawAction, Joiner, SeatRating};

    #[test]
    fn commands_and_actors_cross_between_nodes_unchanged() {
        let commands = [
            Command::Join { invite: "abc".into(), name: Some("Ann".into()), user: Some((7, "ann".into())) },
            Command::JoinOpen {
                joiner: Joiner {
                    user: None,
                    rating: Some(SeatRating { rating: 1500, provisional: true }),
                    seat: Some(Player::Second),
                },
                name: None,
            },
            Command::Claim { draw: true },
            Command::Move { text: "e2e4".into(), ply: Some(3) },
            Command::Resign,
            Command::Draw(DrawAction::Decline),
            Command::Abort,
            Command::Rematch,
        ];
        for (i, command) in commands.into_iter().enumerate() {
            let actor =
                [Actor::Guest, Actor::Token("t".into()), Actor::Seat(Player::Second), Actor::User(3)][i % 4].clone();
            let request = ExecRequest { game: "g".into(), actor: actor.clone(), command: command.clone() };
            let back: ExecRequest = serde_json::from_slice(&serde_json::to_vec(&request).unwrap()).unwrap();
            assert_eq!((back.actor, back.command), (actor, command));
        }
    }

    #[test]
    fn a_refusal_keeps_its_status_code_and_message() {
        let reply = ExecReply::of(Err(RoomError::NotYourTurn { to_move: "white", player: "black" }));
        let back: ExecReply = serde_json::from_slice(&serde_json::to_vec(&reply).unwrap()).unwrap();
        let ExecReply::Refused { status, code, message, .. } = back else { panic!("{back:?}") };
        assert_eq!((status, code.as_str()), (409, "not_your_turn"));
        assert_eq!(message, "it is white's turn, not black's");
        assert_eq!(intern("not_your_turn"), intern(&code));
    }

    #[test]
    fn names_that_cannot_be_subjects_are_refused() {
        assert!(check_name("node id", "eu-1_a").is_ok());
        for bad in ["", "a.b", "a b", "a*", "a>"] {
            assert!(check_name("node id", bad).is_err(), "{bad:?}");
        }
    }
}
