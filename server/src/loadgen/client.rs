//! The bench's HTTP/1.1 client: a keep-alive pool for creating and deleting episodes, and a
//! connection of its own per stepping client.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use anyhow::{Context as _, bail};
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue};
use hyper::http::uri::Authority;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tokio::net::TcpStream;

use super::{ENV, MAX_STEPS, REQUEST_TIMEOUT};

/// `url` without its trailing slash, checked to be a plain `http://` URL.
pub(super) fn base_url(url: &str) -> anyhow::Result<String> {
    let uri: Uri = url.parse().with_context(|| {
        format!("expected a server URL such as http://127.0.0.1:8080, got {url:?}")
    })?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        bail!("expected a server URL such as http://127.0.0.1:8080, got {url:?}");
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// A keep-alive HTTP/1.1 client of one server.
#[derive(Debug, Clone)]
pub(super) struct Api {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

/// A server's answer: its status and its whole body.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: StatusCode,
    body: Bytes,
}

impl Answer {
    async fn read(response: Response<Incoming>) -> anyhow::Result<Answer> {
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Answer { status, body })
    }

    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// `status NNN: body`, for error messages.
    pub fn describe(&self) -> String {
        format!(
            "status {}: {}",
            self.status.as_u16(),
            String::from_utf8_lossy(&self.body)
        )
    }
}

impl Api {
    pub fn new(base: String) -> Api {
        let mut connector = HttpConnector::new();
        // Requests are small and latency is what we measure, so Nagle's delay must not apply.
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Api { client, base }
    }

    /// The server's base URL (`http://host:port`).
    pub fn base(&self) -> &str {
        &self.base
    }

    fn uri(&self, path: &str) -> anyhow::Result<Uri> {
        let url = format!("{}{path}", self.base);
        url.parse()
            .with_context(|| format!("cannot form a request URL from {url:?}"))
    }

    async fn send(&self, method: Method, uri: Uri, body: Bytes) -> anyhow::Result<Answer> {
        let request = json_request(method, uri, body)?;
        let exchange = async {
            let response = self.client.request(request).await?;
            Answer::read(response).await
        };
        within_timeout(exchange, &self.base).await
    }

    /// A connection of its own for one stepping client.
    pub async fn connect(&self) -> anyhow::Result<Connection> {
        let authority = self
            .uri("")?
            .authority()
            .context("the server URL has no host")?
            .clone();
        let open = async {
            // `http://host` names no port: HTTP's own.
            let address = (authority.host(), authority.port_u16().unwrap_or(80));
            let stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
            anyhow::Ok(Connection {
                sender,
                connection: Box::pin(connection),
                authority,
            })
        };
        within_timeout(open, &self.base).await
    }

    /// Creates an episode; any answer but 201 is an error carrying the server's body.
    pub async fn create_episode(&self, seed: u64) -> anyhow::Result<String> {
        let body = json!({"env": ENV, "seed": seed, "task": {"budget": {"max_steps": MAX_STEPS}}});
        let answer = self
            .send(
                Method::POST,
                self.uri("/v1/episodes")?,
                body.to_string().into(),
            )
            .await?;
        if answer.status != StatusCode::CREATED {
            bail!(
                "the server refused to create an episode: {}",
                answer.describe()
            );
        }
        let created: Value = serde_json::from_slice(&answer.body)
            .with_context(|| format!("expected a JSON episode, got {}", answer.describe()))?;
        created["id"]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("expected an episode with an id, got {}", answer.describe()))
    }

    pub async fn delete_episode(&self, id: &str) -> anyhow::Result<()> {
        let answer = self
            .send(
                Method::DELETE,
                self.uri(&format!("/v1/episodes/{id}"))?,
                Bytes::new(),
            )
            .await?;
        if !answer.status.is_success() {
            bail!("cannot delete episode {id}: {}", answer.describe());
        }
        Ok(())
    }
}

/// One stepping client's own keep-alive connection, driven by the client's task: a step is a
/// write and a read on that task, with no pool to check a connection out of and no hand-off to
/// a connection task and back (each a wake-up, which the bench would count as the server's
/// latency and pay for in processor time the server then lacks).
pub(super) struct Connection {
    sender: http1::SendRequest<Full<Bytes>>,
    connection: Pin<Box<http1::Connection<TokioIo<TcpStream>, Full<Bytes>>>>,
    authority: Authority,
}

impl Connection {
    /// POSTs `body` to `path`; the connection is polled while the answer comes.
    pub async fn post(&mut self, path: &Uri, body: Bytes) -> anyhow::Result<Answer> {
        let mut request = json_request(Method::POST, path.clone(), body)?;
        let host = HeaderValue::from_str(self.authority.as_str())?;
        request.headers_mut().insert(HOST, host);
        let Connection {
            sender, connection, ..
        } = self;
        let exchange = async {
            sender.ready().await?;
            Answer::read(sender.send_request(request).await?).await
        };
        let answer = async {
            tokio::select! {
                answer = exchange => answer,
                ended = connection => match ended {
                    Ok(()) => bail!("the server closed the connection"),
                    Err(error) => Err(error.into()),
                },
            }
        };
        within_timeout(answer, &self.authority).await
    }
}

/// A stepping client's own connection: opened on first use, and again after an exchange on it
/// failed (it may be broken).
pub(super) struct Reconnecting {
    api: Api,
    connection: Option<Connection>,
}

impl Reconnecting {
    pub fn new(api: Api) -> Reconnecting {
        Reconnecting {
            api,
            connection: None,
        }
    }

    /// POSTs `body` to `path`.
    pub async fn post(&mut self, path: &Uri, body: Bytes) -> anyhow::Result<Answer> {
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => self.connection.insert(self.api.connect().await?),
        };
        let answer = connection.post(path, body).await;
        if answer.is_err() {
            self.connection = None;
        }
        answer
    }
}

fn json_request(method: Method, uri: Uri, body: Bytes) -> anyhow::Result<Request<Full<Bytes>>> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(body))
        .context("cannot build a request")
}

/// `exchange`'s result, or an error once `REQUEST_TIMEOUT` has passed without one.
async fn within_timeout<T>(
    exchange: impl Future<Output = anyhow::Result<T>>,
    server: impl fmt::Display,
) -> anyhow::Result<T> {
    tokio::time::timeout(REQUEST_TIMEOUT, exchange)
        .await
        .with_context(|| format!("no answer within {REQUEST_TIMEOUT:?}"))?
        .with_context(|| format!("cannot reach the server at {server}"))
}

#[cfg(test)]
mod tests {
    use super::base_url;

    #[test]
    fn server_urls_must_be_plain_http() {
        assert_eq!(
            base_url("http://127.0.0.1:8080/").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(base_url("https://example.invalid").is_err());
        assert!(base_url("127.0.0.1:8080").is_err());
        assert!(base_url("not a url").is_err());
    }
}
