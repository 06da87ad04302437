//! Several `agentbench serve` nodes on one PostgreSQL database (the machine's): clients step
//! every episode through random nodes while one node is killed (`kill -9`) mid-load, and every
//! answered step is recorded once while every episode goes on on the other nodes. Also: one
//! request raced on two nodes, a dead node's lease taken over once it lapses, and expiry decided
//! by the record rather than by one node's view. The tests print their counts and times, which
//! the issue notes report (`cargo test -p agentbench-tests --test nodes -- --nocapture`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use agentbench_tests::{Db, Server, list_files_step, recorded_request_ids, try_request};

/// A short lease, so that a dead node's episodes are taken over within seconds.
const LEASE_TTL: &str = "2s";

fn task() -> Value {
    json!({"budget": {"max_steps": 1_000_000}})
}

fn nodes(db: &Db, count: usize, args: &[&str]) -> Vec<Server> {
    (0..count).map(|_| Server::start(db, args)).collect()
}

/// A small deterministic generator (xorshift), so that a failing run can be read again.
struct Picks(u64);

impl Picks {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn three_nodes_step_every_episode_through_random_nodes_and_survive_a_killed_node() {
    let db = Db::postgres();
    let servers = nodes(&db, 3, &["--lease-ttl", LEASE_TTL]);
    let episodes: Vec<String> = (0..12)
        .map(|seed| {
            servers[seed % 3].create(&json!({"env": "workspace", "seed": seed, "task": task()}))
        })
        .collect();
    let (killed, stop) = (AtomicBool::new(false), AtomicBool::new(false));
    let (retries, answered_after_kill) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let answered = Mutex::new(BTreeSet::new());
    let slowest_after_kill = Mutex::new(Duration::ZERO);
    let refusals = Mutex::new(BTreeMap::<String, usize>::new());
    std::thread::scope(|scope| {
        for client in 0..6_u64 {
            let (servers, episodes) = (&servers, &episodes);
            let (killed, stop, retries, answered_after_kill) =
                (&killed, &stop, &retries, &answered_after_kill);
            let (answered, slowest_after_kill, refusals) =
                (&answered, &slowest_after_kill, &refusals);
            scope.spawn(move || {
                let mut picks = Picks(0x9E37_79B9_7F4A_7C15 ^ (client + 1));
                for n in 0.. {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let episode = &episodes[picks.below(episodes.len())];
                    let request_id = format!("c{client}-{n}");
                    let path = format!("/v1/episodes/{episode}/steps");
                    let started = Instant::now();
                    // Until some node answers it; a retry is the same request.
                    loop {
                        let node = picks.below(servers.len());
                        let dead = killed.load(Ordering::SeqCst);
                        let body = list_files_step(&request_id);
                        match try_request(servers[node].addr, "POST", &path, &[], Some(&body)) {
                            Ok(answer) if answer.status == 200 => {
                                assert_eq!(answer.body["request_id"], request_id.as_str());
                                break;
                            }
                            Ok(answer) => {
                                assert_eq!(answer.status, 503, "{}", answer.body);
                                let code = answer.code().to_owned();
                                assert!(
                                    ["episode_busy", "episode_moved"].contains(&code.as_str()),
                                    "{}",
                                    answer.body
                                );
                                *refusals.lock().unwrap().entry(code).or_default() += 1;
                            }
                            // Node 0 is gone (or went mid-request).
                            Err(error) => assert!(
                                node == 0 && (dead || killed.load(Ordering::SeqCst)),
                                "node {node}: {error}"
                            ),
                        }
                        retries.fetch_add(1, Ordering::SeqCst);
                        assert!(
                            started.elapsed() < Duration::from_secs(30),
                            "no node answered {request_id} on {episode}"
                        );
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    if killed.load(Ordering::SeqCst) {
                        answered_after_kill.fetch_add(1, Ordering::SeqCst);
                        let took = started.elapsed();
                        let mut slowest = slowest_after_kill.lock().unwrap();
                        *slowest = (*slowest).max(took);
                    }
                    answered
                        .lock()
                        .unwrap()
                        .insert((episode.clone(), request_id));
                }
            });
        }
        std::thread::sleep(Duration::from_millis(2000));
        killed.store(true, Ordering::SeqCst);
        servers[0].kill_9();
        std::thread::sleep(Duration::from_millis(4000));
        stop.store(true, Ordering::SeqCst);
    });
    let answered = answered.into_inner().unwrap();
    let after_kill = answered_after_kill.load(Ordering::SeqCst);
    assert!(
        answered.len() >= 60 && after_kill >= 12,
        "the load ran: {} answered, {after_kill} after the kill",
        answered.len()
    );

    // Every step was retried until answered, so every one sent is recorded, once.
    let record = recorded_request_ids(&servers[1], &episodes);
    let recorded_steps: BTreeSet<(String, String)> = record
        .iter()
        .flat_map(|(episode, ids)| ids.iter().map(|id| (episode.clone(), id.clone())))
        .collect();
    assert_eq!(
        recorded_steps, answered,
        "the record holds exactly the steps answered"
    );
    // The episodes moved between nodes: their leases' last holders differ.
    let lease_holders = db.number("SELECT count(DISTINCT node) FROM episode_leases");
    assert!(lease_holders >= 2, "the episodes moved between nodes");

    // Every episode goes on, on either node left.
    for (n, episode) in episodes.iter().enumerate() {
        let answer = servers[1 + n % 2].step(episode, &list_files_step(&format!("after-{n}")));
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["index"], record[episode].len());
    }
    eprintln!(
        "3 nodes, node 0 killed mid-load: {} steps answered ({after_kill} after the kill), each \
         recorded once; {} retries ({:?} refused, the rest to the dead node); slowest step after \
         the kill {:?} (lease TTL {LEASE_TTL})",
        answered.len(),
        retries.load(Ordering::SeqCst),
        refusals.into_inner().unwrap(),
        slowest_after_kill.into_inner().unwrap(),
    );
}

#[test]
fn one_request_raced_on_two_nodes_is_recorded_once_and_answered_alike() {
    let db = Db::postgres();
    let servers = nodes(&db, 2, &[]);
    let episode = servers[0].create(&json!({"env": "workspace", "seed": 3, "task": task()}));
    for round in 0..20 {
        let request_id = format!("raced-{round}");
        let answers: Vec<Value> = std::thread::scope(|scope| {
            let racers: Vec<_> = servers
                .iter()
                .map(|server| {
                    let (episode, request_id) = (&episode, &request_id);
                    scope.spawn(move || server.step(episode, &list_files_step(request_id)))
                })
                .collect();
            racers
                .into_iter()
                .map(|racer| {
                    let answer = racer.join().unwrap();
                    assert_eq!(answer.status, 200, "{}", answer.body);
                    answer.body
                })
                .collect()
        });
        assert_eq!(answers[0]["index"], round);
        assert_eq!(answers[0]["index"], answers[1]["index"]);
        assert_eq!(answers[0]["observation"], answers[1]["observation"]);
        assert_eq!(answers[0]["request_id"], answers[1]["request_id"]);
    }
    let record = recorded_request_ids(&servers[1], std::slice::from_ref(&episode));
    assert_eq!(
        record[&episode].len(),
        20,
        "each raced request recorded once"
    );
}

#[test]
fn a_dead_nodes_lease_is_taken_over_once_it_lapses() {
    let db = Db::postgres();
    let mut servers = nodes(&db, 2, &["--lease-ttl", LEASE_TTL]);
    let episode = servers[0].create(&json!({"env": "workspace", "seed": 5, "task": task()}));
    assert_eq!(
        servers[0].step(&episode, &list_files_step("first")).status,
        200
    );
    // Node 0 dies while it holds the episode's lease for a request (as if killed mid-step).
    servers.remove(0).kill();
    db.execute(&format!(
        "UPDATE episode_leases SET expires_ms = \
         (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT + 2000 \
         WHERE episode_id = '{episode}'"
    ));
    let started = Instant::now();
    let answer = servers[0].step(&episode, &list_files_step("second"));
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.body["index"], 1,
        "the new node went on from the record"
    );
    // It waited for the lease to lapse rather than act beside its holder.
    assert!(took >= Duration::from_millis(1500), "took over in {took:?}");
    eprintln!("took a dead node's episode over in {took:?} (lease TTL {LEASE_TTL})");
}

#[test]
fn expiry_follows_the_record_not_one_nodes_view() {
    let db = Db::postgres();
    let servers = nodes(&db, 2, &["--episode-ttl", "2s"]);
    let create =
        |seed: u64| servers[0].create(&json!({"env": "workspace", "seed": seed, "task": task()}));
    let (used, idle) = (create(1), create(2));
    // `used` is made on node 0 and used only on node 1, for twice the TTL.
    let started = Instant::now();
    let mut n = 0;
    while started.elapsed() < Duration::from_secs(4) {
        let answer = servers[1].step(&used, &list_files_step(&format!("s{n}")));
        assert_eq!(answer.status, 200, "{}", answer.body);
        n += 1;
        std::thread::sleep(Duration::from_millis(400));
    }
    assert_eq!(servers[0].episode(&used)["state"], "open");
    assert_eq!(
        servers[0].step(&used, &list_files_step("on-node-0")).status,
        200
    );
    // `idle` expires, on whichever node.
    let deadline = Instant::now() + Duration::from_secs(30);
    while servers[1].episode(&idle)["state"] != "expired" {
        assert!(Instant::now() < deadline, "the idle episode never expired");
        std::thread::sleep(Duration::from_millis(200));
    }
    let answer = servers[1].step(&idle, &list_files_step("late"));
    assert_eq!((answer.status, answer.code()), (409, "episode_expired"));
}
