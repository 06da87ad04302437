//! Embeds every suite under this folder (`<suite>/suite.toml` and its scenario files), so the
//! binary carries the built-in suites and runs them from any directory.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A directory is watched whole: any file added, changed or removed under it reruns this.
    println!("cargo::rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    for suite in sorted_entries(root) {
        if suite.join("suite.toml").is_file() {
            files.extend(
                sorted_entries(&suite)
                    .into_iter()
                    .filter(|file| file.extension().is_some_and(|ext| ext == "toml")),
            );
        }
    }
    let mut out =
        String::from("/// Every built-in suite file: its path under `datasets/` and its text.\n");
    out.push_str("pub(crate) const EMBEDDED: &[(&str, &str)] = &[\n");
    for file in &files {
        let relative = file
            .strip_prefix(root)
            .expect("under the crate")
            .to_str()
            .expect("UTF-8 path");
        writeln!(
            out,
            "    ({relative:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out_dir).join("embedded.rs"), out).expect("cannot write embedded.rs");
}

fn sorted_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    entries
}
