// Loaded only when tracing is on, like otel-tracer.ts.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export interface OtlpJsonExporterOptions {
  url: string;
  headers: Record<string, string>;
  /** How long one export may take. */
  timeoutMs?: number;
  /** Told when exports start failing and when they work again (once per change, not per batch). */
  onHealthChange?: (healthy: boolean, reason?: string) => void;
}

/**
 * Sends spans as OTLP/HTTP with JSON bodies, serialised by OpenTelemetry's own OTLP transformer. It replaces
 * `@opentelemetry/exporter-trace-otlp-http`, whose transport loads `http` through `import()` at the first export: a
 * CommonJS module runtime without ESM support (jest's, which runs our end-to-end tests) cannot do that, and the spans
 * would be lost without a sound. A batch that fails is dropped (tracing is best effort); the log says when exports
 * start failing and when they recover.
 */
export class OtlpJsonExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();
  private healthy = true;
  private readonly timeoutMs: number;

  constructor(private readonly options: OtlpJsonExporterOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (body === undefined) {
      done({ code: ExportResultCode.FAILED, error: new Error('spans could not be serialised') });
      return;
    }
    const sent = this.post(body).then(
      () => {
        this.health(true);
        done({ code: ExportResultCode.SUCCESS });
      },
      (error: Error) => {
        this.health(false, error.message);
        done({ code: ExportResultCode.FAILED, error });
      },
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }

  private health(healthy: boolean, reason?: string): void {
    if (healthy === this.healthy) return;
    this.healthy = healthy;
    this.options.onHealthChange?.(healthy, reason);
  }

  private post(body: Uint8Array): Promise<void> {
    const url = new URL(this.options.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        url,
        {
          method: 'POST',
          headers: {
            ...this.options.headers,
            'content-type': 'application/json',
            'content-length': body.byteLength,
          },
          timeout: this.timeoutMs,
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve();
            else reject(new Error(`the receiver answered ${status}`));
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }
}
