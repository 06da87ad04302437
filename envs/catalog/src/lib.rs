//! The built-in envs: their guest crates are compiled to components when this crate is built
//! (see `build.rs`) and embedded, so the binary carries every built-in env.

include!(concat!(env!("OUT_DIR"), "/guests.rs"));

/// One built-in env as a WebAssembly component.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinEnv {
    /// The guest crate it was compiled from.
    pub package: &'static str,
    /// The component's bytes.
    pub component: &'static [u8],
}

/// Every built-in env, in a fixed order.
pub fn builtin_envs() -> impl Iterator<Item = BuiltinEnv> {
    GUESTS
        .iter()
        .map(|&(package, component)| BuiltinEnv { package, component })
}

/// The component of the built-in env compiled from `package`.
pub fn component(package: &str) -> Option<&'static [u8]> {
    builtin_envs()
        .find(|env| env.package == package)
        .map(|env| env.component)
}
