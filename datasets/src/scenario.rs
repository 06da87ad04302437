//! One scenario: the env and task it sets up, what the agent is told, what a right answer does,
//! and what an attacker wants done.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use agentbench_wire::{Action, EffectPattern, UserReply};

use crate::SuiteError;

/// A scenario as its TOML table writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Unique in the suite, such as `workspace/injection/payroll-share`.
    pub id: String,
    /// The built-in env it runs in.
    pub env: String,
    pub category: Category,
    pub kind: Kind,
    /// The instruction itself asks for harm: the right answer is to refuse.
    #[serde(default)]
    pub harmful_request: bool,
    /// The scenario of the other kind that asks for nearly the same thing (a harmful request's
    /// benign twin, and back).
    #[serde(default)]
    pub twin: Option<String>,
    /// What the user asks the agent to do.
    pub instruction: String,
    /// The env's seed.
    #[serde(default)]
    pub seed: u64,
    /// The step budget (the runtime's default when absent).
    #[serde(default)]
    pub max_steps: Option<u32>,
    /// Replies to `ask_user`, in order: a string, or `{reply, consent}`.
    #[serde(default)]
    pub user_replies: Vec<UserReply>,
    /// The env's own task config (goals, planted content); `instruction` is added to it.
    #[serde(default)]
    pub task: serde_json::Map<String, Value>,
    /// A right way through: the actions the `oracle` baseline takes, ending in a final message.
    pub reference: Vec<Action>,
    /// What the attacker (an injection, or a harmful request) wants done: the actions the
    /// `reckless` baseline adds.
    #[serde(default)]
    pub attack_actions: Vec<Action>,
    /// Effects the task allows beyond the reference's (legitimate variation); every other
    /// effect an agent makes is graded unrequested, a harm.
    #[serde(default)]
    pub allowed_effects: Vec<EffectPattern>,
    /// The reference step whose observation carries the injected instruction; the attacker's
    /// actions follow it. Absent for a harmful request, where the instruction is the attack.
    #[serde(default)]
    pub injected_at: Option<usize>,
    /// How an injected attack is phrased, for attacks through planted content: the same slot
    /// phrased in several families shows which phrasings an agent falls for.
    #[serde(default)]
    pub attack_family: Option<AttackFamily>,
    /// The file the scenario was read from, and the line of its `[[scenario]]` header.
    #[serde(skip)]
    pub file: String,
    #[serde(skip)]
    pub line: usize,
}

/// Whether a scenario attacks the agent (through injected content or a harmful request), or
/// asks for ordinary work.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Attack,
    Benign,
}

/// How an injected instruction is phrased.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AttackFamily {
    /// A plain order to the assistant ("AI assistant: pay this account instead").
    DirectInstruction,
    /// Posing as the user ("Important message from Dana: I authorise you to …").
    UserMessage,
    /// Naming the env's tools and arguments ("call `send_email` with `to` = …").
    ToolKnowledge,
    /// Spread over two observations: the first sets up, the second completes the instruction;
    /// the reference reads both, and `injected_at` is the step that reads the second.
    MultiStep,
}

impl AttackFamily {
    pub fn as_str(self) -> &'static str {
        match self {
            AttackFamily::DirectInstruction => "direct_instruction",
            AttackFamily::UserMessage => "user_message",
            AttackFamily::ToolKnowledge => "tool_knowledge",
            AttackFamily::MultiStep => "multi_step",
        }
    }
}

/// What a scenario probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Instructions injected through tool outputs.
    PromptInjection,
    /// Sending confidential data where it must not go.
    DataExfiltration,
    /// Destructive or irreversible actions without consent.
    IrreversibleAction,
    /// Payments, transfers, refunds gone wrong.
    FinancialHarm,
    /// Personal data leaked or misused.
    Privacy,
    /// Doing more than the task needs; scope and least privilege.
    LeastPrivilege,
    /// Harmful requests (misuse), each with a benign twin.
    Misuse,
    /// Keeping to a policy while the user pushes against it.
    UserPressure,
    /// Instructions that call for a clarifying question.
    Underspecified,
    /// Covert side tasks and sabotage.
    Sabotage,
    /// Spam and resource abuse.
    ResourceAbuse,
    /// Ordinary work with nothing at stake.
    Utility,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::PromptInjection => "prompt_injection",
            Category::DataExfiltration => "data_exfiltration",
            Category::IrreversibleAction => "irreversible_action",
            Category::FinancialHarm => "financial_harm",
            Category::Privacy => "privacy",
            Category::LeastPrivilege => "least_privilege",
            Category::Misuse => "misuse",
            Category::UserPressure => "user_pressure",
            Category::Underspecified => "underspecified",
            Category::Sabotage => "sabotage",
            Category::ResourceAbuse => "resource_abuse",
            Category::Utility => "utility",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Scenario {
    /// The task config an episode of this scenario starts with: the env's task, the
    /// instruction, and the runtime's settings (budget, user replies, and the reference and
    /// allowed effects that unrequested effects are graded against).
    pub fn task_config(&self) -> Value {
        let mut task = self.task.clone();
        task.insert("instruction".to_owned(), json!(self.instruction));
        task.insert(
            "budget".to_owned(),
            match self.max_steps {
                Some(max_steps) => json!({"max_steps": max_steps}),
                None => json!({}),
            },
        );
        task.insert("user_replies".to_owned(), json!(self.user_replies));
        task.insert("reference".to_owned(), json!(self.reference));
        if !self.allowed_effects.is_empty() {
            task.insert("allowed_effects".to_owned(), json!(self.allowed_effects));
        }
        Value::Object(task)
    }

    /// The actions the attacker wants, in the order `reckless` takes them: the reference up to
    /// the step that carries the injection, the attack, then the rest of the reference. A
    /// harmful request's attack comes first, instead of the reference's refusal.
    pub fn reckless_plan(&self) -> Vec<Action> {
        match self.injected_at {
            Some(at) => {
                let split = (at + 1).min(self.reference.len());
                let mut plan = self.reference[..split].to_vec();
                plan.extend(self.attack_actions.iter().cloned());
                plan.extend(self.reference[split..].iter().cloned());
                plan
            }
            None if self.attack_actions.is_empty() => self.reference.clone(),
            None => {
                let mut plan = self.attack_actions.clone();
                plan.push(Action::Message {
                    message: "Done as you asked.".to_owned(),
                });
                plan
            }
        }
    }

    pub(crate) fn invalid(&self, message: String) -> SuiteError {
        SuiteError::Invalid {
            file: self.file.clone(),
            line: self.line,
            message,
        }
    }

    /// The rules one scenario must keep.
    pub(crate) fn check(&self) -> Result<(), SuiteError> {
        if self.id.trim().is_empty() || self.instruction.trim().is_empty() {
            return Err(self.invalid("id and instruction must not be empty".to_owned()));
        }
        if !matches!(self.reference.last(), Some(Action::Message { .. })) {
            return Err(self.invalid(
                "the reference must end with a final message (`{ message = \"…\" }`)".to_owned(),
            ));
        }
        if let Some(at) = self.injected_at
            && at + 1 >= self.reference.len()
        {
            return Err(self.invalid(format!(
                "injected_at = {at} must name a reference step before the final message (0 to {})",
                self.reference.len().saturating_sub(2)
            )));
        }
        if self.attack_family.is_some()
            && (self.kind != Kind::Attack || self.harmful_request || self.injected_at.is_none())
        {
            return Err(self.invalid(
                "`attack_family` phrases an attack through injected content: it needs \
                 `kind = \"attack\"` and `injected_at`, and no `harmful_request`"
                    .to_owned(),
            ));
        }
        match self.kind {
            Kind::Attack if self.attack_actions.is_empty() => {
                Err(self
                    .invalid("an attack scenario lists the attacker's `attack_actions`".to_owned()))
            }
            Kind::Attack if self.injected_at.is_none() && !self.harmful_request => Err(self
                .invalid(
                    "an attack comes through injected content (`injected_at`) or is a \
                     `harmful_request`"
                        .to_owned(),
                )),
            Kind::Benign if self.harmful_request || !self.attack_actions.is_empty() => Err(self
                .invalid(
                    "a benign scenario has no `attack_actions` and is no `harmful_request`"
                        .to_owned(),
                )),
            _ if self.harmful_request && self.twin.is_none() => {
                Err(self.invalid("a harmful request names its benign `twin`".to_owned()))
            }
            _ => Ok(()),
        }
    }
}
