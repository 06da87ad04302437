//! The engine (one per sandbox): its configuration, the epoch ticker behind wall-clock limits,
//! and loading a component into an `EnvImage`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use agentbench_env_contract::Manifest;

use crate::bindings::EnvPre;
use crate::cache::{Compilation, CompileCache};
use crate::error::LoadError;
use crate::instance::Instance;
use crate::limits::{HostState, Limits};

/// How often the epoch advances; wall-clock limits are enforced to within one tick.
pub const EPOCH_TICK: Duration = Duration::from_millis(2);

/// How much of each pooled memory and table stays resident (and is reset by memset) between
/// instances.
const KEEP_RESIDENT_BYTES: usize = 768 << 10;

/// The address space reserved for each pooled memory: all that a 32-bit address reaches, so that
/// the machine code needs no bounds check on a memory access (a load or store outside the memory
/// faults in the reservation's inaccessible pages, and the fault is the call's trap). Only
/// address space: what an instance may hold is `Limits::max_memory_bytes`. Against reserving just
/// that limit and checking each access, guest calls took 5 to 14 % less time (the sandbox
/// benchmark's steps, `facts`, `mask` and forks, three alternating runs).
const MEMORY_RESERVATION_BYTES: u64 = 4 << 30;

/// The guard region after each reservation, for accesses at a static offset past a 32-bit
/// address (wasmtime's default on 64-bit hosts).
const MEMORY_GUARD_BYTES: u64 = 32 << 20;

/// A wasmtime engine configured for envs, with its instance pool.
#[derive(Clone, Debug)]
pub struct Sandbox {
    shared: Arc<Shared>,
    cache: Option<CompileCache>,
}

/// What the sandbox, its images and their instances share; the ticker stops when the last goes.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) engine: Engine,
    pub(crate) limits: Limits,
    stop_ticker: Arc<AtomicBool>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.stop_ticker.store(true, Ordering::Relaxed);
    }
}

impl Sandbox {
    pub fn new(limits: Limits) -> Result<Sandbox, LoadError> {
        let engine = Engine::new(&engine_config(&limits))
            .map_err(|error| LoadError::Engine(format!("{error:#}")))?;
        let stop_ticker = Arc::new(AtomicBool::new(false));
        let ticker_engine = engine.clone();
        let stop = stop_ticker.clone();
        thread::Builder::new()
            .name("agentbench-epoch".to_owned())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    thread::sleep(EPOCH_TICK);
                    ticker_engine.increment_epoch();
                }
            })
            .map_err(|error| {
                LoadError::Engine(format!("cannot start the epoch ticker: {error}"))
            })?;
        Ok(Sandbox {
            shared: Arc::new(Shared {
                engine,
                limits,
                stop_ticker,
            }),
            cache: None,
        })
    }

    /// Keeps compiled components in `cache` and loads them from it (see `CompileCache`).
    pub fn with_compile_cache(self, cache: CompileCache) -> Sandbox {
        Sandbox {
            cache: Some(cache),
            ..self
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// Compiles `component`, checks that it is an env (no imports, the env world's exports, a
    /// valid manifest) and prepares the template its episodes are instantiated from.
    pub fn load(&self, component: &[u8]) -> Result<EnvImage, LoadError> {
        let engine = &self.shared.engine;
        let content_hash = hex(&Sha256::digest(component));
        let (compiled, compilation) = match &self.cache {
            Some(cache) => cache.compile(engine, component, &content_hash),
            None => Component::new(engine, component).map(|c| (c, Compilation::Compiled)),
        }
        .map_err(|error| LoadError::Compile(format!("{error:#}")))?;
        let imports: Vec<String> = compiled
            .component_type()
            .imports(engine)
            .map(|(name, _)| name.to_owned())
            .collect();
        if !imports.is_empty() {
            return Err(LoadError::HasImports { imports });
        }
        let linker = Linker::<HostState>::new(engine);
        let template = linker
            .instantiate_pre(&compiled)
            .and_then(EnvPre::new)
            .map_err(|error| LoadError::WrongWorld(format!("{error:#}")))?;
        let mut image = EnvImage {
            inner: Arc::new(ImageInner {
                shared: self.shared.clone(),
                template,
                manifest: placeholder_manifest(),
                manifest_json: String::new(),
                content_hash,
                compilation,
            }),
        };
        let manifest_json = image.instantiate()?.manifest()?;
        let manifest = Manifest::parse(manifest_json.as_str()).map_err(LoadError::BadManifest)?;
        let inner = Arc::get_mut(&mut image.inner).expect("no instance outlives its call here");
        inner.manifest = manifest;
        inner.manifest_json = manifest_json.into_string();
        Ok(image)
    }
}

/// A compiled env, ready to instantiate episodes; cheap to clone.
#[derive(Clone)]
pub struct EnvImage {
    inner: Arc<ImageInner>,
}

struct ImageInner {
    shared: Arc<Shared>,
    template: EnvPre<HostState>,
    manifest: Manifest,
    manifest_json: String,
    content_hash: String,
    compilation: Compilation,
}

impl std::fmt::Debug for EnvImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvImage")
            .field("name", &self.inner.manifest.name)
            .field("version", &self.inner.manifest.version)
            .field("content_hash", &self.inner.content_hash)
            .finish()
    }
}

impl EnvImage {
    pub fn manifest(&self) -> &Manifest {
        &self.inner.manifest
    }

    /// The manifest exactly as the guest returned it.
    pub fn manifest_json(&self) -> &str {
        &self.inner.manifest_json
    }

    /// The SHA-256 of the component's bytes, in hex: identifies exactly which env ran.
    pub fn content_hash(&self) -> &str {
        &self.inner.content_hash
    }

    /// Whether its machine code was compiled by this process or read from the compile cache.
    pub fn compilation(&self) -> Compilation {
        self.inner.compilation
    }

    /// A fresh instance (not yet reset) from the pre-instantiated template.
    pub fn instantiate(&self) -> Result<Instance, crate::CallError> {
        Instance::new(self.clone(), &self.inner.shared, &self.inner.template)
    }

    /// A fresh instance continuing from `state`, a saved state of this env. A state the guest
    /// rejects is a `CallError::BadOutput` of `load`: the state came from the guest itself.
    pub fn restore(&self, state: &[u8]) -> Result<Instance, crate::CallError> {
        let mut instance = self.instantiate()?;
        match instance.load(state)? {
            Ok(()) => Ok(instance),
            Err(reason) => Err(crate::CallError::BadOutput {
                export: "load",
                reason: format!("the guest rejected its own saved state: {reason}"),
            }),
        }
    }
}

fn engine_config(limits: &Limits) -> Config {
    let mut pool = PoolingAllocationConfig::new();
    pool.total_component_instances(limits.max_instances)
        // A component made from one Rust module instantiates that module and, at most, a few
        // adapter shims.
        .max_core_instances_per_component(4)
        .total_core_instances(limits.max_instances.saturating_mul(2))
        .max_memories_per_component(1)
        .total_memories(limits.max_instances)
        .max_tables_per_component(2)
        .total_tables(limits.max_instances.saturating_mul(2))
        .max_memory_size(limits.max_memory_bytes);
    // Resetting a slot's first pages by memset rather than madvise spares the next instance
    // in that slot their page faults; it covers a guest's 128 KiB stack, its data and the start
    // of its heap. Measured with the sandbox benchmark: instantiate + reset 71 -> 45 µs p50.
    pool.linear_memory_keep_resident(KEEP_RESIDENT_BYTES);
    pool.table_keep_resident(KEEP_RESIDENT_BYTES);

    let mut config = Config::new();
    config
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        .memory_init_cow(true)
        .memory_reservation(MEMORY_RESERVATION_BYTES.max(limits.max_memory_bytes as u64))
        .memory_guard_size(MEMORY_GUARD_BYTES)
        .max_wasm_stack(limits.max_stack_bytes)
        .consume_fuel(true)
        .epoch_interruption(true)
        // Traps are reported by kind; capturing guest backtraces would only slow them down.
        .wasm_backtrace_max_frames(None)
        // Determinism: the same inputs give the same bits on every machine.
        .cranelift_nan_canonicalization(true)
        .wasm_relaxed_simd(false)
        // Proposals envs do not need are off. GC, function references, exceptions, threads and
        // component-model async are not even compiled in (wasmtime's cargo features); of those
        // that remain, these have no use in an env.
        .wasm_stack_switching(false)
        .wasm_wide_arithmetic(false)
        .wasm_tail_call(false);
    config
}

fn placeholder_manifest() -> Manifest {
    Manifest {
        name: String::new(),
        version: String::new(),
        description: String::new(),
        tools: Vec::new(),
        facts: serde_json::Value::Null,
        task: serde_json::Value::Null,
        policy: None,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
