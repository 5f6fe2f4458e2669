//! Play two AI specs against each other and print each game's final score
//! (`tabula match` reports only wins). Colours alternate.
//! Usage: duel A B GAMES [key=value ...]   e.g. duel expert uct:2500 2 format=express

use tabula_core::{Game, GameMeta, GameOptions, Player, ThinkContext};
use tabula_dots::{Dots, DotsOptions};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err("usage: duel A B GAMES [key=value ...]".into());
    }
    let games: u64 = args[2].parse().map_err(|_| format!("'{}' is not a number of games", args[2]))?;
    let pairs: Vec<(String, String)> = args[3..]
        .iter()
        .map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or(format!("bad option {a}")))
        .collect::<Result<_, _>>()?;
    let opts = DotsOptions::from_pairs(&pairs).map_err(|e| e.to_string())?;
    for g in 0..games {
        let a_first = g % 2 == 0;
        let (first, second) = if a_first { (&args[0], &args[1]) } else { (&args[1], &args[0]) };
        let mut agents = [
            Dots::new_agent(first, 2 * g + 1).ok_or(format!("unknown AI {first}"))?,
            Dots::new_agent(second, 2 * g + 2).ok_or(format!("unknown AI {second}"))?,
        ];
        let mut s = Dots::new(&opts);
        while !s.status().is_over() {
            let mv = agents[s.to_move().index()].choose(&s, &ThinkContext::default());
            s.play(mv);
        }
        let o = s.status().outcome().expect("over");
        let sc = s.scores();
        let a = if a_first { Player::First } else { Player::Second };
        println!(
            "game {}: A ({}) is {}; score blue {} red {}; {} after {} moves ({})",
            g + 1,
            args[0],
            Dots::PLAYERS[a.index()],
            sc[0],
            sc[1],
            match o.winner {
                Some(w) if w == a => "A wins",
                Some(_) => "B wins",
                None => "draw",
            },
            s.plies(),
            o.reason
        );
    }
    Ok(())
}
