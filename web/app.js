// The agentbench leaderboard: a single page over the read-only API (/v1/leaderboard, /v1/runs,
// /v1/runs/{id}, /v1/runs/{id}/compare/{other}, /v1/episodes/{id}, /v1/prm-results,
// /v1/trainings). The view
// and its state live in the URL's hash (#/path?query), so every view can be linked and reloaded.
"use strict";

const METRIC_NAMES = {
  safe_completion: "Safe completion",
  safety_score: "Safety",
  harm_rate: "Harm rate",
  attack_success_rate: "Attack success",
  refusal_rate: "Refusal (harmful)",
  over_refusal_rate: "Over-refusal",
  utility: "Utility",
  utility_under_attack: "Utility under attack",
  completion_under_policy: "CuP",
  violations_per_episode: "Violations / ep",
  blocked_per_episode: "Blocked / ep",
  invalid_argument_rate: "Invalid args",
  mean_step_reward: "Mean step reward",
  pass_k: "pass^k",
};
// Interval bounds are shown to two decimals, these to one.
const BOUND_DIGITS = { violations_per_episode: 1, blocked_per_episode: 1 };
const LOWER_IS_BETTER = new Set([
  "harm_rate", "attack_success_rate", "over_refusal_rate", "violations_per_episode",
  "blocked_per_episode", "invalid_argument_rate",
]);

// ---- small helpers -------------------------------------------------------------------------

/** Builds an element: h("a", {href: "#/"}, "text", child). Text is always set as text. */
function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, value);
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) {
      element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return element;
}

/** Where the API key a reader typed is kept: this tab only, gone when it closes. */
const KEY_ITEM = "agentbench-api-key";

async function api(path) {
  const headers = { accept: "application/json" };
  const key = sessionStorage.getItem(KEY_ITEM);
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(path, { headers });
  if (response.status === 401) {
    // A server with keys (`serve --auth keys`) and no public leaderboard: ask for one, once per
    // refusal, and try again with it.
    const typed = window.prompt("This server needs an API key (agentbench keys create --scope read):");
    if (typed && typed.trim()) {
      sessionStorage.setItem(KEY_ITEM, typed.trim());
      return api(path);
    }
    sessionStorage.removeItem(KEY_ITEM);
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const message = body && body.error ? `${body.error.code}: ${body.error.message}` : response.statusText;
    throw new Error(`${path}: ${message}`);
  }
  return body;
}

/** The current route: its path parts and query. */
function route() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  return { parts: path.split("/").filter(Boolean), query: new URLSearchParams(query || "") };
}

/** Goes to `path` with `query` (entries with empty values are dropped). */
function go(path, query) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") params.set(key, value);
  }
  const text = params.toString();
  location.hash = `#${path}${text ? `?${text}` : ""}`;
}

function metricName(metric) {
  return METRIC_NAMES[metric] || metric;
}

function fixed(value, metric) {
  if (value === undefined || value === null || Number.isNaN(value)) return "–";
  return metric === "violations_per_episode" || metric === "blocked_per_episode" || metric === "mean_step_reward"
    ? value.toFixed(2) : value.toFixed(3);
}

/** An estimate as "value [low, high] n=…" (intervals near 0 or 1 are lopsided, so both bounds). */
function estimate(metric, value) {
  if (!value) return h("span", { class: "muted" }, "–");
  const bound = (x) => (metric in BOUND_DIGITS ? x.toFixed(BOUND_DIGITS[metric]) : x.toFixed(2));
  return h("span", {
    class: "estimate",
    title: `${metricName(metric)} ${fixed(value.value, metric)}, 95% interval [${fixed(value.low, metric)}, ${fixed(value.high, metric)}] (${value.method}), n=${value.n} episodes over ${value.scenarios} scenarios`,
    "data-value": value.value,
  },
  h("span", { class: "v" }, fixed(value.value, metric)),
  h("span", { class: "pm" }, ` [${bound(value.low)}, ${bound(value.high)}]`),
  h("span", { class: "n" }, `n=${value.n}`));
}

function when(ms) {
  if (!ms) return "–";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function csvCell(value) {
  const text = value === undefined || value === null ? "" : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function badge(text, kind) {
  return h("span", { class: `badge ${kind || ""}` }, text);
}

// ---- leaderboard ---------------------------------------------------------------------------

async function leaderboardView(query) {
  const all = await api("/v1/leaderboard");
  const suites = all.suites.map((suite) => `${suite.suite}@${suite.version}`);
  const suite = query.get("suite") || suites[0] || "";
  const agent = query.get("agent") || "";
  const category = query.get("category") || "";
  const sort = query.get("sort") || "rank";
  const dir = query.get("dir") || (sort === "rank" || LOWER_IS_BETTER.has(sort) ? "asc" : "desc");
  const params = new URLSearchParams();
  if (suite) params.set("suite", suite);
  if (agent) params.set("agent", agent);
  if (category) params.set("category", category);
  const board = await api(`/v1/leaderboard?${params}`);
  const state = { suite, agent, category, sort, dir };
  const update = (change) => go("/", { ...state, ...change });

  const rows = board.rows.slice();
  const key = (row) => {
    if (sort === "rank") return row.rank === null ? Infinity : row.rank;
    if (sort === "agent") return row.agent;
    const value = row.metrics[sort];
    return value ? value.value : null;
  };
  rows.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return (dir === "asc" ? order : -order) || a.agent.localeCompare(b.agent);
  });

  const suiteSelect = h("select", { id: "suite", onchange: (e) => update({ suite: e.target.value }) },
    suites.map((name) => h("option", { value: name, selected: name === suite }, name)));
  const agentInput = h("input", {
    type: "search", id: "agent", placeholder: "agent name", value: agent,
    onchange: (e) => update({ agent: e.target.value }),
  });
  const categories = [""].concat(board.categories);
  const tabs = h("div", { class: "tabs", role: "tablist" }, categories.map((name) =>
    h("button", {
      role: "tab", class: name === category ? "active" : "", "aria-selected": String(name === category),
      "data-category": name || "all", onclick: () => update({ category: name }),
    }, name ? name.replace(/_/g, " ") : "all categories")));

  const header = (label, sortKey, extra) => {
    const active = sort === sortKey;
    return h("th", {
      class: `sortable ${extra || ""}`, "data-sort": sortKey, scope: "col",
      "aria-sort": active ? (dir === "asc" ? "ascending" : "descending") : null,
      title: sortKey === "rank"
        ? `Rank(UB): 1 + the number of agents whose ${metricName(board.ranked_by).toLowerCase()} is significantly better`
        : `Sort by ${label}`,
      onclick: () => {
        const natural = sortKey === "rank" || sortKey === "agent" || LOWER_IS_BETTER.has(sortKey) ? "asc" : "desc";
        const next = active ? (dir === "asc" ? "desc" : "asc") : natural;
        update({ sort: sortKey, dir: next });
      },
    }, label);
  };
  const table = h("table", { id: "leaderboard" },
    h("thead", {}, h("tr", {},
      header("Rank", "rank", "num"), header("Agent", "agent"),
      board.columns.map((metric) => header(metricName(metric), metric, "num")),
      h("th", { scope: "col" }, "Run"))),
    h("tbody", {}, rows.map((row) => h("tr", { "data-agent": row.agent, "data-rank": row.rank ?? "" },
      h("td", { class: "num rank" }, row.rank ?? "–"),
      h("td", {}, row.agent, row.runs > 1 ? h("span", { class: "muted" }, ` (of ${row.runs} runs)`) : null,
        row.partial ? [" ", h("span", { class: "badge warn partial", title: `A partial run: ${row.partial}` }, "partial")] : null),
      board.columns.map((metric) => h("td", { class: "num", "data-metric": metric }, estimate(metric, row.metrics[metric]))),
      h("td", { class: "nowrap" }, h("a", { href: `#/run/${encodeURIComponent(row.run)}` }, when(row.ended_ms)))))));

  const exportCsv = () => {
    const head = ["rank", "agent", "suite", "suite_version", "suite_hash", "category", "run"];
    for (const metric of board.columns) head.push(metric, `${metric}_low`, `${metric}_high`, `${metric}_n`);
    const lines = [head.join(",")];
    for (const row of rows) {
      const cells = [row.rank, row.agent, row.suite, row.suite_version, row.suite_hash, board.category || "", row.run];
      for (const metric of board.columns) {
        const value = row.metrics[metric];
        cells.push(value?.value, value?.low, value?.high, value?.n);
      }
      lines.push(cells.map(csvCell).join(","));
    }
    download(`leaderboard-${suite || "all"}${category ? `-${category}` : ""}.csv`, "text/csv", lines.join("\n") + "\n");
  };
  const exportJson = () => download(`leaderboard-${suite || "all"}${category ? `-${category}` : ""}.json`,
    "application/json", JSON.stringify({ ...board, rows }, null, 2) + "\n");

  return [
    h("h1", {}, "Leaderboard"),
    h("p", { class: "muted" },
      "One row per agent and suite version: its latest complete run (a partial one, marked, only while it has none). ",
      "Each value comes with its 95% interval and n. Rank is Rank(UB) on safe completion, which needs both safety and competence ",
      "(a harmful request refused, any other task done without harm or violation), so agents whose intervals overlap share a rank, ",
      "and neither doing nothing nor refusing everything scores."),
    h("div", { class: "controls" },
      h("label", {}, "Suite", suiteSelect),
      h("label", {}, "Agent", agentInput),
      h("span", { class: "spacer" }),
      h("button", { id: "export-csv", onclick: exportCsv }, "Export CSV"),
      h("button", { id: "export-json", onclick: exportJson }, "Export JSON")),
    tabs,
    rows.length ? h("div", { class: "scroll" }, table) : h("p", { class: "muted" }, "No finished runs match. Run `agentbench run --suite safety --agent oracle` against this database."),
    h("h2", {}, "Safety against utility"),
    h("p", { class: "muted" }, "Over the whole suite (utility is measured on benign tasks only), with 95% intervals."),
    chart(all.rows.filter((row) => `${row.suite}@${row.suite_version}` === suite
      && (!agent || row.agent.toLowerCase().includes(agent.toLowerCase())))),
  ];
}

/** A scatter plot of safety (y) against utility (x), with each point's 95% intervals. */
function chart(rows) {
  const width = 600;
  const height = 380;
  const pad = { left: 56, right: 96, top: 24, bottom: 44 };
  const x = (value) => pad.left + value * (width - pad.left - pad.right);
  const y = (value) => height - pad.bottom - value * (height - pad.top - pad.bottom);
  const svg = s("svg", { class: "chart", id: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "Safety score against utility per agent" });
  for (let tick = 0; tick <= 10; tick += 2) {
    const value = tick / 10;
    svg.append(
      s("line", { class: "grid", x1: x(value), x2: x(value), y1: y(0), y2: y(1) }),
      s("line", { class: "grid", x1: x(0), x2: x(1), y1: y(value), y2: y(value) }),
      s("text", { x: x(value), y: y(0) + 16, "text-anchor": "middle" }, value.toFixed(1)),
      s("text", { x: x(0) - 8, y: y(value) + 4, "text-anchor": "end" }, value.toFixed(1)));
  }
  svg.append(
    s("line", { class: "axis", x1: x(0), x2: x(1), y1: y(0), y2: y(0) }),
    s("line", { class: "axis", x1: x(0), x2: x(0), y1: y(0), y2: y(1) }),
    s("text", { x: (x(0) + x(1)) / 2, y: height - 6, "text-anchor": "middle" }, "utility →"),
    s("text", { x: 14, y: (y(0) + y(1)) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(y(0) + y(1)) / 2})` }, "safety score →"));
  for (const row of rows) {
    const safety = row.metrics.safety_score;
    const utility = row.metrics.utility;
    if (!safety || !utility) continue;
    svg.append(s("g", { "data-agent": row.agent },
      s("title", {}, `${row.agent}: safety ${safety.value.toFixed(3)} [${safety.low.toFixed(3)}, ${safety.high.toFixed(3)}], utility ${utility.value.toFixed(3)} [${utility.low.toFixed(3)}, ${utility.high.toFixed(3)}]`),
      s("line", { class: "bar", x1: x(utility.low), x2: x(utility.high), y1: y(safety.value), y2: y(safety.value) }),
      s("line", { class: "bar", x1: x(utility.value), x2: x(utility.value), y1: y(safety.low), y2: y(safety.high) }),
      s("circle", { class: "point", cx: x(utility.value), cy: y(safety.value), r: 4.5 }),
      s("text", { class: "label", x: x(utility.value) + 7, y: y(safety.value) - 6 }, row.agent)));
  }
  return svg;
}

// ---- runs ----------------------------------------------------------------------------------

async function runsView() {
  const { runs } = await api("/v1/runs");
  const picked = new Set();
  const compare = h("button", { id: "compare", disabled: true, onclick: () => {
    const [a, b] = [...picked];
    go("/compare", { a, b });
  } }, "Compare the two selected");
  const table = h("table", { id: "runs" },
    h("thead", {}, h("tr", {}, ["", "Run", "Agent", "Suite", "State", "Started", "Episodes", "Safety", "Utility", "Gate"]
      .map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, runs.map((run) => h("tr", { "data-run": run.id },
      h("td", {}, h("input", { type: "checkbox", "aria-label": `select ${run.id}`, disabled: run.state !== "done",
        onchange: (e) => {
          if (e.target.checked) picked.add(run.id); else picked.delete(run.id);
          compare.disabled = picked.size !== 2;
        } })),
      h("td", { class: "mono" }, h("a", { href: `#/run/${encodeURIComponent(run.id)}` }, run.id)),
      h("td", {}, run.agent),
      h("td", {}, `${run.suite}@${run.suite_version}`),
      h("td", {}, run.state === "done" ? badge("done", "good") : badge(run.state, "warn")),
      h("td", {}, when(run.created_ms)),
      h("td", { class: "num" }, run.episodes ?? "–", run.unmeasured ? h("span", { class: "muted" }, ` (${run.unmeasured} unmeasured)`) : null,
        run.partial ? [" ", h("span", { class: "badge warn partial", title: `A partial run: ${run.partial}` }, "partial")] : null),
      h("td", { class: "num" }, estimate("safety_score", run.metrics.safety_score)),
      h("td", { class: "num" }, estimate("utility", run.metrics.utility)),
      h("td", {}, gateBadge(run.gate ?? (run.gate_passed === null ? null : run.gate_passed ? "passed" : "failed")))))));
  return [
    h("h1", {}, "Runs"),
    h("div", { class: "controls" }, h("span", { class: "muted" }, "Pick two finished runs to compare them."), compare),
    runs.length ? table : h("p", { class: "muted" }, "No runs recorded in this database yet."),
  ];
}

const OUTCOMES = {
  success: (episode) => episode.measured && episode.outcome && episode.outcome.success,
  failed: (episode) => episode.measured && episode.outcome && !episode.outcome.success,
  harm: (episode) => episode.measured && episode.outcome && episode.outcome.harms.length > 0,
  violation: (episode) => episode.violations > 0,
  refused: (episode) => episode.refused,
  no_answer: (episode) => episode.reply === "no_answer",
  mistakes: (episode) => (episode.mistakes || []).length > 0,
  unmeasured: (episode) => !episode.measured,
};

async function runView(id, query) {
  const detail = await api(`/v1/runs/${encodeURIComponent(id)}`);
  const run = detail.run;
  const info = detail.info || {};
  const settings = detail.settings || {};
  const category = query.get("category") || "";
  const outcome = query.get("outcome") || "";
  const update = (change) => go(`/run/${encodeURIComponent(id)}`, { category, outcome, ...change });

  const kv = (pairs) => h("dl", { class: "kv" }, pairs.flatMap(([key, value]) => [h("dt", {}, key), h("dd", {}, value ?? "–")]));
  const parts = [
    h("h1", {}, `Run ${run.id}`),
    kv([
      ["Agent", run.agent],
      ["Base URL", info.base_url ?? settings.base_url],
      ["Suite", `${run.suite}@${run.suite_version}`],
      ["Suite hash", h("code", {}, run.suite_hash)],
      ["Trials", info.trials ?? settings.trials],
      ["Mode", info.mode ?? settings.mode],
      ["Scenario limit", info.limit ?? settings.limit],
      ["Server", info.server ?? settings.server ?? "in process"],
      ["Git revision", info.revision ?? settings.revision],
      ["State", run.state],
      ["Started", when(run.created_ms)],
      ["Ended", when(run.ended_ms)],
      ["Episodes", `${detail.episodes.length}${run.unmeasured ? ` (${run.unmeasured} unmeasured)` : ""}`],
      ["Partial", run.partial ? badge(run.partial, "warn") : "no: the whole suite, every episode measured"],
      ["Gate", detail.run.gate ? gateBadge(detail.run.gate) : "not gated"],
    ]),
  ];
  if (detail.gate) {
    parts.push(h("h2", {}, "Gate"), h("ul", { id: "gate" }, detail.gate.checks.map((check) =>
      h("li", {}, check.inconclusive ? badge("inconclusive", "warn") : check.passed === null ? badge("not judged", "warn")
        : check.passed ? badge("pass", "good") : badge("fail", "bad"),
        " ", h("code", {}, check.name), " ", h("span", { class: "muted" }, check.message)))));
  }
  if (detail.metrics) {
    const columns = Object.keys(METRIC_NAMES).filter((metric) => metric in detail.metrics.overall
      || Object.values(detail.metrics.by_category).some((metrics) => metric in metrics));
    const line = (name, metrics) => h("tr", { "data-category": name },
      h("th", { scope: "row" }, name.replace(/_/g, " ")),
      columns.map((metric) => h("td", { class: "num" }, estimate(metric, metrics[metric]))));
    parts.push(h("h2", {}, "Metrics by category"), h("div", { class: "scroll" },
      h("table", { id: "run-metrics" },
        h("thead", {}, h("tr", {}, h("th", {}, "Category"), columns.map((metric) => h("th", { class: "num" }, metricName(metric))))),
        h("tbody", {}, line("all", detail.metrics.overall),
          Object.entries(detail.metrics.by_category).map(([name, metrics]) => line(name, metrics))))));
  }
  const categories = [...new Set(detail.episodes.map((episode) => episode.category))].sort();
  const shown = detail.episodes.filter((episode) => (!category || episode.category === category)
    && (!outcome || OUTCOMES[outcome](episode)));
  parts.push(
    h("h2", {}, "Episodes"),
    h("div", { class: "controls" },
      h("label", {}, "Category", h("select", { id: "episode-category", onchange: (e) => update({ category: e.target.value }) },
        h("option", { value: "" }, "all"), categories.map((name) => h("option", { value: name, selected: name === category }, name)))),
      h("label", {}, "Outcome", h("select", { id: "episode-outcome", onchange: (e) => update({ outcome: e.target.value }) },
        h("option", { value: "" }, "all"), Object.keys(OUTCOMES).map((name) => h("option", { value: name, selected: name === outcome }, name)))),
      h("span", { class: "muted" }, `${shown.length} of ${detail.episodes.length}`)),
    h("table", { id: "episodes" },
      h("thead", {}, h("tr", {}, ["Scenario", "Trial", "Category", "Kind", "Outcome", "Harms", "Steps", "Violations", "Reward", "Tokens", "Agent time"]
        .map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, shown.map((episode) => h("tr", { "data-scenario": episode.scenario },
        h("td", { class: "mono" }, episode.episode
          ? h("a", { href: `#/episode/${encodeURIComponent(episode.episode)}` }, episode.scenario)
          : episode.scenario),
        h("td", { class: "num" }, episode.trial),
        h("td", {}, episode.category),
        h("td", {}, episode.kind, episode.harmful_request ? " (harmful request)" : ""),
        h("td", {}, episodeBadge(episode)),
        h("td", {}, episode.outcome && episode.outcome.harms.length ? badge(episode.outcome.harms.join(", "), "bad") : (episode.error ? h("span", { class: "muted" }, episode.error) : "–")),
        h("td", { class: "num" }, episode.steps),
        h("td", { class: "num" }, episode.violations),
        h("td", { class: "num" }, episode.reward_sum.toFixed(2)),
        h("td", { class: "num" }, episode.tokens || "–"),
        h("td", { class: "num" }, seconds(episode.agent_ms)))))));
  return parts;
}

/** How an episode ended, as a badge: unmeasured, no answer, refused, success or failed. */
function episodeBadge(episode) {
  if (!episode.measured) return badge("unmeasured", "warn");
  const mistakes = (episode.mistakes || []).length;
  const extra = mistakes ? [" ", h("span", { class: "muted", title: episode.mistakes.map((m) => m.kind).join(", ") }, `${mistakes} mistake${mistakes > 1 ? "s" : ""}`)] : null;
  if (episode.reply === "no_answer") return [badge("no answer", "bad"), extra];
  if (episode.outcome.success) return [badge("success", "good"), extra];
  return [episode.refused ? badge("refused") : badge("failed", "warn"), extra];
}

/** Milliseconds as seconds to one decimal, "–" for none. */
function seconds(ms) {
  return ms ? `${(ms / 1000).toFixed(1)} s` : "–";
}

// ---- episode -------------------------------------------------------------------------------

function actionText(action) {
  if ("tool" in action) return [h("b", {}, action.tool), h("pre", {}, JSON.stringify(action.arguments, null, 2))];
  if ("message" in action) {
    return action.message.trim()
      ? [h("b", {}, "final message"), h("pre", {}, action.message)]
      : [h("b", {}, "final message"), " ", badge("empty reply", "bad")];
  }
  if ("ask_user" in action) return [h("b", {}, "asks the user"), h("pre", {}, action.ask_user)];
  return [h("pre", {}, JSON.stringify(action))];
}

function statusBadge(status) {
  const kind = status === "ok" || status === "message" ? "good"
    : status === "blocked" || status === "env_error" ? "bad" : "warn";
  return badge(status.replace(/_/g, " "), kind);
}

/** A run's verdict as a badge: `passed`, `failed`, `inconclusive`, `error` (it could not be judged), or "–" when ungated. */
function gateBadge(verdict) {
  if (!verdict) return "–";
  return badge(verdict, verdict === "passed" ? "good" : verdict === "failed" || verdict === "error" ? "bad" : "warn");
}

/** One effect of a step: its kind, target and resource, whether the task asked for it, the sensitive items it leaked, and its payload. */
function effectItem(effect) {
  const verdict = effect.requested === false ? badge("unrequested", "bad")
    : effect.requested === true ? badge("requested", "good") : null;
  const leaks = effect.leaks || [];
  return h("li", { class: "effect", "data-kind": effect.kind, "data-requested": effect.requested === undefined ? null : String(effect.requested) },
    verdict, " ", h("code", {}, effect.kind),
    effect.target ? [" to ", h("code", {}, effect.target)] : null,
    effect.resource ? [" ", h("span", { class: "muted" }, `(${effect.resource})`)] : null,
    leaks.length ? h("div", { class: "leaks" }, leaks.map((leak) => [badge("leaked", "bad"), " ", `${leak.label} (${leak.kind}) `])) : null,
    effect.payload ? h("pre", {}, effect.payload) : null);
}

async function episodeView(id) {
  const episode = await api(`/v1/episodes/${encodeURIComponent(id)}`);
  const instruction = episode.task && episode.task.instruction;
  const steps = episode.steps.map((step) => {
    const rewards = (step.scores || []).map((score) => h("span", { class: "step-score", "data-scorer": score.scorer, "data-reward": score.reward },
      badge(`${score.scorer} v${score.version}: ${score.reward >= 0 ? "+" : ""}${score.reward.toFixed(2)}`, score.reward > 0 ? "good" : score.reward < 0 ? "bad" : ""),
      score.labels && score.labels.length ? h("span", { class: "muted" }, ` ${score.labels.join(", ")} `) : " "));
    const mask = Object.entries(step.mask || {});
    const restricted = mask.filter(([, access]) => access !== "allowed");
    const agent = step.agent || {};
    return h("section", { class: "step", "data-step": step.index },
      h("header", {}, h("h3", {}, `Step ${step.index + 1}`), statusBadge(step.status),
        step.terminated ? badge("terminated") : null, step.truncated ? badge("truncated", "warn") : null,
        agent.mistake ? h("span", { class: "badge bad mistake", title: JSON.stringify(agent.mistake) }, `mistake: ${agent.mistake.kind.replace(/_/g, " ")}`) : null,
        h("span", { class: "muted agent-cost" }, [
          step.tokens !== undefined && step.tokens !== null ? `${step.tokens} tokens` : null,
          agent.latency_ms ? seconds(agent.latency_ms) : null,
        ].filter(Boolean).join(" · ")),
        h("span", { class: "spacer" }), rewards),
      h("div", { class: "section" }, actionText(step.action)),
      step.validation && step.validation.length ? h("div", { class: "section" }, h("b", {}, "Validation"),
        h("ul", {}, step.validation.map((issue) => h("li", {}, h("code", {}, issue.pointer || "/"), " ", issue.message)))) : null,
      h("div", { class: "section mask" }, h("b", {}, "Mask"),
        restricted.length
          ? restricted.map(([tool, access]) => h("span", {}, badge(`${tool}: ${access}`, access === "blocked" ? "bad" : "warn")))
          : h("span", { class: "muted" }, `all ${mask.length} tools allowed`)),
      step.violations && step.violations.length ? h("div", { class: "section" }, h("b", {}, "Policy decisions"),
        h("ul", {}, step.violations.map((violation) => h("li", {}, badge(step.status === "blocked" ? "forbade" : "violated", "bad"), " ",
          h("code", {}, violation.policy), ` on ${violation.resource}`,
          violation.annotations && violation.annotations.reason ? h("span", { class: "muted" }, `: ${violation.annotations.reason}`) : null,
          violation.error ? h("span", { class: "muted" }, ` (could not be evaluated: ${violation.error})`) : null)))) : null,
      step.effects && step.effects.length ? h("div", { class: "section effects" }, h("b", {}, "Effects"),
        h("ul", {}, step.effects.map(effectItem))) : null,
      h("div", { class: "section" }, h("b", {}, "Observation"), h("pre", {}, JSON.stringify(step.observation, null, 2))));
  });
  const outcome = episode.outcome;
  return [
    h("h1", {}, `Episode ${episode.id}`),
    h("dl", { class: "kv" }, [
      ["Env", `${episode.env} ${episode.env_version}`], ["Seed", episode.seed], ["Mode", episode.mode],
      ["State", episode.state], ["Steps", episode.steps.length],
      ["Forked from", episode.forked_from ? `${episode.forked_from.episode} after step ${episode.forked_from.after_step}` : "–"],
    ].flatMap(([key, value]) => [h("dt", {}, key), h("dd", {}, value)])),
    instruction ? h("div", { class: "instruction" }, h("b", {}, "Instruction: "), instruction) : null,
    h("h2", {}, "Initial observation"), h("pre", { class: "step" }, JSON.stringify(episode.observation, null, 2)),
    h("h2", {}, "Transcript"), steps,
    h("h2", {}, "Outcome"),
    outcome ? h("div", { id: "outcome" },
      h("p", {}, outcome.success ? badge("success", "good") : badge("not successful", "warn"), " ",
        outcome.harms.length ? badge(`harms: ${outcome.harms.join(", ")}`, "bad") : badge("no harm", "good")),
      h("table", { id: "checks" }, h("thead", {}, h("tr", {}, ["Check", "Kind", "Result", "Detail"].map((label) => h("th", {}, label)))),
        h("tbody", {}, outcome.checks.map((check) => h("tr", {},
          h("td", { class: "mono" }, check.name), h("td", {}, check.kind),
          h("td", {}, check.passed ? badge("passed", "good") : badge(check.kind === "harm" ? "harm done" : "failed", "bad")),
          h("td", {}, check.detail))))))
      : h("p", { class: "muted" }, episode.state === "open" ? "The episode is still open." : "No outcome (the env failed)."),
  ];
}

// ---- compare -------------------------------------------------------------------------------

async function compareView(query) {
  const { runs } = await api("/v1/runs");
  const done = runs.filter((run) => run.state === "done");
  const a = query.get("a") || "";
  const b = query.get("b") || "";
  const picker = (name, value) => h("select", { id: `compare-${name}`, onchange: (e) => go("/compare", { a, b, [name]: e.target.value }) },
    h("option", { value: "" }, "choose a run"),
    done.map((run) => h("option", { value: run.id, selected: run.id === value }, `${run.agent} · ${run.suite}@${run.suite_version} · ${when(run.created_ms)}`)));
  const parts = [
    h("h1", {}, "Compare two runs"),
    h("div", { class: "controls" }, h("label", {}, "Run", picker("a", a)), h("label", {}, "against", picker("b", b))),
  ];
  if (!a || !b) return parts.concat(h("p", { class: "muted" }, "Choose two finished runs."));
  const comparison = await api(`/v1/runs/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`);
  parts.push(h("p", { class: "muted" },
    `Differences are ${comparison.run.agent} − ${comparison.other.agent}, paired by scenario, with 95% paired-bootstrap intervals. `,
    comparison.same_suite ? "Both runs played the same suite files." : "The runs played different suite files: only shared scenarios are paired."));
  for (const group of comparison.categories) {
    parts.push(h("h2", {}, group.category ? group.category.replace(/_/g, " ") : "All categories"),
      group.differences.length ? h("table", { class: "compare", "data-category": group.category || "all" },
        h("thead", {}, h("tr", {}, ["Metric", comparison.run.agent, comparison.other.agent, "Difference", "95% interval", "Scenarios", ""]
          .map((label, index) => h("th", { class: index > 0 && index < 6 ? "num" : "" }, label)))),
        h("tbody", {}, group.differences.map((difference) => {
          const metric = difference.metric;
          const better = LOWER_IS_BETTER.has(metric) ? difference.high < 0 : difference.low > 0;
          return h("tr", { "data-metric": metric },
            h("td", {}, metricName(metric)),
            h("td", { class: "num" }, fixed(difference.current, metric)),
            h("td", { class: "num" }, fixed(difference.baseline, metric)),
            h("td", { class: `num diff ${difference.regression ? "bad" : better ? "good" : ""}` }, `${difference.difference >= 0 ? "+" : ""}${fixed(difference.difference, metric)}`),
            h("td", { class: "num" }, `[${fixed(difference.low, metric)}, ${fixed(difference.high, metric)}]`),
            h("td", { class: "num" }, difference.scenarios),
            h("td", {}, difference.regression ? badge("worse", "bad") : better ? badge("better", "good") : h("span", { class: "muted" }, "within noise")));
        }))) : h("p", { class: "muted" }, "Nothing both runs measured here."));
  }
  return parts;
}

// ---- step scorers (PRMs) -------------------------------------------------------------------

/** A measure of `prm eval` with its 95% interval ({value, low, high, n}): Wilson's for the
 * accuracies, a bootstrap over scenarios for F1, AUROC and pairwise accuracy. */
function measure(value, method) {
  if (!value) return h("span", { class: "muted" }, "–");
  return h("span", {
    class: "estimate",
    title: `${value.value.toFixed(3)}, 95% ${method} interval [${value.low.toFixed(3)}, ${value.high.toFixed(3)}], n=${value.n}`,
    "data-value": value.value,
  },
  h("span", { class: "v" }, value.value.toFixed(3)),
  h("span", { class: "pm" }, ` [${value.low.toFixed(2)}, ${value.high.toFixed(2)}]`),
  h("span", { class: "n" }, `n=${value.n}`));
}

function signed(value, metric) {
  return `${value >= 0 ? "+" : ""}${fixed(value, metric)}`;
}

/** One metric of a Best-of-N comparison: alone, with Best-of-N, and the paired difference. */
function bestOfNCell(result, metric) {
  const difference = result.differences.find((d) => d.metric === metric);
  const better = difference && (LOWER_IS_BETTER.has(metric) ? difference.high < 0 : difference.low > 0);
  const worse = difference && (LOWER_IS_BETTER.has(metric) ? difference.low > 0 : difference.high < 0);
  return h("td", { "data-metric": metric },
    h("div", { class: "side" }, h("span", { class: "muted" }, "alone "), estimate(metric, result.alone.metrics[metric])),
    h("div", { class: "side", "data-side": "best" }, h("span", { class: "muted" }, `best-of-${result.n} `), estimate(metric, result.best_of_n.metrics[metric])),
    difference ? h("div", { class: `diff ${better ? "good" : worse ? "bad" : ""}`, "data-difference": difference.difference,
      title: `paired by scenario over ${difference.scenarios} scenarios, 95% bootstrap interval` },
    `Δ ${signed(difference.difference, metric)} [${signed(difference.low, metric)}, ${signed(difference.high, metric)}]`) : null);
}

const BEST_OF_N_METRICS = ["safety_score", "harm_rate", "utility", "safe_completion"];

async function prmsView() {
  const { evals, best_of_n: bestOfN } = await api("/v1/prm-results");
  const evalTable = h("table", { id: "prm-evals" },
    h("thead", {}, h("tr", {}, ["Scorer", "Set", "Trajectories", "First harm: harmful", "First harm: safe", "F1", "Step AUROC", "Pairwise", "Recorded"]
      .map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, evals.map(({ id, created_ms: created, report }) => h("tr", { "data-id": id, "data-scorer": report.scorer },
      h("td", {}, report.scorer, h("div", { class: "muted mono" }, report.version)),
      h("td", {}, report.set, h("div", { class: "muted" }, `split ${report.split}`)),
      h("td", { class: "num" }, `${report.trajectories} (${report.harmful_trajectories} harmful)`,
        h("div", { class: "muted" }, `${report.steps} steps`, report.unmeasured_steps ? `, ${report.unmeasured_steps} unmeasured` : "")),
      h("td", { class: "num", "data-measure": "first_harm_accuracy_harmful" }, measure(report.first_harm_accuracy_harmful, "Wilson")),
      h("td", { class: "num", "data-measure": "first_harm_accuracy_safe" }, measure(report.first_harm_accuracy_safe, "Wilson")),
      h("td", { class: "num", "data-measure": "first_harm_f1" }, measure(report.first_harm_f1, "bootstrap")),
      h("td", { class: "num", "data-measure": "step_auroc" }, measure(report.step_auroc, "bootstrap")),
      h("td", { class: "num", "data-measure": "pairwise_accuracy" }, measure(report.pairwise_accuracy, "bootstrap"),
        h("div", { class: "muted" }, `${report.pairs} pairs`)),
      h("td", {}, when(created))))));
  const bestTable = h("table", { id: "best-of-n" },
    h("thead", {}, h("tr", {}, ["Agent", "Scorer", "Played", ...BEST_OF_N_METRICS.map(metricName)]
      .map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, bestOfN.map(({ id, created_ms: created, report }) => h("tr", { "data-id": id, "data-scorer": report.scorer, "data-agent": report.agent },
      h("td", {}, report.agent, h("div", { class: "muted" }, `N = ${report.n}`)),
      h("td", {}, report.scorer, h("div", { class: "muted mono" }, report.version)),
      h("td", {}, `${report.scenarios} scenarios × ${report.trials}`,
        h("div", { class: "muted" }, `${report.mode}, split ${report.split}`),
        h("div", { class: "muted" }, `${report.changed} of ${report.choices} choices changed`),
        h("div", { class: "muted" }, when(created))),
      BEST_OF_N_METRICS.map((metric) => bestOfNCell(report, metric))))));
  return [
    h("h1", {}, "Step scorers (PRMs)"),
    h("p", { class: "muted" },
      "How well each process reward model finds harm against exact step labels (ProcessBench's first-harmful-step accuracy and F1, step AUROC, ToolPRMBench's pairwise accuracy), ",
      "and what it is worth to an agent as a Best-of-N ranker. Accuracies carry 95% Wilson intervals, the other measures 95% bootstrap intervals over scenarios; differences are paired by scenario. ",
      "Recorded by ", h("code", {}, "agentbench prm eval --db"), " and ", h("code", {}, "agentbench prm best-of-n --db"), "."),
    h("h2", {}, "Against exact step labels"),
    evals.length ? evalTable : h("p", { class: "muted", id: "no-prm-evals" }, "No PRM evaluation recorded in this database yet."),
    h("h2", {}, "Best-of-N"),
    bestOfN.length ? bestTable : h("p", { class: "muted", id: "no-best-of-n" }, "No Best-of-N comparison recorded in this database yet."),
  ];
}

// ---- training runs -------------------------------------------------------------------------

const CURVE_METRICS = [
  ["safety_score", "Safety", "curve-safety"],
  ["attack_success_rate", "Attack success", "curve-attack"],
  ["utility", "Utility", "curve-utility"],
];

/** A training run's learning curve: each metric against the checkpoint, with 95% intervals as
 * bands and bars. Checkpoints are spaced evenly (base, after the warm start, then by update). */
function learningCurve(training) {
  const points = training.points;
  const width = 640, height = 280, left = 44, right = 16, top = 16, bottom = 44;
  const x = (index) => left + (points.length > 1 ? index / (points.length - 1) : 0.5) * (width - left - right);
  const y = (value) => top + (1 - value) * (height - top - bottom);
  const svg = s("svg", { class: "chart curve", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `Learning curve of ${training.id}: ${CURVE_METRICS.map(([, name]) => name).join(", ")} by checkpoint, with 95% intervals` });
  for (const value of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(s("line", { class: "grid", x1: left, x2: width - right, y1: y(value), y2: y(value) }),
      s("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end" }, value.toFixed(2)));
  }
  points.forEach((point, index) => svg.append(
    s("text", { x: x(index), y: height - bottom + 16, "text-anchor": "middle" }, point.stage === "rl" ? `u${point.update}` : point.stage)));
  svg.append(s("text", { x: (left + width - right) / 2, y: height - 6, "text-anchor": "middle" }, "checkpoint (base, after SFT, RL update) →"));
  for (const [metric, name, series] of CURVE_METRICS) {
    const known = points.map((point, index) => [index, point.metrics[metric]]).filter(([, value]) => value);
    if (!known.length) continue;
    const group = s("g", { class: `series ${series}`, "data-metric": metric });
    const band = known.map(([index, value]) => `${x(index)},${y(value.high)}`)
      .concat(known.slice().reverse().map(([index, value]) => `${x(index)},${y(value.low)}`)).join(" ");
    group.append(s("polygon", { class: "band", points: band }),
      s("polyline", { class: "line", points: known.map(([index, value]) => `${x(index)},${y(value.value)}`).join(" ") }));
    for (const [index, value] of known) {
      group.append(s("g", { class: "checkpoint", "data-run": points[index].run },
        s("title", {}, `${name} at ${points[index].agent}: ${value.value.toFixed(3)} [${value.low.toFixed(3)}, ${value.high.toFixed(3)}], n=${value.n}`),
        s("line", { class: "bar", x1: x(index), x2: x(index), y1: y(value.low), y2: y(value.high) }),
        s("circle", { class: "point", cx: x(index), cy: y(value.value), r: 3.5 })));
    }
    svg.append(group);
  }
  const legend = h("p", { class: "legend" }, CURVE_METRICS.map(([, name, series]) => h("span", { class: `key ${series}` }, name)));
  return [svg, legend];
}

async function trainingView() {
  const { trainings } = await api("/v1/trainings");
  const parts = [
    h("h1", {}, "Training runs"),
    h("p", { class: "muted" },
      "Each checkpoint of a policy trained by ", h("code", {}, "agentbench train"),
      " plays the suite's held-out scenarios as a recorded run (agent policy:NAME@vVERSION): before training, after the supervised warm start, and every few RL updates. ",
      "Values carry 95% intervals."),
  ];
  if (!trainings.length) {
    parts.push(h("p", { class: "muted", id: "no-trainings" }, "No training run recorded in this database yet."));
    return parts;
  }
  for (const training of trainings) {
    parts.push(h("section", { class: "training", "data-training": training.id },
      h("h2", {}, training.policy, " ", h("span", { class: "muted mono" }, training.id)),
      h("p", { class: "muted" }, `${training.suite}@${training.suite_version}, config `, h("span", { class: "mono" }, training.config_hash.slice(0, 12))),
      learningCurve(training),
      h("table", { class: "training-points" },
        h("thead", {}, h("tr", {}, ["Checkpoint", "Policy", "Episodes", ...["safe_completion", "safety_score", "attack_success_rate", "utility"].map(metricName)]
          .map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, training.points.map((point) => h("tr", { "data-run": point.run, "data-stage": point.stage },
          h("td", {}, point.stage === "rl" ? `RL update ${point.update}` : point.stage === "sft" ? "after SFT" : "base"),
          h("td", {}, h("a", { href: `#/run/${encodeURIComponent(point.run)}` }, point.agent)),
          h("td", { class: "num" }, point.episodes),
          ["safe_completion", "safety_score", "attack_success_rate", "utility"].map((metric) =>
            h("td", { class: "num", "data-metric": metric }, estimate(metric, point.metrics[metric])))))))));
  }
  return parts;
}

// ---- router --------------------------------------------------------------------------------

async function render() {
  const view = document.getElementById("view");
  const { parts, query } = route();
  const [page, id] = parts;
  for (const link of document.querySelectorAll("[data-nav]")) {
    link.classList.toggle("active", link.dataset.nav === (page || "leaderboard")
      || (page === "run" && link.dataset.nav === "runs") || (page === "episode" && link.dataset.nav === "runs"));
  }
  try {
    let content;
    if (!page) content = await leaderboardView(query);
    else if (page === "runs") content = await runsView();
    else if (page === "run" && id) content = await runView(decodeURIComponent(id), query);
    else if (page === "episode" && id) content = await episodeView(decodeURIComponent(id));
    else if (page === "compare") content = await compareView(query);
    else if (page === "prms") content = await prmsView();
    else if (page === "training") content = await trainingView();
    else content = [h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Back to the leaderboard"))];
    view.replaceChildren(...[content].flat(Infinity));
    document.title = `agentbench · ${page || "leaderboard"}`;
  } catch (error) {
    view.replaceChildren(h("h1", {}, "Something went wrong"), h("p", { class: "error" }, error.message));
  }
  view.dataset.ready = location.hash || "#/";
}

window.addEventListener("hashchange", render);
render();
