//! The compile cache: compiled components kept on disk between processes, so a process that
//! loads an env it (or an earlier process) already compiled maps the machine code instead of
//! running Cranelift again.
//!
//! A cache file is named by the SHA-256 of the component and a hash of the engine's
//! compatibility (wasmtime's version and every setting that shapes machine code), and holds the
//! SHA-256 of the artifact followed by the artifact. A file that is missing, damaged, or made by
//! an engine that does not match is compiled afresh and written again; the cache can only make
//! a load faster, never change what it loads. Writes go to a temporary file renamed into place,
//! so processes sharing the folder never see half a file.
//!
//! Loading compiled code is trusting it: the folder must be writable only by whoever runs the
//! host (it is created with mode 0700), as with wasmtime's own cache.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// A folder of compiled components.
#[derive(Clone, Debug)]
pub struct CompileCache {
    dir: PathBuf,
}

/// How a component's machine code was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compilation {
    /// Compiled by Cranelift; no cache, or the cache could not be written.
    Compiled,
    /// Compiled by Cranelift and written to the cache.
    CompiledAndCached,
    /// Read from the cache.
    FromCache,
}

impl CompileCache {
    /// A cache in `dir`, created (0700) on first write.
    pub fn new(dir: impl Into<PathBuf>) -> CompileCache {
        CompileCache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The compiled `component` (whose SHA-256 is `content_hash`), from the cache when a sound
    /// file for this engine is there, else compiled and stored.
    pub(crate) fn compile(
        &self,
        engine: &Engine,
        component: &[u8],
        content_hash: &str,
    ) -> wasmtime::Result<(Component, Compilation)> {
        let path = self.path(engine, content_hash);
        if let Some(file) = read_sound(&path) {
            // SAFETY: the bytes are an artifact this cache wrote with `Component::serialize` (its
            // checksum matches), in a folder only this user can write; wasmtime itself refuses
            // an artifact of another version or configuration.
            if let Ok(compiled) = unsafe { Component::deserialize(engine, &file[32..]) } {
                return Ok((compiled, Compilation::FromCache));
            }
        }
        let compiled = Component::new(engine, component)?;
        let stored = compiled
            .serialize()
            .ok()
            .is_some_and(|artifact| self.write(&path, &artifact).is_ok());
        let compilation = if stored {
            Compilation::CompiledAndCached
        } else {
            Compilation::Compiled
        };
        Ok((compiled, compilation))
    }

    fn path(&self, engine: &Engine, content_hash: &str) -> PathBuf {
        // `DefaultHasher::new` has fixed keys: the same engine gives the same name in every
        // process of this build. A collision across builds is caught by wasmtime's own check.
        let mut hasher = std::hash::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        self.dir
            .join(format!("{content_hash}-{:016x}.cwasm", hasher.finish()))
    }

    fn write(&self, path: &Path, artifact: &[u8]) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        // Unique per process and per write, so two loads of one component never share it.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let temporary = path.with_extension(format!(
            "tmp{}-{}",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        let mut file = Sha256::digest(artifact).to_vec();
        file.extend_from_slice(artifact);
        std::fs::write(&temporary, file)?;
        std::fs::rename(&temporary, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    }
}

/// The file at `path` (checksum, then artifact) when it is there and its checksum matches.
fn read_sound(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::read(path).ok()?;
    let sound = file.len() > 32 && Sha256::digest(&file[32..]).as_slice() == &file[..32];
    sound.then_some(file)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use wasmtime::{Config, Engine};

    use super::CompileCache;

    fn engine(fuel: bool) -> Engine {
        Engine::new(Config::new().consume_fuel(fuel)).unwrap()
    }

    #[test]
    fn an_engine_that_compiles_other_code_names_another_file() {
        let cache = CompileCache::new("cache");
        let path = |engine: &Engine| cache.path(engine, "abc");
        assert_eq!(path(&engine(true)), path(&engine(true)));
        assert_ne!(path(&engine(true)), path(&engine(false)));
    }
}
