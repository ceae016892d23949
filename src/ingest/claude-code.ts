/**
 * Claude Code `claude -p --output-format stream-json --verbose` output →
 * run events (docs/cli.md, `turnlog replay --from claude-code`).
 *
 * - `system` init → `turn_started` (turnId: the caller's, else the session id), titled
 *   `Claude Code in <project directory>`: no user message anchors a replayed session, and a
 *   titled turn posts `🕒 <title>` and threads its log under it instead of going top-level
 * - `assistant` text blocks → `assistant`; `tool_use` blocks → `tool_call`
 * - `user` `tool_result` blocks → `tool_result`, paired with the call's tool by `tool_use_id`
 * - a `Task`/`Agent` tool_use → `subagent` started; its tool_result → `done`/`failed`.
 *   Lines a subagent emits carry `parent_tool_use_id` (the Task call's id):
 *   that id is their `subagentId`, and a subagent's own spawner becomes `parentSubagentId`.
 * - `result` → `answer` (when it has text), then `turn_ended` (`ok` unless an error subtype or `is_error`)
 *
 * A stream that ends without its result line ends the turn as `stopped`.
 * Every input line yields what it became: events, an error (malformed JSON,
 * a line that cannot be placed), or `skipped` with its type (a line type this
 * translator does not know). Known lines with nothing to show (hook output,
 * thinking blocks, a subagent's prompt) yield nothing.
 */
import { jsonErrorOf } from '../events/json-error.js';
import { type RunEvent, SPACE_PATTERN } from '../events/schema.js';
import type { NdjsonLine } from './ndjson.js';

export type TranslatedLine =
  | { line: number; event: RunEvent }
  | { line: number; error: string }
  /** `skipped`: the unknown stream-json `type` of the line. */
  | { line: number; skipped: string };

export interface ClaudeCodeTranslationOptions {
  /** The chat space every event goes to: `gchat:spaces/AAAA`, `slack:C0123ABCD`, `discord:<id>`. */
  space: string;
  /** The turn id; default: the session id of the `system` init line. */
  turnId?: string;
}

/** The tools through which Claude Code runs a subagent (`Task`, renamed `Agent` in later versions). */
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);

type JsonObject = Record<string, unknown>;
type Scope = { subagentId?: string; parentSubagentId?: string };

export async function* translateClaudeCode(
  lines: AsyncIterable<NdjsonLine> | Iterable<NdjsonLine>,
  options: ClaudeCodeTranslationOptions,
): AsyncGenerator<TranslatedLine> {
  const translator = new ClaudeCodeTranslator(options);
  let last = 0;
  for await (const { line, text } of lines) {
    last = line;
    yield* translator.translate(line, text);
  }
  yield* translator.finish(last);
}

/** The translation state of one stream: the turn, the tools called so far and the subagents running. */
export class ClaudeCodeTranslator {
  private readonly space: string;
  private readonly fixedTurnId: string | undefined;
  private turnId: string | undefined;
  private ended = false;
  /** tool_use id → tool name, to name each result. */
  private readonly tools = new Map<string, string>();
  /** Task tool_use id → the subagent it runs. */
  private readonly subagents = new Map<string, { name: string; parent?: string }>();

  constructor(options: ClaudeCodeTranslationOptions) {
    if (!SPACE_PATTERN.test(options.space)) {
      throw new RangeError(
        `translateClaudeCode: space ${JSON.stringify(options.space)} is not a platform-prefixed space (gchat:spaces/AAAA, slack:C0123ABCD, discord:<channel id>)`,
      );
    }
    if (options.turnId !== undefined && options.turnId === '') {
      throw new RangeError('translateClaudeCode: turnId must be a non-empty string when given');
    }
    this.space = options.space;
    this.fixedTurnId = options.turnId;
  }

  translate(line: number, text: string): TranslatedLine[] {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return [{ line, error: `invalid JSON: ${jsonErrorOf(error)}` }];
    }
    if (!isObject(value) || typeof value.type !== 'string') {
      return [{ line, error: 'expected a stream-json object with a string "type"' }];
    }
    try {
      const events = this.translateMessage(value, value.type);
      if (events === undefined) return [{ line, skipped: value.type }];
      return events.map((event) => ({ line, event }));
    } catch (error) {
      if (error instanceof UnplaceableLine) return [{ line, error: error.message }];
      throw error;
    }
  }

  /**
   * Ends a turn the stream left open (no result line: Claude Code was stopped
   * or crashed) as `stopped`, so its log is finalized; `line` is the last line read.
   */
  finish(line: number): TranslatedLine[] {
    if (this.turnId === undefined || this.ended) return [];
    this.ended = true;
    return [
      { line, event: { type: 'turn_ended', space: this.space, turnId: this.turnId, outcome: 'stopped' } },
    ];
  }

  /** The line's events; undefined for a line type this translator does not know. */
  private translateMessage(message: JsonObject, type: string): RunEvent[] | undefined {
    switch (type) {
      case 'system':
        return message.subtype === 'init' ? this.init(message) : [];
      case 'assistant':
        return this.assistant(message);
      case 'user':
        return this.user(message);
      case 'result':
        return this.result(message);
      default:
        return undefined;
    }
  }

  private init(message: JsonObject): RunEvent[] {
    if (this.turnId !== undefined && !this.ended) return [];
    return this.start(message);
  }

  /** Opens the turn on the init line, or on the first line of a stream that lacks one. */
  private start(message: JsonObject): RunEvent[] {
    const sessionId =
      typeof message.session_id === 'string' && message.session_id !== '' ? message.session_id : undefined;
    const turnId = this.fixedTurnId ?? sessionId;
    if (turnId === undefined) {
      throw new UnplaceableLine('no turn id: the line has no session_id (pass a turn id: --turn ID)');
    }
    this.turnId = turnId;
    this.ended = false;
    this.tools.clear();
    this.subagents.clear();
    return [{ type: 'turn_started', space: this.space, turnId, title: titleOf(message) }];
  }

  /** Events of the open turn; a stream without an init line starts the turn on its first line. */
  private inTurn(message: JsonObject, build: (turnId: string) => RunEvent[]): RunEvent[] {
    if (this.ended) {
      throw new UnplaceableLine(
        `the line comes after the result line of turn ${this.turnId}, which has ended`,
      );
    }
    const opened = this.turnId === undefined ? this.start(message) : [];
    return [...opened, ...build(this.turnId as string)];
  }

  private assistant(message: JsonObject): RunEvent[] {
    return this.inTurn(message, (turnId) => {
      const scope = this.scopeOf(message);
      const events: RunEvent[] = [];
      for (const block of contentBlocks(message)) {
        if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
          events.push({ type: 'assistant', space: this.space, turnId, ...scope, text: block.text });
        } else if (block.type === 'tool_use') {
          events.push(this.toolUse(turnId, scope, block));
        }
      }
      return events;
    });
  }

  private toolUse(turnId: string, scope: Scope, block: JsonObject): RunEvent {
    const id = requireString(block, 'id', 'tool_use');
    const tool = requireString(block, 'name', 'tool_use');
    const input = isObject(block.input) ? block.input : undefined;
    this.tools.set(id, tool);
    if (SUBAGENT_TOOLS.has(tool)) {
      const name = subagentName(input) ?? tool;
      const parent = scope.subagentId;
      this.subagents.set(id, { name, ...(parent !== undefined ? { parent } : {}) });
      return {
        type: 'subagent',
        space: this.space,
        turnId,
        subagentId: id,
        ...(parent !== undefined ? { parentSubagentId: parent } : {}),
        status: 'started',
        name,
      };
    }
    return {
      type: 'tool_call',
      space: this.space,
      turnId,
      ...scope,
      callId: id,
      tool,
      ...(input !== undefined ? { input } : {}),
    };
  }

  private user(message: JsonObject): RunEvent[] {
    return this.inTurn(message, (turnId) => {
      const scope = this.scopeOf(message);
      return contentBlocks(message)
        .filter((block) => block.type === 'tool_result')
        .map((block) => this.toolResult(turnId, scope, block));
    });
  }

  private toolResult(turnId: string, scope: Scope, block: JsonObject): RunEvent {
    const callId = requireString(block, 'tool_use_id', 'tool_result');
    const ok = block.is_error !== true;
    const subagent = this.subagents.get(callId);
    if (subagent) {
      return {
        type: 'subagent',
        space: this.space,
        turnId,
        subagentId: callId,
        ...(subagent.parent !== undefined ? { parentSubagentId: subagent.parent } : {}),
        status: ok ? 'done' : 'failed',
        name: subagent.name,
      };
    }
    const tool = this.tools.get(callId);
    if (tool === undefined) {
      throw new UnplaceableLine(`tool_result for tool_use_id ${callId}, which no earlier tool_use announced`);
    }
    const output = resultText(block.content);
    return {
      type: 'tool_result',
      space: this.space,
      turnId,
      ...scope,
      callId,
      tool,
      ok,
      ...(output !== undefined ? { output } : {}),
    };
  }

  private result(message: JsonObject): RunEvent[] {
    const events = this.inTurn(message, (turnId) => {
      const answer: RunEvent[] =
        typeof message.result === 'string' && message.result.trim() !== ''
          ? [{ type: 'answer', space: this.space, turnId, text: message.result }]
          : [];
      const ok = message.subtype === 'success' && message.is_error !== true;
      return [...answer, { type: 'turn_ended', space: this.space, turnId, outcome: ok ? 'ok' : 'error' }];
    });
    this.ended = true;
    return events;
  }

  /** The subagent a line belongs to: its `parent_tool_use_id` names the Task call that runs it. */
  private scopeOf(message: JsonObject): Scope {
    const id = message.parent_tool_use_id;
    if (typeof id !== 'string' || id === '') return {};
    const parent = this.subagents.get(id)?.parent;
    return { subagentId: id, ...(parent !== undefined ? { parentSubagentId: parent } : {}) };
  }
}

/** A line that cannot become an event (reported with its line number). */
class UnplaceableLine extends Error {}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentBlocks(message: JsonObject): JsonObject[] {
  const inner = message.message;
  const content = isObject(inner) ? inner.content : undefined;
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function requireString(block: JsonObject, field: string, what: string): string {
  const value = block[field];
  if (typeof value === 'string' && value !== '') return value;
  throw new UnplaceableLine(`a ${what} block has no "${field}"`);
}

/** `Claude Code in turnlog` from the init line's `cwd` (a POSIX or Windows path). */
function titleOf(message: JsonObject): string {
  const cwd = typeof message.cwd === 'string' ? message.cwd : '';
  const project = cwd
    .split(/[\\/]/)
    .filter((part) => part !== '')
    .at(-1);
  return project === undefined ? 'Claude Code' : `Claude Code in ${project}`;
}

function subagentName(input: JsonObject | undefined): string | undefined {
  for (const field of ['description', 'subagent_type']) {
    const value = input?.[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/** A tool_result's content: a string, or content blocks whose text blocks are joined by newlines. */
function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .filter(isObject)
    .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}
