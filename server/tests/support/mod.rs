//! Test support: databases of both kinds (a SQLite file in a temporary folder; a PostgreSQL
//! database created on the local server and dropped afterwards), `agentbench serve` as a real
//! process, and a small HTTP/1.1 client over plain TCP.

#![allow(dead_code)]

use std::io::{BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// The PostgreSQL server the tests use; `AGENTBENCH_TEST_POSTGRES` overrides it.
fn postgres_admin_url() -> String {
    std::env::var("AGENTBENCH_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A database of its own for one test, removed when dropped.
#[derive(Debug)]
pub enum Db {
    Sqlite { dir: tempfile::TempDir },
    Postgres { name: String },
}

impl Db {
    pub fn sqlite() -> Db {
        Db::Sqlite {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A SQLite file in a new folder under `parent` (for a database kept after the test).
    pub fn sqlite_in(parent: &std::path::Path) -> Db {
        Db::Sqlite {
            dir: tempfile::tempdir_in(parent).unwrap(),
        }
    }

    pub fn postgres() -> Db {
        let name = format!("agentbench_test_{}", uuid::Uuid::new_v4().simple());
        admin(&format!("CREATE DATABASE {name}"));
        Db::Postgres { name }
    }

    pub fn url(&self) -> String {
        match self {
            Db::Sqlite { dir } => format!("sqlite://{}", dir.path().join("test.db").display()),
            Db::Postgres { name } => {
                let admin = postgres_admin_url();
                let base = admin
                    .rsplit_once('/')
                    .map_or(admin.as_str(), |(base, _)| base);
                format!("{base}/{name}")
            }
        }
    }
}

impl Db {
    /// Runs one statement on this database, as an operator with a SQL shell would.
    pub fn execute(&self, statement: &str) {
        run_sql(self.url(), statement.to_owned(), false);
    }

    /// The number in the first column of the first row `query` returns (`SELECT count(*) ...`).
    pub fn number(&self, query: &str) -> i64 {
        run_sql(self.url(), query.to_owned(), true).expect("a query's number")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Db::Postgres { name } = self {
            admin(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}

/// Runs one statement on the PostgreSQL server's maintenance database.
fn admin(statement: &str) {
    run_sql(postgres_admin_url(), statement.to_owned(), false);
}

/// Runs one statement on the database at `url`, on a thread of its own so that it works inside
/// and outside a tokio runtime.
/// Runs `statement`; with `number`, returns the first column of its first row.
fn run_sql(url: String, statement: String, number: bool) -> Option<i64> {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                use sqlx::Connection as _;
                sqlx::any::install_default_drivers();
                let mut connection =
                    sqlx::AnyConnection::connect(&url)
                        .await
                        .unwrap_or_else(|error| {
                            panic!(
                                "cannot reach the database at {url} (for PostgreSQL, set \
                             AGENTBENCH_TEST_POSTGRES to another server): {error}"
                            )
                        });
                let statement = sqlx::AssertSqlSafe(statement);
                if number {
                    let query = sqlx::query_scalar::<_, i64>(statement);
                    return Some(query.fetch_one(&mut connection).await.unwrap());
                }
                sqlx::raw_sql(statement)
                    .execute(&mut connection)
                    .await
                    .unwrap();
                None
            })
    })
    .join()
    .unwrap()
}

/// `agentbench serve` as a child process; killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    /// Starts a server on a free loopback port with `args`, and waits until it listens.
    pub fn start(db: &Db, args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentbench"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db", &db.url()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        // Owned from here on, so that a failing start kills the process too.
        let mut server = Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let mut before = Vec::new();
        let addr = agentbench_server::read_listening_address(&mut stderr, |line| {
            before.push(line.to_owned());
        })
        .unwrap()
        .unwrap_or_else(|| panic!("the server exited before it listened: {before:?}"));
        server.addr = addr.parse().unwrap();
        // Keep draining stderr so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = stderr.read_to_string(&mut sink);
        });
        server
    }

    /// Stops the server the hard way, as a crash would.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// One HTTP/1.1 request on a fresh connection; returns the status, the head (lowercased)
    /// and the JSON body.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Response {
        let mut stream = self.send(method, path, body);
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let head = head.to_ascii_lowercase();
        let json = head.contains("content-type: application/json");
        Response {
            status,
            body: if json {
                serde_json::from_str(body).unwrap()
            } else {
                Value::Null
            },
            text: body.to_owned(),
            head,
        }
    }

    /// Sends a request and hangs up at once, without reading the answer, as a client that gives
    /// up does: the server may or may not have started on the request when it sees the
    /// connection close.
    pub fn hang_up(&self, method: &str, path: &str, body: &Value) {
        let stream = self.send(method, path, Some(body));
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    }

    /// Writes one HTTP/1.1 request on a fresh connection, which the server closes after its
    /// answer.
    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> TcpStream {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nhost: agentbench\r\nconnection: close\r\n\
             content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        stream
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.request("POST", path, Some(body))
    }

    /// Creates an episode and returns its id.
    pub fn create(&self, body: &Value) -> String {
        let created = self.post("/v1/episodes", body);
        assert_eq!(created.status, 201, "{}", created.body);
        created.body["id"].as_str().unwrap().to_owned()
    }

    /// Takes a step and returns the response.
    pub fn step(&self, id: &str, body: &Value) -> Response {
        self.post(&format!("/v1/episodes/{id}/steps"), body)
    }

    pub fn episode(&self, id: &str) -> Value {
        let response = self.get(&format!("/v1/episodes/{id}"));
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub head: String,
    /// The body, when it is JSON (`null` otherwise).
    pub body: Value,
    pub text: String,
}

impl Response {
    /// The error code of an error body.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    /// A response header's value (`name` lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .map(str::trim)
    }
}

/// Asserts that `instance` fits the schema `name` of the OpenAPI `document`'s components, and
/// that the schema is not one that fits anything.
pub fn assert_fits(document: &Value, name: &str, instance: &Value) {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<_> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{instance}");
    assert!(
        !validator.is_valid(&serde_json::json!({})),
        "{name} must not accept anything"
    );
}
