import { applyDecorators, Type } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorBody } from './error-body';
import { OPERATOR_TOKEN_HEADER } from './operator-token.guard';

/** The security scheme of every operator endpoint in the OpenAPI document. */
export const OPERATOR_TOKEN_SCHEME = 'operatorToken';
export const OPERATOR_TOKEN_SECURITY = {
  type: 'apiKey',
  in: 'header',
  name: OPERATOR_TOKEN_HEADER,
} as const;

export interface OperatorAnswers {
  /** What the 200 holds. */
  type: Type;
  description: string;
  /** What is down when the answer is 503. */
  dependency?: string;
  /** The endpoint has a 409 (a refused transition). */
  conflict?: boolean;
  /** The endpoint reads no parameter and no body: no 400. */
  noInput?: boolean;
}

const error = (status: number, description: string) => ApiResponse({ status, description, type: ErrorBody });

/** The answers an operator endpoint documents: its 200, and the failures every one of them shares. */
export const ApiOperatorAnswers = ({ type, description, dependency, conflict, noInput }: OperatorAnswers) =>
  applyDecorators(
    ApiSecurity(OPERATOR_TOKEN_SCHEME),
    ApiResponse({ status: 200, description, type }),
    ...(noInput ? [] : [error(400, 'A parameter or the body is not valid (the message names it)')]),
    error(401, `Missing or wrong ${OPERATOR_TOKEN_HEADER}`),
    error(404, 'No such record (and every path while OPERATOR_TOKEN is unset)'),
    ...(conflict ? [error(409, 'The transition is not allowed from the current status')] : []),
    error(503, `${dependency ?? 'PostgreSQL'} is unavailable`),
  );
