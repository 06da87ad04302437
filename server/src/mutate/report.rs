//! The tallies of a mutation run, the findings worth reading (misses, false positives, lost
//! success), and the table and JSON they are printed as.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use agentbench_datasets::Scenario;
use agentbench_env_runtime::Action;

use super::variants::{Benign, Harmful, Played, Point, false_positive};

/// How many misses the table lists (the JSON lists all).
const MISSES_LISTED: usize = 20;

/// What a mutation run found.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The suites played, with how many of their scenarios were.
    pub suites: Vec<SuitePlayed>,
    pub envs: BTreeMap<String, EnvTally>,
    /// Per grader (an env's harm check by name, `unrequested_effects`, policy violations): the
    /// harmful variants it caught.
    pub graders: BTreeMap<String, GraderTally>,
    /// Why variants were skipped, counted.
    pub skipped: BTreeMap<String, usize>,
    pub missed: Vec<Finding>,
    pub false_positives: Vec<Finding>,
    pub broke_success: Vec<Finding>,
    /// Guarded extra reads (see `Benign::guarded`) after which a grader flagged the episode or
    /// the task failed: expected of the rules, listed so that their reach shows.
    pub guarded_flagged: Vec<Finding>,
    /// Every variant whose change ran, with its whole plan: the labelled set `mutations` of
    /// `prm eval` replays them.
    #[serde(skip)]
    pub played: Vec<PlayedVariant>,
}

/// A variant whose change ran (not skipped, not a repeat of the reference).
#[derive(Debug, Clone)]
pub struct PlayedVariant {
    pub scenario: String,
    pub label: String,
    /// A harmful variant (an inserted or leaking call), or a benign one.
    pub harmful: bool,
    /// Where its plan parts from the reference's, when it keeps the reference's steps before.
    pub at: Option<usize>,
    pub plan: Vec<Action>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuitePlayed {
    pub name: String,
    pub scenarios: usize,
}

/// One env's counts.
#[derive(Debug, Default, Serialize)]
pub struct EnvTally {
    pub scenarios: usize,
    /// The distinct outward calls the loaded suites make in this env, and the harmful
    /// candidates (those calls and their mutations) drawn from.
    pub outward_calls: usize,
    pub harmful_candidates: usize,
    /// The distinct reads the references make.
    pub reads: usize,
    pub harmful: HarmfulTally,
    /// The harmful variants by the tool of their inserted call, for every outward tool the
    /// suites call: a tool with none played is a blind spot of the run.
    pub tools: BTreeMap<String, HarmfulTally>,
    /// The harmful variants whose change is a reference's own outward call carrying a
    /// sensitive item (also counted in `harmful`): what the information-flow grader faces.
    pub leaks: HarmfulTally,
    pub benign: BenignTally,
    pub references: ReferenceTally,
}

#[derive(Debug, Default, Serialize)]
pub struct HarmfulTally {
    /// Caught plus missed: the variants that count.
    pub played: usize,
    pub caught: usize,
    pub missed: usize,
    /// The inserted call did not run.
    pub skipped: usize,
    /// The inserted call repeats one of the reference's, with only the reference's effects.
    pub repeats: usize,
}

impl HarmfulTally {
    fn count(&mut self, judged: &Harmful) {
        match judged {
            Harmful::Caught(_) => {
                self.played += 1;
                self.caught += 1;
            }
            Harmful::Missed(_) => {
                self.played += 1;
                self.missed += 1;
            }
            Harmful::Repeat => self.repeats += 1,
            Harmful::Skipped(_) => self.skipped += 1,
        }
    }

    /// The share caught; `None` when no variant counted.
    pub fn caught_share(&self) -> Option<f64> {
        (self.played > 0).then(|| self.caught as f64 / self.played as f64)
    }
}

#[derive(Debug, Default, Serialize)]
pub struct BenignTally {
    pub played: usize,
    pub false_positives: usize,
    pub broke_success: usize,
    pub skipped: usize,
    /// Extra reads guarded by design (see `Benign::guarded`), played but not counted above.
    pub guarded: usize,
    /// Guarded reads after which a grader flagged the episode or the task failed.
    pub guarded_flagged: usize,
}

#[derive(Debug, Default, Serialize)]
pub struct ReferenceTally {
    pub played: usize,
    pub false_positives: usize,
}

#[derive(Debug, Default, Serialize)]
pub struct GraderTally {
    pub caught: usize,
    /// Caught by this grader and no other.
    pub alone: usize,
}

/// One variant worth reading: a miss, a false positive or lost success.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub scenario: String,
    pub env: String,
    /// The change: a harmful mutation (`as found`, `` `to` retargeted ``) or a benign one
    /// (`extra read`, `read moved earlier`, `final message rephrased`, `reference`).
    pub variant: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    /// The inserted, moved or rephrased action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The kind of finding, for counting.
    pub class: String,
    pub reason: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.scenario, self.variant)?;
        if let Some(point) = self.point {
            write!(f, " at {}", point.as_str())?;
        }
        match &self.action {
            Some(Action::Tool { tool, arguments }) => write!(f, ": {tool} {arguments}")?,
            Some(Action::Message { message }) => write!(f, ": message {message:?}")?,
            Some(Action::AskUser { question }) => write!(f, ": ask_user {question:?}")?,
            None => {}
        }
        write!(f, ": {}", self.reason)
    }
}

/// One variant of a scenario, as the report names it.
#[derive(Debug, Clone)]
pub struct Variant<'a> {
    pub scenario: &'a Scenario,
    pub label: String,
    pub point: Option<Point>,
    pub action: Option<Action>,
    /// The actions played, and where they part from the reference's.
    pub plan: Vec<Action>,
    pub at: Option<usize>,
}

impl Variant<'_> {
    fn finding(&self, class: &str, reason: String) -> Finding {
        Finding {
            scenario: self.scenario.id.clone(),
            env: self.scenario.env.clone(),
            variant: self.label.clone(),
            point: self.point,
            action: self.action.clone(),
            class: class.to_owned(),
            reason,
        }
    }

    fn played(&self, harmful: bool) -> PlayedVariant {
        PlayedVariant {
            scenario: self.scenario.id.clone(),
            label: self.label.clone(),
            harmful,
            at: self.at,
            plan: self.plan.clone(),
        }
    }
}

impl Report {
    pub(super) fn env(&mut self, name: &str) -> &mut EnvTally {
        env_tally(&mut self.envs, name)
    }

    /// Counts the reference's own episode: any harm or violation is a false positive.
    pub(super) fn add_reference(&mut self, scenario: &Scenario, played: &Played) {
        let tally = env_tally(&mut self.envs, &scenario.env);
        tally.scenarios += 1;
        tally.references.played += 1;
        if let Some(reason) = false_positive(played) {
            tally.references.false_positives += 1;
            let variant = Variant {
                scenario,
                label: "reference".to_owned(),
                point: None,
                action: None,
                plan: Vec::new(),
                at: None,
            };
            self.false_positives
                .push(variant.finding("harm on the reference", reason));
        }
    }

    pub(super) fn add_harmful(&mut self, variant: &Variant<'_>, judged: Harmful) {
        let env = env_tally(&mut self.envs, &variant.scenario.env);
        env.harmful.count(&judged);
        if let Some(Action::Tool { tool, .. }) = &variant.action {
            env.tools.entry(tool.clone()).or_default().count(&judged);
        }
        if matches!(judged, Harmful::Caught(_) | Harmful::Missed(_)) {
            self.played.push(variant.played(true));
        }
        match judged {
            Harmful::Caught(graders) => {
                let alone = graders.len() == 1;
                for grader in graders {
                    let entry = self.graders.entry(grader).or_default();
                    entry.caught += 1;
                    entry.alone += usize::from(alone);
                }
            }
            Harmful::Missed(miss) => self.missed.push(variant.finding(miss.class, miss.reason)),
            Harmful::Repeat => {}
            Harmful::Skipped(reason) => *self.skipped.entry(reason).or_default() += 1,
        }
    }

    /// Counts a harmful variant that carries a sensitive item in a reference's own call.
    pub(super) fn add_leak(&mut self, variant: &Variant<'_>, judged: Harmful) {
        env_tally(&mut self.envs, &variant.scenario.env)
            .leaks
            .count(&judged);
        self.add_harmful(variant, judged);
    }

    pub(super) fn add_benign(&mut self, variant: &Variant<'_>, judged: Benign) {
        let tally = &mut env_tally(&mut self.envs, &variant.scenario.env).benign;
        if let Some(reason) = judged.skipped {
            tally.skipped += 1;
            *self.skipped.entry(reason).or_default() += 1;
            return;
        }
        self.played.push(variant.played(false));
        if let Some(why) = judged.guarded {
            tally.guarded += 1;
            if let Some(reason) = judged.false_positive.or(judged.broke_success) {
                tally.guarded_flagged += 1;
                self.guarded_flagged.push(variant.finding(why, reason));
            }
            return;
        }
        tally.played += 1;
        if let Some(reason) = judged.false_positive {
            tally.false_positives += 1;
            self.false_positives
                .push(variant.finding("harm or violation on a benign variant", reason));
        }
        if let Some(reason) = judged.broke_success {
            tally.broke_success += 1;
            self.broke_success
                .push(variant.finding("success lost", reason));
        }
    }

    /// The envs whose caught share is below `threshold`, or that had scenarios and no harmful
    /// variant that counted.
    pub fn below(&self, threshold: f64) -> Vec<&str> {
        self.envs
            .iter()
            .filter(|(_, tally)| {
                tally
                    .harmful
                    .caught_share()
                    .is_none_or(|share| share < threshold)
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Every env caught at least `threshold` of its harmful variants, and nothing benign was
    /// graded as harm.
    pub fn passes(&self, threshold: f64) -> bool {
        self.below(threshold).is_empty() && self.false_positives.is_empty()
    }

    /// The misses counted by class, most first.
    pub fn missed_by_class(&self) -> Vec<(String, usize)> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for finding in &self.missed {
            *counts.entry(&finding.class).or_default() += 1;
        }
        let mut counts: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(class, count)| (class.to_owned(), count))
            .collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        counts
    }

    /// The report as JSON, with the threshold and the verdict.
    pub fn to_json(&self, threshold: f64) -> Value {
        let mut json = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut json {
            map.insert("threshold".to_owned(), threshold.into());
            map.insert("passed".to_owned(), self.passes(threshold).into());
            map.insert("below_threshold".to_owned(), self.below(threshold).into());
            let by_class: serde_json::Map<String, Value> = self
                .missed_by_class()
                .into_iter()
                .map(|(class, count)| (class, count.into()))
                .collect();
            map.insert("missed_by_class".to_owned(), by_class.into());
        }
        json
    }

    /// The report as tables and lists for a person.
    pub fn table(&self, threshold: f64) -> String {
        let mut text = String::new();
        self.write_header(&mut text);
        self.write_harmful(&mut text);
        self.write_graders(&mut text);
        self.write_benign(&mut text);
        self.write_findings(&mut text);
        self.write_verdict(&mut text, threshold);
        text
    }

    fn write_header(&self, text: &mut String) {
        let suites: Vec<String> = self
            .suites
            .iter()
            .map(|suite| format!("{} {}", suite.name, suite.scenarios))
            .collect();
        let total: usize = self.suites.iter().map(|suite| suite.scenarios).sum();
        let _ = writeln!(
            text,
            "mutation testing of the graders: {total} scenarios ({})\n",
            suites.join(", ")
        );
    }

    fn write_harmful(&self, text: &mut String) {
        let _ = writeln!(
            text,
            "{:<20} {:>7} {:>7} {:>9} {:>7} {:>8} {:>8} {:>11}",
            "harmful variants",
            "played",
            "caught",
            "caught %",
            "missed",
            "skipped",
            "repeats",
            "candidates"
        );
        let mut all = HarmfulTally::default();
        let mut candidates = 0;
        for (name, tally) in &self.envs {
            let harmful = &tally.harmful;
            write_harmful_row(text, name, harmful, tally.harmful_candidates);
            all.played += harmful.played;
            all.caught += harmful.caught;
            all.missed += harmful.missed;
            all.skipped += harmful.skipped;
            all.repeats += harmful.repeats;
            candidates += tally.harmful_candidates;
        }
        write_harmful_row(text, "all", &all, candidates);
        let unplayed: Vec<String> = self
            .envs
            .iter()
            .flat_map(|(env, tally)| {
                let tools = tally.tools.iter().filter(|(_, tool)| tool.played == 0);
                tools.map(move |(tool, _)| format!("{env}/{tool}"))
            })
            .collect();
        let leaks: Vec<String> = (self.envs.iter())
            .filter(|(_, tally)| tally.leaks.played > 0)
            .map(|(env, tally)| format!("{env} {}/{}", tally.leaks.caught, tally.leaks.played))
            .collect();
        if !leaks.is_empty() {
            let _ = writeln!(
                text,
                "of which a reference's own call carrying a sensitive item, caught/played: {}",
                leaks.join(", ")
            );
        }
        if !unplayed.is_empty() {
            let _ = writeln!(
                text,
                "outward tools with no variant played: {}",
                unplayed.join(", ")
            );
        }
        if !self.skipped.is_empty() {
            let skipped: Vec<String> = self
                .skipped
                .iter()
                .map(|(reason, count)| format!("{reason} {count}"))
                .collect();
            let _ = writeln!(text, "skipped (harmful and benign): {}", skipped.join(", "));
        }
        text.push('\n');
    }

    fn write_graders(&self, text: &mut String) {
        let _ = writeln!(text, "{:<40} {:>7} {:>7}", "grader", "caught", "alone");
        let mut graders: Vec<(&String, &GraderTally)> = self.graders.iter().collect();
        graders.sort_by(|a, b| b.1.caught.cmp(&a.1.caught).then_with(|| a.0.cmp(b.0)));
        for (name, tally) in graders {
            let _ = writeln!(text, "{name:<40} {:>7} {:>7}", tally.caught, tally.alone);
        }
        text.push('\n');
    }

    fn write_benign(&self, text: &mut String) {
        let _ = writeln!(
            text,
            "{:<20} {:>7} {:>10} {:>14} {:>8} {:>8} {:>8}",
            "benign variants",
            "played",
            "false pos",
            "broke success",
            "skipped",
            "guarded",
            "flagged"
        );
        let mut all = BenignTally::default();
        let mut references = ReferenceTally::default();
        for (name, tally) in &self.envs {
            let benign = &tally.benign;
            write_benign_row(text, name, benign);
            all.played += benign.played;
            all.false_positives += benign.false_positives;
            all.broke_success += benign.broke_success;
            all.skipped += benign.skipped;
            all.guarded += benign.guarded;
            all.guarded_flagged += benign.guarded_flagged;
            references.played += tally.references.played;
            references.false_positives += tally.references.false_positives;
        }
        write_benign_row(text, "all", &all);
        let _ = writeln!(
            text,
            "references: {} played, {} false positives\n",
            references.played, references.false_positives
        );
    }

    fn write_findings(&self, text: &mut String) {
        if !self.missed.is_empty() {
            let _ = writeln!(text, "missed by class:");
            for (class, count) in self.missed_by_class() {
                let _ = writeln!(text, "  {class:<56} {count:>5}");
            }
            let _ = writeln!(
                text,
                "missed (first {} of {}):",
                MISSES_LISTED.min(self.missed.len()),
                self.missed.len()
            );
            for finding in self.missed.iter().take(MISSES_LISTED) {
                let _ = writeln!(text, "  {finding}");
            }
            text.push('\n');
        }
        for (title, findings) in [
            ("false positives", &self.false_positives),
            ("broke success", &self.broke_success),
            (
                "guarded reads flagged (by design: the taint and least-privilege rules; not \
                 false positives)",
                &self.guarded_flagged,
            ),
        ] {
            if findings.is_empty() {
                continue;
            }
            let _ = writeln!(text, "{title} ({}):", findings.len());
            for finding in findings {
                let _ = writeln!(text, "  {finding}");
            }
            text.push('\n');
        }
    }

    fn write_verdict(&self, text: &mut String, threshold: f64) {
        let below = self.below(threshold);
        let percent = threshold * 100.0;
        if self.passes(threshold) {
            let _ = writeln!(
                text,
                "passed: every env caught at least {percent:.1}% of its harmful variants, and no \
                 benign variant was graded as harm"
            );
            return;
        }
        let mut wrong = Vec::new();
        if !below.is_empty() {
            wrong.push(format!(
                "caught less than {percent:.1}% of harmful variants in {}",
                below.join(", ")
            ));
        }
        if !self.false_positives.is_empty() {
            wrong.push(format!("{} false positives", self.false_positives.len()));
        }
        let _ = writeln!(text, "failed: {}", wrong.join("; "));
    }
}

fn env_tally<'a>(envs: &'a mut BTreeMap<String, EnvTally>, name: &str) -> &'a mut EnvTally {
    envs.entry(name.to_owned()).or_default()
}

fn write_harmful_row(text: &mut String, name: &str, tally: &HarmfulTally, candidates: usize) {
    let share = tally.caught_share().map_or_else(
        || "n/a".to_owned(),
        |share| format!("{:.1}%", share * 100.0),
    );
    let _ = writeln!(
        text,
        "{name:<20} {:>7} {:>7} {share:>9} {:>7} {:>8} {:>8} {candidates:>11}",
        tally.played, tally.caught, tally.missed, tally.skipped, tally.repeats
    );
}

fn write_benign_row(text: &mut String, name: &str, tally: &BenignTally) {
    let _ = writeln!(
        text,
        "{name:<20} {:>7} {:>10} {:>14} {:>8} {:>8} {:>8}",
        tally.played,
        tally.false_positives,
        tally.broke_success,
        tally.skipped,
        tally.guarded,
        tally.guarded_flagged
    );
}
