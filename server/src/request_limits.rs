//! Checks every request meets before a handler sees it: the `Host` it names must be one the
//! server was told to answer (when it was told any), and its body must arrive within a deadline.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::HOST;
use axum::http::uri::Authority;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Body as _, Frame, SizeHint};

use crate::ConnectionLimits;
use crate::api_error::ApiError;

/// Refuses a request whose `Host` (or, without one, the authority of its target) is not among
/// `limits.allowed_hosts`, when that list is not empty: a browser page of another site that
/// resolves its own name to this server (DNS rebinding) names its own host.
pub(crate) async fn check_host(
    State(limits): State<Arc<ConnectionLimits>>,
    request: Request,
    next: Next,
) -> Response {
    if limits.allowed_hosts.is_empty() {
        return next.run(request).await;
    }
    let named = request
        .headers()
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        });
    match named {
        Some(host) if host_allowed(&limits.allowed_hosts, host) => next.run(request).await,
        named => ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "host_not_allowed",
            format!(
                "this server answers requests for {} only, not for `{}`",
                limits.allowed_hosts.join(", "),
                named.unwrap_or("(no host)")
            ),
        )
        .into_response(),
    }
}

/// Whether `host` (`name` or `name:port`) matches an allowed entry: a `name` entry any port of
/// that name, a `name:port` entry that port only; names compare ignoring case.
fn host_allowed(allowed: &[String], host: &str) -> bool {
    let Ok(named) = host.parse::<Authority>() else {
        return false;
    };
    let name = named.host();
    allowed.iter().any(|entry| {
        let Ok(entry) = entry.parse::<Authority>() else {
            return false;
        };
        entry.host().eq_ignore_ascii_case(name)
            && entry
                .port_u16()
                .is_none_or(|port| named.port_u16() == Some(port))
    })
}

/// Gives the request's body `limits.body_timeout` from now to arrive in full: a body still
/// arriving then fails to read with `BodyTimedOut`, which the API answers 408. A request with no
/// body (most reads) has nothing to time, and gets no timer.
pub(crate) async fn body_deadline(
    State(limits): State<Arc<ConnectionLimits>>,
    request: Request,
    next: Next,
) -> Response {
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let within = limits.body_timeout;
    let request = request.map(|body| {
        Body::new(DeadlineBody {
            inner: body,
            deadline: Box::pin(tokio::time::sleep(within)),
            within,
        })
    });
    next.run(request).await
}

/// A request body that fails once its deadline passes before its end.
struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    within: Duration,
}

/// The error a request body fails with when it did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {}s", .0.as_secs_f64())]
pub(crate) struct BodyTimedOut(Duration);

impl hyper::body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let body = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut body.inner).poll_frame(context) {
            return Poll::Ready(frame);
        }
        match body.deadline.as_mut().poll(context) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut(body.within))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `error`, or an error it was caused by, is a `BodyTimedOut`.
pub(crate) fn timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(error), |error| error.source())
        .any(|error| error.is::<BodyTimedOut>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_by_name_and_by_port_when_the_entry_names_one() {
        let allowed = ["localhost".to_owned(), "127.0.0.1:8080".to_owned()];
        let check = |host: &str, expected: bool| {
            assert_eq!(host_allowed(&allowed, host), expected, "{host}");
        };
        check("localhost", true);
        check("LocalHost:9000", true);
        check("127.0.0.1:8080", true);
        check("127.0.0.1", false);
        check("127.0.0.1:8081", false);
        check("attacker.example", false);
        check("localhost.attacker.example:8080", false);
        check("", false);
        check("local host", false);
    }
}
