//! Builds an episode's state from the corpus, the seed and the task config. The seed varies the
//! log lines (request ids, latencies, which lines appear), never the resources a scenario names.

use agentbench_env_sdk::Rng;

use crate::corpus;
use crate::state::{
    AccessKey, Bucket, Database, DeployRecord, Doc, Injection, LogLine, Principal, Release,
    Service, Snapshot,
};
use crate::task::{Goal, GoalConfig, Task};
use crate::{Cloud, is_internal};

/// How many seeded log lines each service shows.
const LOG_LINES: usize = 8;

pub(crate) fn build(rng: &mut Rng, task: Task) -> Result<Cloud, String> {
    let mut services: Vec<Service> = corpus::SERVICES
        .iter()
        .map(|spec| Service {
            name: spec.name.to_owned(),
            environment: spec.environment.to_owned(),
            description: spec.description.to_owned(),
            history: spec
                .history
                .iter()
                .map(|&(version, at, by)| DeployRecord {
                    version: version.to_owned(),
                    at: at.to_owned(),
                    by: by.to_owned(),
                })
                .collect(),
            replicas: spec.replicas,
            max_replicas: spec.max_replicas,
            replica_cost: spec.replica_cost,
            health: spec.health.to_owned(),
            releases: spec
                .releases
                .iter()
                .map(|release| Release {
                    version: release.version.to_owned(),
                    approved: release.approved,
                    notes: release.notes.to_owned(),
                })
                .collect(),
            logs: seeded_logs(rng, spec.logs),
        })
        .collect();

    let mut injections = Vec::new();
    let mut docs: Vec<Doc> = corpus::DOCS
        .iter()
        .map(|&(id, title, author, body)| Doc {
            id: id.to_owned(),
            title: title.to_owned(),
            author: author.to_owned(),
            body: body.to_owned(),
            external: false,
            injection: None,
        })
        .collect();
    for extra in task.extra_docs {
        let id = extra.id.trim().to_owned();
        if id.is_empty() {
            return Err("an extra doc needs an id".to_owned());
        }
        let injection = plant(&mut injections, extra.injection_targets);
        let doc = Doc {
            external: !is_internal(&extra.author),
            id,
            title: extra.title,
            author: extra.author,
            body: extra.body,
            injection,
        };
        match docs.iter_mut().find(|existing| existing.id == doc.id) {
            Some(existing) => *existing = doc,
            None => docs.push(doc),
        }
    }
    for extra in task.extra_logs {
        let service = services
            .iter_mut()
            .find(|service| service.name == extra.service)
            .ok_or_else(|| format!("an extra log line names no service `{}`", extra.service))?;
        let injection = plant(&mut injections, extra.injection_targets);
        service.logs.push(LogLine {
            text: extra.line,
            injection,
        });
    }

    let (instruction, goals) = match (task.instruction, task.goals) {
        (instruction, Some(goals)) => (instruction, goals),
        (Some(instruction), None) => (Some(instruction), Vec::new()),
        (None, None) => (
            None,
            vec![GoalConfig::Deployed(crate::task::DeployedGoal {
                service: "checkout".to_owned(),
                version: "3.7.2".to_owned(),
            })],
        ),
    };
    let goals: Vec<Goal> = goals.into_iter().map(Goal::from).collect();

    Ok(Cloud {
        instruction,
        goals,
        monthly_budget: task.monthly_budget.unwrap_or(corpus::MONTHLY_BUDGET),
        services,
        databases: corpus::DATABASES
            .iter()
            .map(
                |&(name, environment, engine, size, customer_data, last_write, notes)| Database {
                    name: name.to_owned(),
                    environment: environment.to_owned(),
                    engine: engine.to_owned(),
                    size: size.to_owned(),
                    customer_data,
                    last_write: last_write.to_owned(),
                    notes: notes.to_owned(),
                },
            )
            .collect(),
        snapshots: corpus::SNAPSHOTS
            .iter()
            .map(|&(id, database, kind, created, size)| Snapshot {
                id: id.to_owned(),
                database: database.to_owned(),
                kind: kind.to_owned(),
                created: created.to_owned(),
                size: size.to_owned(),
            })
            .collect(),
        buckets: corpus::BUCKETS
            .iter()
            .map(
                |&(name, environment, public, customer_data, objects, size, purpose)| Bucket {
                    name: name.to_owned(),
                    environment: environment.to_owned(),
                    public,
                    customer_data,
                    objects,
                    size: size.to_owned(),
                    purpose: purpose.to_owned(),
                },
            )
            .collect(),
        principals: corpus::PRINCIPALS
            .iter()
            .map(|&(email, kind, roles, notes)| Principal {
                email: email.to_owned(),
                kind: kind.to_owned(),
                roles: roles.iter().map(|&role| role.to_owned()).collect(),
                notes: notes.to_owned(),
            })
            .collect(),
        keys: corpus::ACCESS_KEYS
            .iter()
            .map(|&(id, principal, created)| AccessKey {
                id: id.to_owned(),
                principal: principal.to_owned(),
                created: created.to_owned(),
            })
            .collect(),
        docs,
        injections,
        audit_logging: true,
        log: Vec::new(),
        next_snapshot: 1,
        key_seed: rng.next_u64(),
        irreversible_actions: 0,
        untrusted_content_read: false,
    })
}

fn plant(injections: &mut Vec<Injection>, targets: Vec<String>) -> Option<usize> {
    if targets.is_empty() {
        return None;
    }
    injections.push(Injection {
        targets: targets
            .into_iter()
            .map(|target| target.trim().to_lowercase())
            .collect(),
        seen: false,
    });
    Some(injections.len() - 1)
}

/// `LOG_LINES` lines drawn from the service's templates, timestamped in the last hour, with
/// request ids and latencies from the seed.
fn seeded_logs(rng: &mut Rng, templates: &[&str]) -> Vec<LogLine> {
    let mut minute = 5 + rng.below(10) as u32;
    (0..LOG_LINES)
        .map(|_| {
            minute += 1 + rng.below(6) as u32;
            let template = rng.pick(templates);
            let text = template
                .replace("{rid}", &format!("{:08x}", rng.next_u64() as u32))
                .replace("{ms}", &(12 + rng.below(480)).to_string());
            let (hour, minute) = (13 + minute / 60, minute % 60);
            LogLine {
                text: format!(
                    "2026-03-18 {hour:02}:{minute:02}:{:02} {text}",
                    rng.below(60)
                ),
                injection: None,
            }
        })
        .collect()
}
