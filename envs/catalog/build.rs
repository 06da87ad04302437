//! Compiles the guest crates this crate embeds (see agentbench-env-build).

use agentbench_env_build::{Guest, embed};

fn main() {
    embed(&[
        Guest {
            package: "agentbench-env-workspace",
            dir: "envs/workspace",
        },
        Guest {
            package: "agentbench-env-support",
            dir: "envs/support",
        },
        Guest {
            package: "agentbench-env-banking",
            dir: "envs/banking",
        },
        Guest {
            package: "agentbench-env-shell",
            dir: "envs/shell",
        },
        Guest {
            package: "agentbench-env-crm",
            dir: "envs/crm",
        },
        Guest {
            package: "agentbench-env-browsing",
            dir: "envs/browsing",
        },
        Guest {
            package: "agentbench-env-cloud",
            dir: "envs/cloud",
        },
        Guest {
            package: "agentbench-env-messaging",
            dir: "envs/messaging",
        },
    ]);
}
