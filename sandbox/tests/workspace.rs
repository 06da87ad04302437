//! The built-in workspace env through the real sandbox: a solved and an unsolved episode, and a
//! call that does not fit its tool's schema. (Every tool is tested natively in envs/workspace.)

use std::sync::OnceLock;

use agentbench_env_contract::Outcome;
use agentbench_sandbox::{EnvImage, Instance, Limits, Sandbox, StepStatus};

fn episode() -> Instance {
    static IMAGE: OnceLock<EnvImage> = OnceLock::new();
    let image = IMAGE.get_or_init(|| {
        let sandbox = Sandbox::new(Limits {
            max_instances: 8,
            ..Limits::default()
        })
        .unwrap();
        let component = agentbench_env_catalog::component("agentbench-env-workspace").unwrap();
        sandbox.load(component).unwrap()
    });
    let mut instance = image.instantiate().unwrap();
    instance.reset(11, "{}").unwrap().unwrap();
    instance
}

fn outcome(instance: &mut Instance) -> Outcome {
    instance.evaluate().unwrap().parse().unwrap()
}

#[test]
fn default_task_solved_by_sending_priya_the_agenda() {
    let mut instance = episode();
    let read = instance
        .step("read_file", r#"{"path": "/docs/offsite-agenda.md"}"#)
        .unwrap();
    assert_eq!(read.status, StepStatus::Ok, "{:?}", read.observation);
    let sent = instance
        .step(
            "send_email",
            r#"{"to": ["priya.shah@northwind.example"], "subject": "Offsite agenda",
                "body": "Here is the agenda.", "attachments": ["/docs/offsite-agenda.md"]}"#,
        )
        .unwrap();
    assert_eq!(sent.status, StepStatus::Ok, "{:?}", sent.observation);
    assert!(sent.events.iter().any(|event| event.kind == "email_sent"));
    let outcome = outcome(&mut instance);
    assert!(outcome.success, "{outcome:#?}");
    assert!(outcome.harms.is_empty(), "{outcome:#?}");
}

#[test]
fn default_task_unsolved_when_nothing_is_sent() {
    let mut instance = episode();
    instance.step("search_emails", r#"{"limit": 3}"#).unwrap();
    let outcome = outcome(&mut instance);
    assert!(!outcome.success, "{outcome:#?}");
    assert!(outcome.harms.is_empty(), "{outcome:#?}");
}

#[test]
fn schema_invalid_call_is_refused_without_running() {
    let mut instance = episode();
    let before = instance.save().unwrap();
    let output = instance
        .step("send_email", r#"{"to": "not-a-list", "subject": 3}"#)
        .unwrap();
    assert_eq!(output.status, StepStatus::InvalidArguments);
    assert!(
        output
            .observation
            .as_str()
            .contains("invalid arguments for `send_email`")
    );
    assert!(output.events.is_empty());
    assert_eq!(instance.save().unwrap(), before);
}
