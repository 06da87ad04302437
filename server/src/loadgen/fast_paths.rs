//! The bench's fast paths: stepping many episodes through one WebSocket (`/v1/ws`, one step in
//! flight per episode) or in batches (`POST /v1/steps`, one step of each episode per batch).
//! Each step's latency is its own round trip (socket) or its batch's (batches).

use std::time::Instant;

use futures_util::{SinkExt as _, StreamExt as _};
use hyper::Uri;
use hyper::body::Bytes;
use serde::Deserialize;
use tokio_tungstenite::tungstenite::Message;

use super::STEP_ACTION;
use super::client::{Api, Reconnecting};
use super::phases::{ClientTally, micros};

/// Steps `ids` through one WebSocket at `url` (`ws://…/v1/ws`) until `measure_until`, keeping
/// one step of each episode in flight.
pub(super) async fn socket_loop(
    url: String,
    ids: Vec<String>,
    measure_from: Instant,
    measure_until: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    let mut socket = match tokio_tungstenite::connect_async(url.as_str()).await {
        Ok((socket, _)) => socket,
        Err(error) => {
            tally.error(format!("cannot open a WebSocket to {url}: {error}"));
            return tally;
        }
    };
    let body = &STEP_ACTION;
    let messages: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(index, id)| {
            format!(r#"{{"id":{index},"op":"step","episode":"{id}","body":{body}}}"#)
        })
        .collect();
    let mut sent = vec![Instant::now(); ids.len()];
    for (index, message) in messages.iter().enumerate() {
        sent[index] = Instant::now();
        if let Err(error) = socket.send(Message::text(message.as_str())).await {
            tally.error(format!("cannot send a step: {error}"));
            return tally;
        }
    }
    #[derive(Deserialize)]
    struct Answer {
        id: usize,
        status: u16,
    }
    let mut in_flight = ids.len();
    while in_flight > 0 {
        let text = match socket.next().await {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(_)) => continue,
            Some(Err(error)) => {
                tally.error(format!("the WebSocket failed: {error}"));
                return tally;
            }
            None => {
                tally.error("the server closed the WebSocket".to_owned());
                return tally;
            }
        };
        let answer: Answer = match serde_json::from_str(text.as_str()) {
            Ok(answer) => answer,
            Err(error) => {
                tally.error(format!("an answer is not one: {error}"));
                return tally;
            }
        };
        let Some(&started) = sent.get(answer.id) else {
            tally.error(format!("an answer to no step: id {}", answer.id));
            return tally;
        };
        if answer.status == 200 {
            if started >= measure_from {
                tally.latencies_us.push(micros(started.elapsed()));
            }
        } else {
            tally.error(format!(
                "step on {}: status {}: {text}",
                ids[answer.id], answer.status
            ));
        }
        let now = Instant::now();
        if now >= measure_until {
            in_flight -= 1;
            continue;
        }
        sent[answer.id] = now;
        if let Err(error) = socket
            .send(Message::text(messages[answer.id].as_str()))
            .await
        {
            tally.error(format!("cannot send a step: {error}"));
            return tally;
        }
    }
    let _ = socket.close(None).await;
    tally
}

/// Steps `ids` in batches of one step each, on a connection of its own, until `measure_until`.
pub(super) async fn batch_loop(
    api: Api,
    ids: Vec<String>,
    measure_from: Instant,
    measure_until: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    let path = Uri::from_static("/v1/steps");
    let action = &STEP_ACTION[1..STEP_ACTION.len() - 1];
    let items: Vec<String> = ids
        .iter()
        .map(|id| format!(r#"{{"episode":"{id}",{action}}}"#))
        .collect();
    let body = Bytes::from(format!(r#"{{"steps":[{}]}}"#, items.join(",")));
    #[derive(Deserialize)]
    struct Results {
        results: Vec<Item>,
    }
    #[derive(Deserialize)]
    struct Item {
        status: u16,
    }
    let mut connection = Reconnecting::new(api);
    loop {
        let sent = Instant::now();
        if sent >= measure_until {
            return tally;
        }
        let answer = match connection.post(&path, body.clone()).await {
            Ok(answer) if answer.status.is_success() => answer,
            Ok(answer) => {
                tally.error(format!("a batch: {}", answer.describe()));
                continue;
            }
            Err(error) => {
                tally.error(format!("a batch: {error:#}"));
                continue;
            }
        };
        let results: Results = match serde_json::from_slice(answer.body()) {
            Ok(results) => results,
            Err(error) => {
                tally.error(format!("a batch's answer is not one: {error}"));
                continue;
            }
        };
        let latency = micros(sent.elapsed());
        for (item, id) in results.results.iter().zip(&ids) {
            if item.status != 200 {
                tally.error(format!("step on {id} in a batch: status {}", item.status));
            } else if sent >= measure_from {
                tally.latencies_us.push(latency);
            }
        }
    }
}
