/**
 * Which command a flag belongs to (`-u` of curl or of docker, `-b` of curl
 * or of something else), read once along a text as String.replace walks its
 * matches: the secret shapes of flags ask it (secret-shapes.ts).
 */

/**
 * How far back a flag looks for the command it belongs to: within its line,
 * at most this many characters.
 */
const LOOK_BACK = 256;

/** A command word: at the start, after a space, a quote or a path (`/usr/bin/curl`, `sudo curl`); or a newline. */
const COMMAND_OR_NEWLINE =
  /\n|(?<![\w.-])(curl|wget|docker(?:-compose)?|podman|nerdctl|buildah|finch)(?:\.exe)?(?![\w.-])/g;

/** What was named before a flag: the last command on its line, and whether curl was one of them. */
export interface CommandsBefore {
  last: string | undefined;
  curl: boolean;
}

/**
 * The commands named before each match of one shape, read along the text as
 * String.replace walks it. Its matches come in order, so the text is searched
 * once from start to end however many flags there are (a look-back regex
 * would rescan up to LOOK_BACK characters for every flag). A new text, or an
 * offset behind the last one, starts over.
 */
export class CommandTracker {
  private text: string | undefined;
  private offset = 0;
  /** The next command or newline not yet taken into account; null when there is none. */
  private next: RegExpExecArray | null | undefined;
  private searchFrom = 0;
  private lineStart = 0;
  private last: string | undefined;
  private lastAt = -1;
  private curlAt = -1;

  before(text: string, offset: number): CommandsBefore {
    if (text !== this.text || offset < this.offset) this.start(text);
    this.offset = offset;
    for (;;) {
      if (this.next === undefined) {
        COMMAND_OR_NEWLINE.lastIndex = this.searchFrom;
        this.next = COMMAND_OR_NEWLINE.exec(text);
        this.searchFrom = COMMAND_OR_NEWLINE.lastIndex;
      }
      const m = this.next;
      if (m === null || m.index >= offset) break;
      if (m[1] === undefined) {
        this.lineStart = m.index + 1;
      } else {
        this.last = m[1];
        this.lastAt = m.index;
        if (m[1] === 'curl') this.curlAt = m.index;
      }
      this.next = undefined;
    }
    const from = Math.max(this.lineStart, offset - LOOK_BACK);
    return { last: this.lastAt >= from ? this.last : undefined, curl: this.curlAt >= from };
  }

  /** Lets go of the text (it may hold secrets) once a replace is done with it. */
  forget(): void {
    this.start(undefined);
  }

  private start(text: string | undefined): void {
    this.text = text;
    this.offset = 0;
    this.next = undefined;
    this.searchFrom = 0;
    this.lineStart = 0;
    this.last = undefined;
    this.lastAt = -1;
    this.curlAt = -1;
  }
}

/**
 * The commands named before a match on its line, from the offset and the
 * whole text String.replace passes after the capture groups.
 */
export function commandsBefore(tracker: CommandTracker, offset: unknown, text: unknown): CommandsBefore {
  return typeof offset === 'number' && typeof text === 'string'
    ? tracker.before(text, offset)
    : { last: undefined, curl: false };
}
