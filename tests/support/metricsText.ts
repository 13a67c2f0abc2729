/**
 * Reading the Prometheus text format in tests: the value of a metric, summed
 * over every series whose labels include the ones asked for (0 when there is
 * none). Histograms are read through their `_count` and `_sum` series.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || !line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const seen: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) seen[key] = value;
    if (Object.entries(labels).every(([k, v]) => seen[k] === v)) total += Number(match[3]);
  }
  return total;
}

/** Whether the text has a series of this metric at all. */
export function hasMetric(text: string, name: string): boolean {
  return text.split("\n").some((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
}
