//! The bench's OpenEnv transport: one WebSocket session per client against any server that
//! speaks OpenEnv's WebSocket protocol (this one under `/openenv/{env}/ws`, or OpenEnv's own
//! servers under `/ws`), each reset once and then stepped one action at a time. The same client
//! for every server, so that two servers' figures compare.

use std::time::Instant;

use anyhow::{Context as _, bail};
use futures_util::{SinkExt as _, StreamExt as _};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::phases::{ClientTally, join_opened, micros};
use super::report::{ResetReport, summarize};

pub(super) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What an OpenEnv load sends: the reset's and each step's `data`.
#[derive(Debug, Clone)]
pub struct OpenEnvLoad {
    /// The session socket's path on the server, such as `/openenv/workspace/ws` or `/ws`.
    pub path: String,
    /// The `data` of every reset, a JSON object.
    pub reset: String,
    /// The `data` of every step, a JSON object.
    pub action: String,
}

impl Default for OpenEnvLoad {
    fn default() -> OpenEnvLoad {
        OpenEnvLoad {
            path: OpenEnvLoad::PATH.to_owned(),
            reset: OpenEnvLoad::RESET.to_owned(),
            action: OpenEnvLoad::ACTION.to_owned(),
        }
    }
}

impl OpenEnvLoad {
    /// This server's OpenEnv socket for the bench's env.
    pub const PATH: &str = "/openenv/workspace/ws";
    /// A reset with the env's defaults.
    pub const RESET: &str = "{}";
    /// The action the other transports take (`super::STEP_ACTION`), in OpenEnv's form.
    pub const ACTION: &str = r#"{"type":"call_tool","tool_name":"list_files","arguments":{}}"#;

    /// The message that resets a session.
    fn reset_message(&self) -> String {
        format!(r#"{{"type":"reset","data":{}}}"#, self.reset)
    }

    /// The message that takes the action.
    fn step_message(&self) -> String {
        format!(r#"{{"type":"step","data":{}}}"#, self.action)
    }

    /// Refuses a reset or action that is not a JSON object before any socket opens.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        for (what, text) in [("reset", &self.reset), ("action", &self.action)] {
            let value: serde_json::Value = serde_json::from_str(text)
                .with_context(|| format!("the OpenEnv {what} is not JSON: {text}"))?;
            if !value.is_object() {
                bail!("the OpenEnv {what} must be a JSON object, got {text}");
            }
        }
        Ok(())
    }
}

/// An OpenEnv answer: its type, and for an observation whether the episode is over.
#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    data: AnswerData,
}

#[derive(Debug, Default, Deserialize)]
struct AnswerData {
    #[serde(default)]
    done: bool,
}

/// Opens `n_clients` sessions at `url` (`ws://host:port/path`) and resets each, all at once;
/// returns them with the resets' latencies (connecting included). If any fails, the first
/// failure is returned and the sessions opened are closed.
pub(super) async fn open_sessions(
    url: &str,
    load: &OpenEnvLoad,
    n_clients: usize,
) -> anyhow::Result<(Vec<Socket>, ResetReport)> {
    let started = Instant::now();
    let reset = load.reset_message();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..n_clients {
        let (url, reset) = (url.to_owned(), reset.clone());
        tasks.spawn(async move {
            let sent = Instant::now();
            let (mut socket, _) = tokio_tungstenite::connect_async(url.as_str())
                .await
                .with_context(|| format!("cannot open an OpenEnv session at {url}"))?;
            let (answer, text) = exchange(&mut socket, &reset).await?;
            if answer.kind != "observation" {
                bail!("the server refused a reset: {text}");
            }
            anyhow::Ok((socket, micros(sent.elapsed())))
        });
    }
    let (sockets, latencies, first_error) = join_opened(tasks, "a session-opening task").await;
    if let Some(error) = first_error {
        for socket in sockets {
            close(socket).await;
        }
        return Err(error);
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok((
        sockets,
        ResetReport {
            seconds,
            latency: summarize(latencies),
        },
    ))
}

/// Steps one session until `measure_until`, resetting it whenever its episode ends, then
/// closes it.
pub(super) async fn session_loop(
    mut socket: Socket,
    load: OpenEnvLoad,
    measure_from: Instant,
    measure_until: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    let (reset, step) = (load.reset_message(), load.step_message());
    loop {
        let sent = Instant::now();
        if sent >= measure_until {
            break;
        }
        let done = match exchange(&mut socket, &step).await {
            Ok((answer, _)) if answer.kind == "observation" => {
                if sent >= measure_from {
                    tally.latencies_us.push(micros(sent.elapsed()));
                }
                answer.data.done
            }
            Ok((_, text)) => {
                tally.error(format!("a step: {text}"));
                true
            }
            Err(error) => {
                tally.error(format!("{error:#}"));
                return tally;
            }
        };
        if done && let Err(error) = exchange(&mut socket, &reset).await {
            tally.error(format!("{error:#}"));
            return tally;
        }
    }
    close(socket).await;
    tally
}

/// Sends `message` and reads the answer: parsed, and as text.
async fn exchange(socket: &mut Socket, message: &str) -> anyhow::Result<(Answer, Utf8Bytes)> {
    socket
        .send(Message::text(message))
        .await
        .context("cannot send on the OpenEnv session")?;
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => {
                let answer = serde_json::from_str(text.as_str())
                    .with_context(|| format!("an answer is not OpenEnv's: {text}"))?;
                return Ok((answer, text));
            }
            Some(Ok(Message::Close(frame))) => bail!("the server closed the session: {frame:?}"),
            Some(Ok(_)) => continue,
            Some(Err(error)) => bail!("the OpenEnv session failed: {error}"),
            None => bail!("the server closed the OpenEnv session"),
        }
    }
}

/// Ends a session the way OpenEnv's client does: `close`, then the socket's own close.
async fn close(mut socket: Socket) {
    let _ = socket.send(Message::text(r#"{"type":"close"}"#)).await;
    let _ = socket.close(None).await;
}
