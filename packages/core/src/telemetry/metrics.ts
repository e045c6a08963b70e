/**
 * A small metrics registry rendering the Prometheus text exposition format (0.0.4), so
 * /metrics needs no client library and core stays adapter-free. Counters, gauges and
 * histograms with labels; gauges can be computed at scrape time (queue depth, parked
 * dead letters) through collectors, which is how values living outside the process are
 * reported without a background job.
 */
export type Labels = Record<string, string>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

abstract class Metric {
  protected readonly series = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    readonly labelNames: readonly string[],
  ) {
    if (!NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    for (const l of labelNames) if (!LABEL.test(l) || l === 'le') throw new Error(`invalid label name ${l} on ${name}`);
  }
  protected key(labels: Labels): string {
    const extra = Object.keys(labels).filter((k) => !this.labelNames.includes(k));
    if (extra.length) throw new Error(`${this.name}: unknown label(s) ${extra.join(', ')}`);
    return this.labelNames.map((l) => labels[l] ?? '').join('\u0000');
  }
  /** Sample lines, without HELP/TYPE. */
  abstract samples(): string[];
}

export class Counter extends Metric {
  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    super(name, help, 'counter', labelNames);
  }
  /** Counters only go up; a negative increment is a bug. */
  inc(labels: Labels = {}, by = 1): void {
    if (by < 0 || !Number.isFinite(by)) throw new Error(`${this.name}: counters only increase (got ${by})`);
    const k = this.key(labels);
    const s = this.series.get(k) ?? { labels, value: 0 };
    s.value += by;
    this.series.set(k, s);
  }
  get(labels: Labels = {}): number {
    return this.series.get(this.key(labels))?.value ?? 0;
  }
  samples(): string[] {
    return [...this.series.values()].map((s) => sample(this.name, s.labels, s.value));
  }
}

export class Gauge extends Metric {
  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    super(name, help, 'gauge', labelNames);
  }
  set(labels: Labels, value: number): void {
    this.series.set(this.key(labels), { labels, value });
  }
  inc(labels: Labels = {}, by = 1): void {
    const k = this.key(labels);
    const s = this.series.get(k) ?? { labels, value: 0 };
    s.value += by;
    this.series.set(k, s);
  }
  dec(labels: Labels = {}, by = 1): void {
    this.inc(labels, -by);
  }
  get(labels: Labels = {}): number {
    return this.series.get(this.key(labels))?.value ?? 0;
  }
  samples(): string[] {
    return [...this.series.values()].map((s) => sample(this.name, s.labels, s.value));
  }
}

/** Default buckets (seconds): 5 ms … 10 s, Prometheus client defaults. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Histogram extends Metric {
  private readonly hist = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly buckets: number[];
  constructor(name: string, help: string, labelNames: readonly string[] = [], buckets: number[] = DEFAULT_BUCKETS) {
    super(name, help, 'histogram', labelNames);
    this.buckets = [...buckets].sort((a, b) => a - b);
  }
  observe(labels: Labels, value: number): void {
    const k = this.key(labels);
    let h = this.hist.get(k);
    if (!h) {
      h = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.hist.set(k, h);
    }
    this.buckets.forEach((b, i) => {
      if (value <= b) h.counts[i] += 1;
    });
    h.sum += value;
    h.count += 1;
  }
  /** Count and sum of one series (for tests and summaries). */
  get(labels: Labels = {}): { count: number; sum: number } {
    const h = this.hist.get(this.key(labels));
    return { count: h?.count ?? 0, sum: h?.sum ?? 0 };
  }
  samples(): string[] {
    const out: string[] = [];
    for (const h of this.hist.values()) {
      this.buckets.forEach((b, i) => out.push(sample(`${this.name}_bucket`, { ...h.labels, le: formatNumber(b) }, h.counts[i])));
      out.push(sample(`${this.name}_bucket`, { ...h.labels, le: '+Inf' }, h.count));
      out.push(sample(`${this.name}_sum`, h.labels, h.sum));
      out.push(sample(`${this.name}_count`, h.labels, h.count));
    }
    return out;
  }
}

export type Collector = () => Promise<void> | void;

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  private readonly collectors: Collector[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.register(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.register(new Gauge(name, help, labelNames));
  }
  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: number[]): Histogram {
    return this.register(new Histogram(name, help, labelNames, buckets));
  }
  /** Runs before each render; a failing collector is skipped (its gauges keep their last values). */
  addCollector(fn: Collector): void {
    this.collectors.push(fn);
  }
  get(name: string): Metric | undefined {
    return this.metrics.get(name);
  }

  /** The whole registry in Prometheus text format. */
  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => Promise.resolve().then(c).catch(() => undefined)));
    const out: string[] = [];
    for (const m of this.metrics.values()) {
      out.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${m.name} ${m.type}`, ...m.samples());
    }
    return out.join('\n') + '\n';
  }

  private register<M extends Metric>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) {
      if (existing.type !== metric.type) throw new Error(`metric ${metric.name} already registered as ${existing.type}`);
      return existing as M;
    }
    this.metrics.set(metric.name, metric);
    return metric;
  }
}

/** Content type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function sample(name: string, labels: Labels, value: number): string {
  const entries = Object.entries(labels);
  const l = entries.length ? `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}` : '';
  return `${name}${l} ${formatNumber(value)}`;
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}
