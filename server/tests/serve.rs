//! `agentbench serve` as a real process on loopback: an episode over real HTTP, and the 429 with
//! its `Retry-After`.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// The server process; killed when dropped, so a failing test leaves nothing running.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentbench"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("agentbench listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .parse()
        .unwrap();
    Server { child, addr }
}

/// One HTTP/1.1 request on a fresh connection; returns the status, the headers (lowercased
/// names) and the JSON body.
fn http(server: &Server, method: &str, path: &str, body: Option<Value>) -> (u16, String, Value) {
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let body = body.map(|body| body.to_string()).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: agentbench\r\nconnection: close\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).unwrap()
    };
    (status, head.to_ascii_lowercase(), body)
}

#[test]
fn an_episode_over_real_http() {
    let server = serve(&[]);
    let (status, _, created) = http(
        &server,
        "POST",
        "/v1/episodes",
        Some(json!({"env": "workspace", "seed": 2})),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let step = json!({"action": {"tool": "list_files", "arguments": {}}, "request_id": "a"});
    let (status, _, first) = http(
        &server,
        "POST",
        &format!("/v1/episodes/{id}/steps"),
        Some(step.clone()),
    );
    assert_eq!(
        (status, first["status"].clone()),
        (200, json!("ok")),
        "{first}"
    );
    let (_, _, retried) = http(
        &server,
        "POST",
        &format!("/v1/episodes/{id}/steps"),
        Some(step),
    );
    assert_eq!(first, retried);
    let (status, _, episode) = http(&server, "GET", &format!("/v1/episodes/{id}"), None);
    assert_eq!(status, 200);
    assert_eq!(episode["steps"].as_array().unwrap().len(), 1);
}

#[test]
fn at_capacity_creation_answers_429_with_retry_after() {
    let server = serve(&["--max-open-episodes", "1"]);
    let create = || {
        http(
            &server,
            "POST",
            "/v1/episodes",
            Some(json!({"env": "workspace"})),
        )
    };
    assert_eq!(create().0, 201);
    let (status, head, body) = create();
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (429, json!("too_many_episodes"))
    );
    assert!(head.contains("\r\nretry-after: 1"), "{head}");
}
