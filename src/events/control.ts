/**
 * Terminal control stripping for tool output: colours, cursor moves and
 * window titles are noise in a chat message and can hide text from a reader.
 */

/**
 * ANSI escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ESC \`),
 * DCS/SOS/PM/APC strings (`ESC P|X|^|_ … ESC \`), the 8-bit CSI (0x9b) and
 * the short escapes (`ESC =`, `ESC 7`, `ESC ( B`: intermediates, then one
 * final byte). Every quantified class excludes ESC, so a scan stops at the
 * next escape and the pattern stays linear on unterminated sequences.
 */
const ANSI_SEQUENCE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x9b[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]/g;

/** C0 controls except `\n` and `\t`, plus DEL. A lone `\r` (progress bars) goes too. */
const CONTROL_CHAR = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** Removes ANSI sequences and control characters; `\r\n` becomes `\n`. */
export function stripControl(text: string): string {
  return text.replace(ANSI_SEQUENCE, '').replace(/\r\n/g, '\n').replace(CONTROL_CHAR, '');
}
