import type { MessageErrorBody } from '@dmrv/contracts';
import type { NormalizedError } from './normalize';

/** Minimal view of the incoming request that renderers may look at (method and URL only). */
export interface ErrorRequestView {
  method: string;
  url: string;
}

export interface RenderedError {
  status: number;
  body: unknown;
  /** Defaults to application/json. */
  contentType?: string;
  headers?: Record<string, string>;
}

/** Turns a normalized error into the wire shape of one app. Each app picks or writes exactly one. */
export type ErrorRenderer = (error: NormalizedError, request: ErrorRequestView) => RenderedError;

export const renderMessageBody: ErrorRenderer = (error) => {
  const body: MessageErrorBody = { message: error.message };
  return { status: error.status, body };
};
