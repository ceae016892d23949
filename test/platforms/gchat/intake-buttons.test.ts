/** Reading a clicked Google Chat button back to its action id (src/platforms/gchat/intake-buttons.ts, docs/platforms.md). */
import { describe, expect, it } from 'vitest';
import { gchatButtonActionId, parameterRecord } from '../../../src/platforms/gchat/intake-buttons.js';
import { POLICY_DECISION_ACTION, renderGchatCard } from '../../../src/platforms/gchat/render.js';
import type { FrameCard } from '../../../src/surfaces/frame.js';

interface Button {
  onClick: { action: { function: string; parameters: { key: string; value: string }[] } };
}

/** The action ids of a rendered card's buttons, read back as a click reports them. */
function readBack(card: FrameCard): (string | undefined)[] {
  const [rendered] = renderGchatCard(card);
  const widgets = (rendered!.card as { sections: { widgets: { buttonList?: { buttons: Button[] } }[] }[] })
    .sections[0]!.widgets;
  const buttons = widgets.find((w) => w.buttonList)?.buttonList?.buttons ?? [];
  return buttons.map((b) =>
    gchatButtonActionId(b.onClick.action.function, parameterRecord(b.onClick.action.parameters)),
  );
}

describe('gchatButtonActionId', () => {
  it("gives back the FrameAction ids turnlog's renderer put on policy and question cards", () => {
    const actions = [
      { id: 'approve', label: 'Approve', style: 'primary' as const },
      { id: 'reject', label: 'Reject', style: 'danger' as const },
    ];
    expect(readBack({ kind: 'policy', id: 'p1', title: 'Run?', body: 'ls', actions })).toEqual([
      'approve',
      'reject',
    ]);
    expect(
      readBack({
        kind: 'question',
        id: 'q1',
        title: 'Which?',
        body: 'Pick one',
        actions: [
          { id: 'answer:0', label: 'Red' },
          { id: 'answer:1', label: 'Blue' },
        ],
      }),
    ).toEqual(['answer:0', 'answer:1']);
  });

  it('knows no button outside the turnlog. namespace, and no decision it did not render', () => {
    expect(gchatButtonActionId('other.app', { action: 'approve' })).toBeUndefined();
    expect(gchatButtonActionId(undefined, { action: 'approve' })).toBeUndefined();
    expect(gchatButtonActionId(POLICY_DECISION_ACTION, { decision: 'maybe' })).toBeUndefined();
    expect(gchatButtonActionId('turnlog.stop', { action: 'stop' })).toBe('stop');
    expect(gchatButtonActionId('turnlog.stop', { decision: 'approved' })).toBeUndefined();
  });

  it('reads [{key, value}] lists, skipping entries that are not strings', () => {
    expect(parameterRecord([{ key: 'a', value: '1' }, { key: 'b', value: 2 }, { value: '3' }])).toEqual({
      a: '1',
    });
  });
});
