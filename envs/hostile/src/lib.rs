//! A hostile guest: each tool misbehaves in one way the sandbox must contain.
//!
//! It implements the world's exports directly (not through the SDK's `Env`), because some of its
//! misbehaviour, such as returning an observation that is not JSON, the SDK makes impossible.
//! Tools: `echo` (healthy: counts calls), `spin` (loops forever), `grow_memory` (allocates until
//! stopped), `recurse` (unbounded recursion), `trap` (panics), `huge_output {bytes}` (a JSON
//! string of that many bytes), `bad_json` (an observation that is not JSON), `unreadable_number`
//! (JSON whose number no `f64` holds, `1e400`), `read_out_of_bounds` (reads past the end of its
//! linear memory, which only the inaccessible pages of the sandbox's reservation catch). A task
//! `{"trap_in_reset": true}` panics in `reset`; `{"spin_in_reset": true}` loops there.

use std::cell::Cell;
use std::hint::black_box;

use agentbench_env_sdk::bindings::{self, Guest, Json, StepResult, StepStatus, ToolCall};
use serde_json::json;

const TOOLS: &[&str] = &[
    "echo",
    "spin",
    "grow_memory",
    "recurse",
    "trap",
    "huge_output",
    "bad_json",
    "unreadable_number",
    "read_out_of_bounds",
];

thread_local! {
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

struct Hostile;

impl Guest for Hostile {
    fn manifest() -> Json {
        let tools: Vec<_> = TOOLS
            .iter()
            .map(|name| {
                json!({
                    "name": name,
                    "description": format!("hostile tool `{name}`"),
                    "parameters": {"type": "object", "properties": {"bytes": {"type": "integer"}}},
                    "irreversible": false,
                })
            })
            .collect();
        json!({
            "name": "hostile",
            "version": "0.1.0",
            "description": "misbehaves on purpose",
            "tools": tools,
            "facts": {"type": "object"},
            "task": {"type": "object"},
        })
        .to_string()
    }

    fn reset(_seed: u64, task: Json) -> Result<Json, String> {
        let task: serde_json::Value = serde_json::from_str(&task).map_err(|e| e.to_string())?;
        if task["trap_in_reset"] == true {
            panic!("trap in reset");
        }
        if task["spin_in_reset"] == true {
            spin();
        }
        CALLS.set(0);
        Ok(json!({"ready": true}).to_string())
    }

    fn step(call: ToolCall) -> StepResult {
        let arguments: serde_json::Value =
            serde_json::from_str(&call.arguments).unwrap_or_default();
        let observation = match call.name.as_str() {
            "echo" => {
                CALLS.set(CALLS.get() + 1);
                json!({"calls": CALLS.get()}).to_string()
            }
            "spin" => spin(),
            "grow_memory" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1; 1 << 20]);
                    black_box(&hoard);
                }
            }
            "recurse" => json!({"depth": recurse(black_box(u64::MAX))}).to_string(),
            "trap" => panic!("trap in step"),
            "huge_output" => {
                let bytes = arguments["bytes"].as_u64().unwrap_or(100 << 20) as usize;
                // One memset-like allocation, so the size, not the fuel, is what is tested.
                let mut text = vec![b'x'; bytes + 2];
                text[0] = b'"';
                text[bytes + 1] = b'"';
                // SAFETY: the bytes are ASCII; validating 100 MB would burn the fuel under test.
                unsafe { String::from_utf8_unchecked(text) }
            }
            "bad_json" => "this is {not json".to_owned(),
            "unreadable_number" => r#"{"balance": 1e400}"#.to_owned(),
            "read_out_of_bounds" => {
                // The last 8 bytes of the 32-bit address space, which no memory the sandbox
                // allows reaches.
                let address = black_box(u32::MAX as usize - 7) as *const u64;
                // SAFETY: in WebAssembly a read outside the memory is no undefined behaviour but a
                // trap, which this tool exists to cause.
                let value = unsafe { address.read_volatile() };
                json!({"read": value}).to_string()
            }
            _ => json!({"error": "unknown tool"}).to_string(),
        };
        StepResult {
            status: StepStatus::Ok,
            observation,
            done: false,
            events: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn facts() -> Json {
        json!({"calls": CALLS.get()}).to_string()
    }

    fn resources(_call: ToolCall) -> Json {
        "[]".to_owned()
    }

    fn mask() -> Vec<String> {
        TOOLS.iter().map(|name| (*name).to_owned()).collect()
    }

    fn evaluate() -> Json {
        json!({"success": true, "harms": [], "checks": []}).to_string()
    }

    fn world() -> Json {
        json!({ "calls": CALLS.get() }).to_string()
    }

    fn sensitive() -> Json {
        "[]".to_owned()
    }

    fn save() -> Vec<u8> {
        CALLS.get().to_le_bytes().to_vec()
    }

    fn load(state: Vec<u8>) -> Result<(), String> {
        let bytes: [u8; 8] = state
            .try_into()
            .map_err(|_| "expected 8 bytes".to_owned())?;
        CALLS.set(u64::from_le_bytes(bytes));
        Ok(())
    }
}

fn spin() -> ! {
    loop {
        black_box(());
    }
}

fn recurse(depth: u64) -> u64 {
    // The addition after the call keeps it from being a tail call.
    if depth == 0 {
        0
    } else {
        recurse(black_box(depth - 1)) + 1
    }
}

bindings::export_guest!(Hostile with_types_in agentbench_env_sdk::bindings);
