//! The compile cache: a second load maps what the first compiled, and a damaged or foreign file
//! is compiled afresh rather than trusted.

use agentbench_sandbox::{Compilation, CompileCache, EnvImage, Limits, Sandbox};

fn load(cache: &CompileCache, limits: Limits) -> EnvImage {
    Sandbox::new(limits)
        .unwrap()
        .with_compile_cache(cache.clone())
        .load(agentbench_env_fixtures::hostile())
        .unwrap()
}

fn limits() -> Limits {
    Limits {
        max_instances: 4,
        ..Limits::default()
    }
}

/// An instance of `image` answers a call, so what was loaded is a working env.
fn works(image: &EnvImage) {
    let mut instance = image.instantiate().unwrap();
    instance.reset(1, "{}").unwrap().unwrap();
    let output = instance.step("echo", "{}").unwrap();
    assert_eq!(output.observation.as_str(), r#"{"calls":1}"#);
}

fn cache_files(cache: &CompileCache) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn a_second_load_reads_what_the_first_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CompileCache::new(dir.path().join("nested/cache"));
    let first = load(&cache, limits());
    assert_eq!(first.compilation(), Compilation::CompiledAndCached);
    assert_eq!(cache_files(&cache).len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(cache.dir()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
    let second = load(&cache, limits());
    assert_eq!(second.compilation(), Compilation::FromCache);
    assert_eq!(second.content_hash(), first.content_hash());
    assert_eq!(second.manifest_json(), first.manifest_json());
    works(&second);
}

#[test]
fn a_damaged_file_is_compiled_afresh_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CompileCache::new(dir.path());
    load(&cache, limits());
    let file = cache_files(&cache).remove(0);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();

    let reloaded = load(&cache, limits());
    assert_eq!(reloaded.compilation(), Compilation::CompiledAndCached);
    works(&reloaded);
    assert_eq!(load(&cache, limits()).compilation(), Compilation::FromCache);

    std::fs::write(&file, b"short").unwrap();
    assert_eq!(
        load(&cache, limits()).compilation(),
        Compilation::CompiledAndCached
    );
}

#[test]
fn another_memory_limit_shares_the_compiled_code() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CompileCache::new(dir.path());
    load(&cache, limits());
    // Every memory reserves 4 GiB whatever its limit, so the limit does not shape the machine
    // code (settings that do are in the file's name: `cache.rs`'s own test).
    let other = Limits {
        max_memory_bytes: limits().max_memory_bytes * 2,
        ..limits()
    };
    let image = load(&cache, other);
    assert_eq!(image.compilation(), Compilation::FromCache);
    works(&image);
    assert_eq!(cache_files(&cache).len(), 1);
}

#[test]
fn an_unwritable_cache_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, b"not a folder").unwrap();
    let image = load(&CompileCache::new(blocker.join("cache")), limits());
    assert_eq!(image.compilation(), Compilation::Compiled);
    works(&image);
}
