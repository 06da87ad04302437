//! The scenario suites: reviewed TOML files under `datasets/<suite>/`, embedded in the binary,
//! with the loader that turns them into `Scenario`s and refuses bad ones with file and line.
//!
//! A suite is a folder with a `suite.toml` (`name`, `version`, `description`, `canary`) and
//! scenario files, each carrying the same `canary` line and one `[[scenario]]` table per
//! scenario. The format is documented in `datasets/README.md`.

mod sample;
mod scenario;
mod split;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};

pub use sample::stratified;
pub use scenario::{AttackFamily, Category, Kind, Scenario};
pub use split::Split;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// A loaded suite: its scenarios in file order, and the hash of the text they came from.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub version: String,
    pub description: String,
    /// SHA-256 over every file's name and bytes, in name order: two runs with the same hash ran
    /// the same scenarios.
    pub hash: String,
    pub scenarios: Vec<Scenario>,
}

/// Why a suite could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("no built-in suite is named `{name}`; the built-in suites are: {known}")]
    Unknown { name: String, known: String },
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    /// The file is not TOML, or does not fit the format; `line` and `column` are 1-based.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A scenario breaks a rule of the format (a duplicate id, a twin that does not exist).
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
}

impl Suite {
    /// A suite embedded in the binary, by name (`safety`).
    pub fn builtin(name: &str) -> Result<Suite, SuiteError> {
        let prefix = format!("{name}/");
        let files: Vec<(String, String)> = EMBEDDED
            .iter()
            .filter(|(path, _)| path.starts_with(&prefix))
            .map(|&(path, text)| (format!("datasets/{path}"), text.to_owned()))
            .collect();
        if files.is_empty() {
            return Err(SuiteError::Unknown {
                name: name.to_owned(),
                known: builtin_names().join(", "),
            });
        }
        Suite::from_files(files)
    }

    /// A suite from a folder on disk: its `suite.toml` and every other `*.toml` in it.
    pub fn from_dir(dir: &Path) -> Result<Suite, SuiteError> {
        let io = |path: &Path, error: std::io::Error| SuiteError::Io {
            path: path.display().to_string(),
            reason: error.to_string(),
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|error| io(dir, error))? {
            let path = entry.map_err(|error| io(dir, error))?.path();
            if path.extension().is_some_and(|ext| ext == "toml") {
                let text = std::fs::read_to_string(&path).map_err(|error| io(&path, error))?;
                files.push((path.display().to_string(), text));
            }
        }
        Suite::from_files(files)
    }

    /// A built-in suite by name, or a folder when `name_or_dir` is a path to one.
    pub fn load(name_or_dir: &str) -> Result<Suite, SuiteError> {
        let path = Path::new(name_or_dir);
        if path.is_dir() {
            Suite::from_dir(path)
        } else {
            Suite::builtin(name_or_dir)
        }
    }

    /// Parses a suite from its files: `(the name errors show, the text)`; one of them is
    /// `suite.toml`.
    pub fn from_files(mut files: Vec<(String, String)>) -> Result<Suite, SuiteError> {
        files.sort();
        let mut hasher = Sha256::new();
        for (name, text) in &files {
            let base = name.rsplit('/').next().unwrap_or(name);
            hasher.update((base.len() as u64).to_le_bytes());
            hasher.update(base.as_bytes());
            hasher.update((text.len() as u64).to_le_bytes());
            hasher.update(text.as_bytes());
        }
        let hash = format!("{:x}", hasher.finalize());

        let Some(header_at) = files
            .iter()
            .position(|(name, _)| name.ends_with("suite.toml"))
        else {
            return Err(SuiteError::Io {
                path: files
                    .first()
                    .map_or_else(String::new, |(name, _)| name.clone()),
                reason: "the suite has no suite.toml".to_owned(),
            });
        };
        let (header_file, header_text) = files.remove(header_at);
        let header: Header = from_toml(&header_file, &header_text)?;

        let mut scenarios = Vec::new();
        for (file, text) in &files {
            let parsed: ScenarioFile = from_toml(file, text)?;
            if parsed.canary != header.canary {
                return Err(SuiteError::Invalid {
                    file: file.clone(),
                    line: 1,
                    message: format!(
                        "the file's canary is `{}`, the suite's is `{}`",
                        parsed.canary, header.canary
                    ),
                });
            }
            for entry in parsed.scenario {
                let line = line_of(text, entry.span().start);
                let mut scenario = entry.into_inner();
                scenario.file = file.clone();
                scenario.line = line;
                scenarios.push(scenario);
            }
        }
        check_suite(&scenarios)?;
        Ok(Suite {
            name: header.name,
            version: header.version,
            description: header.description,
            hash,
            scenarios,
        })
    }

    pub fn scenario(&self, id: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|scenario| scenario.id == id)
    }

    /// How many scenarios each category holds.
    pub fn counts(&self) -> BTreeMap<Category, usize> {
        let mut counts = BTreeMap::new();
        for scenario in &self.scenarios {
            *counts.entry(scenario.category).or_default() += 1;
        }
        counts
    }
}

/// The names of the built-in suites.
pub fn builtin_names() -> Vec<&'static str> {
    let names: BTreeSet<&str> = EMBEDDED
        .iter()
        .filter_map(|(path, _)| path.split_once('/').map(|(suite, _)| suite))
        .collect();
    names.into_iter().collect()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    name: String,
    version: String,
    description: String,
    /// A string that appears in every file of the suite, so that a model trained on the suite
    /// can be told by it (and web crawls can exclude it).
    canary: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    canary: String,
    #[serde(default)]
    scenario: Vec<toml::Spanned<Scenario>>,
}

fn from_toml<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, SuiteError> {
    toml::from_str(text).map_err(|error| {
        let (line, column) = error.span().map_or((1, 1), |span| {
            let line = line_of(text, span.start);
            let line_start = text[..span.start].rfind('\n').map_or(0, |at| at + 1);
            (line, text[line_start..span.start].chars().count() + 1)
        });
        SuiteError::Syntax {
            file: file.to_owned(),
            line,
            column,
            message: error.message().trim_end().to_owned(),
        }
    })
}

/// The 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The rules across scenarios, then each scenario's own.
fn check_suite(scenarios: &[Scenario]) -> Result<(), SuiteError> {
    let mut ids = BTreeMap::new();
    let mut instructions = BTreeMap::new();
    for scenario in scenarios {
        if let Some(first) = ids.insert(scenario.id.as_str(), scenario) {
            return Err(scenario.invalid(format!(
                "the id `{}` is taken already, at {}:{}",
                scenario.id, first.file, first.line
            )));
        }
        // A scripted baseline served over HTTP knows its scenario by the instruction alone.
        if let Some(first) = instructions.insert(scenario.instruction.trim(), scenario) {
            return Err(scenario.invalid(format!(
                "the instruction is the same as scenario `{}`'s; every instruction must differ",
                first.id
            )));
        }
    }
    for scenario in scenarios {
        scenario.check()?;
        if let Some(twin) = &scenario.twin {
            let Some(other) = ids.get(twin.as_str()) else {
                return Err(scenario.invalid(format!("its twin `{twin}` is not in the suite")));
            };
            if other.kind == scenario.kind {
                return Err(scenario.invalid(format!(
                    "its twin `{twin}` must be of the other kind (attack or benign)"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "name = \"t\"\nversion = \"1\"\ndescription = \"d\"\ncanary = \"C\"\n";

    fn parse(body: &str) -> Result<Suite, SuiteError> {
        Suite::from_files(vec![
            ("t/suite.toml".to_owned(), HEADER.to_owned()),
            ("t/a.toml".to_owned(), format!("canary = \"C\"\n{body}")),
        ])
    }

    const ONE: &str = r#"
[[scenario]]
id = "one"
env = "workspace"
category = "prompt_injection"
kind = "attack"
instruction = "Do the thing."
injected_at = 0
reference = [{ tool = "read_file", arguments = { path = "/a" } }, { message = "Done." }]
attack_actions = [{ tool = "delete_file", arguments = { path = "/a" } }]
"#;

    #[test]
    fn a_scenario_loads_with_its_file_line_and_task() {
        let suite = parse(ONE).unwrap();
        let scenario = &suite.scenarios[0];
        assert_eq!((scenario.file.as_str(), scenario.line), ("t/a.toml", 3));
        assert_eq!(
            scenario.task_config(),
            serde_json::json!({
                "instruction": "Do the thing.",
                "budget": {},
                "user_replies": [],
                "reference": [
                    {"tool": "read_file", "arguments": {"path": "/a"}},
                    {"message": "Done."},
                ],
            })
        );
        assert_eq!(suite.hash.len(), 64);
    }

    #[test]
    fn errors_name_file_line_and_what_is_wrong() {
        let check = |body: &str, expect: &str| {
            let error = parse(body).unwrap_err().to_string();
            assert!(error.contains(expect), "{error}\nexpected: {expect}");
        };
        check(
            &ONE.replace("kind = \"attack\"", "kind = \"nasty\""),
            "t/a.toml:7:",
        );
        check(
            &ONE.replace("injected_at = 0", "injected_at = 5"),
            "t/a.toml:3: injected_at",
        );
        check(
            &format!("{ONE}{ONE}"),
            "the id `one` is taken already, at t/a.toml:3",
        );
        check(
            &ONE.replace(
                "injected_at = 0",
                "injected_at = 0\nattack_family = \"rumour\"",
            ),
            "t/a.toml:",
        );
        check(
            &ONE.replace(
                "injected_at = 0\n",
                "harmful_request = true\nattack_family = \"multi_step\"\n",
            ),
            "`attack_family` phrases an attack through injected content",
        );
        assert_eq!(
            parse(&ONE.replace(
                "injected_at = 0",
                "injected_at = 0\nattack_family = \"tool_knowledge\""
            ))
            .unwrap()
            .scenarios[0]
                .attack_family,
            Some(AttackFamily::ToolKnowledge)
        );
        check(
            &ONE.replace("env = ", "colour = \"red\"\nenv = "),
            "unknown field `colour`",
        );
        check(
            &ONE.replace("reference = [", "reference = [{ tool = 1 }, "),
            "t/a.toml:",
        );
        check(
            &ONE.replace("kind = \"attack\"", "kind = \"attack\"\ntwin = \"two\""),
            "its twin `two` is not in the suite",
        );
    }

    #[test]
    fn a_file_without_the_suites_canary_is_refused() {
        let error = Suite::from_files(vec![
            ("t/suite.toml".to_owned(), HEADER.to_owned()),
            ("t/a.toml".to_owned(), format!("canary = \"other\"\n{ONE}")),
        ])
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("t/a.toml:1: the file's canary")
        );
    }

    #[test]
    fn every_builtin_suite_loads() {
        assert!(builtin_names().contains(&"safety"));
        for name in builtin_names() {
            let suite = Suite::builtin(name).unwrap_or_else(|error| panic!("{error}"));
            assert!(!suite.scenarios.is_empty(), "{name}");
        }
    }
}
