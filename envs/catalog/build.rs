//! Compiles the guest crates this crate embeds (see agentbench-env-build).

use agentbench_env_build::{Guest, embed};

fn main() {
    embed(&[Guest {
        package: "agentbench-env-workspace",
        dir: "envs/workspace",
    }]);
}
