//! What a learned PRM's scoring costs on CPU: the sentence encoder over the texts it reads (every
//! built-in scenario's instruction and the actions of its reference and its attack), encoded
//! cold in batches of similar lengths, as `LearnedScorer` sends them. A step needs at most two
//! texts (its instruction, usually already cached for the episode, and its action), so steps/s
//! on a cold cache is at least texts/s / 2.
//!
//! Run: `cargo bench -p agentbench-learned-prm` (needs `encoder/setup.sh` first). Prints texts/s
//! and tokens/s for the whole set, over `AGENTBENCH_BENCH_ROUNDS` rounds (default 3).

use std::path::PathBuf;
use std::time::Instant;

use agentbench_datasets::{Suite, builtin_names};
use agentbench_encoder::{DEFAULT_DIR, Encoder, MAX_TOKENS};
use agentbench_learned_prm::action_text;

fn main() {
    let rounds: usize = std::env::var("AGENTBENCH_BENCH_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(3);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let encoder = Encoder::load(&root.join(DEFAULT_DIR)).expect("run encoder/setup.sh first");
    let mut texts: Vec<String> = Vec::new();
    for name in builtin_names() {
        for scenario in Suite::builtin(name).unwrap().scenarios {
            texts.push(scenario.instruction.clone());
            texts.extend(
                scenario
                    .reference
                    .iter()
                    .chain(&scenario.attack_actions)
                    .map(action_text),
            );
        }
    }
    texts.sort();
    texts.dedup();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens: usize = texts
        .iter()
        .map(|text| encoder.tokenizer().encode(text, MAX_TOKENS).len())
        .sum();
    println!(
        "{} distinct texts, {tokens} tokens ({:.1} a text)",
        texts.len(),
        tokens as f64 / texts.len() as f64
    );
    for round in 0..rounds {
        let started = Instant::now();
        let vectors = encoder.encode(&texts).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(vectors.len(), texts.len());
        println!(
            "round {round}: {seconds:.2} s, {:.0} texts/s, {:.0} tokens/s",
            texts.len() as f64 / seconds,
            tokens as f64 / seconds
        );
    }
}
