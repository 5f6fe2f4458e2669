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

/// What the cluster's NATS subjects carry, each under the cluster's name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Topic {
    /// Commands other nodes forward to this one, the owner of their games.
    Exec,
    /// Questions to this node about the live state of games it owns (see
    /// [`Cluster::ask`]).
    Ask,
    /// HTTP requests for the leader (this node, while it leads).
    Leader,
    /// Account events, for the event streams on every node.
    Events,
    /// Game ends, for the leader's tournaments.
    Finished,
    /// Tournament changes, for the tournament pages on every node.
    Tournament,
    /// Seat connections on each node, for the games' owners.
    Presence,
    /// The accounts connected to each node.
    Online,
    /// Closed accounts' new names.
    Renamed,
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

    fn ask_subject(&self, node: &str) -> String {
        format!("{}.node.{node}.ask", self.prefix)
    }

    fn subject(&self, topic: Topic) -> String {
        let p = &self.prefix;
        match topic {
            Topic::Exec => self.exec_subject(&self.node),
            Topic::Ask => self.ask_subject(&self.node),
            Topic::Leader => format!("{p}.leader.http"),
            Topic::Events => format!("{p}.events"),
            Topic::Finished => format!("{p}.finished"),
            Topic::Tournament => format!("{p}.tournament"),
            Topic::Presence => format!("{p}.presence"),
            Topic::Online => format!("{p}.online"),
            Topic::Renamed => format!("{p}.renamed"),
        }
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

    /// Answer a request of another node (a forwarded command or HTTP
    /// request, or a question).
    pub async fn reply(&self, to: async_nats::Subject, reply: &impl Serialize) {
        let payload = serde_json::to_vec(reply).unwrap_or_default();
        if let Err(e) = self.client.publish(to, payload.into()).await {
            tracing::warn!(error = %e, "cannot answer another node");
        }
    }

    /// Ask `owner` about the live state of `game`, which it owns, telling it
    /// the connections that speak for each seat here when `sockets` is
    /// given. `None` when it does not own the game or does not answer
    /// within a second.
    pub async fn ask(&self, owner: &str, game: &str, sockets: Option<[usize; 2]>) -> Option<Answer> {
        if !self.is_connected() {
            return None;
        }
        let ask = Ask { node: self.node.clone(), game: game.to_string(), sockets };
        let payload = serde_json::to_vec(&ask).ok()?;
        let request = self.client.request(self.ask_subject(owner), payload.into());
        let msg = tokio::time::timeout(Duration::from_secs(1), request).await.ok()?.ok()?;
        serde_json::from_slice::<Option<Answer>>(&msg.payload).ok().flatten()
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

/// A question to a game's owner (see [`Cluster::ask`]).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Ask {
    /// The node asking.
    pub node: String,
    pub game: String,
    /// The connections speaking for each seat on the node asking.
    pub sockets: Option<[usize; 2]>,
}

/// The owner's answer to an [`Ask`].
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// Since when each seat has had no connection anywhere (`None`: it has).
    pub away_since: [Option<u64>; 2],
    /// The game's `state` message, as its watchers have it.
    pub state: String,
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
    /// Forward an HTTP request to the cluster's leader, the node that holds
    /// challenges, quick-pairing pools and tournaments. `None` when no
    /// leader answers (NATS down, or a leader being chosen).
    pub async fn to_leader(&self, request: &HttpRequest) -> Option<HttpResponse> {
        if !self.is_connected() {
            return None;
        }
        let payload = serde_json::to_vec(request).ok()?;
        match self.client.request(self.subject(Topic::Leader), payload.into()).await {
            Ok(msg) => serde_json::from_slice(&msg.payload).ok(),
            Err(e) => {
                tracing::debug!(error = %e, "the leader did not answer a forwarded request");
                None
            }
        }
    }

    /// Queue `payload` for `topic` (never waits; dropped when the queue is
    /// full, that is when NATS has been down for long).
    fn send(&self, topic: Topic, payload: String) {
        if self.outbox.try_send((self.subject(topic), Utf8Bytes::from(payload))).is_err() {
            tracing::debug!(topic = ?topic, "queue full; a cluster message was dropped");
        }
    }

    /// `msg` as JSON on `topic`.
    fn send_json(&self, topic: Topic, msg: &impl Serialize) {
        self.send(topic, serde_json::to_string(msg).unwrap_or_default());
    }

    /// The messages of `topic`.
    pub async fn subscribe(&self, topic: Topic) -> Result<async_nats::Subscriber, String> {
        self.client.subscribe(self.subject(topic)).await.map_err(|e| e.to_string())
    }

    /// Tell the other nodes' event streams of `user` about `event`.
    pub fn publish_event(&self, user: i64, event: &Value) {
        self.send_json(Topic::Events, &AccountEvent { from: self.node.clone(), user, event: event.clone() });
    }

    /// Tell the leader that game `game` ended (it may be a tournament's,
    /// taken over by this node from the leader).
    pub fn publish_finished(&self, game: &str) {
        self.send(Topic::Finished, game.to_string());
    }

    /// Tell the other nodes that tournament `id` changed (their watchers
    /// read it again).
    pub fn publish_tournament(&self, id: &str) {
        self.send(Topic::Tournament, id.to_string());
    }

    /// Tell the owner of `game` how many connections speak for each of its
    /// seats on this node (sent on every change, and again every two
    /// seconds, so a new owner learns them).
    pub fn publish_presence(&self, game: &str, sockets: [usize; 2]) {
        self.send_json(Topic::Presence, &Presence { node: self.node.clone(), game: game.to_string(), sockets });
    }

    /// A presence report from another node.
    pub fn read_presence(&self, payload: &[u8]) -> Option<Presence> {
        serde_json::from_slice::<Presence>(payload).ok().filter(|p| p.node != self.node)
    }

    /// Tell the other nodes which accounts are connected here (every two
    /// seconds), for the "online" flag of profiles.
    pub fn publish_online(&self, users: Vec<i64>) {
        self.send_json(Topic::Online, &Online { node: self.node.clone(), users });
    }

    /// Another node's connected accounts.
    pub fn read_online(&self, payload: &[u8]) -> Option<Online> {
        serde_json::from_slice::<Online>(payload).ok().filter(|o| o.node != self.node)
    }

    /// Tell the other nodes that account `user` was closed and now shows as
    /// `name` (their games in memory show it so too).
    pub fn publish_renamed(&self, user: i64, name: &str) {
        let event = Value::String(name.to_string());
        self.send_json(Topic::Renamed, &AccountEvent { from: self.node.clone(), user, event });
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
