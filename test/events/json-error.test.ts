/**
 * Node's JSON.parse quotes a piece of its input in the error message
 * (`Unexpected token 'h', "hunter2pw" is not valid JSON`): an error built from
 * it could carry a secret into a response, a dead letter or a log (issue 9).
 * jsonErrorOf keeps what went wrong and where, never the input.
 */
import { describe, expect, it } from 'vitest';
import { jsonErrorOf } from '../../src/events/json-error.js';

function errorOfParsing(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error(`parsed: ${text}`);
}

const SECRET_JSON_INPUTS: [text: string, secret: string][] = [
  ['hunter2pw', 'hunter2'],
  ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtn'],
  ['{"k": wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY}', 'wJalrXUtn'],
  ["{'password': 'hunter2pw'}", 'hunter2'],
];

describe('jsonErrorOf', () => {
  it.each(SECRET_JSON_INPUTS)('keeps no part of %j', (text, secret) => {
    const message = jsonErrorOf(errorOfParsing(text));
    expect(message).not.toContain(secret);
    expect(message).toMatch(/JSON/);
  });

  it('keeps the position and a short token', () => {
    expect(jsonErrorOf(errorOfParsing('{"a": 1,'))).toMatch(/position 8|end of JSON/);
    expect(jsonErrorOf(errorOfParsing('x'))).toBe("Unexpected token 'x' (not valid JSON)");
  });
});
