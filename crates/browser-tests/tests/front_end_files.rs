//! The front end's files, read as text (no browser needed).

use serde_json::Value;
use std::collections::BTreeSet;
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

/// The static imports of the module at `url` (`/js/...`), as URLs: every
/// `import ... from '...'` and `import '...'` (dynamic `import()` is not one).
fn static_imports(web: &Path, url: &str) -> Vec<String> {
    let text = std::fs::read_to_string(web.join(url.trim_start_matches('/'))).unwrap_or_else(|e| panic!("{url}: {e}"));
    let dir = Path::new(url).parent().expect("a module's directory").to_path_buf();
    let mut out = Vec::new();
    // Imports sit at the start of a line and may span several.
    for statement in text.split("\nimport ").skip(1).chain(text.strip_prefix("import ")) {
        let head = statement.split(';').next().unwrap_or_default();
        let Some(spec) = head.rsplit('\'').nth(1) else { continue };
        let mut path = dir.clone();
        for part in spec.split('/') {
            match part {
                "." => {}
                ".." => {
                    path.pop();
                }
                name => path.push(name),
            }
        }
        out.push(path.display().to_string());
    }
    out
}

/// The module at `url` and everything it imports statically, directly or not.
fn closure(web: &Path, url: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![url.to_string()];
    while let Some(next) = todo.pop() {
        if seen.insert(next.clone()) {
            todo.extend(static_imports(web, &next));
        }
    }
    seen
}

/// What index.html preloads: the `<link rel="modulepreload">` URLs, the
/// per-page lists of `#page-modules` as (address pattern, modules), and
/// each list's stylesheets.
#[allow(clippy::type_complexity)]
fn preloads(html: &str) -> (BTreeSet<String>, Vec<(String, Vec<String>)>, Vec<Vec<String>>) {
    let links = html
        .split("<link rel=\"modulepreload\" href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_string())
        .collect();
    let json = html
        .split("<script type=\"application/json\" id=\"page-modules\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("index.html has the page-modules list");
    let lists: Vec<Value> = serde_json::from_str(json).expect("page-modules is JSON");
    let pages = lists
        .iter()
        .map(|p| {
            let modules = p["modules"].as_array().expect("modules").iter().map(|m| m.as_str().unwrap().to_string());
            (p["path"].as_str().expect("path").to_string(), modules.collect())
        })
        .collect();
    let styles = lists
        .iter()
        .map(|p| p["styles"].as_array().map(|s| s.iter().map(|x| x.as_str().unwrap().to_string()).collect()))
        .map(Option::unwrap_or_default)
        .collect();
    (links, pages, styles)
}

/// index.html preloads the modules every page needs (js/app.js and its
/// static imports) at once, and for each page the rest of its module graph:
/// a page's list must hold exactly what its module imports beyond those, so
/// the opened page waits for one round of downloads, and every module is in
/// some list (app.js preloads them all once a page is drawn).
#[test]
fn index_html_preloads_each_pages_module_graph() {
    let web = tabula_browser_tests::workspace_root().join("web");
    let html = std::fs::read_to_string(web.join("index.html")).expect("web/index.html");
    let (links, pages, _) = preloads(&html);
    let core = closure(&web, "/js/app.js");
    assert_eq!(links, core, "index.html's modulepreload links are app.js and its static imports");
    let app = std::fs::read_to_string(web.join("js/app.js")).expect("web/js/app.js");
    let lazy: BTreeSet<String> = app
        .split("import('./pages/")
        .skip(1)
        .map(|rest| format!("/js/pages/{}", rest.split('\'').next().unwrap_or_default()))
        .collect();
    assert!(lazy.len() >= 10, "app.js imports its pages when opened: {lazy:?}");
    let mut listed = core.clone();
    for page in &lazy {
        let (path, modules) = pages
            .iter()
            .find(|(_, modules)| modules.first() == Some(page))
            .unwrap_or_else(|| panic!("index.html has no preload list starting with {page}"));
        let want: BTreeSet<String> = closure(&web, page).difference(&core).cloned().collect();
        let have: BTreeSet<String> = modules.iter().cloned().collect();
        assert_eq!(have, want, "the preload list for {path} is {page} and what it imports beyond app.js's");
        assert_eq!(have.len(), modules.len(), "the preload list for {path} names a module twice");
        listed.extend(have);
    }
    assert_eq!(pages.len(), lazy.len(), "one preload list per page module: {pages:?}");
    let mut files = Vec::new();
    modules(&web.join("js"), &mut files);
    for file in &files {
        let url = format!("/{}", file.strip_prefix(&web).unwrap().display());
        assert!(listed.contains(&url), "index.html preloads {url} for no page (is it used?)");
    }
}

/// The stylesheets under web/css: style.css, which index.html links for
/// every page (render-blocking), and the pages' own, which only the pages
/// that use them load. A page's own sheet must be named both by its route
/// in js/app.js (which waits for it before drawing the page) and by its
/// list in index.html's `#page-modules` (which links it at once when the
/// page is opened directly): a sheet named by neither would silently not
/// apply, and one named by only one would arrive late on one of the paths.
#[test]
fn every_stylesheet_is_loaded_by_the_pages_that_use_it() {
    let web = tabula_browser_tests::workspace_root().join("web");
    let html = std::fs::read_to_string(web.join("index.html")).expect("web/index.html");
    let linked: Vec<&str> = html
        .split("<link rel=\"stylesheet\" href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default())
        .collect();
    assert_eq!(linked, ["/css/style.css"], "index.html links style.css for every page, and no page's own sheet");
    let mut sheets = BTreeSet::new();
    for entry in std::fs::read_dir(web.join("css")).expect("web/css is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "css") {
            sheets.insert(format!("/{}", path.strip_prefix(&web).unwrap().display()));
        }
    }
    assert!(sheets.remove("/css/style.css"), "found the stylesheets: {sheets:?}");
    // js/app.js: `page(() => import('./pages/NAME.js'), 'function', ['/css/...'])`.
    let app = std::fs::read_to_string(web.join("js/app.js")).expect("web/js/app.js");
    let mut used = BTreeSet::new();
    let (_, pages, styles) = preloads(&html);
    for route in app.split("page(() => import('./pages/").skip(1) {
        let module = format!("/js/pages/{}", route.split('\'').next().unwrap_or_default());
        let line = route.split('\n').next().unwrap_or_default();
        let wants: Vec<String> = line
            .split('[')
            .nth(1)
            .map(|list| list.split(']').next().unwrap_or_default())
            .into_iter()
            .flat_map(|list| list.split(',').map(|s| s.trim().trim_matches('\'').to_string()))
            .filter(|s| !s.is_empty())
            .collect();
        let index = pages.iter().position(|(_, modules)| modules.first() == Some(&module));
        let listed = index.map(|i| styles[i].clone()).unwrap_or_default();
        assert_eq!(
            wants, listed,
            "js/app.js's route to {module} and index.html's list for it name the same stylesheets"
        );
        for sheet in wants {
            assert!(sheets.contains(&sheet), "{module} loads {sheet}, which is not a stylesheet under web/css");
            used.insert(sheet);
        }
    }
    assert_eq!(used, sheets, "every page stylesheet under web/css is loaded by some page");
}
