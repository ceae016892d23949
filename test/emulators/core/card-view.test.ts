/** The core's message view: rich content read by a platform lands as `card`, `buttons` and `fallbackText`, the same on every platform. */
import { describe, expect, it } from 'vitest';
import { createMessageStore, messageAsText, messageView } from '../../../src/emulators/core/index.js';

const store = createMessageStore(() => 1000);
const stored = store.create({ id: 'm1', space: 's', text: 'Deploy?', author: { kind: 'app', id: 'app' } });

describe('messageView', () => {
  it('a plain message is its text', () => {
    expect(messageView(stored)).toEqual({
      id: 'm1',
      thread: null,
      text: 'Deploy?',
      createdAt: 1000,
      updatedAt: null,
      edits: 0,
      deleted: false,
      reactions: [],
    });
  });

  it('adds the card, the buttons and the fallback text; leaves out what is empty', () => {
    const view = messageView(stored, {
      title: 'Deployment',
      lines: ['2.1.0 to production'],
      buttons: [
        { action: 'approve', label: 'Approve' },
        { action: 'reject', label: 'Reject' },
      ],
      fallbackText: 'Deployment: approve or reject',
    });
    expect(view).toMatchObject({
      card: { title: 'Deployment', text: '2.1.0 to production' },
      buttons: [
        { action: 'approve', label: 'Approve' },
        { action: 'reject', label: 'Reject' },
      ],
      fallbackText: 'Deployment: approve or reject',
    });
    expect(messageAsText(view)).toBe('Deploy?\nDeployment\n2.1.0 to production\n[Approve] [Reject]');
    expect(messageView(stored, { lines: [], buttons: [], fallbackText: '' })).toEqual(messageView(stored));
  });
});
