//! `agentbench datasets validate`: a suite's files are loaded (TOML, fields and the suite's own
//! rules, with file and line), then every scenario is played against the built-in envs: its
//! env exists and accepts its task, its reference runs cleanly under enforcement to a success
//! with no harm, and its attack, followed in audit mode, does a harm the env measures.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use agentbench_datasets::{Category, Kind, Scenario, Suite};
use agentbench_env_contract::Outcome;
use agentbench_env_runtime::{Action, Episode, LoadedEnv, Mode, Status, StepRecord};

/// What is wrong with one scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `file:line` of the scenario.
    pub place: String,
    pub scenario: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.place, self.scenario, self.message)
    }
}

/// Plays every scenario of `suite` as described above; returns the problems found.
pub fn check_suite(suite: &Suite, envs: &BTreeMap<String, Arc<LoadedEnv>>) -> Vec<Problem> {
    suite
        .scenarios
        .iter()
        .flat_map(|scenario| {
            check_scenario(scenario, envs)
                .into_iter()
                .map(|message| Problem {
                    place: format!("{}:{}", scenario.file, scenario.line),
                    scenario: scenario.id.clone(),
                    message,
                })
        })
        .collect()
}

fn check_scenario(scenario: &Scenario, envs: &BTreeMap<String, Arc<LoadedEnv>>) -> Vec<String> {
    let Some(env) = envs.get(&scenario.env) else {
        return vec![format!(
            "no built-in env `{}` (the envs are: {})",
            scenario.env,
            envs.keys().cloned().collect::<Vec<_>>().join(", ")
        )];
    };
    let mut problems = Vec::new();
    match play(env, scenario, &scenario.reference, Mode::Enforce) {
        Err(problem) => problems.push(problem),
        Ok((records, outcome)) => {
            if let Some(record) = records.iter().find(|record| {
                !matches!(
                    record.status,
                    Status::Ok | Status::Message | Status::AskUser
                )
            }) {
                problems.push(format!(
                    "reference step {} ({}) is {}: {}",
                    record.index + 1,
                    describe(&record.action),
                    record.status.as_str(),
                    record.observation.get()
                ));
            }
            if let Some(record) = records.iter().find(|record| !record.violations.is_empty()) {
                let policies: Vec<&str> = record
                    .violations
                    .iter()
                    .map(|violation| violation.policy.as_str())
                    .collect();
                problems.push(format!(
                    "reference step {} ({}) violates {}",
                    record.index + 1,
                    describe(&record.action),
                    policies.join(", ")
                ));
            }
            if records.len() < scenario.reference.len() {
                problems.push(format!(
                    "the episode ended after {} of the reference's {} steps (the step budget?)",
                    records.len(),
                    scenario.reference.len()
                ));
            }
            if !outcome.success {
                problems.push(format!(
                    "the reference does not succeed: failed checks {}",
                    failed_checks(&outcome)
                ));
            }
            if !outcome.harms.is_empty() {
                problems.push(format!(
                    "the reference does harm: {}",
                    outcome.harms.join(", ")
                ));
            }
        }
    }
    if scenario.kind == Kind::Attack {
        match play(env, scenario, &scenario.reckless_plan(), Mode::Audit) {
            Err(problem) => problems.push(format!("the attack: {problem}")),
            Ok((_, outcome)) if outcome.harms.is_empty() => problems.push(
                "the attack does no harm the env measures when an agent follows it".to_owned(),
            ),
            Ok(_) => {}
        }
    }
    problems
}

/// Plays `actions` from the start of the scenario's episode; stops when the episode is over.
fn play(
    env: &Arc<LoadedEnv>,
    scenario: &Scenario,
    actions: &[Action],
    mode: Mode,
) -> Result<(Vec<StepRecord>, Outcome), String> {
    let (mut episode, _) =
        Episode::start(env.clone(), scenario.seed, &scenario.task_config(), mode)
            .map_err(|error| format!("the episode does not start: {error}"))?;
    let mut records = Vec::new();
    for action in actions {
        if episode.is_over() {
            break;
        }
        let stepped = episode
            .step(action.clone(), None)
            .map_err(|error| format!("a step failed: {error}"))?;
        records.push(stepped.record);
    }
    let outcome = episode
        .outcome()
        .map_err(|error| format!("the env has no outcome: {error}"))?;
    Ok((records, outcome))
}

fn describe(action: &Action) -> String {
    match action {
        Action::Tool { tool, .. } => format!("`{tool}`"),
        Action::Message { .. } => "the final message".to_owned(),
        Action::AskUser { .. } => "a question to the user".to_owned(),
    }
}

fn failed_checks(outcome: &Outcome) -> String {
    outcome
        .checks
        .iter()
        .filter(|check| !check.passed)
        .map(|check| format!("{} ({})", check.name, check.detail))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The suite's scenarios counted by category, attack and benign, and by env, as a table.
pub fn counts(suite: &Suite) -> String {
    let mut by_category: BTreeMap<Category, (usize, usize)> = BTreeMap::new();
    let mut by_env: BTreeMap<&str, usize> = BTreeMap::new();
    for scenario in &suite.scenarios {
        let entry = by_category.entry(scenario.category).or_default();
        match scenario.kind {
            Kind::Attack => entry.0 += 1,
            Kind::Benign => entry.1 += 1,
        }
        *by_env.entry(&scenario.env).or_default() += 1;
    }
    let mut text = format!(
        "{} {} ({} scenarios, hash {})\n\n{:<22} {:>6} {:>6} {:>6}\n",
        suite.name,
        suite.version,
        suite.scenarios.len(),
        suite.hash,
        "category",
        "attack",
        "benign",
        "total"
    );
    for (category, (attack, benign)) in &by_category {
        let _ = writeln!(
            text,
            "{:<22} {attack:>6} {benign:>6} {:>6}",
            category.as_str(),
            attack + benign
        );
    }
    text.push('\n');
    for (env, count) in &by_env {
        let _ = writeln!(text, "{env:<22} {count:>6}");
    }
    text
}
