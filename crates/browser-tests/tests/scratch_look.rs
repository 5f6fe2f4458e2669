//! Temporary: look at AI-vs-AI games (not committed).
use anyhow::Result;
use tabula_browser_tests::{Browser, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn look_at_ai_games() -> Result<()> {
    let server = TestServer::start().await?;
    let b = Browser::start(1280, 1000).await?;
    b.goto(&server.url("/")).await?;
    b.wait("#new-game", 20).await?;
    for (game, opts, level) in [
        ("dots", r#"{"width":"16","height":"14","cross":"on"}"#, "random"),
        ("cumisitha", "{}", "random"),
        ("cordots", "{}", "random"),
    ] {
        let id = b.eval(&format!(r#"return fetch('/api/games', {{method:'POST', headers:{{'content-type':'application/json'}}, body: JSON.stringify({{game:'{game}', options:{opts}, seats:[{{kind:'ai',level:'{level}'}},{{kind:'ai',level:'{level}'}}], seed: 7}})}}).then(r=>r.json()).then(j=>j.game.id);"#)).await?;
        let id = id.as_str().unwrap().to_string();
        tokio::time::sleep(std::time::Duration::from_secs(8)).await;
        b.goto(&server.url(&format!("/game/{id}"))).await?;
        b.wait(".game-page svg.board", 20).await?;
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        b.screenshot(&format!("look-{game}")).await?;
    }
    b.close().await
}
