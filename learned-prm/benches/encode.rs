//! What a learned PRM's scoring costs on CPU: the sentence encoder over the texts it reads (every
//! built-in scenario's instruction and the actions of its reference and its attack), in both
//! encodings, as `LearnedScorer` sends them (all the texts in one call). A step needs at most two
//! texts (its instruction, usually already cached for the episode, and its action), so steps/s
//! with no text cached is at least texts/s / 2.
//!
//! `contextual` runs the network on every text. `static` runs it once per token never met
//! before: its first round pays for the distillation of every token in the set, later rounds
//! (new texts made of known tokens, the steady state of a server) only look vectors up.
//!
//! Run: `cargo bench -p agentbench-learned-prm` (needs `encoder/setup.sh` first). Prints texts/s
//! and tokens/s for the whole set, over `AGENTBENCH_BENCH_ROUNDS` rounds of each (default 3).

use std::path::PathBuf;
use std::time::Instant;

use agentbench_datasets::{Suite, builtin_names};
use agentbench_encoder::{DEFAULT_DIR, Encoder, Encoding, MAX_TOKENS};
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
    for encoding in [Encoding::Static, Encoding::Contextual] {
        for round in 0..rounds {
            let started = Instant::now();
            let vectors = encoder.encode_as(encoding, &texts).unwrap();
            let seconds = started.elapsed().as_secs_f64();
            assert_eq!(vectors.len(), texts.len());
            println!(
                "{encoding:?} round {round}: {seconds:8.3} s, {:8.0} texts/s, {:9.0} tokens/s",
                texts.len() as f64 / seconds,
                tokens as f64 / seconds
            );
        }
    }
}
