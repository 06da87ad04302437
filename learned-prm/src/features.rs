//! What the learned scorer sees of a step: two texts for the encoder (the user's instruction and
//! the action) and a few numbers the runtime records. Only what a deployed scorer could see: the
//! call, its status, the effects it made and the history before it. Nothing graded against the
//! scenario's reference (whether an effect was requested, what leaked) and no harm check, since
//! those are what the scorer is trained to predict and are unknown outside the benchmark.

use agentbench_env_runtime::{Action, EffectKind, Status};
use agentbench_scorers::ScoredStep;

/// The names of the structured features, in order.
pub const STRUCTURED: &[&str] = &[
    "status_ok",
    "status_tool_error",
    "status_blocked",
    "status_malformed",
    "status_message",
    "status_ask_user",
    "status_env_error",
    "irreversible_tool",
    "policy_violated",
    "effect_send",
    "effect_post",
    "effect_share",
    "effect_http",
    "effect_delete",
    "effect_modify",
    "effect_permission",
    "effect_payment",
    "tainted_before",
    "tainted_after",
    "consented_before",
    "irreversible_calls_before",
    "violations_before",
    "blocked_before",
    "steps_before",
    "progress_change",
];

/// The action as text: `tool_name {"argument": ...}`, or the message or question it carries.
pub fn action_text(action: &Action) -> String {
    match action {
        Action::Tool { tool, arguments } => format!("{tool} {arguments}"),
        Action::Message { message } => format!("final answer: {message}"),
        Action::AskUser { question } => format!("ask the user: {question}"),
    }
}

/// The structured features of `step`, in the order of `STRUCTURED`.
pub fn structured(step: &ScoredStep<'_>) -> Vec<f32> {
    let record = step.record;
    let (before, after) = (&step.before.history, &step.after.history);
    let flag = |on: bool| if on { 1.0 } else { 0.0 };
    let status = record.status;
    let ran = matches!(status, Status::Ok | Status::ToolError);
    let mut features = vec![
        flag(status == Status::Ok),
        flag(status == Status::ToolError),
        flag(status == Status::Blocked),
        // A call past a per-call limit is as malformed as one with invalid arguments.
        flag(matches!(
            status,
            Status::InvalidArguments | Status::UnknownTool | Status::LimitExceeded
        )),
        flag(status == Status::Message),
        flag(status == Status::AskUser),
        flag(status == Status::EnvError),
        flag(step.irreversible()),
        flag(ran && !record.violations.is_empty()),
    ];
    features.extend(EffectKind::ALL.iter().map(|kind| {
        record
            .effects
            .iter()
            .filter(|effect| effect.effect.kind == *kind)
            .count() as f32
    }));
    let progress = |facts: &serde_json::Value| {
        facts
            .get("progress")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    // Counts are squashed so that a long episode does not dwarf the flags.
    let squash = |count: u32| (count as f32).ln_1p();
    features.extend([
        flag(before.tainted),
        flag(after.tainted),
        flag(before.consented),
        squash(before.irreversible_calls),
        squash(before.violations),
        squash(before.blocked),
        squash(before.steps),
        (progress(&step.after.facts) - progress(&step.before.facts)) as f32,
    ]);
    debug_assert_eq!(features.len(), STRUCTURED.len());
    features
}

/// The head's input for one step: the action's vector, the instruction's, their product (what
/// the two share), their cosine and the structured features. The vectors are unit length; they
/// are scaled so that their components, like the flags, are of order one.
pub fn row(action: &[f32], instruction: &[f32], structured: &[f32]) -> Vec<f32> {
    let dim = action.len() as f32;
    let scale = dim.sqrt();
    let mut row = Vec::with_capacity(3 * action.len() + 1 + structured.len());
    row.extend(action.iter().map(|x| x * scale));
    row.extend(instruction.iter().map(|x| x * scale));
    row.extend(action.iter().zip(instruction).map(|(a, i)| a * i * dim));
    row.push(action.iter().zip(instruction).map(|(a, i)| a * i).sum());
    row.extend_from_slice(structured);
    row
}

/// The width of `row` for vectors of `dim` components.
pub fn width(dim: usize) -> usize {
    3 * dim + 1 + STRUCTURED.len()
}
