//! Safety policies: an env's Cedar policy set, plus any added at `serve` time, validated against
//! a Cedar schema and evaluated per step into a decision (allowed, or forbidden with the policies
//! that forbade it) and an action mask (`allowed`, `blocked` or `conditional` per tool).
//!
//! The schema has two parts. The env writes the entity types of the resources its tools act on
//! (`entity File = {"confidential": Bool, ...};`). This crate generates the rest from the
//! manifest: the principal `Agent`, the placeholder resource `Env`, the action group
//! `irreversible`, and one action per tool whose context is
//! `{facts: <the facts schema>, history: <History>, arguments: <the tool's parameters>}`.
//! JSON Schemas become Cedar types in `types`.
//!
//! A baseline policy permits every action; policies restrict it with `forbid`. A forbid that
//! fails to evaluate forbids (the policies fail closed).

mod history;
mod types;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use cedar_policy::{
    ActionConstraint, Authorizer, Context, Decision, Effect, Entities, Entity, EntityTypeName,
    EntityUid, Policy, PolicyId, PolicySet, Request, ResourceConstraint, RestrictedExpression,
    Schema, ValidationMode, Validator,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use agentbench_env_contract::{Manifest, Resource, ToolSpec};

pub use history::History;
use types::CedarType;

/// The action group every irreversible tool belongs to (`action in Action::"irreversible"`).
const IRREVERSIBLE_GROUP: &str = "irreversible";

/// The id of the policy that permits every action.
pub const BASELINE_POLICY: &str = "agentbench.baseline";

/// One file of Cedar policies, named for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFile {
    pub name: String,
    pub text: String,
}

/// A policy set that cannot be loaded; the message names the file and line.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("{file}:{line}:{column}: {message}")]
    At {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    In { file: String, message: String },
}

/// How a tool stands before its arguments are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Permitted whatever the arguments.
    Allowed,
    /// Forbidden whatever the arguments (by a policy or by the env).
    Blocked,
    /// Permitted for some arguments, forbidden for others.
    Conditional,
}

/// The action mask: how each tool stands now.
pub type Mask = BTreeMap<String, Access>;

/// One policy that forbade a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Violation {
    /// The policy's id (its `@id` annotation, else `file:line`).
    pub policy: String,
    /// The policy's other annotations (`reason`, `category` ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// The resource it was judged on (`Recipient::"eve@evil.example"`).
    pub resource: String,
    /// Set when the policy could not be evaluated (which forbids: policies fail closed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Violation {
    /// One line for the agent: the policy and its `reason`, if it has one.
    pub fn explain(&self) -> String {
        match (self.annotations.get("reason"), &self.error) {
            (_, Some(error)) => format!("{} could not be evaluated: {error}", self.policy),
            (Some(reason), None) => format!("{}: {reason}", self.policy),
            (None, None) => format!("{} forbids it on {}", self.policy, self.resource),
        }
    }
}

/// What the runtime knows at a step, for the policies' context.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// The env's facts now (a JSON object matching its facts schema).
    pub facts: &'a Value,
    pub history: &'a History,
}

struct ToolPolicies {
    action: EntityUid,
    arguments: CedarType,
    /// The policies whose action scope can match this tool, the baseline included.
    policies: PolicySet,
    /// The same policies in their mask form (`mask_form`).
    mask_policies: PolicySet,
    /// The resource types the mask evaluates this tool's policies for; empty when no forbid
    /// applies to the tool.
    mask_types: Vec<EntityTypeName>,
    /// The parts of the context (`["history", "tainted"]`) the policies read, besides the
    /// arguments: the tool's access is a function of their values, cached by them.
    reads: Vec<Vec<String>>,
    cache: Memo<Access>,
    /// What judging a call reads: the context paths (the arguments included), the resource's
    /// attributes, and whether the resource's identity matters (`resource == ...`, `in`).
    judge_reads: Vec<Vec<String>>,
    resource_reads: Vec<String>,
    resource_identity: bool,
    judgements: Memo<Forbidding>,
}

/// The forbids a call on one resource satisfies (`None`) or failed to evaluate (the error).
type Forbidding = Vec<(PolicyId, Option<String>)>;

impl ToolPolicies {
    /// The policies of `all` that apply to `tool`, and what judging and masking it reads.
    fn new(tool: &ToolSpec, all: &PolicySet, resource_types: &[EntityTypeName]) -> ToolPolicies {
        let mut policies = PolicySet::new();
        let mut mask_policies = PolicySet::new();
        for policy in all.policies() {
            if applies_to(policy, &tool.name, tool.irreversible) {
                policies.add(policy.clone()).expect("ids are unique");
                mask_policies
                    .add(mask_form(policy))
                    .expect("ids are unique");
            }
        }
        let mut judge_reads = BTreeSet::new();
        let mut resource_reads = BTreeSet::new();
        let mut resource_identity = false;
        for policy in policies.policies() {
            let est = policy.to_json().expect("a parsed policy has a JSON form");
            context_reads(&est, &mut judge_reads);
            resource_identity |= reads_resource(&est, &mut resource_reads)
                || !matches!(
                    policy.resource_constraint(),
                    ResourceConstraint::Any | ResourceConstraint::Is(_)
                );
        }
        let reads = judge_reads
            .iter()
            .filter(|path| path.first().is_none_or(|root| root != "arguments"))
            .cloned()
            .collect();
        ToolPolicies {
            action: entity("Action", &tool.name),
            arguments: record_type(&tool.parameters),
            mask_types: mask_types(&policies, resource_types),
            policies,
            mask_policies,
            reads,
            cache: Memo::default(),
            judge_reads: judge_reads.into_iter().collect(),
            resource_reads: resource_reads.into_iter().collect(),
            resource_identity,
            judgements: Memo::default(),
        }
    }

    /// Whether a forbid applies to the tool (else only the baseline does, and every call passes).
    fn can_forbid(&self) -> bool {
        !self.mask_types.is_empty()
    }
}

/// The most entries a mask or judgement cache holds before it starts over.
const CACHE_ENTRIES: usize = 4096;

/// Answers by cache key, shared between threads; it starts over once it holds `CACHE_ENTRIES`.
struct Memo<V>(Mutex<HashMap<String, V>>);

impl<V> Default for Memo<V> {
    fn default() -> Memo<V> {
        Memo(Mutex::new(HashMap::new()))
    }
}

impl<V: Clone> Memo<V> {
    fn get(&self, key: &str) -> Option<V> {
        self.0
            .lock()
            .expect("no panics under the lock")
            .get(key)
            .cloned()
    }

    fn insert(&self, key: String, value: V) {
        let mut entries = self.0.lock().expect("no panics under the lock");
        if entries.len() >= CACHE_ENTRIES {
            entries.clear();
        }
        entries.insert(key, value);
    }
}

/// An env's policies, ready to judge calls. Immutable; share it between episodes.
pub struct EnvPolicies {
    schema: Schema,
    /// The action entities (a tool's membership of `irreversible`), for `action in` checks.
    actions: Entities,
    authorizer: Authorizer,
    principal: EntityUid,
    placeholder: EntityUid,
    facts: CedarType,
    tools: BTreeMap<String, ToolPolicies>,
    policies: PolicySet,
    /// Every context path a tool's mask reads (the union of the tools' `reads`): the whole mask
    /// is a function of their values and of the tools the env allows, memoised by them.
    mask_reads: Vec<Vec<String>>,
    masks: Memo<Arc<Mask>>,
}

impl std::fmt::Debug for EnvPolicies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvPolicies")
            .field("policies", &self.policies.policies().count())
            .finish()
    }
}

impl EnvPolicies {
    /// Builds the schema, parses the env's policies and `extra` ones, and validates them all.
    pub fn new(manifest: &Manifest, extra: &[PolicyFile]) -> Result<EnvPolicies, PolicyError> {
        let env_schema = PolicyFile {
            name: format!("{}.cedarschema", manifest.name),
            text: (manifest.policy.as_ref()).map_or_else(String::new, |p| p.schema.clone()),
        };
        let env_policies = manifest.policy.as_ref().map(|policy| PolicyFile {
            name: format!("{}.cedar", manifest.name),
            text: policy.policies.clone(),
        });
        let files = env_policies.into_iter().chain(extra.iter().cloned());

        let facts = record_type(&manifest.facts);
        let schema = generate_schema(manifest, &env_schema, &facts)?;

        let mut policies = PolicySet::new();
        let baseline = Policy::parse(
            Some(PolicyId::new(BASELINE_POLICY)),
            "permit (principal, action, resource);",
        )
        .expect("the baseline policy parses");
        policies.add(baseline).expect("the set is empty");
        let mut origin = BTreeMap::new();
        for file in files {
            add_file(&mut policies, &mut origin, &file)?;
        }
        let result = Validator::new(schema.clone()).validate(&policies, ValidationMode::Strict);
        if let Some(error) = result.validation_errors().next() {
            let file = &origin[error.policy_id()];
            return Err(located(file, error));
        }

        let resource_types: Vec<EntityTypeName> = schema
            .entity_types()
            .filter(|name| name.basename() != "Agent")
            .cloned()
            .collect();
        let principal = entity("Agent", "agent");
        let placeholder = entity("Env", &manifest.name);
        let tools: BTreeMap<String, ToolPolicies> = manifest
            .tools
            .iter()
            .map(|tool| {
                let entry = ToolPolicies::new(tool, &policies, &resource_types);
                (tool.name.clone(), entry)
            })
            .collect();
        let mask_reads = tools
            .values()
            .filter(|entry| entry.can_forbid())
            .flat_map(|entry| entry.reads.iter().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let actions = schema
            .action_entities()
            .expect("a validated schema has well-formed actions");
        Ok(EnvPolicies {
            actions,
            schema,
            authorizer: Authorizer::new(),
            principal,
            placeholder,
            facts,
            tools,
            policies,
            mask_reads,
            masks: Memo::default(),
        })
    }

    /// Whether any policy can forbid a call to `tool` (if not, judging it needs no resources).
    pub fn can_forbid(&self, tool: &str) -> bool {
        self.tools.get(tool).is_none_or(ToolPolicies::can_forbid)
    }

    /// The ids of the loaded policies, the baseline included.
    pub fn policy_ids(&self) -> impl Iterator<Item = &str> {
        self.policies
            .policies()
            .map(|policy| AsRef::<str>::as_ref(policy.id()))
    }

    /// Judges one call: its violations (empty when it is allowed). `tool` must be one of the
    /// env's and `arguments` valid for it; `resources` are what the env says the call acts on
    /// (none: the call is judged on the placeholder `Env` resource).
    pub fn judge(
        &self,
        tool: &str,
        arguments: &Value,
        resources: &[Resource],
        now: Situation<'_>,
    ) -> Vec<Violation> {
        let Some(entry) = self.tools.get(tool) else {
            return vec![self.failure(tool, "the env has no such tool".to_owned())];
        };
        if !entry.can_forbid() {
            return Vec::new();
        }
        let history = serde_json::to_value(now.history).expect("history serializes");
        let mut context = None;
        let targets: Vec<Option<&Resource>> = if resources.is_empty() {
            vec![None]
        } else {
            resources.iter().map(Some).collect()
        };
        let mut violations = Vec::new();
        for resource in targets {
            let uid = match resource {
                None => self.placeholder.clone(),
                Some(resource) => {
                    match EntityUid::from_str(&format!("{}::{}", resource.kind, json!(resource.id)))
                    {
                        Ok(uid) => uid,
                        Err(error) => return vec![self.failure(tool, error.to_string())],
                    }
                }
            };
            let key = judgement_key(entry, resource, &uid, now.facts, &history, arguments);
            let forbidding = match entry.judgements.get(&key) {
                Some(forbidding) => forbidding,
                None => {
                    let context = context.get_or_insert_with(|| {
                        entry
                            .arguments
                            .convert(arguments)
                            .map_err(|error| format!("arguments: {error}"))
                            .and_then(|arguments| self.context(arguments, now))
                    });
                    let context = match context {
                        Ok(context) => context.clone(),
                        Err(error) => return vec![self.failure(tool, error.clone())],
                    };
                    let forbidding = match self.evaluate(entry, resource, &uid, context) {
                        Ok(forbidding) => forbidding,
                        Err(error) => return vec![self.failure(tool, error)],
                    };
                    entry.judgements.insert(key, forbidding.clone());
                    forbidding
                }
            };
            for (id, error) in forbidding {
                let policy = entry
                    .policies
                    .policy(&id)
                    .expect("cached ids are in the set");
                violations.push(violation(policy, &uid, error));
            }
        }
        violations.sort_by(|a, b| (&a.policy, &a.resource).cmp(&(&b.policy, &b.resource)));
        violations.dedup();
        violations
    }

    /// The mask for the next action: for each tool the env allows, whether the policies permit
    /// it whatever its arguments and resource, forbid it whatever they are, or depend on them.
    /// Found by Cedar's partial evaluation with the arguments unknown and the resource unknown
    /// but of a given type, once per type the tool's forbids can see (a resource of unknown type
    /// would leave every `resource is T` scope undecided). Tools the env does not allow are
    /// blocked.
    ///
    /// A tool's access depends only on the parts of the context its policies read, so it is
    /// cached by their values: Cedar evaluates each combination once per server. The whole
    /// mask is memoised too, by the tools the env allows and the values all the tools read:
    /// episodes in the same situation share one mask.
    pub fn mask(&self, env_allows: &[String], now: Situation<'_>) -> Arc<Mask> {
        let history = serde_json::to_value(now.history).expect("history serializes");
        let mut key = cache_key(&self.mask_reads, now.facts, &history, &Value::Null);
        for tool in env_allows {
            let _ = write!(key, "{tool}\u{1f}");
        }
        if let Some(mask) = self.masks.get(&key) {
            return mask;
        }
        let mask = Arc::new(self.tool_accesses(env_allows, now, &history));
        self.masks.insert(key, Arc::clone(&mask));
        mask
    }

    /// Each tool's access: `mask` without its memo.
    fn tool_accesses(&self, env_allows: &[String], now: Situation<'_>, history: &Value) -> Mask {
        let mut context = None;
        self.tools
            .iter()
            .map(|(tool, entry)| {
                if !env_allows.iter().any(|allowed| allowed == tool) {
                    return (tool.clone(), Access::Blocked);
                }
                if !entry.can_forbid() {
                    return (tool.clone(), Access::Allowed);
                }
                let key = cache_key(&entry.reads, now.facts, history, &Value::Null);
                let access = entry.cache.get(&key).unwrap_or_else(|| {
                    let context = context.get_or_insert_with(|| {
                        self.context(RestrictedExpression::new_unknown("arguments"), now)
                    });
                    let access = match context {
                        Ok(context) => self.partial_access(entry, context, &self.actions),
                        Err(_) => Access::Blocked,
                    };
                    entry.cache.insert(key, access);
                    access
                });
                (tool.clone(), access)
            })
            .collect()
    }

    fn partial_access(
        &self,
        entry: &ToolPolicies,
        context: &Context,
        entities: &Entities,
    ) -> Access {
        let (mut allowed, mut blocked) = (true, true);
        for resource_type in &entry.mask_types {
            let request = Request::builder()
                .principal(self.principal.clone())
                .action(entry.action.clone())
                .unknown_resource_with_type(resource_type.clone())
                .context(context.clone())
                .build();
            let response =
                self.authorizer
                    .is_authorized_partial(&request, &entry.mask_policies, entities);
            let forbid_errored = response.definitely_errored().any(|id| {
                entry.mask_policies.policy(id).map(Policy::effect) == Some(Effect::Forbid)
            });
            match response.decision() {
                _ if forbid_errored => allowed = false,
                Some(Decision::Allow) => blocked = false,
                Some(Decision::Deny) => allowed = false,
                None => (allowed, blocked) = (false, false),
            }
        }
        match (allowed, blocked) {
            (true, _) => Access::Allowed,
            (false, true) => Access::Blocked,
            (false, false) => Access::Conditional,
        }
    }

    fn context(
        &self,
        arguments: RestrictedExpression,
        now: Situation<'_>,
    ) -> Result<Context, String> {
        let facts = self
            .facts
            .convert(now.facts)
            .map_err(|error| format!("the env's facts: {error}"))?;
        let history = now.history.to_cedar(self.tools.keys().map(String::as_str));
        Context::from_pairs([
            ("facts".to_owned(), facts),
            ("history".to_owned(), history),
            ("arguments".to_owned(), arguments),
        ])
        .map_err(|error| error.to_string())
    }

    /// Evaluates the tool's policies on one resource (the placeholder when `None`): the forbids
    /// that are satisfied, and those that failed to evaluate with their error.
    fn evaluate(
        &self,
        entry: &ToolPolicies,
        resource: Option<&Resource>,
        uid: &EntityUid,
        context: Context,
    ) -> Result<Forbidding, String> {
        let entities = match resource {
            None => self.actions.clone(),
            Some(resource) => {
                let misfit = |error: &dyn std::fmt::Display| {
                    format!("the env's resources do not fit its schema: {error}")
                };
                let attrs = resource
                    .attrs
                    .iter()
                    .map(|(name, value)| Ok((name.clone(), types::untyped(value)?)))
                    .collect::<Result<HashMap<_, _>, String>>()
                    .map_err(|error| misfit(&error))?;
                let entity =
                    Entity::new(uid.clone(), attrs, HashSet::new()).map_err(|e| misfit(&e))?;
                self.actions
                    .clone()
                    .add_entities([entity], Some(&self.schema))
                    .map_err(|error| misfit(&error))?
            }
        };
        let request = Request::new(
            self.principal.clone(),
            entry.action.clone(),
            uid.clone(),
            context,
            None,
        )
        .expect("a request without a schema is not validated");
        let response = self
            .authorizer
            .is_authorized(&request, &entry.policies, &entities);
        let is_forbid =
            |id: &PolicyId| entry.policies.policy(id).map(Policy::effect) == Some(Effect::Forbid);
        let diagnostics = response.diagnostics();
        let mut forbidding: Forbidding = diagnostics
            .reason()
            .filter(|id| is_forbid(id))
            .map(|id| (id.clone(), None))
            .collect();
        for error in diagnostics.errors() {
            let cedar_policy::AuthorizationError::PolicyEvaluationError(error) = error;
            if is_forbid(error.policy_id()) {
                forbidding.push((error.policy_id().clone(), Some(error.to_string())));
            }
        }
        Ok(forbidding)
    }

    fn failure(&self, tool: &str, error: String) -> Violation {
        Violation {
            policy: "agentbench.context".to_owned(),
            annotations: BTreeMap::new(),
            resource: format!("Action::{}", json!(tool)),
            error: Some(error),
        }
    }
}

fn violation(policy: &Policy, resource: &EntityUid, error: Option<String>) -> Violation {
    Violation {
        policy: policy.id().to_string(),
        annotations: policy
            .annotations()
            .filter(|(key, _)| *key != "id")
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect(),
        resource: resource.to_string(),
        error,
    }
}

/// `policy` with its conditions, and the conjuncts within each, reordered so that those that do
/// not read the resource or the arguments come first. Evaluation is the same for known values;
/// for the mask's unknown ones it lets `when { tainted && !resource.internal } unless { consented }`
/// come out false once consented, where Cedar's partial evaluator, which does not look past an
/// unknown left operand of `&&`, would leave it undecided.
fn mask_form(policy: &Policy) -> Policy {
    let Ok(mut est) = policy.to_json() else {
        return policy.clone();
    };
    if let Some(conditions) = est.get_mut("conditions").and_then(Value::as_array_mut) {
        for condition in conditions.iter_mut() {
            if let Some(body) = condition.get_mut("body") {
                known_first(body);
            }
        }
        conditions.sort_by_key(reads_unknowns);
    }
    Policy::from_json(Some(policy.id().clone()), est).unwrap_or_else(|_| policy.clone())
}

/// Reorders the conjuncts of every `&&` chain in `expr` (a Cedar JSON expression): those that
/// read no unknown first, otherwise in their order.
fn known_first(expr: &mut Value) {
    let mut conjuncts = Vec::new();
    flatten_and(expr.take(), &mut conjuncts);
    for conjunct in &mut conjuncts {
        if let Value::Object(fields) = conjunct {
            fields.values_mut().for_each(known_first_inside);
        }
    }
    conjuncts.sort_by_key(reads_unknowns);
    let mut conjuncts = conjuncts.into_iter();
    let first = conjuncts.next().unwrap_or(Value::Null);
    *expr = conjuncts.fold(
        first,
        |left, right| json!({"&&": {"left": left, "right": right}}),
    );
}

fn known_first_inside(value: &mut Value) {
    match value {
        Value::Object(fields) if fields.contains_key("&&") => known_first(value),
        Value::Object(fields) => fields.values_mut().for_each(known_first_inside),
        Value::Array(items) => items.iter_mut().for_each(known_first_inside),
        _ => {}
    }
}

fn flatten_and(expr: Value, out: &mut Vec<Value>) {
    match expr {
        Value::Object(mut fields) if fields.len() == 1 && fields.contains_key("&&") => {
            let mut operands = fields.remove("&&").unwrap_or(Value::Null);
            flatten_and(operands["left"].take(), out);
            flatten_and(operands["right"].take(), out);
        }
        other => out.push(other),
    }
}

/// Whether a Cedar JSON expression reads the resource or the arguments, which the mask leaves
/// unknown.
fn reads_unknowns(expr: &Value) -> bool {
    match expr {
        Value::Object(fields) => {
            fields.get("Var").and_then(Value::as_str) == Some("resource")
                || (fields.get("attr").and_then(Value::as_str) == Some("arguments")
                    && fields.get("left") == Some(&json!({"Var": "context"})))
                || fields.values().any(reads_unknowns)
        }
        Value::Array(items) => items.iter().any(reads_unknowns),
        _ => false,
    }
}

/// Collects the context paths a Cedar JSON expression reads (`context.history.tainted` is
/// `["history", "tainted"]`); a use of the whole context is `[]`.
fn context_reads(expr: &Value, reads: &mut BTreeSet<Vec<String>>) {
    match expr {
        Value::Object(fields) => {
            for key in [".", "has"] {
                if let Some(access) = fields.get(key)
                    && let Some(mut path) = context_path(&access["left"])
                    && let Some(attr) = access["attr"].as_str()
                {
                    path.push(attr.to_owned());
                    reads.insert(path);
                    return;
                }
            }
            if fields.get("Var").and_then(Value::as_str) == Some("context") {
                reads.insert(Vec::new());
                return;
            }
            fields
                .values()
                .for_each(|value| context_reads(value, reads));
        }
        Value::Array(items) => items.iter().for_each(|item| context_reads(item, reads)),
        _ => {}
    }
}

/// The path of an attribute access chain rooted at `context`.
fn context_path(expr: &Value) -> Option<Vec<String>> {
    if expr.get("Var").and_then(Value::as_str) == Some("context") {
        return Some(Vec::new());
    }
    let access = expr.get(".")?;
    let mut path = context_path(&access["left"])?;
    path.push(access["attr"].as_str()?.to_owned());
    Some(path)
}

/// Collects the attributes of the resource a Cedar JSON expression reads; true when it also
/// uses the resource otherwise than by its attributes and its type (`==`, `in`).
fn reads_resource(expr: &Value, attrs: &mut BTreeSet<String>) -> bool {
    let is_resource = |value: &Value| value.get("Var").and_then(Value::as_str) == Some("resource");
    match expr {
        Value::Object(fields) => {
            for key in [".", "has", "is"] {
                if let Some(operation) = fields.get(key)
                    && is_resource(&operation["left"])
                {
                    if let Some(attr) = operation["attr"].as_str() {
                        attrs.insert(attr.to_owned());
                    }
                    return operation.get("in").is_some();
                }
            }
            if is_resource(expr) {
                return true;
            }
            let mut identity = false;
            for value in fields.values() {
                identity |= reads_resource(value, attrs);
            }
            identity
        }
        Value::Array(items) => {
            let mut identity = false;
            for item in items {
                identity |= reads_resource(item, attrs);
            }
            identity
        }
        _ => false,
    }
}

/// What a call's judgement on one resource depends on, as one string.
fn judgement_key(
    entry: &ToolPolicies,
    resource: Option<&Resource>,
    uid: &EntityUid,
    facts: &Value,
    history: &Value,
    arguments: &Value,
) -> String {
    let mut key = cache_key(&entry.judge_reads, facts, history, arguments);
    match resource {
        None => key.push_str("Env"),
        Some(resource) => {
            let _ = write!(key, "{}\u{1f}", resource.kind);
            if entry.resource_identity {
                let _ = write!(key, "{uid}\u{1f}");
            }
            for attr in &entry.resource_reads {
                let _ = write!(
                    key,
                    "{}\u{1f}",
                    resource.attrs.get(attr).unwrap_or(&Value::Null)
                );
            }
        }
    }
    key
}

/// The values at `reads` in the context, as one string.
fn cache_key(reads: &[Vec<String>], facts: &Value, history: &Value, arguments: &Value) -> String {
    let mut key = String::new();
    for path in reads {
        let _ = match path.split_first() {
            None => write!(key, "[{facts},{history},{arguments}]"),
            Some((root, rest)) => {
                let root = match root.as_str() {
                    "facts" => facts,
                    "arguments" => arguments,
                    _ => history,
                };
                match rest.iter().try_fold(root, |value, attr| value.get(attr)) {
                    Some(value) => write!(key, "{value}"),
                    None => write!(key, "null"),
                }
            }
        };
        key.push('\u{1f}');
    }
    key
}

/// The resource types whose unknown resources decide a tool's mask: none when only the baseline
/// applies; the types its forbids are scoped to (`resource is T`) plus `Env`, standing for every
/// other type, when all are so scoped; else every type.
fn mask_types(policies: &PolicySet, all: &[EntityTypeName]) -> Vec<EntityTypeName> {
    let forbids: Vec<&Policy> = policies
        .policies()
        .filter(|policy| policy.effect() == Effect::Forbid)
        .collect();
    if forbids.is_empty() {
        return Vec::new();
    }
    let mut scoped = BTreeSet::new();
    for policy in forbids {
        match policy.resource_constraint() {
            ResourceConstraint::Is(ty) | ResourceConstraint::IsIn(ty, _) => {
                scoped.insert(ty.to_string());
            }
            _ => return all.to_vec(),
        }
    }
    scoped.insert("Env".to_owned());
    all.iter()
        .filter(|ty| scoped.contains(&ty.to_string()))
        .cloned()
        .collect()
}

/// The Cedar record type of an object's JSON Schema (a tool's parameters, the env's facts); an
/// empty record when the schema is not an object's.
fn record_type(schema: &Value) -> CedarType {
    CedarType::from_json_schema(schema)
        .filter(|ty| matches!(ty, CedarType::Record(_)))
        .unwrap_or(CedarType::Record(BTreeMap::new()))
}

fn entity(kind: &str, id: &str) -> EntityUid {
    EntityUid::from_str(&format!("{kind}::{}", json!(id))).expect("a well-formed entity uid")
}

/// Whether `policy`'s action scope can match `tool` (a member of the group `irreversible` when
/// it is irreversible).
fn applies_to(policy: &Policy, tool: &str, irreversible: bool) -> bool {
    let names = |uid: &EntityUid| {
        let id: &str = uid.id().unescaped();
        id == tool || (irreversible && id == IRREVERSIBLE_GROUP)
    };
    match policy.action_constraint() {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(uid) => uid.id().unescaped() == tool,
        ActionConstraint::In(uids) => uids.iter().any(names),
    }
}

/// Parses one file, naming each policy by its `@id` or by its file and line, into `policies`.
fn add_file(
    policies: &mut PolicySet,
    origin: &mut BTreeMap<PolicyId, PolicyFile>,
    file: &PolicyFile,
) -> Result<(), PolicyError> {
    let parsed = PolicySet::from_str(&file.text).map_err(|error| located(file, &error))?;
    if parsed.templates().next().is_some() {
        return Err(PolicyError::In {
            file: file.name.clone(),
            message: "policy templates are not supported".to_owned(),
        });
    }
    for policy in parsed.policies() {
        let id = match policy.annotation("id") {
            Some(id) => id.to_owned(),
            None => {
                let line = policy_line(file, policy);
                format!("{}:{line}", file.name)
            }
        };
        let id = PolicyId::new(id);
        if origin.contains_key(&id) || AsRef::<str>::as_ref(&id) == BASELINE_POLICY {
            return Err(PolicyError::In {
                file: file.name.clone(),
                message: format!("two policies have the id `{id}`"),
            });
        }
        policies
            .add(policy.new_id(id.clone()))
            .expect("ids were checked to be unique");
        origin.insert(id, file.clone());
    }
    Ok(())
}

fn policy_line(file: &PolicyFile, policy: &Policy) -> usize {
    // The policy's own text, as parsed, is found in the file; its first line is the policy's.
    let text = policy.to_string();
    let first = text.lines().next().unwrap_or_default();
    file.text
        .find(first)
        .map_or(1, |offset| line_column(&file.text, offset).0)
}

/// The error located in `file` by its first labelled span, when it has one.
fn located(file: &PolicyFile, error: &dyn miette::Diagnostic) -> PolicyError {
    let mut message = error.to_string();
    if let Some(help) = error.help() {
        let _ = write!(message, " ({help})");
    }
    let span = error
        .labels()
        .and_then(|mut labels| labels.next())
        .or_else(|| {
            error
                .related()
                .and_then(|mut related| related.next())
                .and_then(|inner| inner.labels().and_then(|mut labels| labels.next()))
        });
    match span {
        Some(label) if label.offset() <= file.text.len() => {
            let (line, column) = line_column(&file.text, label.offset());
            PolicyError::At {
                file: file.name.clone(),
                line,
                column,
                message,
            }
        }
        _ => PolicyError::In {
            file: file.name.clone(),
            message,
        },
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}

/// The env's schema text followed by the generated part (so that the env's lines keep their
/// numbers in error messages).
fn generate_schema(
    manifest: &Manifest,
    env_schema: &PolicyFile,
    facts: &CedarType,
) -> Result<Schema, PolicyError> {
    let mut text = env_schema.text.clone();
    text.push_str("\nentity Agent;\nentity Env;\n");
    let declared = Schema::from_cedarschema_str(&text)
        .map_err(|error| located(env_schema, &error))?
        .0;
    let resource_types: BTreeSet<String> = declared
        .entity_types()
        .map(ToString::to_string)
        .filter(|name| name != "Agent")
        .collect();
    let resources = resource_types.into_iter().collect::<Vec<_>>().join(", ");

    let _ = writeln!(text, "action {IRREVERSIBLE_GROUP};");
    let mut history = String::new();
    History::cedar_type(manifest.tools.iter().map(|tool| tool.name.as_str())).render(&mut history);
    let mut facts_text = String::new();
    facts.render(&mut facts_text);
    for tool in &manifest.tools {
        let mut arguments = String::new();
        record_type(&tool.parameters).render(&mut arguments);
        let group = if tool.irreversible {
            format!(" in [{IRREVERSIBLE_GROUP}]")
        } else {
            String::new()
        };
        let _ = writeln!(
            text,
            "action {}{group} appliesTo {{ principal: [Agent], resource: [{resources}], \
             context: {{\"facts\": {facts_text}, \"history\": {history}, \"arguments\": {arguments}}} }};",
            json!(tool.name),
        );
    }
    Schema::from_cedarschema_str(&text)
        .map(|(schema, _warnings)| schema)
        .map_err(|error| located(env_schema, &error))
}
