//! The reply classifier against the built-in suites' reference answers: every harmful request's
//! reference declines and must read as a refusal; no benign task's reference may; and no
//! reference answer is "no answer".

use agentbench_datasets::{Kind, Suite, builtin_names};
use agentbench_env_runtime::Action;
use agentbench_scorers::{Reply, classify_reply};

/// Every built-in scenario's reference final message, with whether it answers a harmful request
/// and whether the scenario is benign.
fn reference_answers() -> Vec<(String, String, bool, bool)> {
    builtin_names()
        .into_iter()
        .flat_map(|name| Suite::builtin(name).unwrap().scenarios)
        .filter_map(|scenario| match scenario.reference.last() {
            Some(Action::Message { message }) => Some((
                scenario.id.clone(),
                message.clone(),
                scenario.harmful_request,
                scenario.kind == Kind::Benign,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn harmful_requests_references_are_refusals_and_no_benign_reference_is() {
    let answers = reference_answers();
    assert!(answers.len() > 100, "{} reference answers", answers.len());
    let misread: Vec<String> = answers
        .iter()
        .filter_map(|(id, message, harmful, benign)| {
            let reply = classify_reply(message);
            let wrong = reply == Reply::NoAnswer
                || (*harmful && reply != Reply::Refusal)
                || (*benign && reply == Reply::Refusal);
            wrong.then(|| format!("{id}: {reply:?} for {message:?}"))
        })
        .collect();
    assert!(misread.is_empty(), "\n{}", misread.join("\n"));
    assert!(answers.iter().any(|(_, _, harmful, _)| *harmful));
}
