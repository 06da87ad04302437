//! Per-key rate limits: tower_governor's middleware over governor's keyed limiter (GCRA). Each
//! request counts against its API key, or, without one, against its peer's address; past the
//! quota it answers 429 `rate_limited` with `Retry-After`, before any handler runs.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use axum::response::IntoResponse;
use governor::clock::QuantaInstant;
use governor::middleware::NoOpMiddleware;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

use crate::api_error::ApiError;
use crate::auth::Caller;

/// A quota: requests per second, sustained, and how many may come at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub per_second: u32,
    pub burst: u32,
}

/// Whom a request counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Counted {
    /// An API key, by its public id.
    Key(Arc<str>),
    /// A request without a key, by its peer's address.
    Peer(IpAddr),
    /// A request without a key or a peer (in process).
    Local,
}

/// Reads whom a request counts against: the key the auth middleware named, or the peer the
/// serving loop recorded.
#[derive(Debug, Clone, Copy)]
struct CountedBy;

impl KeyExtractor for CountedBy {
    type Key = Counted;

    fn extract<T>(&self, request: &Request<T>) -> Result<Counted, GovernorError> {
        let key = request
            .extensions()
            .get::<Caller>()
            .and_then(Caller::key_id);
        if let Some(key) = key {
            return Ok(Counted::Key(key.clone()));
        }
        Ok(request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(Counted::Local, |ConnectInfo(peer)| Counted::Peer(peer.ip())))
    }
}

/// One server's limiter, shared by every serving thread's router: a key's quota is the same
/// whichever thread its connections land on.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    config: Arc<GovernorConfig<CountedBy, NoOpMiddleware<QuantaInstant>>>,
}

impl RateLimiter {
    /// A limiter of `limit`; on a tokio runtime it forgets idle keys once a minute.
    pub fn new(limit: RateLimit) -> RateLimiter {
        let per_second = u64::from(limit.per_second.max(1));
        let config = GovernorConfigBuilder::default()
            .key_extractor(CountedBy)
            .per_nanosecond(1_000_000_000 / per_second)
            .burst_size(limit.burst.max(1))
            .finish()
            .expect("a non-zero period and burst");
        let limiter = Arc::clone(config.limiter());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let mut ticks = tokio::time::interval(Duration::from_secs(60));
                loop {
                    ticks.tick().await;
                    limiter.retain_recent();
                    limiter.shrink_to_fit();
                }
            });
        }
        RateLimiter {
            config: Arc::new(config),
        }
    }

    /// `router` with this limit on every request.
    pub(crate) fn limit<S: Clone + Send + Sync + 'static>(&self, router: Router<S>) -> Router<S> {
        router.layer(GovernorLayer::new(Arc::clone(&self.config)).error_handler(refusal))
    }
}

/// A refusal as the API's JSON error body.
fn refusal(error: GovernorError) -> axum::response::Response {
    match error {
        GovernorError::TooManyRequests { wait_time, .. } => ApiError {
            retry_after_seconds: Some(u32::try_from(wait_time.max(1)).unwrap_or(u32::MAX)),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("this key (or address) is over its rate limit; retry in {wait_time} s"),
            )
        },
        other => ApiError::internal(other.to_string()),
    }
    .into_response()
}
