//! What a run leaves behind: `report.json` (everything), `episodes.jsonl` (one line per
//! episode), `summary.md` (fits a CI job summary) and `junit.xml` (one test case per gate check).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use agentbench_agents::Sampling;
use agentbench_scorers::{Estimate, Metric};

use super::play::EpisodeLine;
use crate::report::{Report, Verdict};

/// Writes the four files into `dir`, creating it.
pub fn write_all(dir: &Path, report: &Report, lines: &[EpisodeLine]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|error| anyhow::anyhow!("cannot create {}: {error}", dir.display()))?;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", path.display()))
    };
    write("report.json", serde_json::to_string_pretty(report)? + "\n")?;
    let mut jsonl = String::new();
    for line in lines {
        jsonl.push_str(&serde_json::to_string(&JsonLine {
            run: report.run.id.as_str(),
            line,
        })?);
        jsonl.push('\n');
    }
    write("episodes.jsonl", jsonl)?;
    write("summary.md", summary(report))?;
    write("junit.xml", junit(report))?;
    Ok(())
}

#[derive(Serialize)]
struct JsonLine<'a> {
    run: &'a str,
    #[serde(flatten)]
    line: &'a EpisodeLine,
}

fn cell(estimate: Option<&Estimate>) -> String {
    match estimate {
        None => "–".to_owned(),
        Some(estimate) => format!(
            "{:.3} [{:.3}, {:.3}] n={}",
            estimate.value, estimate.low, estimate.high, estimate.n
        ),
    }
}

/// `tool_choice auto, max_tokens 512, temperature 0`: what a model agent's requests asked for.
fn describe_sampling(sampling: &Sampling) -> String {
    let mut parts = vec![format!("tool_choice {}", sampling.tool_choice.as_str())];
    let optional = [
        (
            "max_tokens",
            sampling.max_tokens.map(|value| value.to_string()),
        ),
        (
            "temperature",
            sampling.temperature.map(|value| value.to_string()),
        ),
        ("top_p", sampling.top_p.map(|value| value.to_string())),
        ("seed", sampling.seed.map(|value| value.to_string())),
        (
            "context window",
            sampling
                .context_tokens
                .map(|value| format!("{value} tokens")),
        ),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            parts.push(format!("{name} {value}"));
        }
    }
    parts.join(", ")
}

/// `summary.md`: the verdict, the headline metrics overall and per category, the gate's checks.
pub fn summary(report: &Report) -> String {
    let run = &report.run;
    let metrics = &report.metrics;
    let mut out = String::new();
    let verdict = match report.verdict() {
        Verdict::Passed => "✅ gate passed",
        Verdict::Inconclusive => "❔ gate inconclusive",
        Verdict::Failed => "❌ gate failed",
        Verdict::Error => "🛑 error: the run could not be judged",
        Verdict::Ungated => "no gate",
    };
    let _ = writeln!(
        out,
        "# agentbench: `{}` on `{}` — {verdict}\n",
        run.agent, run.suite
    );
    let _ = writeln!(
        out,
        "Run `{}`: suite {} {} (`{}`), {} trial(s), mode {}, {} measured and {} unmeasured \
         episodes.\n",
        run.id,
        run.suite,
        run.suite_version,
        &run.suite_hash[..run.suite_hash.len().min(12)],
        run.trials,
        run.mode,
        metrics.measured,
        metrics.unmeasured
    );
    if let Some(error) = &report.error {
        let _ = writeln!(out, "> 🛑 **The run could not be judged**: {error}.\n");
    }
    if let Some(partial) = report.partial() {
        let _ = writeln!(
            out,
            "> ⚠️ **A partial run**: {partial}. Its metrics are not the suite's, and it does not \
             replace a complete run of the agent on the leaderboard.\n"
        );
    }
    if let Some(sampling) = &run.sampling {
        let _ = writeln!(out, "Model requests: {}.\n", describe_sampling(sampling));
    }
    let no_answers = (report.episodes.iter())
        .filter_map(|episode| episode.measured.as_ref())
        .filter(|measured| measured.no_answer)
        .count();
    if no_answers > 0 {
        let _ = writeln!(
            out,
            "{no_answers} of {} measured episodes ended with no answer (an empty, cut-off, \
             looping or JSON-only final message): unsafe on an attack, a failure on a task.\n",
            metrics.measured
        );
    }
    let tool_calls = (report.episodes.iter())
        .filter_map(|episode| episode.measured.as_ref())
        .map(|measured| measured.tool_calls);
    if metrics.measured > 0 && tool_calls.sum::<u32>() == 0 {
        let _ = writeln!(
            out,
            "> ⚠️ **The agent made no tool call in any of the {} measured episodes**: whatever \
             it scores, it did nothing. For a model agent, check that its server shows it the \
             tools (`--tool-choice`, the server's chat format).\n",
            metrics.measured
        );
    }
    let _ = writeln!(out, "| metric | value [95% interval] n |\n|---|---|");
    for metric in &Metric::ALL {
        if let Some(estimate) = metrics.overall.get(metric) {
            let _ = writeln!(out, "| {metric} | {} |", cell(Some(estimate)));
        }
    }
    if !metrics.by_category.is_empty() {
        let columns = [
            Metric::SafetyScore,
            Metric::HarmRate,
            Metric::Utility,
            Metric::ViolationsPerEpisode,
        ];
        let _ = write!(out, "\n| category |");
        for metric in columns {
            let _ = write!(out, " {metric} |");
        }
        let _ = write!(out, "\n|---|");
        for _ in columns {
            let _ = write!(out, "---|");
        }
        out.push('\n');
        for (category, group) in &metrics.by_category {
            let _ = write!(out, "| {category} |");
            for metric in columns {
                let _ = write!(out, " {} |", cell(group.get(&metric)));
            }
            out.push('\n');
        }
    }
    if !metrics.by_attack_family.is_empty() {
        let _ = writeln!(
            out,
            "\n| attack family | {} | {} |\n|---|---|---|",
            Metric::AttackSuccessRate,
            Metric::HarmRate
        );
        for (family, group) in &metrics.by_attack_family {
            let _ = writeln!(
                out,
                "| {family} | {} | {} |",
                cell(group.get(&Metric::AttackSuccessRate)),
                cell(group.get(&Metric::HarmRate))
            );
        }
    }
    if let Some(gate) = &report.gate {
        let _ = writeln!(out, "\n## Gate\n");
        for check in &gate.checks {
            let mark = match check.passed {
                Some(true) => "✅",
                Some(false) => "❌",
                None if check.inconclusive => "❔",
                None => "➖",
            };
            let _ = writeln!(out, "- {mark} `{}`: {}", check.name, check.message);
        }
    }
    out
}

/// `junit.xml`: one test case per gate check (a check that could not be judged is skipped), and
/// a failing one when the run itself could not be judged.
pub fn junit(report: &Report) -> String {
    let checks = report
        .gate
        .as_ref()
        .map(|gate| gate.checks.as_slice())
        .unwrap_or_default();
    let unjudged = report.error.as_ref().map(|error| xml(error));
    let failures = checks
        .iter()
        .filter(|check| check.passed == Some(false))
        .count()
        + usize::from(unjudged.is_some());
    let tests = checks.len() + usize::from(unjudged.is_some());
    let skipped = checks.iter().filter(|check| check.passed.is_none()).count();
    let suite = xml(&format!(
        "agentbench {} {}",
        report.run.suite, report.run.agent
    ));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"agentbench\" tests=\"{tests}\" failures=\"{failures}\" skipped=\"{skipped}\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" skipped=\"{skipped}\">"
    );
    // A run that could not be judged fails CI whatever its checks say.
    if let Some(error) = unjudged {
        let _ = writeln!(
            out,
            "    <testcase classname=\"run\" name=\"episodes measured\"><failure message=\"{error}\"/></testcase>"
        );
    }
    for check in checks {
        let name = xml(&check.name);
        let message = xml(&check.message);
        match check.passed {
            Some(true) => {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"gate\" name=\"{name}\"><system-out>{message}</system-out></testcase>"
                );
            }
            Some(false) => {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"gate\" name=\"{name}\"><failure message=\"{message}\"/></testcase>"
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"gate\" name=\"{name}\"><skipped message=\"{message}\"/></testcase>"
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Escapes text for an XML attribute or element.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_escapes_markup_and_drops_control_characters() {
        assert_eq!(super::xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
