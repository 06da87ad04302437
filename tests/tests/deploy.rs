//! The deployment files (`deploy/`): valid against their published schemas (`deploy/check.sh`,
//! with checkers from PyPI, which must also refuse a manifest with an unknown field), and in step
//! with the binary: every setting they give is one `agentbench` takes.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use agentbench_tests::{agentbench_binary, workspace_root};

fn deploy() -> &'static Path {
    Box::leak(workspace_root().join("deploy").into_boxed_path())
}

#[test]
fn the_deployment_files_fit_their_schemas() {
    let check = Command::new("bash")
        .arg(deploy().join("check.sh"))
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(check.status.success(), "{said}");
    assert!(
        said.contains("passed for resource deployment/agentbench"),
        "{said}"
    );
    assert!(
        said.contains("passed for resource job/agentbench-safety"),
        "{said}"
    );

    // The checker fails what does not fit.
    let dir = tempfile::tempdir().unwrap();
    let server = std::fs::read_to_string(deploy().join("kubernetes/server.yaml")).unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        server.replace("replicas: 3", "replicas: 3\n  replica: 3"),
    )
    .unwrap();
    let validator = workspace_root().join("target/deploy-venv/bin/kubernetes-validate");
    let refused = Command::new(validator)
        .args(["--strict", broken.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!refused.status.success());
}

/// The `AGENTBENCH_*` names a file sets.
fn variables(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("AGENTBENCH_") {
        let name: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '_')
            .collect();
        found.insert(name);
    }
    found
}

fn help(command: &str) -> String {
    let output = Command::new(agentbench_binary())
        .args([command, "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_deployment_files_give_only_settings_the_binary_takes() {
    let global = help("serve");
    for (file, command) in [
        ("Dockerfile", "serve"),
        ("compose.yaml", "serve"),
        ("kubernetes/server.yaml", "serve"),
        ("kubernetes/suite-job.yaml", "run"),
    ] {
        let text = std::fs::read_to_string(deploy().join(file)).unwrap();
        let help = help(command);
        // Read from the environment alone (README: the compile cache, the log filter).
        let environment_only = ["AGENTBENCH_CACHE_DIR", "AGENTBENCH_LOG"];
        for name in variables(&text) {
            if environment_only.contains(&name.as_str()) {
                continue;
            }
            // `[env: NAME=VALUE]`, or `[env: NAME]` for a secret whose value is hidden.
            let known = [format!("[env: {name}="), format!("[env: {name}]")];
            assert!(
                known
                    .iter()
                    .any(|known| help.contains(known) || global.contains(known)),
                "{file} sets {name}, which `agentbench {command}` does not read"
            );
        }
    }
    // The Job's arguments are the run's.
    let job = std::fs::read_to_string(deploy().join("kubernetes/suite-job.yaml")).unwrap();
    let run = help("run");
    for line in job.lines().map(str::trim) {
        if let Some(flag) = line.strip_prefix("- --") {
            let flag = flag.split('=').next().unwrap();
            assert!(
                run.contains(&format!("--{flag}")),
                "the Job passes --{flag}"
            );
        }
    }
    // The image runs as a user of its own, not root.
    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("\nUSER 10001:10001\n"));
}
