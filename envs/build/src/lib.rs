//! Compiles guest env crates to WebAssembly components, for the build scripts that embed them.
//!
//! A guest is a workspace crate compiled for `wasm32-unknown-unknown` by a nested `cargo build`
//! into its own target directory (`target/guests`, so it never contends with the outer build's
//! lock), then wrapped as a component by `wit-component`. A core module for that target has no
//! imports, so neither has the component: it needs no WASI and gets no capability.
//!
//! ```ignore
//! // build.rs
//! agentbench_env_build::embed(&[Guest { package: "agentbench-env-workspace", dir: "envs/workspace" }]);
//! // lib.rs
//! include!(concat!(env!("OUT_DIR"), "/guests.rs")); // pub static GUESTS: &[(&str, &[u8])]
//! ```

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target guests are compiled for.
pub const GUEST_TARGET: &str = "wasm32-unknown-unknown";
/// The cargo profile guests are compiled with (defined in the workspace's `Cargo.toml`).
pub const GUEST_PROFILE: &str = "guest";
/// The size of a guest's shadow stack (its stack in linear memory).
pub const GUEST_STACK_BYTES: u32 = 128 << 10;

/// A guest crate of this workspace.
#[derive(Debug, Clone, Copy)]
pub struct Guest {
    /// The crate's package name.
    pub package: &'static str,
    /// The crate's folder, relative to the workspace root.
    pub dir: &'static str,
}

/// For a build script: compiles `guests` and writes `$OUT_DIR/guests.rs`, which defines
/// `pub static GUESTS: &[(&str, &[u8])]`, each package name with its component's bytes.
///
/// Panics with an explanation when anything fails, as build scripts do.
pub fn embed(guests: &[Guest]) {
    let root = workspace_root();
    for path in ["Cargo.toml", "Cargo.lock", "envs/sdk", "envs/contract"]
        .into_iter()
        .chain(guests.iter().map(|guest| guest.dir))
    {
        println!("cargo:rerun-if-changed={}", root.join(path).display());
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is set for build scripts"));
    let components = build_components(&root, guests).unwrap_or_else(|error| panic!("{error}"));
    let mut source = String::from("pub static GUESTS: &[(&str, &[u8])] = &[\n");
    for (guest, component) in guests.iter().zip(components) {
        let path = out_dir.join(format!("{}.component.wasm", guest.package));
        fs::write(&path, component).expect("OUT_DIR is writable");
        writeln!(
            source,
            "    ({:?}, include_bytes!({:?})),",
            guest.package, path
        )
        .expect("writing to a String");
    }
    source.push_str("];\n");
    fs::write(out_dir.join("guests.rs"), source).expect("OUT_DIR is writable");
}

/// Compiles `guests` (in one cargo invocation) and returns their components, in order.
pub fn build_components(root: &Path, guests: &[Guest]) -> Result<Vec<Vec<u8>>, String> {
    check_target_installed()?;
    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("guests");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args([
            "build",
            "--target",
            GUEST_TARGET,
            "--profile",
            GUEST_PROFILE,
            "--target-dir",
        ])
        .arg(&target_dir);
    for guest in guests {
        command.args(["-p", guest.package]);
    }
    // The outer build's flags and wrappers are for the host; clippy's wrapper in particular would
    // lint the guests for a target the workspace lints do not run on.
    for variable in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
    ] {
        command.env_remove(variable);
    }
    // A 128 KiB shadow stack instead of rustc's 1 MiB default: a fresh instance faults in fewer
    // pages before its first call returns (see the sandbox benchmark). Deeper recursion than that
    // traps, which the host reports as it reports any trap.
    command.env(
        "CARGO_ENCODED_RUSTFLAGS",
        format!("-Clink-arg=-zstack-size={GUEST_STACK_BYTES}"),
    );
    let status = command
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        return Err(format!(
            "compiling the guest envs for {GUEST_TARGET} failed ({status})"
        ));
    }
    guests
        .iter()
        .map(|guest| {
            let module_path = target_dir
                .join(GUEST_TARGET)
                .join(GUEST_PROFILE)
                .join(format!("{}.wasm", guest.package.replace('-', "_")));
            let module = fs::read(&module_path)
                .map_err(|error| format!("cannot read {}: {error}", module_path.display()))?;
            componentize(&module).map_err(|error| format!("{}: {error}", guest.package))
        })
        .collect()
}

/// Wraps a core module compiled with the `wit-bindgen` bindings as a component.
pub fn componentize(module: &[u8]) -> Result<Vec<u8>, String> {
    wit_component::ComponentEncoder::default()
        .validate(true)
        .module(module)
        .and_then(|mut encoder| encoder.encode())
        .map_err(|error| format!("cannot make a component of the guest module: {error:#}"))
}

/// Fails with the command to run when the guest target's standard library is missing.
fn check_target_installed() -> Result<(), String> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", GUEST_TARGET])
        .output()
        .map_err(|error| format!("cannot run rustc: {error}"))?;
    let libdir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let installed = output.status.success()
        && fs::read_dir(&libdir).is_ok_and(|mut entries| {
            entries.any(|entry| {
                entry.is_ok_and(|entry| entry.file_name().to_string_lossy().starts_with("libstd-"))
            })
        });
    if installed {
        Ok(())
    } else {
        Err(format!(
            "the {GUEST_TARGET} target is not installed, and the built-in envs are compiled for it: \
             run `rustup target add {GUEST_TARGET}`"
        ))
    }
}

/// The workspace root: the folder above this build script's crate that holds `Cargo.lock`.
fn workspace_root() -> PathBuf {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR is set"));
    manifest_dir
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .unwrap_or_else(|| panic!("no Cargo.lock above {}", manifest_dir.display()))
        .to_owned()
}
