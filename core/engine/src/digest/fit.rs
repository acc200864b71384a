//! Fitting the digest into its budget.
//!
//! The skeleton — headlines, pass lines, each report's tail and the footer — must be there; items
//! fill what is left, in one global priority order: every report's root causes, then every report's
//! first error of each file, and so on down to warnings, taking the reports in turn within a tier so
//! that a pipeline shares the budget fairly. Items go in until the next one does not fit (the last
//! may be clipped shorter to use the room), never skipping ahead: what is shown is always the top of
//! the ranking. Tails and the footer are recounted after each item, since what they say changes.
//! While items compete, a group's line is its shortest (places, no names). When every item is in,
//! groups unfold where the room allows (a group of tests into a line per test), and the groups
//! left list more places and name their tests; when some are left out, only the room the last
//! item could not use goes to naming the tests of the groups shown.
//!
//! When the skeleton itself is too big, it degrades a level at a time: [`Level::Compact`] counts
//! files in tails instead of naming them and puts passing reports on one line; [`Level::Minimal`]
//! drops tails and pass lines and keeps a short footer; [`Level::Bare`] drops the log's path from
//! it; below that the digest is only the headlines, cut with a visible marker if even they do not
//! fit. The richest level that still shows at least
//! one item of every failing report is chosen.
//!
//! Each line is counted once (`count(line) + 1` for its newline, which over-counts slightly: the
//! tokenizer sometimes merges a newline into the previous token). The assembled text is then
//! counted exactly, the footer's own token number settled to a fixed point, and if the exact count
//! were ever over budget the last item would be dropped and the digest rebuilt.

use super::lines::{self, ItemLine, Names, TailInput};
use super::plan::{Item, Plan};
use super::tokens::{self, clip_with};
use super::{Digest, Tally};
use crate::model::Report;

/// The least room worth clipping a last item into; below this it would be a location and `…`.
const MIN_LAST_ITEM: usize = 14;

/// The largest a tail may be: a fifth of the budget, within these limits. A tail that names the
/// files no line shows is worth room, but never most of it.
const TAIL_MAX: (usize, usize) = (32, 100);

/// The largest a pass line may be.
const PASS_MAX: usize = 32;

/// How much of the skeleton is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Tails name files; one line per passing report; the footer gives the tokens used.
    Full,
    /// Tails count files; passing reports share one line of names.
    Compact,
    /// No tails, no pass lines; the footer says only what was left out and where the log is.
    Minimal,
    /// As `Minimal`, without the log's path.
    Bare,
}

impl Level {
    const ALL: [Level; 4] = [Level::Full, Level::Compact, Level::Minimal, Level::Bare];

    fn headline_max(self) -> usize {
        match self {
            Level::Full => 96,
            Level::Compact => 48,
            Level::Minimal | Level::Bare => 24,
        }
    }
}

/// The tokens a line costs in the digest: its own and its newline.
fn cost(line: &str) -> usize {
    tokens::count(line) + 1
}

/// What is shown of one report so far.
#[derive(Debug, Clone)]
struct State {
    shown: Tally,
    /// Diagnostics not yet shown, per file of the plan.
    per_file: Vec<u32>,
    /// Files a shown line names (a group names only its first places).
    named: Vec<bool>,
    /// Item lines shown, in order, and their cost in total.
    lines: Vec<Shown>,
    items_cost: usize,
    /// Whether the last line was clipped shorter than the others to fit.
    squeezed: bool,
    tail: Option<String>,
    tail_cost: usize,
    /// The most tokens the tail may take.
    tail_max: usize,
}

impl State {
    fn new(plan: &Plan<'_>, tail_max: usize) -> State {
        let mut per_file = vec![0u32; plan.files.len()];
        for (index, entry) in plan.entries.iter().enumerate() {
            if let Some(file) = entry.file.filter(|_| !plan.shared.is_repeated(index)) {
                per_file[file] = per_file[file].saturating_add(1);
            }
        }
        State {
            // What an earlier report shows counts as shown: one line says so.
            shown: plan.elsewhere,
            per_file,
            named: vec![false; plan.files.len()],
            lines: Vec::new(),
            items_cost: 0,
            squeezed: false,
            tail: None,
            tail_cost: 0,
            tail_max,
        }
    }

    fn omitted(&self, plan: &Plan<'_>) -> Tally {
        plan.totals.saturating_sub(self.shown)
    }

    /// Files the text counts without naming them: those holding diagnostics left out (the tail
    /// counts them), and those a group counts beyond the places it lists.
    fn omitted_files(&self) -> u64 {
        self.per_file
            .iter()
            .zip(&self.named)
            .filter(|&(&n, &named)| n > 0 || !named)
            .count() as u64
    }

    /// Covers item `index` with `line` and holds its place with an empty line, its tail counted
    /// again: what the rest costs once the line is in.
    fn reserve(&mut self, plan: &Plan<'_>, index: usize, line: &ItemLine, level: Level) {
        self.cover(plan, index, line);
        self.lines.push(Shown {
            item: index,
            unit: Unit::Whole,
            text: String::new(),
            cost: 0,
        });
        self.refresh_tail(plan, level);
    }

    /// Puts `text` in the place [`State::reserve`] held.
    fn show(&mut self, index: usize, text: String, cost: usize) {
        self.lines.pop();
        self.lines.push(Shown {
            item: index,
            unit: Unit::Whole,
            text,
            cost,
        });
        self.items_cost += cost;
    }

    /// Marks the diagnostics of item `index` as shown, and the files its line names as named.
    fn cover(&mut self, plan: &Plan<'_>, index: usize, line: &ItemLine) {
        for &member in &plan.items[index].members {
            let entry = plan.entries[member];
            self.shown.add(entry.category, 1);
            if let Some(file) = entry.file {
                self.per_file[file] = self.per_file[file].saturating_sub(1);
            }
        }
        for &file in &line.files {
            self.named[file] = true;
        }
    }

    fn refresh_tail(&mut self, plan: &Plan<'_>, level: Level) {
        self.tail = match level {
            Level::Full | Level::Compact => lines::tail(
                plan,
                &TailInput {
                    omitted: self.omitted(plan),
                    shown_any: !self.lines.is_empty(),
                    per_file: &self.per_file,
                    named: &self.named,
                    with_names: level == Level::Full,
                },
                self.tail_max,
            ),
            Level::Minimal | Level::Bare => None,
        };
        self.tail_cost = self.tail.as_deref().map_or(0, cost);
    }
}

/// An item's line in the digest.
#[derive(Debug, Clone)]
struct Shown {
    /// Index into the plan's items.
    item: usize,
    /// What of the item the line shows.
    unit: Unit,
    text: String,
    cost: usize,
}

/// What of an item a line shows: the whole item, or one line of a group unfolded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Whole,
    /// One of the item's parts (its distinct messages), by index.
    Part(usize),
    /// One failing test of a group of tests, by its index in the report.
    Member(usize),
}

/// One attempt at a level.
struct Run {
    level: Level,
    headlines: Vec<Option<String>>,
    /// Per report, the line that says which of its failures an earlier report shows.
    same: Vec<Option<String>>,
    pass: Vec<String>,
    states: Vec<State>,
    accepted: usize,
    /// Whether the last item was clipped shorter than the others to fit.
    squeezed: bool,
}

impl Run {
    /// Items shown in full (not squeezed into the last of the room).
    fn full_items(&self) -> usize {
        self.accepted - usize::from(self.squeezed)
    }

    /// Whether every failing report that has items shows at least one in full.
    fn shows_every_report(&self, plans: &[Plan<'_>]) -> bool {
        plans.iter().zip(&self.states).all(|(plan, state)| {
            !plan.failing()
                || plan.items.is_empty()
                || state.lines.len() > usize::from(state.squeezed)
        })
    }
}

struct Fitter<'p, 'a> {
    plans: &'p [Plan<'a>],
    budget: usize,
    /// The most tokens one item may take: a sixth of the budget, within limits that keep an
    /// item legible and stop one long message from crowding out the rest.
    max_item: usize,
    /// The most tokens a group may take while items compete for room: twice an item's, since it
    /// stands for several and its first places are where to start.
    max_group: usize,
    /// (plan, item) in global priority order.
    order: Vec<(usize, usize)>,
    /// Rendered items at `max_item`, with their cost.
    cache: Vec<Vec<Option<(ItemLine, usize)>>>,
    /// Distinct log paths of failing reports, with their tool.
    logs: Vec<(&'a str, &'a str)>,
}

/// Builds the digest of `plans` within `budget` tokens.
pub(super) fn fit(plans: &[Plan<'_>], budget: usize) -> Digest {
    if !plans.iter().any(Plan::failing) {
        return all_passed(plans, budget);
    }
    let mut fitter = Fitter::new(plans, budget);
    let mut best: Option<Run> = None;
    for level in Level::ALL {
        let Some(run) = fitter.run(level, usize::MAX) else {
            continue;
        };
        if run.shows_every_report(plans) {
            best = Some(run);
            break;
        }
        let better = |b: &Run| (run.full_items(), run.accepted) > (b.full_items(), b.accepted);
        if best.as_ref().is_none_or(better) {
            best = Some(run);
        }
    }
    let mut run = match best {
        Some(run) => run,
        None => return fitter.headlines_only(),
    };
    loop {
        let digest = fitter.assemble(&run);
        if digest.tokens <= budget {
            return digest;
        }
        // The exact count came out over the estimate: take one item back and rebuild.
        let fewer = run.accepted.saturating_sub(1);
        match fitter.run(run.level, fewer) {
            Some(smaller) if run.accepted > 0 => run = smaller,
            _ => return fitter.headlines_only(),
        }
    }
}

impl<'p, 'a> Fitter<'p, 'a> {
    fn new(plans: &'p [Plan<'a>], budget: usize) -> Self {
        let mut order: Vec<(usize, usize, usize, usize)> = Vec::new();
        for (p, plan) in plans.iter().enumerate().filter(|(_, plan)| plan.failing()) {
            let mut rank_in_tier = 0;
            let mut tier = None;
            for (i, item) in plan.items.iter().enumerate() {
                if tier != Some(item.tier) {
                    tier = Some(item.tier);
                    rank_in_tier = 0;
                }
                order.push((item.tier as usize, rank_in_tier, p, i));
                rank_in_tier += 1;
            }
        }
        order.sort_unstable();
        let mut logs: Vec<(&'a str, &'a str)> = Vec::new();
        for plan in plans.iter().filter(|plan| plan.failing()) {
            if let Some(log) = plan.log
                && !logs.iter().any(|(_, path)| *path == log)
            {
                logs.push((plan.report.tool.as_str(), log));
            }
        }
        let max_item = (budget / 6).clamp(16, 48);
        Fitter {
            plans,
            budget,
            max_item,
            max_group: max_item * 4,
            order: order.into_iter().map(|(_, _, p, i)| (p, i)).collect(),
            cache: plans
                .iter()
                .map(|plan| vec![None; plan.items.len()])
                .collect(),
            logs,
        }
    }

    fn item(&mut self, p: usize, i: usize) -> (ItemLine, usize) {
        if let Some(cached) = &self.cache[p][i] {
            return cached.clone();
        }
        let item = &self.plans[p].items[i];
        let max = if item.members.len() > 1 {
            self.max_group
        } else {
            self.max_item
        };
        let line = self.annotated(&self.plans[p], item, max, Names::Places);
        let line_cost = cost(&line.text);
        let rendered = (line, line_cost);
        self.cache[p][i] = Some(rendered.clone());
        rendered
    }

    /// An item's line within `max` tokens, saying which later reports also failed on it.
    fn annotated(&self, plan: &Plan<'_>, item: &Item, max: usize, names: Names) -> ItemLine {
        let also = plan.also(item);
        if also.is_empty() {
            return lines::item(plan, item, max, names);
        }
        let note = lines::also_failed(&also);
        let room = max.saturating_sub(tokens::count(&note) + 1);
        let mut line = lines::item(plan, item, room, names);
        if tokens::fits(&format!("{} {note}", line.text), max) {
            line.text = format!("{} {note}", line.text);
        }
        line
    }

    fn omitted(&self, states: &[State]) -> Tally {
        let mut omitted = Tally::default();
        for (plan, state) in self.plans.iter().zip(states) {
            if plan.failing() {
                omitted += state.omitted(plan);
            }
        }
        omitted
    }

    fn footer(&self, level: Level, used: usize, states: &[State]) -> Option<String> {
        let used = matches!(level, Level::Full | Level::Compact).then_some(used);
        let logs = if level == Level::Bare {
            &[][..]
        } else {
            &self.logs[..]
        };
        lines::footer(used, self.budget, self.omitted(states), logs)
    }

    /// Fills `level`'s skeleton with at most `cap` items; `None` when the skeleton does not fit.
    fn run(&mut self, level: Level, cap: usize) -> Option<Run> {
        let plans = self.plans;
        let (headlines, pass) = self.skeleton(level);
        let same = self.same_lines(level);
        let fixed: usize = headlines.iter().flatten().map(|h| cost(h)).sum::<usize>()
            + same.iter().flatten().map(|l| cost(l)).sum::<usize>()
            + pass.iter().map(|l| cost(l)).sum::<usize>();

        let tail_max = (self.budget / 5).clamp(TAIL_MAX.0, TAIL_MAX.1);
        let mut states: Vec<State> = plans
            .iter()
            .map(|plan| State::new(plan, tail_max))
            .collect();
        for (plan, state) in plans.iter().zip(&mut states) {
            if plan.failing() {
                state.refresh_tail(plan, level);
            }
        }
        // The footer is estimated with the budget as its token number: the real number is no
        // longer in digits, and so in tokens.
        let total = |fitter: &Self, states: &[State]| {
            fixed
                + states
                    .iter()
                    .map(|s| s.items_cost + s.tail_cost)
                    .sum::<usize>()
                + fitter
                    .footer(level, fitter.budget, states)
                    .as_deref()
                    .map_or(0, cost)
        };
        // The text has no final newline.
        if total(self, &states) > self.budget + 1 {
            return None;
        }
        let (accepted, squeezed) = self.accept(level, cap, &mut states, &total);
        if accepted == self.order.len() {
            self.unfold_groups(level, &mut states, &total);
            self.widen_groups(level, &mut states, &total, false);
        } else {
            // What room is left names the tests of the groups shown.
            self.widen_groups(level, &mut states, &total, true);
        }
        Some(Run {
            level,
            headlines,
            same,
            pass,
            states,
            accepted,
            squeezed,
        })
    }

    /// Per report, at `level`, the line that says how many of its failures an earlier report
    /// shows: none at the levels that drop tails, where the headlines speak alone.
    fn same_lines(&self, level: Level) -> Vec<Option<String>> {
        self.plans
            .iter()
            .map(|plan| {
                let full = matches!(level, Level::Full | Level::Compact);
                (full && plan.failing())
                    .then(|| lines::same_as(plan, self.max_item))
                    .flatten()
            })
            .collect()
    }

    /// The headline of each failing report and the lines of the passing ones, at `level`.
    fn skeleton(&self, level: Level) -> (Vec<Option<String>>, Vec<String>) {
        let plans = self.plans;
        let headlines = plans
            .iter()
            .map(|plan| {
                plan.failing()
                    .then(|| lines::headline(plan, level.headline_max()))
            })
            .collect();
        let passing: Vec<_> = plans
            .iter()
            .filter(|plan| !plan.failing())
            .map(|plan| plan.report)
            .collect();
        let pass = match level {
            Level::Full => passing
                .iter()
                .map(|report| lines::pass_line(report, PASS_MAX))
                .collect(),
            Level::Compact if !passing.is_empty() => {
                // A report with failures set aside keeps its line: its name alone under
                // `passed:` would call it clean.
                let (aside, clean): (Vec<&Report>, Vec<&Report>) = passing
                    .iter()
                    .partition(|report| report.set_aside.is_some());
                let mut pass: Vec<String> = aside
                    .iter()
                    .map(|report| lines::pass_line(report, PASS_MAX))
                    .collect();
                if !clean.is_empty() {
                    pass.push(lines::passed_names(&clean, PASS_MAX));
                }
                pass
            }
            Level::Compact | Level::Minimal | Level::Bare => Vec::new(),
        };
        (headlines, pass)
    }

    /// Shows items in rank order while they fit, at most `cap` of them, the last one clipped
    /// into the room left when that is worth it: how many were shown, and whether one was
    /// clipped.
    fn accept(
        &mut self,
        level: Level,
        cap: usize,
        states: &mut [State],
        total: &dyn Fn(&Self, &[State]) -> usize,
    ) -> (usize, bool) {
        // The text has no final newline.
        let budget = self.budget + 1;
        let plans = self.plans;
        let mut accepted = 0;
        for index in 0..self.order.len() {
            if accepted >= cap {
                break;
            }
            let (p, i) = self.order[index];
            let plan = &plans[p];
            let before = states[p].clone();
            let (line, line_cost) = self.item(p, i);
            states[p].reserve(plan, i, &line, level);
            let rest = total(self, states);
            if rest + line_cost <= budget {
                states[p].show(i, line.text, line_cost);
                accepted += 1;
                continue;
            }
            // It does not fit as it is: clip it into the room left, if that is worth it, and stop.
            // The clipped line may name fewer files, which changes the tail: count again.
            if budget >= rest + MIN_LAST_ITEM {
                let line = self.annotated(plan, &plan.items[i], budget - rest - 1, Names::Places);
                states[p] = before.clone();
                states[p].reserve(plan, i, &line, level);
                let rest = total(self, states);
                let line_cost = cost(&line.text);
                if rest + line_cost <= budget && !line.text.trim().is_empty() {
                    states[p].show(i, line.text, line_cost);
                    states[p].squeezed = true;
                    return (accepted + 1, true);
                }
            }
            states[p] = before;
            break;
        }
        (accepted, false)
    }

    /// With every item shown and room left, splits the groups back into the lines they stand
    /// for, in the order they rank, where all of a group's lines fit: a group of failing tests
    /// into one line per test (name, place and reason: grouping tests hides their names, which
    /// is worth it only when listing them does not fit), else a group of several distinct
    /// messages into one line per message, shown as the tool worded each.
    fn unfold_groups(
        &self,
        level: Level,
        states: &mut [State],
        total: &dyn Fn(&Self, &[State]) -> usize,
    ) {
        for &(p, i) in &self.order {
            let plan = &self.plans[p];
            let item = &plan.items[i];
            let Some(j) = states[p].lines.iter().position(|shown| shown.item == i) else {
                continue;
            };
            let is_test = plan.diagnostic(item.first()).test.is_some();
            let mut ways: Vec<Vec<(Unit, Item)>> = Vec::new();
            if is_test && item.members.len() > 1 {
                ways.push(
                    item.members
                        .iter()
                        .map(|&m| (Unit::Member(m), item.single(m, plan.entries[m].file)))
                        .collect(),
                );
            }
            if !item.parts.is_empty() {
                ways.push(
                    (item.parts.iter().enumerate())
                        .map(|(k, part)| (Unit::Part(k), part.clone()))
                        .collect(),
                );
            }
            for way in ways {
                if self.unfold(level, states, total, (p, i, j), &way) {
                    break;
                }
            }
        }
    }

    /// Replaces line `j` of report `p`, item `i`'s, with one line per unit of `way`, when the
    /// digest stays within the budget: whether it did.
    fn unfold(
        &self,
        level: Level,
        states: &mut [State],
        total: &dyn Fn(&Self, &[State]) -> usize,
        (p, i, j): (usize, usize, usize),
        way: &[(Unit, Item)],
    ) -> bool {
        // The text has no final newline.
        let budget = self.budget + 1;
        let plan = &self.plans[p];
        let lines: Vec<(Unit, ItemLine, usize)> = way
            .iter()
            .map(|(unit, part)| {
                let max = if part.members.len() > 1 {
                    self.max_group
                } else {
                    self.max_item
                };
                let line = self.annotated(plan, part, max, Names::Places);
                let line_cost = cost(&line.text);
                (*unit, line, line_cost)
            })
            .collect();
        // Lines that read the same (one test name in two packages of a workspace whose
        // report does not say the package) say less than the group's count of them.
        let mut texts: Vec<&str> = lines
            .iter()
            .map(|(_, line, _)| line.text.as_str())
            .collect();
        texts.sort_unstable();
        if texts.windows(2).any(|pair| pair[0] == pair[1]) {
            return false;
        }
        let before = states[p].clone();
        let state = &mut states[p];
        let old = state.lines[j].cost;
        let new: usize = lines.iter().map(|(_, _, c)| c).sum();
        state.items_cost = state.items_cost - old + new;
        let shown: Vec<Shown> = lines
            .into_iter()
            .map(|(unit, line, line_cost)| {
                for &file in &line.files {
                    state.named[file] = true;
                }
                Shown {
                    item: i,
                    unit,
                    text: line.text,
                    cost: line_cost,
                }
            })
            .collect();
        state.lines.splice(j..=j, shown);
        state.refresh_tail(plan, level);
        if total(self, states) > budget {
            states[p] = before;
            return false;
        }
        true
    }

    /// With room left, lets the groups list more of their places and name their tests, in the
    /// order they rank: first each up to twice its usual room, then as far as the room goes.
    /// Only the groups of tests when `tests_only` (items were left out: the room left is what
    /// the last of them could not use).
    fn widen_groups(
        &self,
        level: Level,
        states: &mut [State],
        total: &dyn Fn(&Self, &[State]) -> usize,
        tests_only: bool,
    ) {
        // The text has no final newline.
        let budget = self.budget + 1;
        for round in [self.max_group * 2, usize::MAX] {
            for &(p, i) in &self.order {
                let plan = &self.plans[p];
                for j in 0..states[p].lines.len() {
                    let shown = &states[p].lines[j];
                    if shown.item != i {
                        continue;
                    }
                    let item = match shown.unit {
                        Unit::Part(k) => &plan.items[i].parts[k],
                        Unit::Whole => &plan.items[i],
                        Unit::Member(_) => continue,
                    };
                    if item.members.len() < 2
                        || tests_only && plan.diagnostic(item.first()).test.is_none()
                    {
                        continue;
                    }
                    let left = budget.saturating_sub(total(self, states));
                    if left == 0 {
                        return;
                    }
                    // A line's cost counts its newline.
                    let old = shown.cost;
                    let max = (old - 1 + left).min(round);
                    if max < old {
                        continue;
                    }
                    let line = self.annotated(plan, item, max, Names::All);
                    let line_cost = cost(&line.text);
                    if line_cost <= old {
                        continue;
                    }
                    let before = states[p].clone();
                    let state = &mut states[p];
                    for &file in &line.files {
                        state.named[file] = true;
                    }
                    state.items_cost = state.items_cost - old + line_cost;
                    state.lines[j].text = line.text;
                    state.lines[j].cost = line_cost;
                    state.refresh_tail(plan, level);
                    if total(self, states) > budget {
                        states[p] = before;
                    }
                }
            }
        }
    }

    /// The text of `run`, with the footer's token number settled.
    fn assemble(&self, run: &Run) -> Digest {
        let mut body: Vec<&str> = Vec::new();
        for (((headline, state), plan), same) in (run.headlines.iter().zip(&run.states))
            .zip(self.plans)
            .zip(&run.same)
        {
            let Some(headline) = headline else {
                continue;
            };
            debug_assert!(plan.failing());
            body.push(headline);
            body.extend(same.as_deref());
            body.extend(state.lines.iter().map(|shown| shown.text.as_str()));
            body.extend(state.tail.as_deref());
        }
        body.extend(run.pass.iter().map(String::as_str));
        let body = body.join("\n");

        let mut text = body.clone();
        let mut used = self.budget;
        // The footer states the digest's own size, which it is part of: iterate to a fixed point
        // (one or two rounds: a number's token count changes only every three digits).
        for _ in 0..8 {
            text = match self.footer(run.level, used, &run.states) {
                Some(footer) => format!("{body}\n{footer}"),
                None => body.clone(),
            };
            let counted = tokens::count(&text);
            if counted == used {
                break;
            }
            used = counted;
        }
        let tokens = tokens::count(&text);

        let mut shown = Tally::default();
        let mut omitted = Tally::default();
        let mut omitted_files = 0;
        for ((plan, state), headline) in self.plans.iter().zip(&run.states).zip(&run.headlines) {
            if plan.failing() {
                shown += state.shown;
                omitted += state.omitted(plan);
                omitted_files +=
                    state
                        .omitted_files()
                        .max(tool_files_unnamed(plan, state, headline.as_deref()));
            }
        }
        Digest {
            text,
            tokens,
            budget: self.budget,
            shown,
            omitted,
            omitted_files,
            cut: false,
        }
    }

    /// The last resort: the headlines alone; when they do not fit, every failing report's main
    /// number on one line; when even that does not fit, that line cut with a marker.
    fn headlines_only(&self) -> Digest {
        let failing = || self.plans.iter().filter(|plan| plan.failing());
        let headlines = failing()
            .map(|plan| lines::headline(plan, Level::Minimal.headline_max()))
            .collect::<Vec<_>>()
            .join("\n");
        let text = if tokens::fits(&headlines, self.budget) {
            headlines
        } else {
            let short = failing()
                .map(lines::short_headline)
                .collect::<Vec<_>>()
                .join(" · ");
            cut(&short, self.budget)
        };
        let mut omitted = Tally::default();
        let mut omitted_files = 0;
        for plan in self.plans.iter().filter(|plan| plan.failing()) {
            omitted += plan.totals;
            omitted_files += plan.files.len() as u64;
        }
        Digest {
            tokens: tokens::count(&text),
            text,
            budget: self.budget,
            shown: Tally::default(),
            omitted,
            omitted_files,
            cut: true,
        }
    }
}

/// The files the tool counted that no line names, when the headline states the tool's count:
/// the parser may keep fewer diagnostics than the tool found (a lint run over thousands of
/// files), and the headline still counts every failing file.
fn tool_files_unnamed(plan: &Plan<'_>, state: &State, headline: Option<&str>) -> u64 {
    let (Some(files), Some(headline)) = (plan.report.counts.files, headline) else {
        return 0;
    };
    // The tool's count holds the files of failures set aside, which no line is meant to name.
    if plan.report.set_aside.is_some() {
        return 0;
    }
    let stated = [" file", " files"]
        .iter()
        .any(|noun| headline.contains(&format!(" in {files}{noun}")));
    if !stated {
        return 0;
    }
    let named = state.named.iter().filter(|&&named| named).count() as u64;
    files.saturating_sub(named)
}

/// `text` within `budget`, with a visible marker if it had to be cut.
fn cut(text: &str, budget: usize) -> String {
    clip_with(text, budget, " … (cut)").into_owned()
}

/// Every report passed: one line each.
fn all_passed(plans: &[Plan<'_>], budget: usize) -> Digest {
    let text = if plans.is_empty() {
        "nothing was verified".to_owned()
    } else {
        plans
            .iter()
            .map(|plan| lines::pass_line(plan.report, PASS_MAX))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let clipped = cut(&text, budget);
    Digest {
        tokens: tokens::count(&clipped),
        cut: clipped != text,
        text: clipped,
        budget,
        shown: Tally::default(),
        omitted: Tally::default(),
        omitted_files: 0,
    }
}
