//! The step pipeline: check the budgets, act (a final message, a question to the user, or a tool
//! call that is checked, guarded by the mask and the policies, then run in the sandbox), settle
//! the episode around what the action did (history, counters, facts and mask, budgets), and
//! conclude with the outcome when the step ended the episode.
//!
//! Each stage returns what it did; a tool call that goes no further than a stage returns early
//! with the step it makes (`Acted` as the error of `Result<_, Acted>`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use agentbench_env_contract::{Resource, StepStatus, UNTRUSTED_CONTENT_EVENT};
use agentbench_policies::{Situation, Violation};
use agentbench_sandbox::CallError;

use super::{Episode, Stepped};
use crate::{
    Action, DEFAULT_MAX_STEPS, Mode, RecordedEffect, RecordedEvent, RuntimeError, Status,
    StepRecord, StepTimings, UserReply, ValidationIssue,
};

/// What an action did, before the episode is settled around it.
struct Acted {
    status: Status,
    observation: Box<RawValue>,
    validation: Vec<ValidationIssue>,
    violations: Vec<Violation>,
    events: Vec<RecordedEvent>,
    effects: Vec<RecordedEffect>,
    /// The action or the env ended the episode.
    terminated: bool,
    /// The call reached the env, so its facts and mask may have changed.
    reached_env: bool,
    /// The env failed; the episode cannot go on.
    env_failed: bool,
}

impl Acted {
    /// A step whose action went no further than the runtime.
    fn refused(status: Status, observation: Box<RawValue>) -> Acted {
        Acted {
            status,
            observation,
            validation: Vec::new(),
            violations: Vec::new(),
            events: Vec::new(),
            effects: Vec::new(),
            terminated: false,
            reached_env: false,
            env_failed: false,
        }
    }

    /// What a call that failed in the sandbox made: the agent's own limit error when it went
    /// past a limit that depends only on the call and the env could be rebuilt as it was
    /// before; otherwise the env's failure.
    fn call_failed(episode: &mut Episode, error: CallError, reached_env: bool) -> Acted {
        if !error.exceeded_own_limit() {
            return Acted::env_failed(&error, reached_env);
        }
        if let Err(rebuilding) = episode.rebuild() {
            return Acted::env_failed(&rebuilding, true);
        }
        let message = format!(
            "the call went past the sandbox's per-call limit ({error}); nothing it did was kept \
             and the environment is as it was before it: try a smaller request"
        );
        Acted::refused(Status::LimitExceeded, error_observation(&message))
    }

    fn env_failed(error: &CallError, reached_env: bool) -> Acted {
        Acted {
            env_failed: true,
            reached_env,
            ..Acted::refused(
                Status::EnvError,
                error_observation(&format!("the environment failed: {error}")),
            )
        }
    }
}

impl Episode {
    /// Takes one action and returns what the step did. Fails without recording only when the
    /// episode is already over (or the env fails while the runtime reads its facts and mask);
    /// everything else that goes wrong is a recorded step.
    pub fn step(&mut self, action: Action, tokens: Option<u64>) -> Result<Stepped, RuntimeError> {
        if self.is_over() {
            return Err(RuntimeError::EpisodeOver);
        }
        let started = Instant::now();
        let before = self.progress.now.clone();
        let mask = self.progress.mask.clone();
        let mut timings = StepTimings::default();
        let acted = match self.overspent(tokens) {
            Some(budget) => {
                let message = format!("the episode's {budget} budget is spent; nothing ran");
                Acted::refused(Status::OverBudget, error_observation(&message))
            }
            None => self.act(&action, &mut timings),
        };
        timings.policy_us += self.settle(&action, tokens, &acted)?;
        timings.total_us = micros(started.elapsed());
        let record = StepRecord {
            index: self.progress.n_steps - 1,
            action,
            status: acted.status,
            validation: acted.validation,
            mask,
            violations: acted.violations,
            observation: acted.observation,
            events: acted.events,
            effects: acted.effects,
            terminated: self.progress.terminated,
            truncated: self.progress.truncated,
            tokens,
            timings,
            scores: Vec::new(),
        };
        // An env that failed cannot be evaluated; neither can one whose `evaluate` fails, which
        // leaves its instance poisoned. Either way the episode stays without outcome.
        let (next_mask, outcome) = if self.is_over() {
            let outcome = (!acted.env_failed).then(|| self.outcome().ok()).flatten();
            (Arc::default(), outcome)
        } else {
            (self.progress.mask.clone(), None)
        };
        Ok(Stepped {
            record,
            before,
            after: self.progress.now.clone(),
            next_mask,
            outcome,
        })
    }

    /// The budget an action would overspend, checked before it runs: no steps are left, its
    /// time is up, or the tokens it reports take the episode past its token budget (a step that
    /// spends the budget exactly still runs, and ends the episode).
    fn overspent(&self, tokens: Option<u64>) -> Option<&'static str> {
        let budget = &self.progress.settings.budget;
        let steps = budget.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        let tokens = self.progress.tokens.saturating_add(tokens.unwrap_or(0));
        if self.progress.n_steps >= steps {
            Some("step")
        } else if budget.max_tokens.is_some_and(|max| tokens > max) {
            Some("token")
        } else if self.out_of_time() {
            Some("time")
        } else {
            None
        }
    }

    /// What the action does.
    fn act(&mut self, action: &Action, timings: &mut StepTimings) -> Acted {
        match action {
            Action::Message { .. } => Acted {
                terminated: true,
                ..Acted::refused(Status::Message, raw(json!({"ended": true}).to_string()))
            },
            Action::AskUser { .. } => self.ask_user(),
            Action::Tool { tool, arguments } => self
                .call_tool(tool, arguments, timings)
                .unwrap_or_else(|refused| refused),
        }
    }

    /// Answers `ask_user` from the task's scripted replies; a consenting reply is remembered.
    fn ask_user(&mut self) -> Acted {
        let progress = &mut self.progress;
        let reply = progress.settings.user_replies.get(progress.replies_used);
        progress.replies_used += usize::from(reply.is_some());
        if reply.is_some_and(UserReply::consents) {
            Arc::make_mut(&mut progress.now.history).consented = true;
        }
        let reply = reply.map_or(Value::Null, |reply| Value::String(reply.text().to_owned()));
        Acted::refused(Status::AskUser, raw(json!({"reply": reply}).to_string()))
    }

    /// A tool call: checked, guarded, then run.
    fn call_tool(
        &mut self,
        tool: &str,
        arguments: &Value,
        timings: &mut StepTimings,
    ) -> Result<Acted, Acted> {
        let started = Instant::now();
        let checked = self.check(tool, arguments);
        timings.validate_us = micros(started.elapsed());
        checked?;
        let arguments_text = arguments.to_string();
        let violations = self.guard(tool, arguments, &arguments_text, timings)?;
        Ok(self.invoke(tool, &arguments_text, violations, timings))
    }

    /// Refuses an unknown tool, arguments that do not fit its schema, and a tool the env's own
    /// mask does not allow now.
    fn check(&self, tool: &str, arguments: &Value) -> Result<(), Acted> {
        let Some(issues) = self.env.validate(tool, arguments) else {
            let tools = self.env.manifest().tools.iter().map(|t| t.name.as_str());
            let message = format!(
                "unknown tool `{tool}`; the tools are: {}",
                tools.collect::<Vec<_>>().join(", ")
            );
            return Err(Acted::refused(
                Status::UnknownTool,
                error_observation(&message),
            ));
        };
        if !issues.is_empty() {
            let observation = json!({
                "error": format!("invalid arguments for `{tool}`"),
                "details": issues,
            });
            return Err(Acted {
                validation: issues,
                ..Acted::refused(Status::InvalidArguments, raw(observation.to_string()))
            });
        }
        if !self.progress.env_mask.iter().any(|allowed| allowed == tool) {
            let message = format!("`{tool}` is not allowed now");
            return Err(Acted::refused(Status::Blocked, error_observation(&message)));
        }
        Ok(())
    }

    /// Judges the call by the policies on the resources the env says it acts on; returns the
    /// policies it violates. In `enforce` mode a violating call goes no further.
    fn guard(
        &mut self,
        tool: &str,
        arguments: &Value,
        arguments_text: &str,
        timings: &mut StepTimings,
    ) -> Result<Vec<Violation>, Acted> {
        let resources = if self.env.policies().can_forbid(tool) {
            match self.resources(tool, arguments_text) {
                Ok(resources) => resources,
                Err(error) => return Err(Acted::call_failed(self, error, false)),
            }
        } else {
            Vec::new()
        };
        let started = Instant::now();
        let violations = self.env.policies().judge(
            tool,
            arguments,
            &resources,
            Situation {
                facts: &self.progress.now.facts,
                history: &self.progress.now.history,
            },
        );
        timings.policy_us = micros(started.elapsed());
        if !violations.is_empty() && self.progress.mode == Mode::Enforce {
            let observation = json!({
                "error": format!("`{tool}` is forbidden here by policy"),
                "violations": violations.iter().map(Violation::explain).collect::<Vec<_>>(),
            });
            return Err(Acted {
                violations,
                ..Acted::refused(Status::Blocked, raw(observation.to_string()))
            });
        }
        Ok(violations)
    }

    /// The entities the env says a call acts on.
    fn resources(&mut self, tool: &str, arguments: &str) -> Result<Vec<Resource>, CallError> {
        let text = self.instance.resources(tool, arguments)?;
        serde_json::from_str(text.as_str()).map_err(|error| CallError::BadOutput {
            export: "resources",
            reason: format!("not a list of resources: {error}"),
        })
    }

    /// Runs the call in the sandbox.
    fn invoke(
        &mut self,
        tool: &str,
        arguments_text: &str,
        violations: Vec<Violation>,
        timings: &mut StepTimings,
    ) -> Acted {
        let started = Instant::now();
        let result = self.instance.step(tool, arguments_text);
        timings.sandbox_us = micros(started.elapsed());
        let output = match result {
            Ok(output) => output,
            Err(error) => {
                return Acted {
                    violations,
                    ..Acted::call_failed(self, error, true)
                };
            }
        };
        let calls = &mut self.progress.env_log.calls;
        calls.push((tool.to_owned(), arguments_text.to_owned()));
        let status = match output.status {
            StepStatus::Ok => Status::Ok,
            StepStatus::ToolError => Status::ToolError,
            StepStatus::InvalidArguments => Status::InvalidArguments,
            StepStatus::UnknownTool => Status::UnknownTool,
            StepStatus::NotRunning => Status::EnvError,
        };
        let events = output.events.into_iter().map(|event| RecordedEvent {
            kind: event.kind,
            data: event.data.into_raw(),
        });
        let requested = self.progress.requested.clone();
        let progress = &mut self.progress;
        let effects = output.effects.into_iter().map(|effect| RecordedEffect {
            requested: requested
                .as_deref()
                .map(|requested| requested.grade(&effect, &mut progress.reference_used)),
            leaks: requested.as_deref().map_or_else(Vec::new, |requested| {
                progress.outflow.record(requested.sensitive(), &effect)
            }),
            effect,
        });
        Acted {
            status,
            observation: output.observation.into_raw(),
            validation: Vec::new(),
            violations,
            events: events.collect(),
            effects: effects.collect(),
            terminated: output.done,
            reached_env: true,
            env_failed: false,
        }
    }

    /// Counts the step, remembers it in the history, reads the env's facts and mask again after
    /// a call that reached it (a step the env never saw leaves them as they were, though the
    /// policies still see the longer history), and applies the budgets. Returns the
    /// microseconds the policies took.
    fn settle(
        &mut self,
        action: &Action,
        tokens: Option<u64>,
        acted: &Acted,
    ) -> Result<u64, RuntimeError> {
        self.remember(action, acted);
        let progress = &mut self.progress;
        let unrequested = acted.effects.iter().filter(|effect| effect.unrequested());
        progress
            .unrequested
            .extend(unrequested.map(|recorded| recorded.effect.clone()));
        progress.n_steps += 1;
        progress.tokens = progress.tokens.saturating_add(tokens.unwrap_or(0));
        progress.terminated |= acted.terminated;
        let mut policy_us = 0;
        if !acted.env_failed && !self.progress.terminated {
            policy_us = if acted.reached_env {
                self.look_around()?
            } else {
                self.remask()
            };
        }
        let out_of_budget = acted.status == Status::OverBudget || self.out_of_budget();
        let progress = &mut self.progress;
        progress.truncated |= acted.env_failed || (out_of_budget && !progress.terminated);
        Ok(policy_us)
    }

    /// A budget (steps, tokens, seconds) is spent.
    fn out_of_budget(&self) -> bool {
        let budget = &self.progress.settings.budget;
        self.progress.n_steps >= budget.max_steps.unwrap_or(DEFAULT_MAX_STEPS)
            || budget
                .max_tokens
                .is_some_and(|max| self.progress.tokens >= max)
            || self.out_of_time()
    }

    /// The episode's time budget is spent.
    fn out_of_time(&self) -> bool {
        let budget = &self.progress.settings.budget;
        budget
            .max_seconds
            .is_some_and(|max| self.started.elapsed().as_secs_f64() >= max)
    }

    /// Updates the history the policies see with one step.
    fn remember(&mut self, action: &Action, acted: &Acted) {
        let irreversible = |tool: &str| {
            self.env
                .manifest()
                .tool(tool)
                .is_some_and(|spec| spec.irreversible)
        };
        let irreversible = match action {
            Action::Tool { tool, .. } => irreversible(tool),
            _ => false,
        };
        let history = Arc::make_mut(&mut self.progress.now.history);
        history.steps += 1;
        history.tainted |= acted
            .events
            .iter()
            .any(|event| event.kind == UNTRUSTED_CONTENT_EVENT);
        let Action::Tool { tool, .. } = action else {
            return;
        };
        match acted.status {
            Status::Ok | Status::ToolError => {
                *history.calls.entry(tool.clone()).or_default() += 1;
                history.violations += u32::from(!acted.violations.is_empty());
                history.irreversible_calls += u32::from(irreversible && acted.status == Status::Ok);
            }
            Status::Blocked => history.blocked += 1,
            _ => {}
        }
    }
}

fn raw(json: String) -> Box<RawValue> {
    RawValue::from_string(json).expect("the sandbox and serde_json only hand over valid JSON")
}

fn error_observation(message: &str) -> Box<RawValue> {
    raw(json!({ "error": message }).to_string())
}

pub(super) fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}
