// Drives the leaderboard page in Debian's Chromium through playwright-core, against a running
// `agentbench serve` filled by real runs of the scripted baselines (tests/tests/web.rs sets
// that up). Usage: node leaderboard.mjs BASE_URL SCREENSHOT_DIR RUNS_JSON TRAINING_URL
// RUNS_JSON maps each baseline to its run id: {"oracle": "run_…", "reckless": "run_…", …};
// TRAINING_URL is a second server, over a database holding one `agentbench train` run.
// Exits non-zero, naming the step, on the first check that fails.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [base, shots, runsJson, trainingBase] = process.argv.slice(2);
const runs = JSON.parse(runsJson);

async function api(path, server = base) {
  const response = await fetch(new URL(path, server));
  assert.equal(response.status, 200, `${path} answered ${response.status}`);
  return response.json();
}

/** The agents of the leaderboard table, top to bottom. */
async function tableAgents(page) {
  return page.locator("#leaderboard tbody tr").evaluateAll((rows) => rows.map((row) => row.dataset.agent));
}

/** Each agent's displayed value of `metric`, as the cell's data-value (absent: null). */
async function columnValues(page, metric) {
  return page.locator("#leaderboard tbody tr").evaluateAll((rows, metric) => rows.map((row) => {
    const cell = row.querySelector(`td[data-metric="${metric}"] .estimate`);
    return [row.dataset.agent, cell ? Number(cell.dataset.value) : null];
  }), metric);
}

/** Waits until the page has rendered the view of the current hash. */
async function settled(page) {
  await page.waitForFunction(() => document.getElementById("view").dataset.ready === (location.hash || "#/"));
}

/** The page fits its 1280 px window: nothing wider than the viewport, tables included. */
async function fitsWindow(page, what) {
  const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= inner, `${what} is ${scroll} px wide in a ${inner} px window`);
}

async function step(name, body) {
  try {
    await body();
    console.log(`ok - ${name}`);
  } catch (error) {
    console.error(`not ok - ${name}\n${error.stack || error}`);
    throw error;
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("request", (request) => {
    const own = [base, trainingBase, "data:", "blob:"].some((prefix) => request.url().startsWith(prefix));
    if (!own) {
      problems.push(`request outside the server: ${request.url()}`);
    }
  });

  const board = await api("/v1/leaderboard?suite=safety");

  await step("the leaderboard lists the baselines in rank order", async () => {
    await page.goto(new URL("/", base).href);
    await settled(page);
    const agents = await tableAgents(page);
    assert.deepEqual(agents, board.rows.map((row) => row.agent), "the table's order is the API's");
    const ranks = board.rows.map((row) => row.rank);
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), "ranks never decrease down the table");
    const rank = (agent) => board.rows.find((row) => row.agent === agent).rank;
    assert.equal(rank("oracle"), 1, "the oracle ranks first");
    for (const worse of ["reckless", "silent", "refuser"]) {
      assert.ok(rank(worse) > rank("cautious"), `${worse} ranks below cautious`);
    }
    await fitsWindow(page, "the leaderboard");
    for (const metric of board.columns) {
      const shown = Object.fromEntries(await columnValues(page, metric));
      for (const row of board.rows) {
        const expected = row.metrics[metric] ? row.metrics[metric].value : null;
        assert.equal(shown[row.agent], expected, `${row.agent}'s ${metric}`);
      }
    }
    await page.screenshot({ path: join(shots, "leaderboard.png"), fullPage: true });
  });

  await step("a column header sorts the table, both ways, and the URL keeps it", async () => {
    await page.click('th[data-sort="harm_rate"]');
    await settled(page);
    assert.match(page.url(), /sort=harm_rate/);
    assert.match(page.url(), /dir=asc/);
    const ascending = (await columnValues(page, "harm_rate")).map(([, value]) => value);
    assert.deepEqual(ascending, [...ascending].sort((a, b) => a - b), "ascending harm rates");
    assert.equal(await page.getAttribute('th[data-sort="harm_rate"]', "aria-sort"), "ascending");
    await page.click('th[data-sort="harm_rate"]');
    await settled(page);
    assert.match(page.url(), /dir=desc/);
    const descending = (await columnValues(page, "harm_rate")).map(([, value]) => value);
    assert.deepEqual(descending, [...descending].sort((a, b) => b - a), "descending harm rates");
  });

  await step("a category tab shows that category's metrics and survives a reload", async () => {
    const category = "prompt_injection";
    const expected = await api(`/v1/leaderboard?suite=safety&category=${category}`);
    await page.click(`.tabs [data-category="${category}"]`);
    await settled(page);
    assert.match(page.url(), new RegExp(`category=${category}`));
    const check = async () => {
      assert.equal(await page.getAttribute(`.tabs [data-category="${category}"]`, "aria-selected"), "true");
      const shown = Object.fromEntries(await columnValues(page, "attack_success_rate"));
      for (const row of expected.rows) {
        assert.equal(shown[row.agent], row.metrics.attack_success_rate.value, `${row.agent}'s attack success on ${category}`);
      }
      assert.equal(shown.reckless, 1, "reckless follows every injection");
      assert.equal(shown.oracle, 0, "the oracle follows none");
    };
    await check();
    await page.reload();
    await settled(page);
    await check();
    await page.screenshot({ path: join(shots, "leaderboard-category.png"), fullPage: true });
  });

  await step("the agent filter narrows the table", async () => {
    await page.goto(new URL("/#/", base).href);
    await settled(page);
    await page.fill("#agent", "orac");
    await page.press("#agent", "Enter");
    await settled(page);
    assert.match(page.url(), /agent=orac/);
    assert.deepEqual(await tableAgents(page), ["oracle"]);
  });

  await step("CSV export carries every row with its intervals", async () => {
    await page.goto(new URL("/#/", base).href);
    await settled(page);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
    const text = await readFile(await download.path(), "utf8");
    const lines = text.trim().split("\n");
    assert.match(lines[0], /^rank,agent,suite,suite_version,suite_hash,category,run,safe_completion,safe_completion_low,safe_completion_high,safe_completion_n,safety_score,/);
    assert.equal(lines.length, 1 + board.rows.length);
  });

  await step("the chart plots every agent", async () => {
    const plotted = await page.locator("#chart g[data-agent]").evaluateAll((groups) => groups.map((group) => group.dataset.agent).sort());
    assert.deepEqual(plotted, board.rows.map((row) => row.agent).sort());
  });

  const reckless = await api(`/v1/runs/${runs.reckless}`);
  await step("a run page shows its settings, metrics by category and filters its episodes", async () => {
    await page.goto(new URL(`/#/run/${runs.reckless}`, base).href);
    await settled(page);
    const text = await page.textContent("main");
    assert.ok(text.includes(reckless.run.suite_hash), "the suite hash");
    assert.ok(text.includes("audit"), "the mode");
    assert.equal(await page.locator("#run-metrics tbody tr").count(), 1 + Object.keys(reckless.metrics.by_category).length);
    assert.equal(await page.locator("#episodes tbody tr").count(), reckless.episodes.length);
    await fitsWindow(page, "a run page");
    await page.selectOption("#episode-outcome", "harm");
    await settled(page);
    const harmful = reckless.episodes.filter((episode) => episode.outcome && episode.outcome.harms.length > 0);
    assert.ok(harmful.length > 0);
    assert.equal(await page.locator("#episodes tbody tr").count(), harmful.length);
    await page.selectOption("#episode-category", "misuse");
    await settled(page);
    assert.match(page.url(), /category=misuse/);
    assert.equal(await page.locator("#episodes tbody tr").count(),
      harmful.filter((episode) => episode.category === "misuse").length);
    await page.screenshot({ path: join(shots, "run.png"), fullPage: true });
  });

  await step("an episode page shows the transcript with step scores, policy decisions, effects and the checks", async () => {
    const line = reckless.episodes.find((episode) => episode.violations > 0 && episode.outcome
      && episode.outcome.harms.includes("unrequested_effects"));
    await page.goto(new URL(`/#/run/${runs.reckless}`, base).href);
    await settled(page);
    await page.click(`#episodes tr[data-scenario="${line.scenario}"] a`);
    await settled(page);
    const episode = await api(`/v1/episodes/${line.episode}`);
    assert.equal(await page.locator(".step").count(), episode.steps.length + 1, "one section per step, and the first observation");
    const shown = await page.locator(".step-score").evaluateAll((scores) => scores.map((score) => Number(score.dataset.reward)));
    const recorded = episode.steps.flatMap((step) => step.scores.map((score) => score.reward));
    assert.ok(recorded.length >= episode.steps.length, "every step is scored");
    assert.deepEqual(shown, recorded);
    const text = await page.textContent("main");
    assert.ok(text.includes(episode.task.instruction), "the instruction");
    const violation = episode.steps.flatMap((step) => step.violations || [])[0];
    assert.ok(text.includes(violation.policy), "a policy decision");
    assert.equal(await page.locator("#checks tbody tr").count(), episode.outcome.checks.length);
    const effects = episode.steps.flatMap((step) => step.effects || []);
    assert.equal(await page.locator("li.effect").count(), effects.length, "one item per effect");
    assert.equal(await page.locator('li.effect[data-requested="false"]').count(),
      effects.filter((effect) => effect.requested === false).length);
    assert.ok(effects.some((effect) => effect.requested === false), "the attack's effect is unrequested");
    await fitsWindow(page, "an episode page");
    await page.screenshot({ path: join(shots, "episode.png"), fullPage: true });
  });

  await step("an agent that says nothing is shown as such: no answer, an empty reply", async () => {
    const silent = await api(`/v1/runs/${runs.silent}`);
    await page.goto(new URL(`/#/run/${runs.silent}?outcome=no_answer`, base).href);
    await settled(page);
    assert.equal(await page.locator("#episodes tbody tr").count(), silent.episodes.length, "every episode is no answer");
    assert.equal(await page.locator("#episodes tbody tr .badge", { hasText: "no answer" }).count(), silent.episodes.length);
    await page.click(`#episodes tr[data-scenario="${silent.episodes[0].scenario}"] a`);
    await settled(page);
    assert.equal(await page.locator(".step .badge", { hasText: "empty reply" }).count(), 1);
  });

  await step("a partial run is marked in the runs list and on its page", async () => {
    await page.goto(new URL("/#/runs", base).href);
    await settled(page);
    assert.equal(await page.locator(`tr[data-run="${runs["oracle-sample"]}"] .partial`).count(), 1);
    assert.equal(await page.locator(".partial").count(), 1, "only the sample is partial");
    await fitsWindow(page, "the runs list");
    await page.goto(new URL(`/#/run/${runs["oracle-sample"]}`, base).href);
    await settled(page);
    assert.ok((await page.textContent("main")).includes("a sample of 12 of the suite's"));
  });

  await step("comparing two runs shows paired differences per category", async () => {
    await page.goto(new URL(`/#/compare?a=${runs.oracle}&b=${runs.reckless}`, base).href);
    await settled(page);
    const comparison = await api(`/v1/runs/${runs.oracle}/compare/${runs.reckless}`);
    assert.equal(await page.locator("table.compare").count(),
      comparison.categories.filter((group) => group.differences.length > 0).length);
    const harm = await page.textContent('table.compare[data-category="all"] tr[data-metric="harm_rate"]');
    assert.ok(harm.includes("better"), `the oracle's harm rate is better beyond noise: ${harm}`);
    await page.screenshot({ path: join(shots, "compare.png"), fullPage: true });
  });

  await step("the PRMs tab shows each recorded measurement of a step scorer with its intervals", async () => {
    const { evals, best_of_n: bestOfN } = await api("/v1/prm-results");
    await page.click('[data-nav="prms"]');
    await settled(page);
    assert.match(page.url(), /#\/prms$/);
    assert.equal(await page.locator("#prm-evals tbody tr").count(), evals.length);
    assert.equal(await page.locator("#best-of-n tbody tr").count(), bestOfN.length);
    const evaluation = evals.find((result) => result.report.scorer === "rules" && result.report.set === "baselines");
    const row = page.locator(`#prm-evals tr[data-id="${evaluation.id}"]`);
    assert.equal(await row.count(), 1);
    const shown = async (cell) => Number(await row.locator(`td[data-measure="${cell}"] .estimate`).getAttribute("data-value"));
    for (const key of ["first_harm_accuracy_harmful", "first_harm_accuracy_safe", "first_harm_f1", "step_auroc", "pairwise_accuracy"]) {
      assert.equal(await shown(key), evaluation.report[key].value, key);
      const interval = await row.locator(`td[data-measure="${key}"] .pm`).textContent();
      const { low, high } = evaluation.report[key];
      assert.equal(interval.trim(), `[${low.toFixed(2)}, ${high.toFixed(2)}]`, key);
    }

    const best = bestOfN.find((result) => result.report.agent === "wavering");
    const safety = page.locator(`#best-of-n tr[data-id="${best.id}"] td[data-metric="safety_score"]`);
    const difference = best.report.differences.find((d) => d.metric === "safety_score");
    assert.equal(Number(await safety.locator(".diff").getAttribute("data-difference")), difference.difference);
    assert.ok(difference.low > 0, "Best-of-4 under the rules makes wavering safer beyond noise");
    assert.match(await safety.locator(".diff").getAttribute("class"), /good/);
    assert.equal(Number(await safety.locator('[data-side="best"] .estimate').getAttribute("data-value")),
      best.report.best_of_n.metrics.safety_score.value);
    await fitsWindow(page, "the PRMs tab");
    await page.screenshot({ path: join(shots, "prms.png"), fullPage: true });
  });

  await step("the Training tab draws each training run's learning curve with its intervals", async () => {
    const empty = await api("/v1/trainings");
    assert.equal(empty.trainings.length, 0);
    await page.click('[data-nav="training"]');
    await settled(page);
    assert.equal(await page.locator("#no-trainings").count(), 1);

    const { trainings } = await api("/v1/trainings", trainingBase);
    assert.equal(trainings.length, 1);
    const [training] = trainings;
    await page.goto(new URL("/#/training", trainingBase).href);
    await settled(page);
    const section = page.locator(`section[data-training="${training.id}"]`);
    assert.equal(await section.count(), 1);
    assert.equal(await section.locator("table.training-points tbody tr").count(), training.points.length);
    for (const metric of ["safety_score", "attack_success_rate", "utility"]) {
      const series = section.locator(`svg.curve g.series[data-metric="${metric}"]`);
      assert.equal(await series.count(), 1, metric);
      assert.equal(await series.locator("g.checkpoint").count(), training.points.length, metric);
      assert.equal(await series.locator("polygon.band").count(), 1, `${metric}'s interval band`);
    }
    for (const point of training.points) {
      const row = section.locator(`tr[data-run="${point.run}"]`);
      assert.equal(await row.locator("a").textContent(), point.agent);
      const safety = point.metrics.safety_score;
      assert.equal(Number(await row.locator('td[data-metric="safety_score"] .estimate').getAttribute("data-value")), safety.value);
      assert.equal((await row.locator('td[data-metric="safety_score"] .pm').textContent()).trim(),
        `[${safety.low.toFixed(2)}, ${safety.high.toFixed(2)}]`);
    }
    const stages = await section.locator("table.training-points tbody tr").evaluateAll((rows) => rows.map((row) => row.dataset.stage));
    assert.deepEqual(stages, training.points.map((point) => point.stage));
    assert.equal(stages[0], "base");
    await fitsWindow(page, "the Training tab");
    await page.screenshot({ path: join(shots, "training.png"), fullPage: true });
    // A checkpoint's run opens as any run does, marked as the held-out split.
    await section.locator(`tr[data-run="${training.points[0].run}"] a`).click();
    await settled(page);
    assert.ok((await page.textContent("main")).includes("the held-out split"));
  });

  await step("nothing failed or came from elsewhere", async () => {
    assert.deepEqual(problems, []);
  });
} catch {
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
