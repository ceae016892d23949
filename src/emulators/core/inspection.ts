/** The `/_emulator/*` inspection API (docs/emulators.md), answered the same on every platform. */
import { z } from 'zod';
import type { FaultRule, LimitRule } from '../types.js';
import { describeZodError } from './describe-zod-error.js';
import { EmulatorInputError } from './faults.js';
import type { EmulatorRequest, HttpAnswer, InboundInput } from './platform-handler.js';
import type { EmulatorState } from './state.js';

export const INSPECTION_PREFIX = '/_emulator/';

const rulesBody = z.object({ rules: z.array(z.unknown()) }).strict();
const deleteBody = z.object({ messageId: z.string().min(1) }).strict();
const appBody = z
  .object({
    url: z.url().optional(),
    secret: z.string().min(1).optional(),
    appToken: z.string().min(1).optional(),
  })
  .strict()
  .refine((app) => (app.url === undefined) !== (app.appToken === undefined), {
    message: 'give url (events over HTTP) or appToken (Slack Socket Mode), exactly one',
  })
  .refine((app) => app.appToken === undefined || app.secret === undefined, {
    message: 'a Socket Mode app (appToken) takes no secret: its events are not signed',
  });
const clickBody = z
  .object({ messageId: z.string().min(1), action: z.string().min(1), user: z.string().min(1).optional() })
  .strict();
const sinceQuery = z.coerce.number().int().nonnegative();

function parseBody<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new EmulatorInputError(`bad ${what}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

type Endpoint = (state: EmulatorState, req: EmulatorRequest) => HttpAnswer | Promise<HttpAnswer>;

const ok = (body: unknown): HttpAnswer => ({ status: 200, body });

const ENDPOINTS: Record<string, Endpoint> = {
  'GET calls': (state, req) => {
    const since = req.query.get('since');
    if (since === null) return ok({ calls: state.calls() });
    const parsed = sinceQuery.safeParse(since);
    if (!parsed.success)
      throw new EmulatorInputError(`bad since: expected a call seq (integer ≥ 0), got ${since}`);
    return ok({ calls: state.calls(parsed.data) });
  },
  'GET messages': (state, req) => {
    const space = req.query.get('space');
    if (!space)
      throw new EmulatorInputError('missing space: GET /_emulator/messages?space=<the platform space id>');
    return ok({ messages: state.messages(space) });
  },
  'POST faults': (state, req) => {
    const { rules } = parseBody(rulesBody, req.body, 'faults body');
    // The state validates each rule and names the bad field.
    return ok({ rules: state.faults(rules as FaultRule[]) });
  },
  // Lets the calls a `hold` rule keeps waiting go on (in the order they came).
  'POST release': (state) => ok({ released: state.faultInjector.release() }),
  'GET limits': (state) => ok({ rules: state.limits() }),
  'POST limits': (state, req) => {
    const { rules } = parseBody(rulesBody, req.body, 'limits body');
    return ok({ rules: state.limits(rules as LimitRule[]) });
  },
  'POST inbound': async (state, req) => {
    const result = state.inbound(req.body as InboundInput);
    const message = state.context.store.get(result.messageId);
    if (message !== undefined) await state.handler.deliverInbound?.(message, state.context);
    return ok(result);
  },
  'POST app': (state, req) => {
    const registration = parseBody(appBody, req.body, 'app body');
    if (!state.handler.registerApp) {
      throw new EmulatorInputError(
        `this ${state.platform} emulator takes no app registration (a bot connects to its gateway instead)`,
      );
    }
    state.handler.registerApp(
      {
        ...(registration.url ? { url: registration.url } : {}),
        ...(registration.secret ? { secret: registration.secret } : {}),
        ...(registration.appToken ? { appToken: registration.appToken } : {}),
      },
      state.context,
    );
    return ok({ registered: true });
  },
  'POST click': async (state, req) => {
    const click = parseBody(clickBody, req.body, 'click body');
    if (!state.handler.click) throw new EmulatorInputError(`this ${state.platform} emulator has no buttons`);
    const message = state.context.store.get(click.messageId);
    if (!message) throw new EmulatorInputError(`no message ${JSON.stringify(click.messageId)} to click`, 404);
    return ok(
      await state.handler.click(
        { messageId: click.messageId, action: click.action, ...(click.user ? { user: click.user } : {}) },
        state.context,
      ),
    );
  },
  'POST delete': (state, req) => {
    const { messageId } = parseBody(deleteBody, req.body, 'delete body');
    state.deleteMessage(messageId);
    return ok({ messageId, deleted: true });
  },
  'POST reset': (state) => {
    state.reset();
    return ok({ reset: true });
  },
};

/** Answers an inspection request; bad input → 400 (404 for an unknown message) with `{error}` naming what is wrong. */
export async function answerInspection(state: EmulatorState, req: EmulatorRequest): Promise<HttpAnswer> {
  const name = req.path.slice(INSPECTION_PREFIX.length);
  const own = state.handler.endpoints?.[`${req.method} ${name}`];
  const endpoint: Endpoint | undefined = own
    ? (_state, request) => own(request, state.context)
    : ENDPOINTS[`${req.method} ${name}`];
  if (!endpoint) {
    const known = [...Object.keys(ENDPOINTS), ...Object.keys(state.handler.endpoints ?? {})].map((key) =>
      key.replace(' ', ` ${INSPECTION_PREFIX}`),
    );
    return {
      status: 404,
      body: { error: `no emulator endpoint ${req.method} ${req.path}; known: ${known.join(', ')}` },
    };
  }
  try {
    return await endpoint(state, req);
  } catch (error) {
    if (error instanceof EmulatorInputError) return { status: error.status, body: { error: error.message } };
    throw error;
  }
}
