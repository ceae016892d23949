/**
 * One recorded Slack exchange against the Web API as @slack/web-api types it
 * (slack-spec.ts) and Slack's docs on answers (docs.slack.dev/apis/web-api:
 * every answer is HTTP 200 JSON with a boolean `ok`, a failure's `error` a
 * string; over a rate limit HTTP 429 with `Retry-After` in seconds,
 * docs.slack.dev/apis/web-api/rate-limits): the method exists, the call
 * carries a token and a form or JSON body, and a 200's body matches the
 * method's response type.
 */
import {
  createChecker,
  describeExchange,
  type Erratum,
  type Finding,
  jsonOrText,
  type SchemaChecker,
} from './check.js';
import type { Exchange } from './recording-proxy.js';
import type { SlackMethod, SlackSpec } from './slack-spec.js';

const ENVELOPE = {
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
  // ok, or not ok with an error (an if/then, written as a choice).
  anyOf: [{ properties: { ok: { const: true } } }, { required: ['error'] }],
} as const;

/**
 * @slack/web-api's response types are generated from sample answers, and
 * merge every Block Kit element of a message into one shape: where two kinds
 * of element disagree, the type keeps one of them.
 */
export const SLACK_ERRATA: readonly Erratum[] = [
  {
    id: 'slack-element-text',
    says: "The response types give a block element's `text` as a text object (a button's); a context block's mrkdwn or plain_text element has `text` as a string.",
    source:
      'https://docs.slack.dev/reference/block-kit/blocks/context-block (elements: text objects, whose `text` is a string)',
    matches: (f) =>
      f.part === 'response' && /\/blocks\/\d+\/elements\/\d+\/text: must be object$/.test(f.message),
  },
  {
    id: 'slack-rich-text-style',
    says: "The response types give an element's `style` as a string (a button's `primary`/`danger`); a rich text element's `style` is an object (`{bold, italic, strike, code}`).",
    source:
      'https://docs.slack.dev/reference/block-kit/blocks/rich-text-block (rich_text_section elements: style object)',
    matches: (f) =>
      f.part === 'response' && /\/elements\/\d+\/elements\/\d+\/style: must be string$/.test(f.message),
  },
];

export function createSlackChecker(spec: SlackSpec): (x: Exchange) => Finding[] {
  const checkers = new Map<string, SchemaChecker>();
  const envelope = createChecker('slack-envelope', {});
  const checkerFor = (method: SlackMethod) => {
    let checker = checkers.get(method.response);
    if (!checker) {
      checker = createChecker(`slack-${method.response}`, spec.response(method).defs);
      checkers.set(method.response, checker);
    }
    return checker;
  };
  return (x) => {
    const exchange = describeExchange(x);
    const id = x.path.startsWith('/api/') ? x.path.slice('/api/'.length) : '';
    const method = spec.methods.get(id);
    const findings: Finding[] = [];
    const add = (part: Finding['part'], message: string) =>
      findings.push({ exchange, operation: method?.id ?? '?', part, message });
    if (!method) {
      add('operation', `no method ${id || x.path} in @slack/web-api`);
      return findings;
    }
    const type = String(x.requestHeaders['content-type'] ?? '').split(';')[0];
    if (type !== 'application/x-www-form-urlencoded' && type !== 'application/json')
      add('request', `content-type ${type || 'none'}: Slack takes a form or JSON`);
    const formToken =
      type === 'application/x-www-form-urlencoded' && new URLSearchParams(x.requestBody).has('token');
    if (!/^Bearer \S+/.test(String(x.requestHeaders.authorization ?? '')) && !formToken)
      add('request', 'no token (Authorization: Bearer, or a token field)');
    const answered = jsonOrText(x.responseBody);
    if (x.status === 429) {
      if (!/^\d+$/.test(String(x.responseHeaders['retry-after'] ?? '')))
        add('headers', '429 without Retry-After in seconds');
      return findings;
    }
    if (x.status !== 200) {
      add('response', `HTTP ${x.status}: Slack answers 200 (or 429)`);
      return findings;
    }
    for (const m of envelope.check(ENVELOPE, answered)) add('response', m);
    for (const m of checkerFor(method).check(spec.response(method).schema, answered)) add('response', m);
    return findings;
  };
}
