/** Frames for surface tests: prose, and log frames of tool lines. */
import type { FrameLine, SurfaceFrame } from '../../src/surfaces/frame.js';

export const prose = (markdown: string): SurfaceFrame => ({ kind: 'prose', markdown });

/** A tool line at `12:00:00` (plain form `• 12:00:00  <text>`). */
export const toolLine = (text: string, time = '12:00:00'): FrameLine => ({
  kind: 'tool',
  depth: 0,
  time,
  text,
});

export const logFrame = (...texts: string[]): SurfaceFrame => ({
  kind: 'log',
  lines: texts.map((t) => toolLine(t)),
});

/** A policy card asking to approve `command`. */
export const policyFrame = (id: string, command: string, title = 'Approval needed'): SurfaceFrame => ({
  kind: 'card',
  card: {
    kind: 'policy',
    id,
    title,
    body: command,
    actions: [
      { id: 'approve', label: 'Approve', style: 'primary' },
      { id: 'reject', label: 'Reject', style: 'danger' },
    ],
  },
});
