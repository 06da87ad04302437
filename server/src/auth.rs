//! Who a request acts for: API keys (made by `agentbench keys`, stored as Argon2id hashes,
//! checked once and then cached), the tenant and scope each key grants, the open mode of a
//! development server, and the middleware that names every request's caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::App;
use crate::api_error::ApiError;
use crate::store::{KeyRow, Store, StoreError, now_ms};

/// The tenant of what is made without a key (open mode, `agentbench run` in process), and of
/// what was recorded before tenants existed.
pub const DEFAULT_TENANT: &str = "default";

/// What a key may do; each scope may do what the ones before it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Read the leaderboard, runs, envs and the tenant's episodes.
    Read,
    /// Also create, step, fork, abandon and delete the tenant's episodes.
    Run,
    /// Also delete the episodes that recorded suite runs played.
    Admin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Run => "run",
            Scope::Admin => "admin",
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = String;

    fn from_str(text: &str) -> Result<Scope, String> {
        match text {
            "read" => Ok(Scope::Read),
            "run" => Ok(Scope::Run),
            "admin" => Ok(Scope::Admin),
            other => Err(format!("expected `read`, `run` or `admin`, got `{other}`")),
        }
    }
}

/// How a server decides who a request acts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// No keys: every request may do anything, to every tenant's episodes. For a server on
    /// loopback, for one user.
    #[default]
    Open,
    /// Every request but the health check, the API document and the page's files needs a key.
    /// With `public_leaderboard`, reading the leaderboard, the runs (and the episodes they
    /// played), the PRM results, the trainings and the envs needs none.
    Keys { public_leaderboard: bool },
}

/// Who a request acts for, and what it may do.
#[derive(Debug, Clone)]
pub struct Caller {
    pub scope: Scope,
    sees: Sees,
    /// The public id of the key it presented, if any (what rate limits count by).
    key: Option<Arc<str>>,
}

/// Whose episodes and runs a caller sees.
#[derive(Debug, Clone)]
enum Sees {
    /// Every tenant's (open mode, and the in-process server of `agentbench run`).
    All,
    /// One tenant's.
    Tenant(Arc<str>),
    /// The runs and the episodes they played, of every tenant: the reader of a public
    /// leaderboard, without a key.
    RecordedRuns,
}

impl Caller {
    /// A caller with every right over every tenant: open mode.
    pub fn open() -> Caller {
        Caller {
            scope: Scope::Admin,
            sees: Sees::All,
            key: None,
        }
    }

    /// A caller acting for `tenant` with `scope`.
    pub fn of_tenant(tenant: &str, scope: Scope) -> Caller {
        Caller {
            scope,
            sees: Sees::Tenant(tenant.into()),
            key: None,
        }
    }

    fn public_reader() -> Caller {
        Caller {
            scope: Scope::Read,
            sees: Sees::RecordedRuns,
            key: None,
        }
    }

    /// The public id of the key this caller presented, if any.
    pub fn key_id(&self) -> Option<&Arc<str>> {
        self.key.as_ref()
    }

    /// The tenant what this caller makes belongs to.
    pub fn tenant(&self) -> &str {
        match &self.sees {
            Sees::Tenant(tenant) => tenant,
            Sees::All | Sees::RecordedRuns => DEFAULT_TENANT,
        }
    }

    /// Whether this caller sees an episode of `tenant` (`recorded`: one a suite run played).
    pub fn sees_episode(&self, tenant: &str, recorded: bool) -> bool {
        match &self.sees {
            Sees::All => true,
            Sees::Tenant(own) => **own == *tenant,
            Sees::RecordedRuns => recorded,
        }
    }

    /// Whether this caller sees a run of `tenant`.
    pub fn sees_run(&self, tenant: &str) -> bool {
        self.sees_episode(tenant, true)
    }
}

/// The caller the middleware named; a route outside it (none is) would answer 500.
impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Caller, ApiError> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::internal("the request has no caller"))
    }
}

/// What a request needs to be let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// Nothing: the health check, the API document, the page's files.
    Nothing,
    /// A key of any scope, or none on a public leaderboard.
    Leaderboard,
    /// A key of any scope.
    Read,
    /// A key that runs episodes.
    Run,
}

/// What a request to `path` with `method` needs. Reads are `GET` and `HEAD`, but for the
/// WebSocket and MCP routes, which take actions.
fn need(method: &Method, path: &str) -> Need {
    if matches!(path, "/healthz" | "/readyz" | "/openapi.json")
        || crate::web::paths().any(|p| p == path)
    {
        return Need::Nothing;
    }
    if !matches!(*method, Method::GET | Method::HEAD)
        || path.ends_with("/ws")
        || path.ends_with("/mcp")
    {
        return Need::Run;
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [
            "v1",
            "leaderboard" | "runs" | "prm-results" | "trainings" | "envs",
            ..,
        ]
        | ["v1", "episodes", _] => Need::Leaderboard,
        _ => Need::Read,
    }
}

/// Names the caller of every request (an extension `Caller` extracts), or refuses it: 401
/// without a valid key, 403 with a key whose scope falls short.
pub(crate) async fn authenticate(
    State(app): State<Arc<App>>,
    mut request: Request,
    next: Next,
) -> Response {
    let (Some(keys), Access::Keys { public_leaderboard }) =
        (&app.keys, app.sessions.settings().access)
    else {
        // Open mode: every request may do anything. A caller set in process (`agentbench run
        // --tenant`) stands.
        if request.extensions().get::<Caller>().is_none() {
            request.extensions_mut().insert(Caller::open());
        }
        return next.run(request).await;
    };
    let need = need(request.method(), request.uri().path());
    let caller = match bearer(request.headers().get(header::AUTHORIZATION)) {
        _ if need == Need::Nothing => Ok(Caller::public_reader()),
        Err(error) => Err(error),
        Ok(None) if need == Need::Leaderboard && public_leaderboard => Ok(Caller::public_reader()),
        Ok(None) => Err(unauthorized(
            "this server needs an API key: send it as `Authorization: Bearer KEY`",
        )),
        Ok(Some(key)) => keys.caller(key).await,
    };
    let caller = match caller {
        Ok(caller) if need == Need::Run && caller.scope < Scope::Run => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            format!(
                "this key's scope is `{}`; taking actions needs `run` or `admin`",
                caller.scope.as_str()
            ),
        )),
        other => other,
    };
    match caller {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(error) => {
            let mut response = error.into_response();
            if response.status() == StatusCode::UNAUTHORIZED {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            response
        }
    }
}

/// The key an `Authorization: Bearer KEY` header carries, if there is one.
fn bearer(value: Option<&HeaderValue>) -> Result<Option<&str>, ApiError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let text = value.to_str().ok().and_then(|text| {
        let (scheme, key) = text.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| key.trim())
    });
    text.map(Some)
        .ok_or_else(|| unauthorized("the `Authorization` header must be `Bearer KEY`"))
}

fn unauthorized(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
}

/// The prefix of every key: `abk_<id>_<secret>`.
const KEY_PREFIX: &str = "abk_";

/// A key just made: the text to hand its user (shown once, never stored) and its row.
#[derive(Debug)]
pub struct NewKey {
    pub key: String,
    pub row: KeyRow,
}

/// Makes a key for `tenant` with `scope`: a public id and a secret of 244 random bits, the
/// secret kept only as its Argon2id hash.
pub fn make_key(tenant: &str, scope: Scope, label: &str) -> Result<NewKey, String> {
    if tenant.is_empty()
        || tenant.len() > 64
        || !tenant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "a tenant is 1 to 64 letters, digits, `-`, `_` or `.`, not `{tenant}`"
        ));
    }
    let id = uuid::Uuid::new_v4().simple().to_string()[..16].to_owned();
    let secret = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let salt = SaltString::encode_b64(uuid::Uuid::new_v4().as_bytes())
        .map_err(|error| error.to_string())?;
    let secret_hash = Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map_err(|error| error.to_string())?
        .to_string();
    Ok(NewKey {
        key: format!("{KEY_PREFIX}{id}_{secret}"),
        row: KeyRow {
            id,
            tenant: tenant.to_owned(),
            scope: scope.as_str().to_owned(),
            label: label.to_owned(),
            secret_hash,
            created_ms: now_ms(),
            revoked_ms: None,
        },
    })
}

/// A key's public id and secret, if `key` has a key's shape.
fn split_key(key: &str) -> Option<(&str, &str)> {
    let (id, secret) = key.strip_prefix(KEY_PREFIX)?.split_once('_')?;
    let hex =
        |text: &str, len: usize| text.len() == len && text.bytes().all(|b| b.is_ascii_hexdigit());
    (hex(id, 16) && hex(secret, 64)).then_some((id, secret))
}

/// How long a checked key is trusted before its row is read again: a revocation takes effect
/// within this.
const RECHECK_AFTER: Duration = Duration::from_secs(5);

/// The most Argon2id checks that run at once: each takes some milliseconds and 19 MiB, and
/// guessed keys must not take the server's cores.
const CONCURRENT_HASHES: usize = 2;

/// The server's keys: each checked once with its slow hash, then by a SHA-256 of the key held in
/// memory, its row (revocation) read again every `RECHECK_AFTER`.
#[derive(Debug)]
pub struct KeyRing {
    store: Store,
    checked: Mutex<HashMap<String, Checked>>,
    hashing: tokio::sync::Semaphore,
}

#[derive(Debug, Clone)]
struct Checked {
    digest: [u8; 32],
    caller: Caller,
    at: Instant,
}

impl KeyRing {
    pub fn new(store: Store) -> KeyRing {
        KeyRing {
            store,
            checked: Mutex::new(HashMap::new()),
            hashing: tokio::sync::Semaphore::new(CONCURRENT_HASHES),
        }
    }

    /// The caller `key` stands for, or 401: malformed, unknown, revoked or wrong.
    async fn caller(&self, key: &str) -> Result<Caller, ApiError> {
        let invalid = || unauthorized("the API key is not valid (unknown, revoked or mistyped)");
        let (id, secret) = split_key(key).ok_or_else(invalid)?;
        let digest: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let known = self.checked.lock().expect("key cache").get(id).cloned();
        if let Some(known) = &known
            && same(&known.digest, &digest)
            && known.at.elapsed() < RECHECK_AFTER
        {
            return Ok(known.caller.clone());
        }
        let row = self.store.key(id).await.map_err(ApiError::from)?;
        let Some(row) = row.filter(|row| row.revoked_ms.is_none()) else {
            self.checked.lock().expect("key cache").remove(id);
            return Err(invalid());
        };
        let matches = match &known {
            Some(known) => same(&known.digest, &digest),
            None => {
                let _permit = self.hashing.acquire().await.map_err(|_| invalid())?;
                let (hash, secret) = (row.secret_hash.clone(), secret.to_owned());
                tokio::task::spawn_blocking(move || verify(&hash, &secret))
                    .await
                    .map_err(|error| ApiError::internal(error.to_string()))?
            }
        };
        if !matches {
            return Err(invalid());
        }
        let scope = row.scope.parse().map_err(|reason: String| {
            ApiError::from(StoreError::Corrupt {
                what: "API key scope",
                reason,
            })
        })?;
        let caller = Caller {
            key: Some(id.into()),
            ..Caller::of_tenant(&row.tenant, scope)
        };
        self.checked.lock().expect("key cache").insert(
            id.to_owned(),
            Checked {
                digest,
                caller: caller.clone(),
                at: Instant::now(),
            },
        );
        Ok(caller)
    }
}

/// Whether `secret` is the one `hash` (a PHC string) was made from.
fn verify(hash: &str, secret: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &parsed)
            .is_ok()
    })
}

/// Compares two digests in time that does not depend on where they differ.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    use super::{Need, Scope, make_key, need, split_key, verify};

    #[test]
    fn keys_verify_against_their_hash_only() {
        let made = make_key("acme", Scope::Run, "ci").unwrap();
        let (id, secret) = split_key(&made.key).unwrap();
        assert_eq!(id, made.row.id);
        assert!(made.row.secret_hash.starts_with("$argon2id$"));
        assert!(!made.row.secret_hash.contains(secret));
        assert!(verify(&made.row.secret_hash, secret));
        let mut wrong = secret.to_owned();
        wrong.replace_range(0..1, if secret.starts_with('0') { "1" } else { "0" });
        assert!(!verify(&made.row.secret_hash, &wrong));
        assert!(make_key("", Scope::Read, "").is_err());
        assert!(make_key("a b", Scope::Read, "").is_err());
        assert!(split_key("abk_short_secret").is_none());
        assert!(split_key(&made.key.replace("abk_", "xyz_")).is_none());
    }

    #[test]
    fn routes_need_what_they_do() {
        let get = |path| need(&Method::GET, path);
        assert_eq!(get("/healthz"), Need::Nothing);
        assert_eq!(get("/"), Need::Nothing);
        assert_eq!(get("/v1/leaderboard"), Need::Leaderboard);
        assert_eq!(get("/v1/runs/run_1/compare/run_2"), Need::Leaderboard);
        assert_eq!(get("/v1/episodes/ep_1"), Need::Leaderboard);
        assert_eq!(get("/v1/episodes/ep_1/action-schema"), Need::Read);
        assert_eq!(get("/openenv/banking/state"), Need::Read);
        assert_eq!(get("/v1/ws"), Need::Run);
        assert_eq!(get("/openenv/banking/ws"), Need::Run);
        assert_eq!(get("/v1/episodes/ep_1/mcp"), Need::Run);
        assert_eq!(need(&Method::POST, "/v1/episodes"), Need::Run);
        assert_eq!(need(&Method::DELETE, "/v1/episodes/ep_1"), Need::Run);
    }
}
