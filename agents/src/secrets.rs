//! Secrets kept out of what is recorded: a URL's credentials and key-like query parameters.
//!
//! A run records the model endpoint and server it used, and the errors its agent met; those are
//! published at `/v1/runs` and on the leaderboard. A user who put a key in the URL
//! (`https://user:password@host/v1`, `?api_key=...`) must not see it published.

use reqwest::Url;

/// Query parameters whose values are secrets, by name (ignoring case, `-` read as `_`): exact
/// names, and any name ending in one of `SECRET_SUFFIXES`.
const SECRET_NAMES: &[&str] = &[
    "key",
    "code",
    "sig",
    "signature",
    "auth",
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
];
const SECRET_SUFFIXES: &[&str] = &[
    "_key",
    "apikey",
    "_token",
    "_secret",
    "_password",
    "_signature",
    "_sig",
    "_auth",
];

/// What a secret's value is recorded as.
pub const REDACTED: &str = "REDACTED";

/// `url` as it may be recorded: without user name and password, and with the value of every
/// key-like query parameter replaced by `REDACTED`; unchanged when it holds neither. Text that
/// is not a URL is recorded as `(not a URL)`, since it may hold anything.
pub fn recordable_url(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return "(not a URL)".to_owned();
    };
    let has_secret = parsed.query_pairs().any(|(name, _)| is_secret(&name));
    if parsed.username().is_empty() && parsed.password().is_none() && !has_secret {
        return url.to_owned();
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        // Only URLs that cannot hold credentials refuse these, and those have none to remove.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
    }
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if is_secret(&name) {
                    REDACTED.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('-', "_");
    SECRET_NAMES.contains(&name.as_str())
        || SECRET_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_key_like_parameters_are_removed_and_the_rest_kept() {
        assert_eq!(
            recordable_url("https://alice:s3cret@models.example/v1?api_key=sk-123&model=x"),
            "https://models.example/v1?api_key=REDACTED&model=x"
        );
        assert_eq!(
            recordable_url("http://127.0.0.1:8000/v1?Access-Token=abc&X-Goog-Signature=zz&page=2"),
            "http://127.0.0.1:8000/v1?Access-Token=REDACTED&X-Goog-Signature=REDACTED&page=2"
        );
        assert_eq!(
            recordable_url("https://token@host.example/v1?key=k&monkey=banana"),
            "https://host.example/v1?key=REDACTED&monkey=banana"
        );
        assert_eq!(
            recordable_url("https://api.openai.com/v1"),
            "https://api.openai.com/v1"
        );
        assert_eq!(recordable_url("sk-live-not-a-url"), "(not a URL)");
        // Nothing to remove: exactly as given, without a slash added.
        assert_eq!(
            recordable_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
    }
}
