fn main() {
    println!("{}", agentbench_env_catalog::builtin_envs().count());
}
