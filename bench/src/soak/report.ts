import { AnswerKind, KINDS, SERVICES, ServiceName } from './answers';

export interface Sample {
  /** Seconds since the load started. */
  at: number;
  /** Answers per second in the interval that ended here, by service and kind. */
  rates: Record<ServiceName, Record<AnswerKind, number>>;
  /** Resident set size (MiB) and open file descriptors of each service process. */
  rssMiB: Record<ServiceName, number>;
  fds: Record<ServiceName, number>;
}

export interface FaultWindow {
  dependency: string;
  mode: string;
  from: number;
  to: number;
}

export interface Flatness {
  service: ServiceName;
  rssStartMiB: number;
  rssEndMiB: number;
  fdsStart: number;
  fdsEnd: number;
  flat: boolean;
}

/** RSS may grow by at most this much from the warmed-up start to the end (heap growth to a steady state). */
const RSS_GROWTH_ALLOWED_MIB = 64;
const RSS_GROWTH_ALLOWED_RATIO = 1.5;
/** Open descriptors may differ by pool sizes' worth (database and Redis connections re-made after faults). */
const FDS_GROWTH_ALLOWED = 16;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * RSS and open descriptors "flat": the median of the last tenth of the samples against the median of the tenth that
 * follows the warm-up (the first tenth), within the allowances above.
 */
export function flatness(samples: readonly Sample[]): Flatness[] {
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const start = samples.slice(tenth, 2 * tenth);
  const end = samples.slice(-tenth);
  return SERVICES.map((service) => {
    const rssStartMiB = median(start.map((sample) => sample.rssMiB[service]));
    const rssEndMiB = median(end.map((sample) => sample.rssMiB[service]));
    const fdsStart = median(start.map((sample) => sample.fds[service]));
    const fdsEnd = median(end.map((sample) => sample.fds[service]));
    const rssFlat =
      rssEndMiB <= rssStartMiB + RSS_GROWTH_ALLOWED_MIB ||
      rssEndMiB <= rssStartMiB * RSS_GROWTH_ALLOWED_RATIO;
    return {
      service,
      rssStartMiB,
      rssEndMiB,
      fdsStart,
      fdsEnd,
      flat: rssFlat && fdsEnd <= fdsStart + FDS_GROWTH_ALLOWED,
    };
  });
}

const COLOURS: Record<ServiceName, string> = { ussd: '#1f77b4', registry: '#2ca02c', protocol: '#d62728' };

interface Panel {
  title: string;
  unit: string;
  series: { label: string; colour: string; dashed?: boolean; values: number[] }[];
}

/** An SVG of the run: answers/s, non-ok answers/s and RSS per service over time, fault windows shaded. */
export function plotSvg(samples: readonly Sample[], faults: readonly FaultWindow[]): string {
  const width = 960;
  const panelHeight = 180;
  const left = 60;
  const right = 20;
  const top = 30;
  const gap = 40;
  const times = samples.map((sample) => sample.at);
  const span = Math.max(1, times.at(-1) ?? 1);
  const x = (t: number): number => left + ((width - left - right) * t) / span;
  const panels: Panel[] = [
    {
      title: 'Answers/s (ok)',
      unit: '/s',
      series: SERVICES.map((service) => ({
        label: service,
        colour: COLOURS[service],
        values: samples.map((sample) => sample.rates[service].ok),
      })),
    },
    {
      title: 'Answers/s that were not ok (solid: documented "try later" or busy; dashed: undocumented)',
      unit: '/s',
      series: SERVICES.flatMap((service) => [
        {
          label: `${service} documented`,
          colour: COLOURS[service],
          values: samples.map((sample) => sample.rates[service].unavailable + sample.rates[service].busy),
        },
        {
          label: `${service} undocumented`,
          colour: COLOURS[service],
          dashed: true,
          values: samples.map((sample) => sample.rates[service].undocumented),
        },
      ]),
    },
    {
      title: 'RSS (MiB)',
      unit: 'MiB',
      series: SERVICES.map((service) => ({
        label: service,
        colour: COLOURS[service],
        values: samples.map((sample) => sample.rssMiB[service]),
      })),
    },
  ];
  const height = top + panels.length * (panelHeight + gap) + 20;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  panels.forEach((panel, index) => {
    const y0 = top + index * (panelHeight + gap);
    const max = Math.max(1, ...panel.series.flatMap((series) => series.values));
    const y = (value: number): number => y0 + panelHeight - (panelHeight * value) / max;
    for (const fault of faults) {
      parts.push(
        `<rect x="${x(fault.from).toFixed(1)}" y="${y0}" width="${Math.max(1, x(fault.to) - x(fault.from)).toFixed(1)}" height="${panelHeight}" fill="#f4c7c3" opacity="0.5"><title>${fault.dependency} ${fault.mode}</title></rect>`,
      );
      if (index === 0)
        parts.push(
          `<text x="${x(fault.from).toFixed(1)}" y="${y0 - 2}" font-size="8" fill="#a33">${fault.dependency[0]}${fault.mode[0]}</text>`,
        );
    }
    parts.push(
      `<text x="${left}" y="${y0 - 12}" font-weight="bold">${panel.title}</text>`,
      `<line x1="${left}" y1="${y0 + panelHeight}" x2="${width - right}" y2="${y0 + panelHeight}" stroke="#888"/>`,
      `<line x1="${left}" y1="${y0}" x2="${left}" y2="${y0 + panelHeight}" stroke="#888"/>`,
      `<text x="${left - 4}" y="${y0 + 8}" text-anchor="end">${Math.round(max)} ${panel.unit}</text>`,
      `<text x="${left - 4}" y="${y0 + panelHeight}" text-anchor="end">0</text>`,
    );
    for (const series of panel.series) {
      const points = series.values
        .map((value, at) => `${x(times[at]!).toFixed(1)},${y(value).toFixed(1)}`)
        .join(' ');
      parts.push(
        `<polyline fill="none" stroke="${series.colour}" stroke-width="1.2"${series.dashed ? ' stroke-dasharray="4 3"' : ''} points="${points}"/>`,
      );
    }
    panel.series
      .filter((series) => !series.dashed)
      .forEach((series, at) => {
        parts.push(
          `<text x="${width - right - 240 + at * 80}" y="${y0 + 12}" fill="${series.colour}">${series.label.split(' ')[0]}</text>`,
        );
      });
  });
  const axisY = top + panels.length * (panelHeight + gap) - gap + 14;
  for (let minute = 0; minute * 60 <= span; minute += Math.max(1, Math.round(span / 60 / 12))) {
    parts.push(
      `<text x="${x(minute * 60).toFixed(1)}" y="${axisY}" text-anchor="middle">${minute} min</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** The answer counts as a Markdown table. */
export function answersTable(totals: Record<ServiceName, Record<AnswerKind, number>>): string {
  const lines = [`| Service | ${KINDS.join(' | ')} |`, `|---|${KINDS.map(() => '--:').join('|')}|`];
  for (const service of SERVICES) {
    lines.push(
      `| ${service} | ${KINDS.map((kind) => totals[service][kind].toLocaleString('en-US')).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
