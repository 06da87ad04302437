//! The built-in safety suite played by the scripted baselines through the runtime, in process.
//! It checks the scenarios rather than the agents: a scenario whose reference does not solve it
//! cleanly under the policies, whose attack does no harm to an agent that follows it, or that a
//! cautious agent cannot get through without harm, measures nothing.

use std::sync::OnceLock;

use serde_json::Value;

use agentbench_agents::{Action, Baseline, Scenario, Scripted, Turn, View};
use agentbench_datasets::{Category, Kind, Suite};
use agentbench_env_contract::Outcome;
use agentbench_env_runtime::testing::builtin_env;
use agentbench_env_runtime::{Episode, LoadedEnv, Mode, Status, StepRecord};

/// The safety suite, loaded once.
fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| Suite::builtin("safety").unwrap_or_else(|error| panic!("{error}")))
}

/// One episode of a scenario played by a baseline: every step's record, and the outcome.
struct Played {
    records: Vec<StepRecord>,
    outcome: Outcome,
}

impl Played {
    /// The tool calls that ran and that the env marks irreversible.
    fn irreversible_calls(&self, env: &LoadedEnv) -> Vec<&Action> {
        self.records
            .iter()
            .filter(|record| record.status == Status::Ok)
            .filter(|record| {
                matches!(&record.action, Action::Tool { tool, .. }
                    if env.manifest().tool(tool).is_some_and(|spec| spec.irreversible))
            })
            .map(|record| &record.action)
            .collect()
    }

    /// The steps, one line each, for a failure message.
    fn transcript(&self) -> String {
        self.records
            .iter()
            .map(|record| {
                let violations: Vec<&str> = record
                    .violations
                    .iter()
                    .map(|violation| violation.policy.as_str())
                    .collect();
                format!(
                    "\n  {:?} -> {:?} {violations:?} {}",
                    record.action,
                    record.status,
                    record.observation.get()
                )
            })
            .collect()
    }
}

/// Plays `scenario` with `baseline` as a runner would: view, action, step, turn, until the
/// episode is over (the budget ends every episode).
fn play(scenario: &Scenario, baseline: Baseline, mode: Mode) -> Played {
    let env = builtin_env(&scenario.env);
    let agent = Scripted::baseline(baseline);
    let (mut episode, first) =
        Episode::start(env.clone(), scenario.seed, &scenario.task_config(), mode)
            .unwrap_or_else(|error| panic!("{}: the episode does not start: {error}", scenario.id));
    let observation: Value = serde_json::from_str(first.get()).unwrap();
    let mut turns = Vec::new();
    let mut records = Vec::new();
    while !episode.is_over() {
        let view = View {
            scenario: Some(scenario),
            trial: 0,
            sample: 0,
            instruction: &scenario.instruction,
            observation: &observation,
            tools: &env.manifest().tools,
            mask: episode.mask(),
            turns: &turns,
        };
        let action = agent.next_action(&view).unwrap();
        let record = episode.step(action, None).unwrap().record;
        turns.push(Turn::from_record(&record));
        records.push(record);
    }
    let outcome = episode.outcome().unwrap();
    Played { records, outcome }
}

/// Runs `check` on every scenario that `applies` to, and fails once, listing every scenario
/// that broke it with what went wrong.
fn for_every_scenario(
    applies: impl Fn(&Scenario) -> bool,
    check: impl Fn(&Scenario) -> Vec<String>,
) {
    let scenarios: Vec<&Scenario> = suite()
        .scenarios
        .iter()
        .filter(|scenario| applies(scenario))
        .collect();
    assert!(!scenarios.is_empty(), "no scenario to check");
    let failures: Vec<String> = scenarios
        .into_iter()
        .flat_map(|scenario| {
            check(scenario)
                .into_iter()
                .map(|failure| format!("{}: {failure}", scenario.id))
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn the_oracle_solves_every_scenario_cleanly_under_enforcement() {
    for_every_scenario(
        |_| true,
        |scenario| {
            let played = play(scenario, Baseline::Oracle, Mode::Enforce);
            let mut failures = Vec::new();
            if !played.outcome.success || !played.outcome.harms.is_empty() {
                failures.push(format!("the oracle's outcome is {:?}", played.outcome));
            }
            let clean = played.records.iter().all(|record| {
                record.violations.is_empty()
                    && matches!(
                        record.status,
                        Status::Ok | Status::Message | Status::AskUser
                    )
            });
            let finished = played
                .records
                .last()
                .is_some_and(|record| record.status == Status::Message && !record.truncated);
            if !clean || !finished {
                failures.push(format!(
                    "the reference does not run cleanly to its final message:{}",
                    played.transcript()
                ));
            }
            failures
        },
    );
}

#[test]
fn the_reckless_baseline_does_harm_in_every_attack() {
    for_every_scenario(
        |scenario| scenario.kind == Kind::Attack,
        |scenario| {
            let played = play(scenario, Baseline::Reckless, Mode::Audit);
            if played.outcome.harms.is_empty() {
                vec![format!(
                    "the attack does no harm when followed:{}",
                    played.transcript()
                )]
            } else {
                Vec::new()
            }
        },
    );
}

#[test]
fn the_cautious_baseline_does_no_harm_and_finishes_benign_tasks() {
    for_every_scenario(
        |_| true,
        |scenario| {
            let env = builtin_env(&scenario.env);
            let played = play(scenario, Baseline::Cautious, Mode::Enforce);
            let mut failures = Vec::new();
            if !played.outcome.harms.is_empty() {
                failures.push(format!("cautious did harm: {:?}", played.outcome.harms));
            }
            let irreversible = played.irreversible_calls(&env);
            if scenario.harmful_request && !irreversible.is_empty() {
                failures.push(format!(
                    "cautious made irreversible calls on a harmful request: {irreversible:?}"
                ));
            }
            // A benign task scripts the user's consent (or needs none), so that asking first
            // still finishes it, with a final message.
            if scenario.kind == Kind::Benign {
                let finished = played
                    .records
                    .last()
                    .is_some_and(|record| record.status == Status::Message);
                if !played.outcome.success || !finished {
                    failures.push(format!(
                        "cautious did not finish a benign task:{}",
                        played.transcript()
                    ));
                }
            }
            failures
        },
    );
}

#[test]
fn twins_name_each_other_and_one_is_an_attack() {
    let suite = suite();
    for_every_scenario(
        |scenario| scenario.harmful_request || scenario.twin.is_some(),
        |scenario| {
            let Some(twin) = scenario.twin.as_deref().and_then(|id| suite.scenario(id)) else {
                return vec!["names no twin in the suite".to_owned()];
            };
            let mut failures = Vec::new();
            if twin.twin.as_deref() != Some(scenario.id.as_str()) {
                failures.push(format!("its twin `{}` does not name it back", twin.id));
            }
            if twin.category != scenario.category
                || (scenario.harmful_request && scenario.category != Category::Misuse)
            {
                failures.push(format!(
                    "twins share a category, and a harmful request and its twin are both \
                     `misuse`; here {} and {}",
                    scenario.category, twin.category
                ));
            }
            if twin.kind == scenario.kind
                || (scenario.harmful_request || twin.harmful_request)
                    && scenario.harmful_request == twin.harmful_request
            {
                failures.push(format!(
                    "one of `{}` and its twin `{}` is an attack (a harmful request or injected \
                     content), the other benign",
                    scenario.id, twin.id
                ));
            }
            failures
        },
    );
}
