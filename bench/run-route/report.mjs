// The run-route benchmark's report: medians over rounds, ratios to the floor, and tables.

/** The median of some numbers (NaN when there are none). */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median over rounds of `value(ours) / value(floor)`: each round's ratio is taken between
 * measurements made one right after the other, so a drift of the machine between rounds cancels.
 */
export function medianRatio(ours, floor, value) {
  return median(ours.map((round, i) => value(round) / value(floor[i])));
}

/** A number with `digits` decimals, or `n/a`. */
export const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** A Markdown table; the first column left-aligned, the others right-aligned. */
export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
}

const mb = (kb) => kb / 1024;

/**
 * The HTTP table of one Node version: each case's medians, and its ratios to the case `base` (the
 * floor, or one server against two), headed `x <baseLabel>`.
 */
export function httpTable(cases, labels, base = 'floor', baseLabel = base) {
  const floor = cases[base];
  const x = `x ${baseLabel}`;
  const rows = [
    [
      'case',
      'runs/s',
      x,
      'p99 ms',
      `p99 ${x}`,
      'CPU µs/run',
      `CPU ${x}`,
      'GET/s',
      `GET ${x}`,
      'GET p99 ms',
      'peak RSS MB',
      `RSS ${x}`,
    ],
  ];
  for (const [name, rounds] of Object.entries(cases)) {
    const ratio = (value) => (floor && name !== base ? fmt(medianRatio(rounds, floor, value), 2) : '');
    rows.push([
      labels[name],
      fmt(median(rounds.map((r) => r.run.rps))),
      ratio((r) => r.run.rps),
      fmt(median(rounds.map((r) => r.run.p99))),
      ratio((r) => r.run.p99),
      fmt(median(rounds.map((r) => r.run.cpuUs))),
      ratio((r) => r.run.cpuUs),
      fmt(median(rounds.map((r) => r.get.rps))),
      ratio((r) => r.get.rps),
      fmt(median(rounds.map((r) => r.get.p99))),
      fmt(mb(median(rounds.map((r) => r.rssKb)))),
      ratio((r) => r.rssKb),
    ]);
  }
  return table(rows);
}

/**
 * Each round's run ratio of every case to the case `base`, one line per case: how far the rounds
 * spread around the median the table shows.
 */
export function roundRatios(cases, labels, base = 'floor', baseLabel = base) {
  const floor = cases[base];
  if (!floor) return [];
  return Object.entries(cases)
    .filter(([name]) => name !== base)
    .map(
      ([name, rounds]) =>
        `per round, runs/s x ${baseLabel}: ${labels[name]} ${rounds.map((r, i) => fmt(r.run.rps / floor[i].run.rps, 2)).join(', ')}`,
    );
}

/**
 * The in-process table of one Node version: calls per second, peak RSS and the heap retained at the
 * end, and their ratios to `generateText`.
 */
export function inProcessTable(kinds, labels) {
  const floor = kinds.generateText;
  const rows = [
    [
      'case',
      'calls/s',
      'x generateText',
      'peak RSS MB',
      'RSS x generateText',
      'retained heap MB',
      'heap x generateText',
    ],
  ];
  for (const [kind, rounds] of Object.entries(kinds)) {
    const ratio = (value) => (floor && kind !== 'generateText' ? fmt(medianRatio(rounds, floor, value), 2) : '');
    rows.push([
      labels[kind],
      fmt(median(rounds.map((r) => r.per_second))),
      ratio((r) => r.per_second),
      fmt(mb(median(rounds.map((r) => r.max_rss_kb)))),
      ratio((r) => r.max_rss_kb),
      fmt(mb(median(rounds.map((r) => r.retained_kb ?? Number.NaN)))),
      ratio((r) => r.retained_kb ?? Number.NaN),
    ]);
  }
  return table(rows);
}

/**
 * The targets the run route is held to, each with its measured value (medians of per-round ratios),
 * for the cases that were measured.
 */
export function targetLines(http, inProcess) {
  const lines = [];
  const check = (label, value, bound, atMost = false) => {
    if (!Number.isFinite(value)) return;
    const met = atMost ? value <= bound : value >= bound;
    lines.push(`${label} ${atMost ? '<=' : '>='} ${bound}: ${fmt(value, 2)} (${met ? 'met' : 'not met'})`);
  };
  const { floor, mounted, standalone } = http;
  if (floor && mounted)
    check(
      'mounted run x floor',
      medianRatio(mounted, floor, (r) => r.run.rps),
      0.8,
    );
  if (floor && standalone) {
    check(
      'standalone run x floor',
      medianRatio(standalone, floor, (r) => r.run.rps),
      0.7,
    );
    check(
      'standalone p99 x floor',
      medianRatio(standalone, floor, (r) => r.run.p99),
      1.5,
      true,
    );
  }
  if (floor && mounted)
    check(
      'mounted GET agent x floor',
      medianRatio(mounted, floor, (r) => r.get.rps),
      0.9,
    );
  const { generateText, runAgent } = inProcess;
  if (generateText && runAgent) {
    check(
      'runAgent x generateText',
      medianRatio(runAgent, generateText, (r) => r.per_second),
      0.85,
    );
    check(
      'runAgent peak RSS x generateText',
      medianRatio(runAgent, generateText, (r) => r.max_rss_kb),
      1.3,
      true,
    );
  }
  for (const [name, measured] of Object.entries({ mounted, standalone }))
    if (floor && measured)
      check(
        `${name} peak RSS x floor`,
        medianRatio(measured, floor, (r) => r.rssKb),
        1.3,
        true,
      );
  return lines;
}

/** The requests that did not succeed, one line per case and round that had any. */
export function problems(nodeLabel, cases, labels) {
  const lines = [];
  for (const [name, rounds] of Object.entries(cases)) {
    rounds.forEach((round, i) => {
      for (const [what, r] of Object.entries(round)) {
        if (typeof r !== 'object' || !(r.non2xx || r.errors || r.timeouts)) continue;
        lines.push(
          `${nodeLabel} ${labels[name]} ${what} round ${i + 1}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
        );
      }
    });
  }
  return lines;
}
