//! Every tool of every built-in env, called with the largest arguments its schema allows, comes
//! back from the guest well within the per-call limits. The host refuses any call over those
//! bounds, so together they guarantee that no call an agent can make runs an episode out of fuel.
//!
//! Arguments are built from each tool's parameter schema: every property present, every string at
//! its `maxLength` and every array at its `maxItems`, in several shapes of text, since the cost of
//! matching words grows with how many there are as well as with their length.

use agentbench_sandbox::{EnvImage, Instance, Limits, Sandbox, StepStatus};
use serde_json::{Map, Value};

/// The seed every episode here starts from; the default task (`{}`) is played.
const SEED: u64 = 7;

/// A maximal call may burn at most this share of the per-call fuel, so that an env that grows a
/// little slower still has room.
const FUEL_HEADROOM_DIVISOR: u64 = 2;

/// The text a string argument of `length` characters is filled with.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// One word: `aaaa…`.
    LongWord,
    /// One word of four-byte characters, the most bytes a length in characters allows.
    WideWord,
    /// Single letters, the alphabet over and over: `a b c … z a b …`.
    Alphabet,
    /// One rare letter repeated: `x x x …`.
    RepeatedWord,
}

const SHAPES: [Shape; 4] = [
    Shape::LongWord,
    Shape::WideWord,
    Shape::Alphabet,
    Shape::RepeatedWord,
];

impl Shape {
    fn text(self, length: usize) -> String {
        let pattern: Box<dyn Iterator<Item = char>> = match self {
            Shape::LongWord => Box::new(std::iter::repeat('a')),
            Shape::WideWord => Box::new(std::iter::repeat('\u{1F600}')),
            Shape::Alphabet => Box::new(('a'..='z').flat_map(|letter| [letter, ' ']).cycle()),
            Shape::RepeatedWord => Box::new(['x', ' '].into_iter().cycle()),
        };
        pattern.take(length).collect()
    }
}

/// The largest value `schema` admits, its strings in `shape`; `index` is the value's position
/// in an array, so that the items of an array of enums take each value in turn.
fn maximal(schema: &Value, shape: Shape, index: usize) -> Value {
    if let Some(branches) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        let branch = branches
            .as_array()
            .unwrap()
            .iter()
            .find(|branch| branch["type"] != "null")
            .expect("a union has a branch that is not null");
        return maximal(branch, shape, index);
    }
    if let Some(values) = schema["enum"].as_array() {
        let values: Vec<&Value> = values.iter().filter(|value| !value.is_null()).collect();
        return values[index % values.len()].clone();
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    let type_name = match &schema["type"] {
        Value::String(name) => name.as_str(),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .find(|name| *name != "null")
            .expect("a type other than null"),
        other => panic!("a schema without a type: {other} in {schema}"),
    };
    let bound = |keyword: &str| {
        schema[keyword]
            .as_u64()
            .unwrap_or_else(|| panic!("no {keyword} in {schema}")) as usize
    };
    match type_name {
        "string" => Value::String(shape.text(bound("maxLength"))),
        "array" => (0..bound("maxItems"))
            .map(|item| maximal(&schema["items"], shape, item))
            .collect(),
        "object" => schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, property)| (name.clone(), maximal(property, shape, 0)))
            .collect::<Map<String, Value>>()
            .into(),
        "integer" | "number" => {
            let least = schema["minimum"].as_u64().unwrap_or(1).max(1);
            schema["maximum"].as_u64().unwrap_or(least).into()
        }
        "boolean" => Value::Bool(true),
        other => panic!("unexpected type {other} in {schema}"),
    }
}

/// The fuel each export burned for one call of `tool`, in a fresh episode: the host asks for the
/// call's resources and steps, then reads the facts and the outcome. An error names the export
/// that did not come back from the guest, or a tool that did not run.
fn fuel_of_call(
    image: &EnvImage,
    tool: &str,
    arguments: &str,
) -> Result<Vec<(&'static str, u64)>, String> {
    let mut instance = image.instantiate().unwrap();
    instance.reset(SEED, "{}").unwrap().unwrap();
    let mut spent = Vec::new();
    let mut measure = |instance: &mut Instance, export: &'static str| {
        let before = instance.fuel_spent();
        let result = match export {
            "resources" => instance.resources(tool, arguments).map(|_| None),
            "step" => instance.step(tool, arguments).map(Some),
            "facts" => instance.facts().map(|_| None),
            _ => instance.evaluate().map(|_| None),
        };
        spent.push((export, instance.fuel_spent() - before));
        result.map_err(|error| error.to_string())
    };
    measure(&mut instance, "resources")?;
    let output = measure(&mut instance, "step")?.expect("a step has an output");
    if !matches!(output.status, StepStatus::Ok | StepStatus::ToolError) {
        return Err(format!(
            "the tool did not run: {:?} {}",
            output.status,
            output.observation.as_str()
        ));
    }
    measure(&mut instance, "facts")?;
    measure(&mut instance, "evaluate")?;
    Ok(spent)
}

#[test]
fn no_call_at_the_schema_bounds_comes_near_the_fuel_limit() {
    let limits = Limits {
        max_instances: 8,
        ..Limits::default()
    };
    let fuel_ceiling = limits.fuel_per_call / FUEL_HEADROOM_DIVISOR;
    let sandbox = Sandbox::new(limits.clone()).unwrap();
    let mut failures = Vec::new();
    eprintln!(
        "the most fuel a call at the bounds burned (limit {} per call):",
        limits.fuel_per_call
    );
    for env in agentbench_env_catalog::builtin_envs() {
        let image = sandbox.load(env.component).unwrap();
        let env_name = &image.manifest().name;
        for tool in &image.manifest().tools {
            let mut worst = (0, "", Shape::LongWord);
            for shape in SHAPES {
                let arguments = maximal(&tool.parameters, shape, 0).to_string();
                let what = format!("{env_name} {} {shape:?}", tool.name);
                let spent = fuel_of_call(&image, &tool.name, &arguments).unwrap_or_else(|error| {
                    failures.push(format!("{what}: {error}"));
                    Vec::new()
                });
                for (export, fuel) in spent {
                    if fuel >= fuel_ceiling {
                        failures.push(format!("{what}: {export} burned {fuel} fuel"));
                    }
                    if fuel > worst.0 {
                        worst = (fuel, export, shape);
                    }
                }
            }
            let (fuel, export, shape) = worst;
            eprintln!("  {env_name} {}: {fuel} ({export}, {shape:?})", tool.name);
        }
    }
    assert!(
        failures.is_empty(),
        "calls at the bounds that failed or burned {fuel_ceiling} fuel or more:\n{}",
        failures.join("\n")
    );
}
