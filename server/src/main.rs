//! The `agentbench` command line: one binary for every job.

mod builtin;

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use agentbench_sandbox::{Limits, Sandbox};

/// Sandboxed tool environments and a safety benchmark for tool-using LLM agents.
#[derive(Debug, Parser)]
#[command(name = "agentbench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in envs and their tools.
    Envs {
        /// Print the envs' manifests as JSON (name, version, description, tools with their
        /// parameter schemas, facts schema).
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Envs { json } => envs(json),
    }
}

fn envs(json: bool) -> anyhow::Result<()> {
    let sandbox = Sandbox::new(Limits::default())?;
    let images = builtin::load_all(&sandbox)?;
    let mut out = std::io::stdout().lock();
    if json {
        let manifests: Vec<_> = images.iter().map(|image| image.manifest()).collect();
        serde_json::to_writer_pretty(&mut out, &manifests)?;
        writeln!(out)?;
    } else {
        for image in &images {
            let manifest = image.manifest();
            writeln!(
                out,
                "{} {}: {}",
                manifest.name, manifest.version, manifest.description
            )?;
            let width = manifest
                .tools
                .iter()
                .map(|tool| tool.name.len())
                .max()
                .unwrap_or(0);
            for tool in &manifest.tools {
                let mark = if tool.irreversible {
                    " (irreversible)"
                } else {
                    ""
                };
                writeln!(out, "  {:width$}  {}{mark}", tool.name, tool.description)?;
            }
        }
    }
    out.flush().context("cannot write to stdout")
}
