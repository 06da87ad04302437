//! A request body as the REST API parses it (`agentbench-wire`): the first byte picks the body
//! (0 create an episode, 1 a step, 2 a batch of steps); the rest is its JSON text. Any body must
//! parse or be refused with an error, never panic; what parses must read back as itself from the
//! JSON the server records (the task's runtime settings, every action).

#![no_main]

use agentbench_fuzz::round_trips;
use agentbench_wire::EpisodeSettings;
use agentbench_wire::requests::{BatchStep, CreateEpisode, StepBatch, StepRequest, parse_object};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&body, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    match body % 3 {
        0 => {
            if let Ok(create) = parse_object::<CreateEpisode>(text) {
                let task = create.task.unwrap_or_else(|| serde_json::json!({}));
                if let Ok((settings, _env_task)) = EpisodeSettings::split(&task) {
                    round_trips(&settings);
                }
            }
        }
        1 => {
            if let Ok(step) = parse_object::<StepRequest>(text) {
                round_trips(&step.action);
            }
        }
        _ => {
            if let Ok(batch) = parse_object::<StepBatch>(text) {
                for item in &batch.steps {
                    if let Ok((_episode, step)) = BatchStep::parse(item.get()) {
                        round_trips(&step.action);
                    }
                }
            }
        }
    }
});
