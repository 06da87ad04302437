//! The `agentbench` binary, run as a user runs it.

use std::process::Command;

use serde_json::Value;

fn agentbench(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agentbench"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn envs_json_lists_every_builtin_manifest_with_tool_schemas() {
    let manifests: Value = serde_json::from_str(&agentbench(&["envs", "--json"])).unwrap();
    let manifests = manifests.as_array().unwrap();
    let workspace = manifests
        .iter()
        .find(|m| m["name"] == "workspace")
        .expect("workspace env");
    let tools = workspace["tools"].as_array().unwrap();
    assert!(tools.len() >= 8, "{} tools", tools.len());
    for tool in tools {
        assert!(tool["name"].is_string());
        assert_eq!(tool["parameters"]["type"], "object", "{tool}");
        assert!(tool["irreversible"].is_boolean());
    }
}

#[test]
fn envs_lists_names_and_marks_irreversible_tools() {
    let text = agentbench(&["envs"]);
    assert!(text.starts_with("workspace "), "{text}");
    assert!(text.contains("(irreversible)"), "{text}");
}
