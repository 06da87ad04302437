//! What the web page shows, computed from the stored runs: the leaderboard (one row per agent and
//! suite version, from its latest complete run, ranked by Rank(UB) on the headline, safe
//! completion), a run's summary, and the paired comparison of two runs by category.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use agentbench_scorers::{Difference, EpisodeResult, Estimate, Metric, compare};

use crate::ids::RunId;
use crate::report::{Report, TrainingTag, Verdict};
use crate::store::RunRow;

/// The leaderboard's columns, in order.
pub const COLUMNS: [Metric; 7] = [
    Metric::SafeCompletion,
    Metric::SafetyScore,
    Metric::HarmRate,
    Metric::AttackSuccessRate,
    Metric::OverRefusalRate,
    Metric::Utility,
    Metric::ViolationsPerEpisode,
];

/// The metric rows are ranked by: it needs both safety and competence, so that neither doing
/// nothing nor refusing everything tops the board.
pub const RANKED_BY: Metric = Metric::SafeCompletion;

/// A stored run with its report parsed (`None` while it runs, or if the report is unreadable).
#[derive(Debug)]
pub struct StoredRun {
    pub row: RunRow,
    pub report: Option<Report>,
}

impl StoredRun {
    pub fn new(row: RunRow) -> StoredRun {
        let report = row.report.as_deref().and_then(|text| {
            serde_json::from_str(text)
                .inspect_err(|error| tracing::warn!(run = %row.id, %error, "unreadable report"))
                .ok()
        });
        StoredRun { row, report }
    }

    pub fn summary(&self) -> RunSummary {
        let row = &self.row;
        let report = self.report.as_ref();
        let verdict = report
            .map(Report::verdict)
            .filter(|verdict| *verdict != Verdict::Ungated);
        RunSummary {
            id: row.id.clone(),
            suite: row.suite.clone(),
            suite_version: row.suite_version.clone(),
            suite_hash: row.suite_hash.clone(),
            agent: row.agent.clone(),
            state: row.state.clone(),
            created_ms: row.created_ms,
            ended_ms: row.ended_ms,
            episodes: report.map(|report| report.episodes.len()),
            unmeasured: report.map(|report| report.metrics.unmeasured),
            partial: report.and_then(Report::partial),
            gate_passed: verdict.map(|verdict| verdict == Verdict::Passed),
            gate: verdict.map(|verdict| verdict.as_str().to_owned()),
            metrics: report
                .map(|report| report.metrics.overall.clone())
                .unwrap_or_default(),
        }
    }
}

/// A run in a list: what ran, whether it is done, and its overall metrics once it is.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunSummary {
    pub id: RunId,
    pub suite: String,
    pub suite_version: String,
    /// SHA-256 over the suite's files: two runs with the same hash played the same scenarios.
    pub suite_hash: String,
    pub agent: String,
    /// `running` or `done`.
    pub state: String,
    pub created_ms: i64,
    pub ended_ms: Option<i64>,
    /// Episodes played (measured or not), once done.
    pub episodes: Option<usize>,
    /// Episodes that could not be measured, once done.
    pub unmeasured: Option<usize>,
    /// Why the run measured less than the whole suite (a `--limit` sample, unmeasured
    /// episodes), once done; absent for a complete run.
    pub partial: Option<String>,
    /// The release gate passed and the run could be judged, when it was gated or could not be
    /// judged.
    pub gate_passed: Option<bool>,
    /// The run's verdict, once done: `passed`, `failed` or `inconclusive` (by the release
    /// gate), or `error` when the run could not be judged (too many episodes unmeasured); absent
    /// for an ungated run that could be judged.
    pub gate: Option<String>,
    /// Every metric over the whole run (empty until it is done).
    pub metrics: BTreeMap<Metric, Estimate>,
}

/// What the leaderboard shows: `suite` is a suite name or `name@version`, `agent` a part of an
/// agent's name, `category` one category's metrics instead of the whole suite's.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    pub suite: Option<String>,
    pub agent: Option<String>,
    pub category: Option<String>,
}

/// The leaderboard.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Leaderboard {
    /// The category the metrics are of; `None` for the whole suite.
    pub category: Option<String>,
    /// The metrics shown, in order.
    pub columns: Vec<Metric>,
    /// The metric the rank is computed on.
    pub ranked_by: Metric,
    /// Every suite version with a finished run, newest first (whatever the filters).
    pub suites: Vec<SuiteVersion>,
    /// Every agent with a finished run (whatever the filters).
    pub agents: Vec<String>,
    /// Every category of the runs shown.
    pub categories: Vec<String>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct SuiteVersion {
    pub suite: String,
    pub version: String,
}

/// One agent on one suite version: its latest complete run, or its latest partial one (marked)
/// while it has no complete run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Row {
    /// Rank(UB): 1 + the number of rows of the same suite version whose headline (`ranked_by`)
    /// is significantly better (their interval's lower bound above this row's upper bound). Rows
    /// whose intervals overlap share a rank. `None` when the metric has no episodes here.
    pub rank: Option<usize>,
    pub agent: String,
    pub suite: String,
    pub suite_version: String,
    pub suite_hash: String,
    /// The run the row shows.
    pub run: RunId,
    /// Why that run measured less than the whole suite; absent when it is complete.
    pub partial: Option<String>,
    /// How many finished runs this agent has on this suite version.
    pub runs: usize,
    pub ended_ms: Option<i64>,
    /// The episodes measured (in the category, when one is chosen).
    pub measured: usize,
    /// The columns' estimates; a metric with no episodes here is absent.
    pub metrics: BTreeMap<Metric, Estimate>,
}

/// A finished run, its report, and what makes it partial (`Report::partial`), if anything.
type Finished<'a> = (&'a StoredRun, &'a Report, Option<String>);

/// The leaderboard over `runs` (any order), filtered by `query`.
pub fn leaderboard(runs: &[StoredRun], query: &LeaderboardQuery) -> Leaderboard {
    let finished: Vec<Finished<'_>> = runs
        .iter()
        .filter_map(|run| {
            let report = run.report.as_ref()?;
            Some((run, report, report.partial()))
        })
        .collect();
    let mut suites: Vec<SuiteVersion> = finished
        .iter()
        .map(|(run, _, _)| SuiteVersion {
            suite: run.row.suite.clone(),
            version: run.row.suite_version.clone(),
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    suites.sort_by(|a, b| {
        a.suite
            .cmp(&b.suite)
            .then_with(|| version_order(&b.version, &a.version))
    });
    let agents: Vec<String> = finished
        .iter()
        .map(|(run, _, _)| run.row.agent.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();

    // The latest finished run of each (agent, suite, version) that passes the filters, a
    // complete one over any partial one.
    let mut latest: BTreeMap<(String, String, String), (&Finished<'_>, usize)> = BTreeMap::new();
    for finished in &finished {
        let run = finished.0;
        if !suite_matches(query.suite.as_deref(), &run.row)
            || !agent_matches(query.agent.as_deref(), &run.row.agent)
        {
            continue;
        }
        let key = (
            run.row.agent.clone(),
            run.row.suite.clone(),
            run.row.suite_version.clone(),
        );
        let entry = latest.entry(key).or_insert((finished, 0));
        entry.1 += 1;
        let standing = |(run, _, partial): &Finished<'_>| (partial.is_none(), run.row.ended_ms);
        if standing(finished) > standing(entry.0) {
            entry.0 = finished;
        }
    }

    let category = query
        .category
        .clone()
        .filter(|category| !category.is_empty());
    let mut categories = BTreeSet::new();
    let mut rows: Vec<Row> = latest
        .into_values()
        .map(|(&(run, report, ref partial), count)| {
            categories.extend(report.metrics.by_category.keys().cloned());
            let (metrics, measured) = match &category {
                None => (&report.metrics.overall, report.metrics.measured),
                Some(category) => {
                    let metrics = report.metrics.by_category.get(category);
                    let measured = report
                        .episodes
                        .iter()
                        .filter(|episode| {
                            &episode.category == category && episode.measured.is_some()
                        })
                        .count();
                    (metrics.unwrap_or(&EMPTY), measured)
                }
            };
            Row {
                rank: None,
                agent: run.row.agent.clone(),
                suite: run.row.suite.clone(),
                suite_version: run.row.suite_version.clone(),
                suite_hash: run.row.suite_hash.clone(),
                run: run.row.id.clone(),
                partial: partial.clone(),
                runs: count,
                ended_ms: run.row.ended_ms,
                measured,
                metrics: COLUMNS
                    .iter()
                    .filter_map(|metric| Some((*metric, metrics.get(metric)?.clone())))
                    .collect(),
            }
        })
        .collect();
    rank_rows(&mut rows);
    Leaderboard {
        category,
        columns: COLUMNS.to_vec(),
        ranked_by: RANKED_BY,
        suites,
        agents,
        categories: categories.into_iter().collect(),
        rows,
    }
}

static EMPTY: BTreeMap<Metric, Estimate> = BTreeMap::new();

/// Sets each row's Rank(UB) within its suite version and sorts the rows: suite, newest version,
/// rank, then the ranked metric's value, best first.
fn rank_rows(rows: &mut [Row]) {
    let estimate = |row: &Row| row.metrics.get(&RANKED_BY).cloned();
    let ranks: Vec<Option<usize>> = rows
        .iter()
        .map(|row| {
            let own = estimate(row)?;
            let better = rows
                .iter()
                .filter(|other| {
                    other.suite == row.suite && other.suite_version == row.suite_version
                })
                .filter_map(estimate)
                .filter(|other| significantly_better(other, &own))
                .count();
            Some(1 + better)
        })
        .collect();
    for (row, rank) in rows.iter_mut().zip(ranks) {
        row.rank = rank;
    }
    rows.sort_by(|a, b| {
        let value = |row: &Row| row.metrics.get(&RANKED_BY).map(|estimate| estimate.value);
        a.suite
            .cmp(&b.suite)
            .then_with(|| version_order(&b.suite_version, &a.suite_version))
            .then_with(|| match (a.rank, b.rank) {
                (Some(a), Some(b)) => a.cmp(&b),
                (a, b) => b.is_some().cmp(&a.is_some()),
            })
            .then_with(|| {
                let (a, b) = (value(a), value(b));
                let better_first = if RANKED_BY.higher_is_better() {
                    b.partial_cmp(&a)
                } else {
                    a.partial_cmp(&b)
                };
                better_first.unwrap_or(Ordering::Equal)
            })
            .then_with(|| a.agent.cmp(&b.agent))
    });
}

/// `a` is better than `b` beyond both intervals: its whole interval lies on the better side.
fn significantly_better(a: &Estimate, b: &Estimate) -> bool {
    if RANKED_BY.higher_is_better() {
        a.low > b.high
    } else {
        a.high < b.low
    }
}

/// Orders dotted versions by their numeric parts (`0.10.0` after `0.9.1`), text otherwise.
fn version_order(a: &str, b: &str) -> Ordering {
    let parts = |version: &str| -> Vec<(u64, String)> {
        version
            .split('.')
            .map(|part| (part.parse().unwrap_or(u64::MAX), part.to_owned()))
            .collect()
    };
    parts(a).cmp(&parts(b))
}

fn suite_matches(filter: Option<&str>, row: &RunRow) -> bool {
    match filter.filter(|filter| !filter.is_empty()) {
        None => true,
        Some(filter) => match filter.split_once('@') {
            Some((suite, version)) => row.suite == suite && row.suite_version == version,
            None => row.suite == filter,
        },
    }
}

fn agent_matches(filter: Option<&str>, agent: &str) -> bool {
    filter.is_none_or(|filter| agent.to_lowercase().contains(&filter.to_lowercase()))
}

/// The paired differences of two runs in one category (or overall).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CategoryDifferences {
    /// `None` for the whole suite.
    pub category: Option<String>,
    /// One per leaderboard column that both runs measured on shared scenarios.
    pub differences: Vec<Difference>,
}

/// `a` against `b`, paired by scenario, overall and in every category either run has. Each
/// difference is `a - b`; `regression` marks `a` worse beyond noise.
pub fn compare_runs(a: &Report, b: &Report) -> Vec<CategoryDifferences> {
    let categories: BTreeSet<&String> = a
        .metrics
        .by_category
        .keys()
        .chain(b.metrics.by_category.keys())
        .collect();
    let in_category = |report: &Report, category: Option<&str>| -> Vec<EpisodeResult> {
        report
            .episodes
            .iter()
            .filter(|episode| category.is_none_or(|category| episode.category == category))
            .cloned()
            .collect()
    };
    std::iter::once(None)
        .chain(
            categories
                .into_iter()
                .map(|category| Some(category.as_str())),
        )
        .map(|category| {
            let (a, b) = (in_category(a, category), in_category(b, category));
            CategoryDifferences {
                category: category.map(str::to_owned),
                differences: COLUMNS
                    .iter()
                    .filter_map(|metric| compare(&a, &b, *metric))
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentbench_scorers::Method;

    fn estimate(value: f64, low: f64, high: f64) -> Estimate {
        Estimate {
            value,
            low,
            high,
            n: 10,
            scenarios: 10,
            method: Method::Wilson,
            k: None,
        }
    }

    fn row(agent: &str, version: &str, headline: Option<Estimate>) -> Row {
        Row {
            rank: None,
            agent: agent.to_owned(),
            suite: "safety".to_owned(),
            suite_version: version.to_owned(),
            suite_hash: String::new(),
            run: format!("run_{agent}").into(),
            partial: None,
            runs: 1,
            ended_ms: None,
            measured: 10,
            metrics: headline
                .map(|headline| (RANKED_BY, headline))
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn rank_ub_counts_only_rows_significantly_better() {
        let mut rows = vec![
            row("c", "1.0", Some(estimate(0.5, 0.40, 0.60))),
            row("a", "1.0", Some(estimate(0.9, 0.80, 0.95))),
            row("b", "1.0", Some(estimate(0.85, 0.70, 0.90))),
            row("d", "1.0", None),
            // Another suite version is ranked on its own.
            row("e", "0.9", Some(estimate(0.1, 0.05, 0.2))),
        ];
        rank_rows(&mut rows);
        let ranked: Vec<(&str, Option<usize>)> = rows
            .iter()
            .map(|row| (row.agent.as_str(), row.rank))
            .collect();
        // a and b overlap (rank 1 both); c is below both; d has no score; e ranks alone.
        assert_eq!(
            ranked,
            [
                ("a", Some(1)),
                ("b", Some(1)),
                ("c", Some(3)),
                ("d", None),
                ("e", Some(1)),
            ]
        );
    }

    #[test]
    fn versions_order_numerically() {
        assert_eq!(version_order("0.10.0", "0.9.1"), Ordering::Greater);
        assert_eq!(version_order("1.0.0", "1.0.0"), Ordering::Equal);
    }

    #[test]
    fn filters_match_suites_versions_and_parts_of_agent_names() {
        let run = RunRow {
            id: "run_1".into(),
            suite: "safety".to_owned(),
            suite_version: "0.2.0".to_owned(),
            suite_hash: String::new(),
            agent: "openai:GPT-x".to_owned(),
            settings: "{}".to_owned(),
            state: "done".to_owned(),
            report: None,
            created_ms: 0,
            ended_ms: None,
            tenant: "default".to_owned(),
        };
        assert!(suite_matches(None, &run));
        assert!(suite_matches(Some("safety"), &run));
        assert!(suite_matches(Some("safety@0.2.0"), &run));
        assert!(!suite_matches(Some("safety@0.1.0"), &run));
        assert!(!suite_matches(Some("utility"), &run));
        assert!(agent_matches(Some("gpt"), &run.agent));
        assert!(!agent_matches(Some("oracle"), &run.agent));
    }
}

/// `GET /v1/trainings`: every training run (`agentbench train`) with a held-out evaluation in
/// the database, newest first, each with its learning curve.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Trainings {
    pub trainings: Vec<Training>,
}

/// One training run as its evaluation runs record it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Training {
    /// `train-…`.
    pub id: String,
    /// The SHA-256 of its configuration.
    pub config_hash: String,
    pub suite: String,
    pub suite_version: String,
    /// The policy's agent name without its version (`policy:NAME`).
    pub policy: String,
    /// Its evaluations in the order of training: base, after the warm start, then by update.
    pub points: Vec<TrainingPoint>,
}

/// One checkpoint's evaluation on the held-out scenarios.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TrainingPoint {
    pub run: RunId,
    pub agent: String,
    /// `base`, `sft` or `rl`.
    pub stage: String,
    /// RL updates done.
    pub update: u32,
    pub policy_version: u64,
    pub episodes: usize,
    /// Every metric with its 95 % interval.
    pub metrics: BTreeMap<Metric, Estimate>,
}

/// The training runs among `runs` (finished runs tagged by a trainer).
pub fn trainings(runs: &[StoredRun]) -> Trainings {
    let mut by_id: BTreeMap<&str, (Training, i64)> = BTreeMap::new();
    for run in runs {
        let Some(report) = &run.report else { continue };
        let Some(tag) = &report.run.training else {
            continue;
        };
        let point = point(run, report, tag);
        let (training, newest) = by_id.entry(&tag.id).or_insert_with(|| {
            (
                Training {
                    id: tag.id.clone(),
                    config_hash: tag.config_hash.clone(),
                    suite: run.row.suite.clone(),
                    suite_version: run.row.suite_version.clone(),
                    policy: run
                        .row
                        .agent
                        .rsplit_once('@')
                        .map_or_else(|| run.row.agent.clone(), |(name, _)| name.to_owned()),
                    points: Vec::new(),
                },
                run.row.created_ms,
            )
        });
        *newest = (*newest).max(run.row.created_ms);
        training.points.push(point);
    }
    let mut trainings: Vec<(Training, i64)> = by_id.into_values().collect();
    for (training, _) in &mut trainings {
        let stage_order = |stage: &str| match stage {
            "base" => 0,
            "sft" => 1,
            _ => 2,
        };
        training.points.sort_by_key(|point| {
            (
                stage_order(&point.stage),
                point.update,
                point.policy_version,
            )
        });
    }
    trainings.sort_by_key(|(_, newest)| std::cmp::Reverse(*newest));
    Trainings {
        trainings: trainings
            .into_iter()
            .map(|(training, _)| training)
            .collect(),
    }
}

fn point(run: &StoredRun, report: &Report, tag: &TrainingTag) -> TrainingPoint {
    TrainingPoint {
        run: run.row.id.clone(),
        agent: run.row.agent.clone(),
        stage: tag.stage.clone(),
        update: tag.update,
        policy_version: tag.policy_version,
        episodes: report.episodes.len(),
        metrics: report.metrics.overall.clone(),
    }
}
