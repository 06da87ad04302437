//! `agentbench serve`'s connection limits over real sockets: clients that send half a request,
//! nothing at all, or a body that stops arriving are cut off, idle keep-alive connections are
//! closed, and connections past the cap wait in the backlog until one closes.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use agentbench_tests::{Db, Server};

/// How long a test waits for the server to do what a limit of one second makes it do: long
/// enough for a loaded machine, and the test never asserts that anything was quick.
const GUARD: Duration = Duration::from_secs(30);

/// Reads until the server closes the connection and returns what it sent; panics when it has
/// not closed it within `GUARD`.
fn read_until_closed(stream: &mut TcpStream) -> String {
    stream.set_read_timeout(Some(GUARD)).unwrap();
    let mut read = Vec::new();
    match stream.read_to_end(&mut read) {
        Ok(_) => {}
        Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            panic!("the server kept the connection open for {GUARD:?}")
        }
        // A reset closes it too.
        Err(_) => {}
    }
    String::from_utf8_lossy(&read).into_owned()
}

/// Sends `GET /healthz` on a keep-alive connection and reads the whole answer, leaving the
/// connection open; returns the status line.
fn healthz(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: agentbench\r\n\r\n")
        .unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let length: usize = head
        .split("content-length: ")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next())
        .and_then(|length| length.parse().ok())
        .unwrap_or_else(|| panic!("no content-length in {head}"));
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    head.lines().next().unwrap().to_owned()
}

#[test]
fn slow_silent_and_idle_clients_are_disconnected() {
    let db = Db::sqlite();
    let server = Server::start(&db, &["--header-timeout", "1s"]);
    let mut silent = TcpStream::connect(server.addr).unwrap();
    let mut partial = TcpStream::connect(server.addr).unwrap();
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: agentbench\r\nx-dripped: ")
        .unwrap();
    let mut idle = TcpStream::connect(server.addr).unwrap();
    assert_eq!(healthz(&mut idle), "http/1.1 200 ok");

    for (client, stream) in [
        ("silent", &mut silent),
        ("partial", &mut partial),
        ("idle", &mut idle),
    ] {
        let sent = read_until_closed(stream);
        assert!(!sent.contains("200"), "{client}: {sent}");
    }
    // The server itself is fine.
    assert_eq!(server.get("/healthz").status, 200);
}

#[test]
fn a_body_that_stops_arriving_answers_408_and_the_connection_closes() {
    let db = Db::sqlite();
    let server = Server::start(&db, &["--body-timeout", "1s"]);
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .write_all(
            b"POST /v1/episodes HTTP/1.1\r\nhost: agentbench\r\ncontent-type: application/json\r\n\
              content-length: 100\r\n\r\n{\"env\": ",
        )
        .unwrap();
    let answer = read_until_closed(&mut stream);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"request_timeout\""), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    // Nothing was created.
    assert_eq!(db.number("SELECT count(*) FROM episodes"), 0);
}

#[test]
fn connections_past_the_cap_wait_until_one_closes() {
    let db = Db::sqlite();
    let server = Server::start(&db, &["--max-connections", "2"]);
    let mut first = TcpStream::connect(server.addr).unwrap();
    let mut second = TcpStream::connect(server.addr).unwrap();
    assert_eq!(healthz(&mut first), "http/1.1 200 ok");
    assert_eq!(healthz(&mut second), "http/1.1 200 ok");

    // The third connects (the kernel's backlog takes it) but is not served while two are open.
    let mut third = TcpStream::connect(server.addr).unwrap();
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: agentbench\r\nconnection: close\r\n\r\n")
        .unwrap();
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut byte = [0];
    let waited = third.read(&mut byte).unwrap_err();
    assert!(
        matches!(waited.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{waited}"
    );

    drop(first);
    let answer = read_until_closed(&mut third);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(healthz(&mut second), "http/1.1 200 ok");
}
