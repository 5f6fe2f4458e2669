//! One game of `tabula bot`: follow the game's stream, rebuild the position
//! from its moves, and answer with a move whenever it is the bot's turn,
//! thinking within the time its clock leaves.

use crate::bot_api::{segment, Api, ApiError};
use crate::brain::{Brain, Mover};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tabula_core::{DynGame, DynState, Player, ThinkContext, TimeControl};
use tabula_games::REGISTRY;

/// Time kept back from every move for the trip to the server and back.
const LATENCY_MARGIN: Duration = Duration::from_millis(400);
/// A position of the game as one line of its stream describes it.
pub struct Snapshot {
    /// The game.
    pub game: &'static dyn DynGame,
    /// Its options.
    pub options: Vec<(String, String)>,
    /// The moves so far, in the game's notation.
    pub moves: Vec<String>,
    /// `waiting`, `live`, `finished` or `aborted`.
    pub status: String,
    /// The time control.
    pub time_control: TimeControl,
    /// Remaining clock times by seat, as of `server_time_ms`.
    pub remaining_ms: Option<[u64; 2]>,
    /// Deadlines for the move on hand (server time): a shot clock's, or the
    /// first-move timer's.
    pub deadlines_ms: Vec<u64>,
    /// The server's clock when it wrote the line.
    pub server_time_ms: u64,
    /// The result's description once the game is over.
    pub result: Option<String>,
    /// The seat that offers a draw, if any.
    pub draw_offer: Option<String>,
}

/// Read a JSON field as options: `{"key": "value"}` (numbers and booleans
/// are spelt out).
pub fn options_of(value: &Value) -> Vec<(String, String)> {
    value
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect())
        .unwrap_or_default()
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("game", &self.game.id())
            .field("moves", &self.moves)
            .field("status", &self.status)
            .field("result", &self.result)
            .finish_non_exhaustive()
    }
}

impl Snapshot {
    /// Read the game JSON of a `gameFull` / `gameState` line.
    pub fn parse(game: &Value) -> Result<Snapshot, String> {
        let id = game["game"].as_str().ok_or("the game JSON names no game")?;
        let dyn_game = REGISTRY.get(id).map_err(|e| e.to_string())?;
        let moves = game["moves"]
            .as_array()
            .ok_or("the game JSON has no moves list")?
            .iter()
            .map(|m| m["move"].as_str().map(str::to_string).ok_or("a move without its text"))
            .collect::<Result<Vec<_>, _>>()?;
        let time_control: TimeControl = if game["time_control"].is_null() {
            TimeControl::None
        } else {
            serde_json::from_value(game["time_control"].clone()).map_err(|e| format!("bad time_control: {e}"))?
        };
        let players = dyn_game.players();
        let clock = &game["clock"];
        let remaining_ms =
            clock["remaining_ms"].as_object().map(|r| players.map(|p| r.get(p).and_then(Value::as_u64).unwrap_or(0)));
        let deadlines_ms =
            [&clock["deadline_ms"], &game["first_move_deadline_ms"]].into_iter().filter_map(Value::as_u64).collect();
        let result = (!game["result"].is_null()).then(|| {
            let r = &game["result"];
            let reason = r["reason"].as_str().unwrap_or("no reason given");
            match r["winner"].as_str() {
                Some(w) => format!("{w} wins ({reason})"),
                None if game["status"] == "aborted" => reason.to_string(),
                None => format!("draw ({reason})"),
            }
        });
        Ok(Snapshot {
            game: dyn_game,
            options: options_of(&game["options"]),
            moves,
            status: game["status"].as_str().unwrap_or("").to_string(),
            time_control,
            remaining_ms,
            deadlines_ms,
            server_time_ms: game["server_time_ms"].as_u64().unwrap_or(0),
            result,
            draw_offer: game["draw_offer"].as_str().map(str::to_string),
        })
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        matches!(self.status.as_str(), "finished" | "aborted")
    }

    /// The position after the moves.
    pub fn state(&self) -> Result<Box<dyn DynState>, String> {
        let mut state = self.game.new_state(&self.options).map_err(|e| e.to_string())?;
        for (i, m) in self.moves.iter().enumerate() {
            state.play(m).map_err(|e| format!("move {} '{m}' of the server's record: {e}", i + 1))?;
        }
        Ok(state)
    }

    /// What the clock allows `me` for the move on hand, `received`
    /// being when this snapshot arrived: its remaining time and increment,
    /// and the nearest hard deadline, each less [`LATENCY_MARGIN`].
    pub fn think_context(&self, me: Player, received: Instant) -> ThinkContext {
        let elapsed = received.elapsed() + LATENCY_MARGIN;
        let remaining = self.remaining_ms.map(|r| Duration::from_millis(r[me.index()]).saturating_sub(elapsed));
        let increment = match self.time_control {
            TimeControl::Fischer { increment_ms, .. } => Some(Duration::from_millis(increment_ms)),
            _ => None,
        };
        let deadline = self
            .deadlines_ms
            .iter()
            .map(|&d| received + Duration::from_millis(d.saturating_sub(self.server_time_ms)))
            .min()
            .map(|d| d.checked_sub(LATENCY_MARGIN).unwrap_or(received));
        ThinkContext { remaining, increment, deadline, ..ThinkContext::default() }
    }
}

/// A seed for a game's AI from its id, so a game replays alike.
fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Why a game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The server refused or could not be reached.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The bot could not choose a move (its engine failed, or the game is
    /// one it cannot play).
    #[error("{0}")]
    Brain(String),
}

/// Play game `id` to its end; returns how it ended. `say` prints progress.
/// A broken game stream is reopened (the server sends the whole game
/// again); other failures resign the game, so the opponent is not left
/// waiting, and are returned.
pub fn play(api: &Api, id: &str, brain: &Brain, say: &(dyn Fn(String) + Sync)) -> Result<String, GameError> {
    let mut me: Option<Player> = None;
    let mut brain_for_game: Option<Mover> = None;
    let mut moved_at: Option<usize> = None;
    let mut declined = false;
    let mut failures = 0u32;
    // Set by the reader as soon as a line says the game is over, so an AI
    // thinking at that moment stops at once.
    let over = Arc::new(AtomicBool::new(false));
    loop {
        let mut stream = match api.stream(&format!("/api/bot/game/stream/{}", segment(id)), "open the game stream") {
            Ok(s) => s,
            Err(e) if !e.is_fatal() && failures < 8 && e.code().is_none() => {
                failures += 1;
                say(format!("game {id}: {e}; retrying"));
                std::thread::sleep(crate::cmd_bot::backoff(failures));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        // The stream is read on a thread of its own, so it is heard while
        // the bot thinks.
        let (tx, lines) = mpsc::channel();
        let over_flag = over.clone();
        std::thread::spawn(move || loop {
            let item = stream.next();
            let end = !matches!(item, Ok(Some(_)));
            if let Ok(Some(line)) = &item {
                if matches!(line["game"]["status"].as_str(), Some("finished" | "aborted")) {
                    over_flag.store(true, Ordering::Relaxed);
                }
            }
            if tx.send(item).is_err() || end {
                return;
            }
        });
        loop {
            let line = match lines.recv().unwrap_or(Ok(None)) {
                Ok(Some(line)) => line,
                Ok(None) => {
                    failures += 1;
                    break; // the server closed the stream early: reopen it
                }
                Err(e) if !e.is_fatal() && failures < 8 => {
                    failures += 1;
                    say(format!("game {id}: lost the game stream ({e}); reconnecting"));
                    break;
                }
                Err(e) => return Err(e.into()),
            };
            let received = Instant::now();
            match line["type"].as_str() {
                Some("gameFull") => {
                    let name = line["player"].as_str().unwrap_or("?");
                    let game = line["game"]["game"].as_str().and_then(|g| REGISTRY.get(g).ok());
                    let first = me.is_none();
                    me = game.and_then(|g| g.player_by_name(name));
                    if let (Some(game), true) = (game, first) {
                        say(format!("game {id}: playing {} as {name}", game.name()));
                    }
                }
                Some("gameState") => {}
                _ => continue, // a kind of line this client does not know
            }
            let snap = Snapshot::parse(&line["game"]).map_err(GameError::Brain)?;
            if snap.is_over() {
                return Ok(describe_end(&snap, &line["game"], me));
            }
            let Some(me) = me else {
                return Err(GameError::Brain(format!("game {id}: the stream did not say which side the bot plays")));
            };
            // The bot plays on: it declines a draw offer at once, as the
            // server's own AI seats do, so the offerer is not left waiting.
            // Lines written before the decline still show the offer: one
            // decline per offer.
            let my_name = snap.game.players()[me.index()];
            let offered = snap.draw_offer.as_deref().is_some_and(|by| by != my_name);
            if offered && !declined {
                declined = true;
                let path = format!("/api/bot/game/{}/draw/decline", segment(id));
                match api.post(&path, &json!({}), "decline the draw offer") {
                    Ok(_) => say(format!("game {id}: declined a draw offer")),
                    Err(e) if e.code() == Some("no_draw_offer") => {} // it lapsed meanwhile
                    Err(e) => say(format!("game {id}: could not decline the draw offer: {e}")),
                }
            }
            declined &= snap.draw_offer.is_some();
            if snap.status != "live" || moved_at == Some(snap.moves.len()) {
                continue;
            }
            let state = snap.state().map_err(GameError::Brain)?;
            if state.to_move() != me || state.status().is_over() {
                continue;
            }
            let ply = snap.moves.len();
            let ctx = ThinkContext { stop: Some(over.clone()), ..snap.think_context(me, received) };
            let chosen = (|| {
                if brain_for_game.is_none() {
                    brain_for_game = Some(Mover::new(brain, snap.game, &snap.options, seed_of(id))?);
                }
                brain_for_game.as_mut().expect("set above").choose(&*state, &snap.moves, &ctx)
            })();
            if over.load(Ordering::Relaxed) {
                continue; // the game ended while the bot thought: the next line says how
            }
            let mv = match chosen {
                Ok(mv) => mv,
                Err(why) => {
                    resign(api, id, say);
                    return Err(GameError::Brain(why));
                }
            };
            let path = format!("/api/bot/game/{}/move/{}?ply={ply}", segment(id), segment(&mv));
            match api.post(&path, &json!({}), &format!("play {mv} in game {id}")) {
                Ok(_) => {
                    moved_at = Some(ply);
                    failures = 0;
                }
                // The game moved on or ended while the bot thought: the
                // stream brings the news.
                Err(e)
                    if matches!(
                        e.code(),
                        Some("stale_ply" | "game_over" | "not_your_turn" | "waiting_for_opponent" | "time_up")
                    ) =>
                {
                    moved_at = Some(ply);
                }
                Err(e) if e.retry_after().is_some() => {
                    // Too many moves from this address (other bots behind it,
                    // say): wait as asked, then the same move again.
                    let wait = e.retry_after().unwrap_or_default();
                    say(format!("game {id}: the server asks to slow down; sending {mv} again in {} s", wait.as_secs()));
                    std::thread::sleep(wait);
                    match api.post(&path, &json!({}), &format!("play {mv} in game {id}")) {
                        Ok(_) => moved_at = Some(ply),
                        Err(e) => say(format!("game {id}: could not send {mv} ({e}); will try again")),
                    }
                }
                Err(e) if e.code().is_none() && !e.is_fatal() => {
                    say(format!("game {id}: could not send {mv} ({e}); will try again"));
                }
                Err(e) => {
                    resign(api, id, say);
                    return Err(e.into());
                }
            }
        }
        std::thread::sleep(crate::cmd_bot::backoff(failures));
    }
}

fn resign(api: &Api, id: &str, say: &(dyn Fn(String) + Sync)) {
    if let Err(e) = api.post(&format!("/api/bot/game/{}/resign", segment(id)), &json!({}), "resign") {
        say(format!("game {id}: could not resign either: {e}"));
    }
}

/// `white wins (checkmate); rating 1500 -> 1512 (+12)`.
fn describe_end(snap: &Snapshot, game: &Value, me: Option<Player>) -> String {
    let mut text = snap.result.clone().unwrap_or_else(|| snap.status.clone());
    if let Some(me) = me {
        let change = &game["rating_changes"][snap.game.players()[me.index()]];
        if let (Some(before), Some(after)) = (change["before"].as_i64(), change["after"].as_i64()) {
            text.push_str(&format!("; rating {before} -> {after} ({:+})", after - before));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::{uci_go, ENGINE_GRACE};

    fn game_json(extra: Value) -> Value {
        let game = REGISTRY.games()[0];
        let mut j = json!({
            "id": "g1", "game": game.id(), "options": {}, "moves": [], "status": "live",
            "time_control": {"kind": "fischer", "base_ms": 60000, "increment_ms": 2000},
            "clock": {"running": game.players()[0], "remaining_ms": {game.players()[0]: 50000, game.players()[1]: 60000},
                      "shared": false, "overtime": false, "deadline_ms": null},
            "first_move_deadline_ms": null, "result": null, "server_time_ms": 1000
        });
        for (k, v) in extra.as_object().unwrap() {
            j[k] = v.clone();
        }
        j
    }

    #[test]
    fn snapshots_read_the_clock_and_the_moves() {
        let s = Snapshot::parse(&game_json(json!({}))).unwrap();
        assert_eq!(s.remaining_ms, Some([50000, 60000]));
        assert_eq!(s.draw_offer, None);
        let offered = Snapshot::parse(&game_json(json!({"draw_offer": "x"}))).unwrap();
        assert_eq!(offered.draw_offer.as_deref(), Some("x"));
        assert!(!s.is_over());
        let now = Instant::now();
        let ctx = s.think_context(Player::First, now);
        let left = ctx.remaining.unwrap();
        assert!(left <= Duration::from_millis(50000) - LATENCY_MARGIN && left > Duration::from_millis(49000));
        assert_eq!(ctx.increment, Some(Duration::from_millis(2000)));
        assert_eq!(ctx.deadline, None);
        let first = s.state().unwrap().legal_moves()[0].clone();
        let s = Snapshot::parse(&game_json(json!({"moves": [{"ply": 1, "move": first}]}))).unwrap();
        assert_eq!(s.state().unwrap().to_move(), Player::Second);
        let s = Snapshot::parse(&game_json(json!({"moves": [{"ply": 1, "move": "nonsense!"}]}))).unwrap();
        assert!(s.state().err().unwrap().contains("nonsense"));
    }

    #[test]
    fn deadlines_become_instants_less_the_margin() {
        let s = Snapshot::parse(&game_json(json!({"first_move_deadline_ms": 31000, "clock": null}))).unwrap();
        let now = Instant::now();
        let ctx = s.think_context(Player::First, now);
        assert_eq!(ctx.remaining, None);
        assert_eq!(ctx.deadline, Some(now + Duration::from_millis(30000) - LATENCY_MARGIN));
        let (go, wait) = uci_go(&ctx, Duration::from_secs(2), now);
        assert_eq!(go, "go movetime 2000");
        assert_eq!(wait, Duration::from_secs(2) + ENGINE_GRACE);
    }

    #[test]
    fn endings_are_described() {
        let j = game_json(json!({"status": "finished", "result": {"winner": null, "reason": "stalemate"}}));
        let s = Snapshot::parse(&j).unwrap();
        assert!(s.is_over());
        assert_eq!(describe_end(&s, &j, None), "draw (stalemate)");
        let p = REGISTRY.games()[0].players();
        let j = game_json(json!({"status": "finished", "result": {"winner": p[1], "reason": "resigned"},
            "rating_changes": {p[1]: {"before": 1500, "after": 1662, "diff": 162}}}));
        let s = Snapshot::parse(&j).unwrap();
        assert_eq!(
            describe_end(&s, &j, Some(Player::Second)),
            format!("{} wins (resigned); rating 1500 -> 1662 (+162)", p[1])
        );
    }

    #[test]
    fn unknown_games_are_refused() {
        let e = Snapshot::parse(&json!({"game": "no-such-game", "moves": []})).unwrap_err();
        assert!(e.contains("no-such-game"), "{e}");
    }
}
