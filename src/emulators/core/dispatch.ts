/**
 * Routes one parsed request: inspection endpoints are answered by the core;
 * everything else goes to the platform handler, behind faults and limits,
 * and is recorded.
 */

import type { FaultRule } from '../types.js';
import { answerInspection, INSPECTION_PREFIX } from './inspection.js';
import type { CallNotes, EmulatorRequest, HttpAnswer, PlatformRoute } from './platform-handler.js';
import type { EmulatorState } from './state.js';

export function dispatchRequest(
  state: EmulatorState,
  req: EmulatorRequest,
): HttpAnswer | Promise<HttpAnswer> {
  if (req.path.startsWith(INSPECTION_PREFIX)) return answerInspection(state, req);
  return answerPlatformCall(state, req);
}

/** Answers (in the platform's shape) and records a request whose body could not be read (400 bad JSON, 413 too large). */
export function refuseUnreadableBody(
  state: EmulatorState,
  req: Pick<EmulatorRequest, 'method' | 'path'>,
  status: number,
): HttpAnswer {
  const answer = state.handler.errorResponse(status, undefined, 'bad-request');
  state.recorder.record({ method: req.method, path: req.path, op: 'other', status: answer.status });
  return answer;
}

function answerPlatformCall(state: EmulatorState, req: EmulatorRequest): HttpAnswer | Promise<HttpAnswer> {
  const { handler, recorder } = state;
  const record = (status: number, notes: CallNotes) =>
    recorder.record({ method: req.method, path: req.path, op: 'other', ...notes, status });

  let route: PlatformRoute | null;
  try {
    route = handler.match(req, state.context);
  } catch (error) {
    return crashed(state, req, { op: 'other' }, error);
  }
  if (!route) {
    const answer = handler.errorResponse(404, undefined, 'unknown-route');
    record(answer.status, { op: 'other' });
    return answer;
  }
  const fault = state.faultInjector.take({ op: route.op, method: req.method, path: req.path });
  // A held or delayed call is handled late (a slow write lands after those sent after it).
  if (fault?.hold === true || fault?.delayMs !== undefined) {
    const wait = fault.hold === true ? state.faultInjector.held() : delay(fault.delayMs ?? 0);
    const held = route;
    return wait.then(() => answerAfterFault(state, req, held, fault));
  }
  return answerAfterFault(state, req, route, fault);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The fault's status (before the write, or after it for a lost response), else limits and the handler. */
function answerAfterFault(
  state: EmulatorState,
  req: EmulatorRequest,
  route: PlatformRoute,
  fault: FaultRule | null,
): HttpAnswer {
  const { handler, recorder } = state;
  const record = (status: number, notes: CallNotes) =>
    recorder.record({ method: req.method, path: req.path, op: 'other', ...notes, status });
  const { handle, app, rateLimited, rateLimitSpace, ...notes } = route;
  // A refused call changed nothing: it notifies no one and pings no one.
  const refused = { ...notes, notifies: false, mentions: [] };
  const call = { op: route.op, method: req.method, path: req.path };
  if (fault?.status !== undefined && fault.applied !== true) {
    const answer = handler.errorResponse(fault.status, fault.retryAfterS, 'fault', undefined, call);
    record(answer.status, { ...refused, details: { ...notes.details, rejectedBy: 'fault' } });
    return answer;
  }

  const verdict =
    rateLimited === false
      ? { admitted: true as const, tightest: null }
      : state.limiter.take({
          op: route.op,
          space: rateLimitSpace === undefined ? route.space : rateLimitSpace,
          app: app ?? req.headers.authorization ?? 'anonymous',
        });
  if (!verdict.admitted) {
    const answer = handler.errorResponse(429, verdict.retryAfterS, 'rate-limited', verdict.tightest, call);
    record(answer.status, {
      ...refused,
      details: {
        ...notes.details,
        rejectedBy: 'rate-limit',
        bucket: verdict.tightest.bucket,
        retryAfterS: verdict.retryAfterS,
      },
    });
    return answer;
  }

  try {
    const { record: learned, ...answer } = handle({ rateLimit: verdict.tightest });
    if (fault?.status !== undefined && fault.applied === true && answer.status < 300) {
      // Applied, but the caller hears an error: recorded as what the platform did, marked as a lost response.
      record(answer.status, { ...notes, ...learned, details: { ...learned?.details, lostResponse: true } });
      return handler.errorResponse(fault.status, fault.retryAfterS, 'fault', undefined, call);
    }
    record(answer.status, { ...notes, ...learned });
    return answer;
  } catch (error) {
    return crashed(state, req, notes, error);
  }
}

/** A handler bug: answer 500 in the platform's shape and keep the reason in the record. */
function crashed(state: EmulatorState, req: EmulatorRequest, notes: CallNotes, error: unknown): HttpAnswer {
  const answer = state.handler.errorResponse(500, undefined, 'internal');
  state.recorder.record({
    method: req.method,
    path: req.path,
    op: 'other',
    ...notes,
    notifies: false,
    mentions: [],
    status: answer.status,
    details: { ...notes.details, error: error instanceof Error ? error.message : String(error) },
  });
  return answer;
}
