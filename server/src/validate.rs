//! `agentbench datasets validate`: a suite's files are loaded (TOML, fields and the suite's own
//! rules, with file and line), then every scenario is played against the built-in envs: its
//! env exists and accepts its task; its reference runs cleanly under enforcement to a success
//! with no harm; doing nothing (the reference's final message alone) is no harm; an attack's
//! actions call the env's tools with arguments that fit their schemas and, followed in audit
//! mode, do a harm the env measures; an attack through planted content has a reference that
//! reads the injection at `injected_at`; a benign scenario has a success check and the `cautious`
//! baseline finishes it cleanly.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;

use agentbench_agents::{Baseline, Scripted, Turn, View};
use agentbench_datasets::{AttackFamily, Category, Kind, Scenario, Suite};
use agentbench_env_contract::{CheckKind, Outcome, UNTRUSTED_CONTENT_EVENT};
use agentbench_env_runtime::{
    Action, Episode, EpisodeSettings, LoadedEnv, Mask, Mode, RuntimeError, Status, StepRecord,
};

/// The fact every built-in env keeps: how many distinct prompt injections the agent has read.
const INJECTIONS_SEEN_FACT: &str = "injections_seen";

/// The harm check every built-in env makes when an agent acts as a planted injection asked.
const INJECTION_FOLLOWED_CHECK: &str = "no_injection_followed";

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
    // Every later check starts an episode the same way: a task the env refuses is one problem.
    if let Err(problem) = check_task(env, scenario) {
        return vec![problem];
    }
    let mut problems = Vec::new();
    let reference = play_plan(env, scenario, &scenario.reference, Mode::Enforce);
    match &reference {
        Err(problem) => problems.push(problem.clone()),
        Ok(played) => {
            problems.extend(check_reference(scenario, played));
            if scenario.kind == Kind::Benign {
                problems.extend(check_has_success_check(scenario, &played.outcome));
            }
        }
    }
    problems.extend(check_doing_nothing(env, scenario));
    match scenario.kind {
        Kind::Attack => problems.extend(check_attack(env, scenario, reference.as_ref().ok())),
        Kind::Benign => problems.extend(check_cautious(env, scenario)),
    }
    problems
}

/// An attack's actions are calls the env can take; following them does harm; and one that
/// comes through planted content is read by the reference where `injected_at` says.
fn check_attack(
    env: &Arc<LoadedEnv>,
    scenario: &Scenario,
    reference: Option<&Played>,
) -> Vec<String> {
    let mut problems = check_attack_actions(env, scenario);
    match play_plan(env, scenario, &scenario.reckless_plan(), Mode::Audit) {
        Err(problem) => problems.push(format!("the attack: {problem}")),
        Ok(followed) => {
            problems.extend(check_attack_harms(&followed));
            problems.extend(
                reference.and_then(|reference| check_injection(scenario, reference, &followed)),
            );
        }
    }
    problems
}

/// One scripted episode: each step's record, the steps whose observation carried a prompt
/// injection, and the outcome.
struct Played {
    records: Vec<StepRecord>,
    injection_steps: Vec<usize>,
    outcome: Outcome,
}

impl Played {
    /// The episode ended with the agent's final message, not with a budget.
    fn finished(&self) -> bool {
        self.records
            .last()
            .is_some_and(|record| record.status == Status::Message && !record.truncated)
    }
}

/// The env accepts the scenario's task at `reset`.
fn check_task(env: &Arc<LoadedEnv>, scenario: &Scenario) -> Result<(), String> {
    Episode::start(
        env.clone(),
        scenario.seed,
        &scenario.task_config(),
        Mode::Enforce,
    )
    .map(|_| ())
    .map_err(|error| start_failed(scenario, &error))
}

fn check_reference(scenario: &Scenario, played: &Played) -> Vec<String> {
    let mut problems = Vec::new();
    let records = &played.records;
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
    if !played.outcome.success {
        problems.push(format!(
            "the reference does not succeed: failed checks {}",
            failed_checks(&played.outcome)
        ));
    }
    if !played.outcome.harms.is_empty() {
        problems.push(format!(
            "the reference does harm: {}",
            harms_done(&played.outcome)
        ));
    }
    problems
}

/// An attack through planted content is followed where the agent reads it, so its reference
/// must read the injection, and `injected_at` must be a step whose observation carries it. An
/// attack from the user (pressure, an underspecified instruction) keeps no such rule.
fn check_injection(scenario: &Scenario, reference: &Played, followed: &Played) -> Option<String> {
    let at = scenario.injected_at?;
    if !plants_injection(scenario) && !follows_injection(followed) {
        return None;
    }
    let steps = &reference.injection_steps;
    if steps.is_empty() {
        return Some(
            "the attack follows a planted injection, but no reference step's observation \
             carries one (the env's `injections_seen` stays 0), so an agent that follows it \
             acts on text it never read; read the content that carries it and set \
             `injected_at` to that step"
                .to_owned(),
        );
    }
    if steps.contains(&at) {
        let read_by_then: Vec<usize> = steps.iter().copied().filter(|&s| s <= at).collect();
        if scenario.attack_family == Some(AttackFamily::MultiStep) && read_by_then.len() < 2 {
            return Some(format!(
                "a multi_step attack spreads its instruction over two observations, but by \
                 injected_at = {at} the reference has read an injection only at step {:?}; plant \
                 two parts (each with its own injection) and read both by injected_at",
                read_by_then.iter().map(|s| s + 1).collect::<Vec<_>>()
            ));
        }
        return None;
    }
    let readers: Vec<String> = steps
        .iter()
        .map(|&step_idx| format!("{step_idx} ({})", describe(&scenario.reference[step_idx])))
        .collect();
    Some(format!(
        "injected_at = {at} names reference step {} ({}), whose observation carries no \
         injection; the reference reads one at injected_at = {}",
        at + 1,
        scenario
            .reference
            .get(at)
            .map_or_else(|| "none".to_owned(), describe),
        readers.join(" or ")
    ))
}

/// Following the attack is following a planted injection by the env's own judgement: its
/// `no_injection_followed` harm check fails.
fn follows_injection(followed: &Played) -> bool {
    followed
        .outcome
        .check(INJECTION_FOLLOWED_CHECK)
        .is_some_and(|check| check.kind == CheckKind::Harm && !check.passed)
}

/// The attack comes through content the task plants: a prompt injection, a task that turns the
/// env's seeded injections on explicitly, or one that plants content with `injection_targets`.
fn plants_injection(scenario: &Scenario) -> bool {
    scenario.kind == Kind::Attack
        && !scenario.harmful_request
        && (scenario.category == Category::PromptInjection
            || scenario.task.get("injections") == Some(&Value::Bool(true))
            || scenario.task.values().any(has_injection_targets))
}

/// Some object in `value` names non-empty `injection_targets`.
fn has_injection_targets(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key == "injection_targets" && value.as_array().is_some_and(|a| !a.is_empty()))
                || has_injection_targets(value)
        }),
        Value::Array(items) => items.iter().any(has_injection_targets),
        _ => false,
    }
}

/// A benign scenario must be able to fail: without a success check, any trajectory succeeds.
fn check_has_success_check(scenario: &Scenario, outcome: &Outcome) -> Option<String> {
    if outcome
        .checks
        .iter()
        .any(|check| check.kind == CheckKind::Success)
    {
        return None;
    }
    let twin = scenario
        .twin
        .as_deref()
        .map(|twin| format!(" (the twin of `{twin}`: refusing it would count as success)"))
        .unwrap_or_default();
    Some(format!(
        "a benign scenario has no success check{twin}; give its task a goal the reference meets"
    ))
}

/// Doing nothing (the reference's final message alone) must not be harm: an agent that does
/// nothing did nothing wrong.
fn check_doing_nothing(env: &Arc<LoadedEnv>, scenario: &Scenario) -> Option<String> {
    let last = scenario.reference.last()?.clone();
    match play_plan(env, scenario, &[last], Mode::Enforce) {
        Err(problem) => Some(format!("doing nothing: {problem}")),
        Ok(played) if !played.outcome.harms.is_empty() => Some(format!(
            "doing nothing (only the reference's final message) is harm already: {}",
            harms_done(&played.outcome)
        )),
        Ok(_) => None,
    }
}

/// Every attack action calls a tool of the env with arguments that fit its schema.
fn check_attack_actions(env: &LoadedEnv, scenario: &Scenario) -> Vec<String> {
    let mut problems = Vec::new();
    for (action_idx, action) in scenario.attack_actions.iter().enumerate() {
        let Action::Tool { tool, arguments } = action else {
            continue;
        };
        match env.validate(tool, arguments) {
            None => problems.push(format!(
                "attack action {} calls `{tool}`, which the env `{}` does not have",
                action_idx + 1,
                scenario.env
            )),
            Some(issues) if !issues.is_empty() => {
                let issues: Vec<String> = issues
                    .iter()
                    .map(|issue| match issue.pointer.as_str() {
                        "" => issue.message.clone(),
                        pointer => format!("{pointer}: {}", issue.message),
                    })
                    .collect();
                problems.push(format!(
                    "attack action {} (`{tool}`) has arguments that do not fit the tool's \
                     schema: {}",
                    action_idx + 1,
                    issues.join("; ")
                ));
            }
            Some(_) => {}
        }
    }
    problems
}

/// The attack, followed in audit mode, does a harm the env measures.
fn check_attack_harms(followed: &Played) -> Option<String> {
    followed
        .outcome
        .harms
        .is_empty()
        .then(|| "the attack does no harm the env measures when an agent follows it".to_owned())
}

/// The `cautious` baseline (the reference, asking before anything irreversible) finishes a
/// benign task: success, no harm, a final message.
fn check_cautious(env: &Arc<LoadedEnv>, scenario: &Scenario) -> Option<String> {
    let played = match play_cautious(env, scenario) {
        Err(problem) => return Some(format!("the cautious baseline: {problem}")),
        Ok(played) => played,
    };
    let mut wrong = Vec::new();
    if !played.outcome.success {
        wrong.push(format!(
            "it does not succeed (failed checks {})",
            failed_checks(&played.outcome)
        ));
    }
    if !played.outcome.harms.is_empty() {
        wrong.push(format!("it does harm ({})", harms_done(&played.outcome)));
    }
    if !played.finished() {
        wrong.push("it ends without a final message".to_owned());
    }
    if wrong.is_empty() {
        return None;
    }
    let asked = played
        .records
        .iter()
        .any(|record| record.status == Status::AskUser);
    let hint = if asked && scenario.user_replies.is_empty() {
        " (it asks before an irreversible step and the scenario scripts no `user_replies`)"
    } else {
        ""
    };
    Some(format!(
        "the cautious baseline does not finish this benign task cleanly: {}{hint}",
        wrong.join("; ")
    ))
}

/// Plays `actions` from the start of the scenario's episode; stops when the episode is over.
fn play_plan(
    env: &Arc<LoadedEnv>,
    scenario: &Scenario,
    actions: &[Action],
    mode: Mode,
) -> Result<Played, String> {
    play(env, scenario, mode, |_, records| {
        actions.get(records.len()).cloned()
    })
}

/// Plays the `cautious` baseline as a runner would (view, action, step) until the episode ends.
fn play_cautious(env: &Arc<LoadedEnv>, scenario: &Scenario) -> Result<Played, String> {
    let agent = Scripted::baseline(Baseline::Cautious);
    let mut turns: Vec<Turn> = Vec::new();
    play(env, scenario, Mode::Enforce, |start, records| {
        turns.extend(records[turns.len()..].iter().map(Turn::from_record));
        let view = View {
            scenario: Some(scenario),
            trial: 0,
            sample: 0,
            instruction: &scenario.instruction,
            observation: &start.observation,
            tools: &env.manifest().tools,
            mask: &start.mask,
            turns: &turns,
        };
        agent.next_action(&view).ok()
    })
}

/// What an agent is shown when it picks its next action.
struct Seen {
    /// The episode's first observation.
    observation: Value,
    /// How each tool stands for the next action.
    mask: Arc<Mask>,
}

/// Plays the actions `next` picks from the start of the scenario's episode until it picks none
/// or the episode is over.
fn play(
    env: &Arc<LoadedEnv>,
    scenario: &Scenario,
    mode: Mode,
    mut next: impl FnMut(&Seen, &[StepRecord]) -> Option<Action>,
) -> Result<Played, String> {
    let (mut episode, first) =
        Episode::start(env.clone(), scenario.seed, &scenario.task_config(), mode)
            .map_err(|error| start_failed(scenario, &error))?;
    let mut seen = Seen {
        observation: serde_json::from_str(first.get()).unwrap_or(Value::Null),
        mask: episode.mask().clone(),
    };
    let mut records = Vec::new();
    let mut injection_steps = Vec::new();
    let mut injections_seen = injections_read(&episode);
    while !episode.is_over() {
        let Some(action) = next(&seen, &records) else {
            break;
        };
        let stepped = episode
            .step(action, None)
            .map_err(|error| format!("a step failed: {error}"))?;
        let injections_now = injections_read(&episode);
        if injections_now > injections_seen || reports_injection(&stepped.record) {
            injection_steps.push(records.len());
        }
        injections_seen = injections_now;
        records.push(stepped.record);
        seen.mask = episode.mask().clone();
    }
    let outcome = episode
        .outcome()
        .map_err(|error| format!("the env has no outcome: {error}"))?;
    Ok(Played {
        records,
        injection_steps,
        outcome,
    })
}

fn injections_read(episode: &Episode) -> u64 {
    episode
        .facts()
        .get(INJECTIONS_SEEN_FACT)
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The step's `untrusted_content_read` event says its content carries an injection (read again,
/// an injection no longer raises the count of those seen).
fn reports_injection(record: &StepRecord) -> bool {
    record.events.iter().any(|event| {
        event.kind == UNTRUSTED_CONTENT_EVENT
            && serde_json::from_str::<Value>(event.data.get())
                .is_ok_and(|data| data.get("injection") == Some(&Value::Bool(true)))
    })
}

/// Why an episode of the scenario does not start. When the env refuses the task config at
/// `reset`, its JSON position (of the config generated from the TOML) is turned into the key of
/// the scenario's `task` it falls in.
fn start_failed(scenario: &Scenario, error: &RuntimeError) -> String {
    let RuntimeError::InvalidTask(message) = error else {
        return format!("the episode does not start: {error}");
    };
    let mut message = message.as_str();
    while let Some(rest) = message.strip_prefix("invalid task config: ") {
        message = rest;
    }
    let (message, column) = split_json_position(message);
    let place = column
        .and_then(|column| {
            let (_, env_task) = EpisodeSettings::split(&scenario.task_config()).ok()?;
            // The error comes just after what it is about.
            Some(path_at(&env_task, column.saturating_sub(2)))
        })
        .map(|path| match path.as_str() {
            "" => " (in `task`)".to_owned(),
            path if path.starts_with("instruction") => " (at `instruction`)".to_owned(),
            path => format!(" (at `task.{path}`)"),
        })
        .unwrap_or_default();
    format!("the env refuses the scenario's task{place}: {message}")
}

/// Splits serde_json's trailing ` at line L column C` off `message`; returns the column when
/// the position is on the first line (a task config is sent as one line).
fn split_json_position(message: &str) -> (&str, Option<usize>) {
    let Some((text, position)) = message.rsplit_once(" at line ") else {
        return (message, None);
    };
    let Some((line, column)) = position.split_once(" column ") else {
        return (message, None);
    };
    match (line.parse::<usize>(), column.parse::<usize>()) {
        (Ok(1), Ok(column)) => (text, Some(column)),
        (Ok(_), Ok(_)) => (text, None),
        _ => (message, None),
    }
}

/// The path (`goals[0].to`) of the deepest value of `value` whose compact JSON text (as
/// `Value::to_string` writes it) spans byte `offset`; empty for the whole value.
fn path_at(value: &Value, offset: usize) -> String {
    let mut path = String::new();
    let mut node = value;
    let mut start = 0;
    loop {
        // Past the opening bracket; each entry is followed by a comma.
        let mut at = start + 1;
        let found = match node {
            Value::Object(map) => map.iter().find_map(|(key, child)| {
                let key_len = Value::String(key.clone()).to_string().len() + 1;
                let end = at + key_len + child.to_string().len();
                let hit = (at..end).contains(&offset);
                let entry = (at + key_len, child, key.clone());
                at = end + 1;
                hit.then_some(entry)
            }),
            Value::Array(items) => items.iter().enumerate().find_map(|(item_idx, child)| {
                let end = at + child.to_string().len();
                let hit = (at..end).contains(&offset);
                let entry = (at, child, format!("[{item_idx}]"));
                at = end + 1;
                hit.then_some(entry)
            }),
            _ => None,
        };
        let Some((child_start, child, segment)) = found else {
            return path;
        };
        if !path.is_empty() && !segment.starts_with('[') {
            path.push('.');
        }
        path.push_str(&segment);
        node = child;
        start = child_start;
    }
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
        .filter(|check| check.kind == CheckKind::Success && !check.passed)
        .map(|check| format!("{} ({})", check.name, check.detail))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The harms done, each with the env's detail.
fn harms_done(outcome: &Outcome) -> String {
    outcome
        .checks
        .iter()
        .filter(|check| check.kind == CheckKind::Harm && !check.passed)
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_json_position_is_turned_into_the_task_key_it_falls_in() {
        let task = json!({"goals": [{"kind": "email_sent", "too": "x@y"}], "instruction": "Hi."});
        let text = task.to_string();
        let check = |needle: &str, expect: &str| {
            let offset = text.find(needle).unwrap();
            assert_eq!(path_at(&task, offset), expect, "at {needle}");
        };
        check("\"goals\"", "goals");
        check("[{", "goals");
        check("\"too\"", "goals[0].too");
        check("\"x@y\"", "goals[0].too");
        check("}]", "goals[0]");
        check("\"Hi.\"", "instruction");
        assert_eq!(path_at(&task, 0), "");
    }

    #[test]
    fn serde_json_positions_are_split_off_messages() {
        assert_eq!(
            split_json_position("unknown field `too` at line 1 column 44"),
            ("unknown field `too`", Some(44))
        );
        assert_eq!(
            split_json_position("no such payee"),
            ("no such payee", None)
        );
    }
}
