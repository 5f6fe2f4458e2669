//! The front end's files, read as text (no browser needed).

use std::path::{Path, PathBuf};

fn modules(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("web/js is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            modules(&path, out);
        } else if path.extension().is_some_and(|e| e == "js") {
            out.push(path);
        }
    }
}

/// index.html preloads the whole module graph, so the browser fetches every
/// module at once: a new module must be listed there, and nothing listed may
/// be missing.
#[test]
fn index_html_preloads_every_module() {
    let web = tabula_browser_tests::workspace_root().join("web");
    let html = std::fs::read_to_string(web.join("index.html")).expect("web/index.html");
    let preloaded: Vec<&str> = html
        .split("<link rel=\"modulepreload\" href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default())
        .collect();
    let mut files = Vec::new();
    modules(&web.join("js"), &mut files);
    assert!(files.len() > 10, "found the modules: {files:?}");
    for file in &files {
        let url = format!("/{}", file.strip_prefix(&web).unwrap().display());
        assert!(preloaded.contains(&url.as_str()), "index.html does not preload {url}");
    }
    for url in &preloaded {
        assert!(web.join(url.trim_start_matches('/')).is_file(), "index.html preloads {url}, which does not exist");
    }
}

/// Every stylesheet under web/css is linked from index.html (a page's styles
/// in a file of their own would otherwise silently not apply), and every
/// linked one exists.
#[test]
fn index_html_links_every_stylesheet() {
    let web = tabula_browser_tests::workspace_root().join("web");
    let html = std::fs::read_to_string(web.join("index.html")).expect("web/index.html");
    let linked: Vec<&str> = html
        .split("<link rel=\"stylesheet\" href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default())
        .collect();
    let mut sheets = Vec::new();
    for entry in std::fs::read_dir(web.join("css")).expect("web/css is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "css") {
            sheets.push(format!("/{}", path.strip_prefix(&web).unwrap().display()));
        }
    }
    assert!(sheets.iter().any(|s| s == "/css/style.css"), "found the stylesheets: {sheets:?}");
    for sheet in &sheets {
        assert!(linked.contains(&sheet.as_str()), "index.html does not link {sheet}");
    }
    for url in &linked {
        assert!(web.join(url.trim_start_matches('/')).is_file(), "index.html links {url}, which does not exist");
    }
}
