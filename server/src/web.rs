//! The leaderboard web page: one HTML page, its script and its style sheet, embedded in the
//! binary and served at `/` (nothing comes from elsewhere; the page reads the read-only API).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// The page's files: the path each is served at, its media type and its text.
const ASSETS: [(&str, &str, &str); 3] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../../web/index.html"),
    ),
    (
        "/assets/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "/assets/app.css",
        "text/css; charset=utf-8",
        include_str!("../../web/app.css"),
    ),
];

/// The paths the page's files are served at.
pub fn paths() -> impl Iterator<Item = &'static str> {
    ASSETS.iter().map(|(path, _, _)| *path)
}

/// The file served at `path` (one of `paths()`).
pub fn asset(path: &str) -> Response {
    let (_, media_type, text) = ASSETS
        .iter()
        .find(|(served_at, _, _)| *served_at == path)
        .expect("a path from web::paths()");
    let mut response = (*text).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
    // The files change only with the binary; revalidating is cheap and never shows a stale page.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Everything the page loads comes from this server.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
        ),
    );
    response
}
