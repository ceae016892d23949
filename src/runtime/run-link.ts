/**
 * The "Full log" link of a turn's log (issue 25, docs/http-api.md "The run
 * page"): added to every log frame the turn posts or edits, the same URL each
 * time, so it never makes a frame differ and never counts as a change.
 */
import type { FrameLink, SurfaceFrame } from '../surfaces/frame.js';

export const RUN_LINK_LABEL = 'Full log';

export interface RunLinkDeps {
  /** The turn's run page URL (`runs.publicUrl` set): every log frame carries it as "Full log". */
  runLink?: (turnId: string) => string | undefined;
}

export function withRunLink<R extends { frame: SurfaceFrame }>(
  request: R,
  turnId: string | undefined,
  runLink: ((turnId: string) => string | undefined) | undefined,
): R {
  if (runLink === undefined || turnId === undefined || request.frame.kind !== 'log') return request;
  const url = runLink(turnId);
  if (url === undefined) return request;
  const link: FrameLink = { label: RUN_LINK_LABEL, url };
  return { ...request, frame: { ...request.frame, link } };
}
