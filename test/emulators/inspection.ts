/**
 * The emulators' inspection API (`/_emulator/*`, docs/emulators.md) as tests
 * use it: {@link emulatorCall} for a step that must succeed (a person posts, a
 * fault is set), {@link emulatorAnswer} for a test of the API itself, which
 * reads the status of an answer that may be a refusal, and {@link asSeen} for
 * a message as a person reads it.
 */
import type { EmulatedMessage } from '../../src/emulators/types.js';

/** A message as a person reads it: its text, then its card's text (a Discord Components V2 message: its Text Displays). */
export const asSeen = (message: EmulatedMessage): EmulatedMessage => ({
  ...message,
  text: [message.text, message.card?.text ?? ''].filter((part) => part !== '').join('\n'),
});

/** What an inspection endpoint answered. */
export interface EmulatorAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs `body` as JSON to `<url>/_emulator/<endpoint>`: its status and JSON answer, whatever the status. */
export async function emulatorAnswer(url: string, endpoint: string, body: unknown): Promise<EmulatorAnswer> {
  const res = await fetch(`${url}/_emulator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * POSTs `body` as JSON to `<url>/_emulator/<endpoint>` and returns its JSON
 * answer; any status but 200 fails, naming the endpoint, the status and what
 * the emulator said.
 */
export async function emulatorCall<T = Record<string, unknown>>(
  url: string,
  endpoint: string,
  body: unknown,
): Promise<T> {
  const res = await fetch(`${url}/_emulator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /_emulator/${endpoint} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
